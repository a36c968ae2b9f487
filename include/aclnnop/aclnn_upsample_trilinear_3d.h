/**
 * @file aclnn_upsample_trilinear_3d.h
 * Trilinear 3-D upsampling (CANN ops-cv UpsampleTrilinear3d, forward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, iD, iH, iW) in its format; out: (N, C, outputSize[0..2]) in its format.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, bool alignCorners, double scalesD, double scalesH,
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleTrilinear3d(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_
