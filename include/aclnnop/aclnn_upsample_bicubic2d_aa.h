/**
 * @file aclnn_upsample_bicubic2d_aa.h
 * Antialiased bicubic 2-D resize (CANN ops-cv UpsampleBicubic2dAA, forward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * Keys' cubic (a = -0.5) stretched by the shrink factor, each output's weights normalised to sum 1. An empty
 * x or out is an empty result, before any other check.
 * x: (N, C, H, W), out: (N, C, outputSize[0], outputSize[1]), both NCHW or ND, N, C, H, W > 0. scalesH /
 * scalesW
 * (>= 0): each used on its axis where it is > 0. A shrink beyond 50 is refused.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(
    const aclTensor *x, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAA(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_
