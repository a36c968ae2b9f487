/**
 * @file aclnn_upsample_bilinear2d_aa.h
 * Antialiased bilinear 2-D resize (CANN ops-cv UpsampleBilinear2dAA, forward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * A triangle filter stretched by the shrink factor, each output's weights normalised to sum 1.
 * input: (N, C, H, W), out: (N, C, outputSize[0], outputSize[1]), both NCHW or ND, N, C, H, W > 0. scalesH /
 * scalesW
 * (>= 0): each used on its axis where it is > 0. A shrink beyond 50 (in / out) is refused.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(
    const aclTensor *input, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAA(void *workspace, uint64_t workspaceSize,
                                                          aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_
