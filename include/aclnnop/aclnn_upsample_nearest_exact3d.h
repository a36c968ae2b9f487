/**
 * @file aclnn_upsample_nearest_exact3d.h
 * Nearest-exact 3-D upsampling (CANN ops-cv UpsampleNearestExact3d) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, D, H, W) in NCDHW / ND or NDHWC, out: (N, C, outputSize[0..2]) in the same format.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact3dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, double scalesD, double scalesH, double scalesW,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact3d(void *workspace, uint64_t workspaceSize,
                                                            aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_H_
