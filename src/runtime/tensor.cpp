// aclnn meta objects (tensors, int / float arrays) and the fp16 scalar helpers.
//
// Creation only copies and checks what is needed to copy safely (counts and pointers); the values
// (dtype, format, shape, strides against the storage, data) are validated by the operator that
// uses the tensor, which can name the offending argument.
#include <cstdint>
#include <exception>
#include <new>

#include "aclnn/acl_meta.h"
#include "common/half_convert.h"
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

template <typename Array, typename Value>
Array *CreateArray(const char *function, const Value *value, uint64_t size) {
  if (size > 0 && value == nullptr) {
    ReportError("%s: value is null but size is %llu", function, static_cast<unsigned long long>(size));
    return nullptr;
  }
  try {
    auto *array = new Array;
    if (size > 0) array->values.assign(value, value + size);
    return array;
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
  try {
    auto *tensor = new aclTensor;
    tensor->viewDims.assign(viewDims, viewDims + viewDimsNum);
    tensor->strides.assign(stride, stride + viewDimsNum);
    tensor->offset = offset;
    tensor->storageDims.assign(storageDims, storageDims + storageDimsNum);
    tensor->dataType = static_cast<int32_t>(dataType);
    tensor->format = static_cast<int32_t>(format);
    tensor->data = tensorData;
    return tensor;
  } catch (const std::bad_alloc &) {
    ReportError("aclCreateTensor: out of memory");
    return nullptr;
  }
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

aclFloat16 aclFloatToFloat16(float value) { return trilinear3d::FloatToHalf(value); }

float aclFloat16ToFloat(aclFloat16 value) { return trilinear3d::HalfToFloat(value); }
