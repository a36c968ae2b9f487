/**
 * @file acl_meta.h
 * aclnn meta objects: tensors (view over a storage), scalars and int / float / bool arrays.
 */
#ifndef TRILINEAR3D_ACLNN_ACL_META_H_
#define TRILINEAR3D_ACLNN_ACL_META_H_

#include "acl/acl_base.h"

#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclOpExecutor aclOpExecutor;

typedef int32_t aclnnStatus;

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

/**
 * A scalar holding a copy of *value, read as dataType: every fixed-size aclDataType (the integers,
 * ACL_BOOL, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE, the complex types). Null for a null value or
 * a type without a fixed element size (ACL_STRING, ACL_INT4, ACL_UINT1, unknown values).
 */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);
ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);

/** Sizes of the arrays. Null arguments give ACLNN_ERR_PARAM_NULLPTR (161001). */
ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size);

/**
 * Tensor getters. The array-returning ones allocate the array with new[]: the caller frees it with
 * delete[]. Null arguments give ACLNN_ERR_PARAM_NULLPTR (161001).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims,
                                                uint64_t *viewDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                                   uint64_t *storageDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                                  uint64_t *stridesNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);

#ifdef __cplusplus
}
#endif

#endif  // TRILINEAR3D_ACLNN_ACL_META_H_
