/**
 * @file aclnn_upsample_nearest_2d_v2.h
 * Nearest 2-D upsampling with float scales (CANN ops-cv UpsampleNearest2dV2) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_V2_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, H, W) in NCHW / ND or NHWC, out: (N, C, outputSize[0], outputSize[1]) in the same format. A
 * scale > 0 gives that axis the source step 1 / scale, else in / out (docs/spec.md).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, float scalesH, float scalesW, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2dV2(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_V2_H_
