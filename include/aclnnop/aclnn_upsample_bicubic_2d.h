/**
 * @file aclnn_upsample_bicubic_2d.h
 * Bicubic 2-D resize (CANN ops-cv UpsampleBicubic2d, forward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * Keys' cubic convolution (a = -0.75), four taps per axis, clamped at the edges.
 * self: (N, C, H, W) with C, H, W > 0, out: (N, C, outputSize[0], outputSize[1]), both NCHW (ND) or both
 * NHWC. scalesH / scalesW: each used on its axis where it is > 0 (then floor(in * scale) must be the output
 * size).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2d(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_
