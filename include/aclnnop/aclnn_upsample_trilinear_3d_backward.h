/**
 * @file aclnn_upsample_trilinear_3d_backward.h
 * Gradient of trilinear 3-D upsampling (CANN ops-cv UpsampleTrilinear3dBackward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates the arguments (see docs/spec.md §4 for the order and codes), plans the
 * computation and returns the workspace size and a single-use executor.
 * gradOut: (N, C, outputSize[0..2]) in its format; gradInput: inputSize in its format.
 * Formats ND / NCDHW (view N,C,D,H,W) and NDHWC (view N,D,H,W,C). dtypes FLOAT, FLOAT16, BF16, DOUBLE.
 * scalesD/H/W are used only when all three are > 0.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesD, double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/**
 * Phase 2: enqueues the planned work on stream (null: the default stream) and returns.
 * The executor is consumed by a successful call.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleTrilinear3dBackward(void *workspace, uint64_t workspaceSize,
                                                                 aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_
