/**
 * @file aclnn_upsample_bilinear_2d_backward_v2.h
 * The gradient of bilinear 2-D upsampling (CANN ops-cv UpsampleBilinear2dBackwardV2) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * gradOut: (N, C, outputSize[0], outputSize[1]); out (the input gradient): inputSize (N, C, H, W), in the
 * order of gradOut's format (NCHW / ND, or NHWC: N, H, W, C). scalesH and scalesW are used, each on its axis,
 * when both give the output sizes (floor(in * s)); otherwise the sizes decide.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackwardV2(void *workspace, uint64_t workspaceSize,
                                                                  aclOpExecutor *executor,
                                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_
