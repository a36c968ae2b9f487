/**
 * @file acl_meta.h
 * aclnn meta objects: tensors (view over a storage) and int / float arrays.
 */
#ifndef TRILINEAR3D_ACLNN_ACL_META_H_
#define TRILINEAR3D_ACLNN_ACL_META_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclTensor aclTensor;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclOpExecutor aclOpExecutor;

/**
 * A view of viewDims (numDims) with strides in elements and an offset in elements over a
 * storage of storageDims (any shape; only its element count matters) starting at tensorData.
 * Returns null (message in aclGetRecentErrMsg) for negative numDims, null dims or strides
 * with numDims > 0, or more than 8 dims.
 */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride, int64_t offset,
                                               aclFormat format, const int64_t *storageDims,
                                               uint64_t storageDimsNum, void *tensorData);
ACL_FUNC_VISIBILITY aclError aclDestroyTensor(const aclTensor *tensor);

ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
ACL_FUNC_VISIBILITY aclError aclDestroyIntArray(const aclIntArray *array);
ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
ACL_FUNC_VISIBILITY aclError aclDestroyFloatArray(const aclFloatArray *array);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNN_ACL_META_H_
