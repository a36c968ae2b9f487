/**
 * @file aclnn_upsample_linear_1d.h
 * Linear 1-D upsampling (CANN ops-cv UpsampleLinear1d, forward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, L), out: (N, C, outputSize[0]) (formats ND or NCL). scale: the L factor; a scale >= 0 must
 * give outputSize[0] = floor(L * scale), a negative one is "not given" (docs/spec.md).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleLinear1dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, const double scale,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleLinear1d(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_H_
