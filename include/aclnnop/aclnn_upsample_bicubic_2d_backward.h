/**
 * @file aclnn_upsample_bicubic_2d_backward.h
 * The gradient of bicubic 2-D resize (CANN ops-cv UpsampleBicubic2dGrad) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * The transpose of aclnnUpsampleBicubic2d's taps.
 * gradOut: (N, C, outputSize[0], outputSize[1]); gradInput: inputSize (N, C, H, W), in the order of
 * gradInput's format (NCHW / ND, or NHWC: N, H, W, C); both of one format. scalesH / scalesW: each used where
 * it is > 0.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize,
    const bool alignCorners, double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dBackward(void *workspace, uint64_t workspaceSize,
                                                               aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_
