/**
 * @file aclnn_upsample_bilinear2d_aa_backward.h
 * The gradient of antialiased bilinear 2-D resize (CANN ops-cv UpsampleBilinear2dAABackward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * The transpose of aclnnUpsampleBilinear2dAA's taps.
 * gradOutput: (N, C, outputSize[0], outputSize[1]); out (the input gradient): inputSize (N, C, H, W); both
 * NCHW or ND, every size > 0. scalesH / scalesW (>= 0): each used where it is > 0. A growth beyond 50 (out /
 * in) is refused.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAABackward(void *workspace, uint64_t workspaceSize,
                                                                  aclOpExecutor *executor,
                                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_
