/**
 * @file aclnn_upsample_nearest_exact3d_backward.h
 * The gradient of nearest-exact 3-D upsampling (CANN ops-cv UpsampleNearestExact3dBackward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * gradOut: (N, C, outputSize[0..2]); gradInput: inputSize (N, C, D, H, W), NCDHW / ND or NDHWC.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact3dBackward(void *workspace, uint64_t workspaceSize,
                                                                    aclOpExecutor *executor,
                                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_
