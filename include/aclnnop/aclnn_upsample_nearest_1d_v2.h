/**
 * @file aclnn_upsample_nearest_1d_v2.h
 * Nearest 1-D upsampling with a float scale (CANN ops-cv UpsampleNearest1dV2) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_V2_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, L), out: (N, C, outputSize[0]). scaleL > 0 gives the source step 1 / scaleL, else L /
 * outputSize[0] (docs/spec.md).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest1dV2GetWorkspaceSize(const aclTensor *self,
                                                                         const aclIntArray *outputSize,
                                                                         float scaleL, aclTensor *out,
                                                                         uint64_t *workspaceSize,
                                                                         aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest1dV2(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_V2_H_
