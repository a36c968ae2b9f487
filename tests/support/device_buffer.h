// aclrtMalloc'd memory for the tests that need plain device bytes (the runtime tests, the validation
// matrix's raw tensors), freed on scope exit.
#ifndef TRILINEAR3D_TESTS_SUPPORT_DEVICE_BUFFER_H_
#define TRILINEAR3D_TESTS_SUPPORT_DEVICE_BUFFER_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl.h"

namespace trilinear3d::test {

// Filled with a canary byte (0xA5) so that "nothing written" can be checked; freed on scope exit,
// which must come after the caller has synchronized the streams that use it.
class DeviceBuffer {
 public:
  static constexpr uint8_t kCanary = 0xA5;

  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    EXPECT_EQ(aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(data_, bytes_, kCanary, bytes_), ACL_SUCCESS);
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) {
      EXPECT_EQ(aclrtFree(data_), ACL_SUCCESS);
    }
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void *data() const { return data_; }
  // The memory itself (on this CPU runtime device memory is host memory).
  unsigned char *bytes() const { return static_cast<unsigned char *>(data_); }
  size_t size() const { return bytes_; }

  // A copy of the contents, through aclrtMemcpy.
  std::vector<uint8_t> Bytes() const {
    std::vector<uint8_t> bytes(bytes_);
    EXPECT_EQ(aclrtMemcpy(bytes.data(), bytes.size(), data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return bytes;
  }

 private:
  void *data_ = nullptr;
  size_t bytes_;
};

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_DEVICE_BUFFER_H_
