/**
 * @file aclnn_base.h
 * aclnn status codes and meta objects (CANN values).
 */
#ifndef TRILINEAR3D_ACLNN_ACLNN_BASE_H_
#define TRILINEAR3D_ACLNN_ACLNN_BASE_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

static const aclnnStatus ACLNN_SUCCESS = 0;
static const aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
static const aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
static const aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
static const aclnnStatus ACLNN_ERR_INNER = 561000;
static const aclnnStatus ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001;
static const aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
static const aclnnStatus ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;
static const aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;

/**
 * Frees an executor returned by a GetWorkspaceSize call that will not be run (a successful run
 * frees its executor itself). An unknown, already run or destroyed executor gives
 * ACLNN_ERR_PARAM_INVALID; null gives ACLNN_ERR_PARAM_NULLPTR.
 */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNN_ACLNN_BASE_H_
