/**
 * @file aclnn_resize.h
 * Resize by scale factors (CANN ops-cv Resize: mode "nearest" or "bilinear") on the CPU.
 */
#ifndef TRILINEAR3D_ACLNNOP_ACLNN_RESIZE_H_
#define TRILINEAR3D_ACLNNOP_ACLNN_RESIZE_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1: validates, plans, returns workspace size and a single-use executor.
 * self: (N, C, H, W); scales: four factors (N, C, H, W); mode: "nearest" or "bilinear"; out: (N, C,
 * floor(H * scales[2]), floor(W * scales[3])) (docs/spec.md).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnResizeGetWorkspaceSize(const aclTensor *self,
                                                            const aclFloatArray *scales, const char *mode,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

/** Phase 2: enqueues the planned work on stream (null: the default stream). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnResize(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNNOP_ACLNN_RESIZE_H_
