/**
 * @file aclnn_upsample_bilinear_2d_backward.h
 * The gradient of bilinear 2-D upsampling (CANN ops-cv UpsampleBilinear2dBackward, V1) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * gradOut: (N, C, outputSize[0], outputSize[1]); out (the input gradient): inputSize (N, C, H, W), in the
 * order of its format (NCHW / ND, or NHWC: inputSize is then N, H, W, C). scalesH and scalesW are not used
 * (CANN's V1: the sizes decide); aclnnUpsampleBilinear2dBackwardV2 takes them.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackward(void *workspace, uint64_t workspace_size,
                                                                aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_
