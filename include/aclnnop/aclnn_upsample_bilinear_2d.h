/**
 * @file aclnn_upsample_bilinear_2d.h
 * Bilinear 2-D upsampling (CANN ops-cv UpsampleBilinear2d, forward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, H, W), out: (N, C, outputSize[0], outputSize[1]), both NCHW (ND) or both NHWC. scalesH and
 * scalesW (>= 0) are used when both are > 0 and give the output sizes (floor(in * s)); else the sizes decide.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2d(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_
