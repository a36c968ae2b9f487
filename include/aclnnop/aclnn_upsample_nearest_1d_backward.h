/**
 * @file aclnn_upsample_nearest_1d_backward.h
 * The gradient of nearest 1-D upsampling (CANN ops-cv UpsampleNearest1dBackward) on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * gradOut: (N, C, outputSize[0]); out (the input gradient): inputSize (N, C, L). Each input sums the
 * gradients of the outputs that took it.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest1dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, double scales,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest1dBackward(void *workspace, uint64_t workspaceSize,
                                                               aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_
