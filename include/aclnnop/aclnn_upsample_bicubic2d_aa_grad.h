/**
 * @file aclnn_upsample_bicubic2d_aa_grad.h
 * The gradient of antialiased bicubic 2-D resize (CANN ops-cv UpsampleBicubic2dAAGrad) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * The transpose of aclnnUpsampleBicubic2dAA's taps.
 * gradOutput: (N, C, outputSize[0], outputSize[1]); out (the input gradient): inputSize (N, C, H, W); both
 * NCHW or ND, every size > 0. scalesH / scalesW (>= 0): each used where it is > 0. A growth beyond 50 (out /
 * in) is refused.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAAGrad(void *workspace, uint64_t workspaceSize,
                                                             aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_
