/**
 * @file aclnn_upsample_nearest_1d.h
 * Nearest 1-D upsampling (CANN ops-cv UpsampleNearest1d, sizes only) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, L), out: (N, C, outputSize[0]). Source index min(floor(l * L / outputSize[0]), L - 1).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest1dGetWorkspaceSize(const aclTensor *self,
                                                                       const aclIntArray *outputSize,
                                                                       aclTensor *out,
                                                                       uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest1d(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_
