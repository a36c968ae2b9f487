// Building blocks of the validation tests: raw tensors with any dims / strides / storage (also
// invalid ones), int arrays, and the check that a call was rejected with a useful message.
#ifndef TRILINEAR3D_TESTS_UT_VALIDATION_HELPERS_H_
#define TRILINEAR3D_TESTS_UT_VALIDATION_HELPERS_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace trilinear3d::test {

// aclrtMalloc'd bytes, filled with a canary so that "nothing written" can be checked.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    EXPECT_EQ(aclrtMalloc(&ptr_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(ptr_, bytes_, 0xA5, bytes_), ACL_SUCCESS);
  }
  ~DeviceBuffer() { aclrtFree(ptr_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void *get() const { return ptr_; }
  std::vector<uint8_t> Bytes() const {
    std::vector<uint8_t> bytes(bytes_);
    EXPECT_EQ(aclrtMemcpy(bytes.data(), bytes.size(), ptr_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return bytes;
  }

 private:
  void *ptr_ = nullptr;
  size_t bytes_;
};

// Row-major strides of dims, computed without signed overflow (wraps are the caller's problem).
inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(dims.size());
  uint64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(std::max<int64_t>(dims[i], 1));
  }
  return strides;
}

// An aclTensor exactly as described; strides default to contiguous, storage to the view dims.
class RawTensor {
 public:
  RawTensor(const std::vector<int64_t> &dims, aclDataType dtype, aclFormat format, void *data,
            std::vector<int64_t> strides = {}, int64_t offset = 0, std::vector<int64_t> storageDims = {}) {
    if (strides.empty()) strides = ContiguousStrides(dims);
    if (storageDims.empty()) storageDims = dims;
    tensor_ = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), offset, format,
                              storageDims.data(), storageDims.size(), data);
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
  }
  ~RawTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  }
  RawTensor(const RawTensor &) = delete;
  RawTensor &operator=(const RawTensor &) = delete;
  aclTensor *get() const { return tensor_; }

 private:
  aclTensor *tensor_ = nullptr;
};

class IntArray {
 public:
  IntArray(std::initializer_list<int64_t> values) : IntArray(std::vector<int64_t>(values)) {}
  explicit IntArray(const std::vector<int64_t> &values) {
    array_ = aclCreateIntArray(values.data(), values.size());
    EXPECT_NE(array_, nullptr);
  }
  ~IntArray() {
    if (array_ != nullptr) aclDestroyIntArray(array_);
  }
  IntArray(const IntArray &) = delete;
  IntArray &operator=(const IntArray &) = delete;
  aclIntArray *get() const { return array_; }

 private:
  aclIntArray *array_ = nullptr;
};

inline std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The call returned `expected`, aclGetRecentErrMsg names one of `names` (case-insensitive), and
// reading the message again gives "" (it is cleared by reading).
inline ::testing::AssertionResult Rejected(aclnnStatus status, aclnnStatus expected,
                                           std::initializer_list<const char *> names) {
  const std::string message = aclGetRecentErrMsg();
  const std::string again = aclGetRecentErrMsg();
  if (status != expected) {
    return ::testing::AssertionFailure()
           << "status " << status << ", expected " << expected << " (message: \"" << message << "\")";
  }
  if (message.empty()) return ::testing::AssertionFailure() << "aclGetRecentErrMsg() is empty";
  bool named = false;
  std::string wanted;
  for (const char *name : names) {
    named = named || Lower(message).find(Lower(name)) != std::string::npos;
    wanted += std::string(wanted.empty() ? "" : " or ") + name;
  }
  if (!named)
    return ::testing::AssertionFailure() << "message \"" << message << "\" does not name " << wanted;
  if (!again.empty())
    return ::testing::AssertionFailure() << "second read gave \"" << again << "\", expected \"\"";
  return ::testing::AssertionSuccess();
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_UT_VALIDATION_HELPERS_H_
