// aclnn meta objects (tensors, scalars, int / float / bool arrays), their getters and the fp16
// scalar helpers.
//
// Creation only copies and checks what is needed to copy safely (counts and pointers); the values
// (dtype, format, shape, strides against the storage, data) are validated by the operator that
// uses the tensor, which can name the offending argument.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "common/half_convert.h"
#include "runtime/enum_bits.h"
#include "runtime/error.h"
#include "runtime/meta_objects.h"

namespace trilinear3d::runtime {
namespace {

// CANN's limit on the number of dimensions of any shape.
constexpr uint64_t kMaxDims = 8;

// Checks a (pointer, count) pair that describes a shape; reports and returns false when unusable.
bool CheckDims(const char *what, const int64_t *dims, uint64_t count) {
  if (count > kMaxDims) {
    ReportError("aclCreateTensor: %s has %llu dims, more than the maximum of %llu", what,
                static_cast<unsigned long long>(count), static_cast<unsigned long long>(kMaxDims));
    return false;
  }
  if (count > 0 && dims == nullptr) {
    ReportError("aclCreateTensor: %s is null but its count is %llu", what,
                static_cast<unsigned long long>(count));
    return false;
  }
  return true;
}

// A new Object that fill has set up, or null (reported) when memory runs out; a partly filled
// object is freed.
template <typename Object, typename Fill>
Object *NewObject(const char *function, Fill fill) {
  try {
    auto object = std::make_unique<Object>();
    fill(*object);
    return object.release();
  } catch (const std::bad_alloc &) {
    ReportError("%s: out of memory", function);
    return nullptr;
  }
}

template <typename Array, typename Value>
Array *CreateArray(const char *function, const Value *value, uint64_t size) {
  if (size > 0 && value == nullptr) {
    ReportError("%s: value is null but size is %llu", function, static_cast<unsigned long long>(size));
    return nullptr;
  }
  try {
    auto array = std::make_unique<Array>();
    if (size > 0) array->values.assign(value, value + size);
    return array.release();
  } catch (const std::exception &) {  // std::bad_alloc, or std::length_error for an absurd size
    ReportError("%s: cannot allocate an array of %llu values", function,
                static_cast<unsigned long long>(size));
    return nullptr;
  }
}

template <typename Object>
aclError DestroyObject(const char *function, const Object *object) {
  if (object == nullptr) {
    ReportError("%s: the argument is null", function);
    return ACL_ERROR_INVALID_PARAM;
  }
  delete object;
  return ACL_SUCCESS;
}

// Bytes of one element of an aclDataType with a fixed element size; 0 for the others (ACL_STRING,
// the sub-byte ACL_INT4 / ACL_UINT1, undefined or unknown values).
size_t ScalarSize(int32_t dataType) {
  switch (dataType) {
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

// Copies values into a new[] array for a getter's caller, who frees it with delete[] (CANN's contract).
aclnnStatus CopyOut(const char *function, const std::vector<int64_t> &values, int64_t **out,
                    uint64_t *count) {
  try {
    auto *copy = new int64_t[values.size()];
    std::copy(values.begin(), values.end(), copy);
    *out = copy;
    *count = values.size();
    return ACLNN_SUCCESS;
  } catch (const std::bad_alloc &) {
    ReportError("%s: out of memory", function);
    return ACLNN_ERR_INNER;
  }
}

// Reports and returns true when any of the getter's arguments is null.
bool AnyNull(const char *function, const void *object, const void *out, const void *count = "") {
  if (object != nullptr && out != nullptr && count != nullptr) return false;
  ReportError("%s: %s is null", function, object == nullptr ? "the object" : "an output pointer");
  return true;
}

template <typename Array>
aclnnStatus GetArraySize(const char *function, const Array *array, uint64_t *size) {
  if (AnyNull(function, array, size)) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace trilinear3d::runtime

using trilinear3d::runtime::ReportError;

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
  using trilinear3d::runtime::CheckDims;
  // A negative count from a C caller arrives as a huge unsigned value and fails the limit check.
  if (!CheckDims("viewDims", viewDims, viewDimsNum) || !CheckDims("stride", stride, viewDimsNum) ||
      !CheckDims("storageDims", storageDims, storageDimsNum)) {
    return nullptr;
  }
  const int32_t type = trilinear3d::runtime::EnumBits(dataType);
  const int32_t layout = trilinear3d::runtime::EnumBits(format);
  return trilinear3d::runtime::NewObject<aclTensor>("aclCreateTensor", [&](aclTensor &tensor) {
    tensor.viewDims.assign(viewDims, viewDims + viewDimsNum);
    tensor.strides.assign(stride, stride + viewDimsNum);
    tensor.offset = offset;
    tensor.storageDims.assign(storageDims, storageDims + storageDimsNum);
    tensor.dataType = type;
    tensor.format = layout;
    tensor.data = tensorData;
  });
}

aclError aclDestroyTensor(const aclTensor *tensor) {
  return trilinear3d::runtime::DestroyObject("aclDestroyTensor", tensor);
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  return trilinear3d::runtime::CreateArray<aclIntArray>("aclCreateIntArray", value, size);
}

aclError aclDestroyIntArray(const aclIntArray *array) {
  return trilinear3d::runtime::DestroyObject("aclDestroyIntArray", array);
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
  return trilinear3d::runtime::CreateArray<aclFloatArray>("aclCreateFloatArray", value, size);
}

aclError aclDestroyFloatArray(const aclFloatArray *array) {
  return trilinear3d::runtime::DestroyObject("aclDestroyFloatArray", array);
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
  const int32_t type = trilinear3d::runtime::EnumBits(dataType);
  const size_t size = trilinear3d::runtime::ScalarSize(type);
  if (size == 0) {
    ReportError("aclCreateScalar: dataType %d has no fixed element size a scalar can hold",
                static_cast<int>(type));
    return nullptr;
  }
  if (value == nullptr) {
    ReportError("aclCreateScalar: value is null");
    return nullptr;
  }
  return trilinear3d::runtime::NewObject<aclScalar>("aclCreateScalar", [&](aclScalar &scalar) {
    scalar.dataType = type;
    scalar.size = size;
    std::memcpy(scalar.value, value, size);
  });
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
  return trilinear3d::runtime::DestroyObject("aclDestroyScalar", scalar);
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  return trilinear3d::runtime::CreateArray<aclBoolArray>("aclCreateBoolArray", value, size);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
  return trilinear3d::runtime::DestroyObject("aclDestroyBoolArray", array);
}

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
  return trilinear3d::runtime::GetArraySize("aclGetIntArraySize", array, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size) {
  return trilinear3d::runtime::GetArraySize("aclGetFloatArraySize", array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) {
  return trilinear3d::runtime::GetArraySize("aclGetBoolArraySize", array, size);
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
  const char *function = "aclGetViewShape";
  if (trilinear3d::runtime::AnyNull(function, tensor, viewDims, viewDimsNum)) return ACLNN_ERR_PARAM_NULLPTR;
  return trilinear3d::runtime::CopyOut(function, tensor->viewDims, viewDims, viewDimsNum);
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
  const char *function = "aclGetStorageShape";
  if (trilinear3d::runtime::AnyNull(function, tensor, storageDims, storageDimsNum))
    return ACLNN_ERR_PARAM_NULLPTR;
  return trilinear3d::runtime::CopyOut(function, tensor->storageDims, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
  const char *function = "aclGetViewStrides";
  if (trilinear3d::runtime::AnyNull(function, tensor, stridesValue, stridesNum))
    return ACLNN_ERR_PARAM_NULLPTR;
  return trilinear3d::runtime::CopyOut(function, tensor->strides, stridesValue, stridesNum);
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
  if (trilinear3d::runtime::AnyNull("aclGetViewOffset", tensor, offset)) return ACLNN_ERR_PARAM_NULLPTR;
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}

// A value given at creation is returned as it was when it lies within the enumeration's range (gaps
// included); one beyond it comes back as the UNDEFINED enumerator, because an enum object holding a
// value outside its range is undefined behaviour in the caller's C++.
aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
  if (trilinear3d::runtime::AnyNull("aclGetFormat", tensor, format)) return ACLNN_ERR_PARAM_NULLPTR;
  const int32_t value = tensor->format;
  *format = value >= ACL_FORMAT_UNDEFINED && value <= ACL_FORMAT_NCL ? static_cast<aclFormat>(value)
                                                                     : ACL_FORMAT_UNDEFINED;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
  if (trilinear3d::runtime::AnyNull("aclGetDataType", tensor, dataType)) return ACLNN_ERR_PARAM_NULLPTR;
  const int32_t value = tensor->dataType;
  *dataType = value >= ACL_DT_UNDEFINED && value <= ACL_COMPLEX32 ? static_cast<aclDataType>(value)
                                                                  : ACL_DT_UNDEFINED;
  return ACLNN_SUCCESS;
}

aclFloat16 aclFloatToFloat16(float value) { return trilinear3d::FloatToHalf(value); }

float aclFloat16ToFloat(aclFloat16 value) { return trilinear3d::HalfToFloat(value); }
