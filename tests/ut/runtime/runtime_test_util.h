// Shared pieces of the runtime tests: the seed sample's backward call enqueued on a
// stream, work that keeps a stream busy for a while, and a check of bytes.
#ifndef TRILINEAR3D_TESTS_UT_RUNTIME_RUNTIME_TEST_UTIL_H_
#define TRILINEAR3D_TESTS_UT_RUNTIME_RUNTIME_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "device_buffer.h"

namespace trilinear3d::test {

// The seed sample: gradOut 2x2x2x2x2 holding 1..32, gradInput 2x2x1x1x1; the result is 36/100/164/228.
constexpr size_t kSeedGradOutCount = 32;
constexpr size_t kSeedGradInputCount = 4;
inline const float kSeedExpected[kSeedGradInputCount] = {36.0f, 100.0f, 164.0f, 228.0f};

inline std::vector<float> SeedGradOut() {
  std::vector<float> values(kSeedGradOutCount);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i + 1);
  return values;
}

// Whether each of the count bytes at data is value.
inline bool AllBytesAre(const unsigned char *data, size_t count, unsigned char value) {
  for (size_t i = 0; i < count; ++i) {
    if (data[i] != value) return false;
  }
  return true;
}

// The workspace of an enqueued operator: it must outlive the run, so it is freed on scope exit, after
// the caller has synchronized the stream.
class Workspace {
 public:
  Workspace() = default;
  ~Workspace() {
    if (data_ != nullptr) {
      EXPECT_EQ(aclrtFree(data_), ACL_SUCCESS);
    }
  }
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;
  aclError Allocate(uint64_t bytes) {
    if (bytes == 0) return ACL_SUCCESS;
    return aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_NORMAL_ONLY);
  }
  void *data() const { return data_; }

 private:
  void *data_ = nullptr;
};

// Plans the seed's backward over the two device buffers and enqueues it on stream.
inline aclnnStatus EnqueueSeedBackward(aclrtStream stream, void *gradOutDev, void *gradInputDev,
                                       Workspace &workspace) {
  const int64_t outShape[] = {2, 2, 2, 2, 2};
  const int64_t outStrides[] = {16, 8, 4, 2, 1};
  const int64_t inShape[] = {2, 2, 1, 1, 1};
  const int64_t inStrides[] = {2, 1, 1, 1, 1};
  aclTensor *gradOut =
      aclCreateTensor(outShape, 5, ACL_FLOAT, outStrides, 0, ACL_FORMAT_NCDHW, outShape, 5, gradOutDev);
  aclTensor *gradInput =
      aclCreateTensor(inShape, 5, ACL_FLOAT, inStrides, 0, ACL_FORMAT_NCDHW, inShape, 5, gradInputDev);
  aclIntArray *outputSize = aclCreateIntArray(outShape + 2, 3);
  aclIntArray *inputSize = aclCreateIntArray(inShape, 5);
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus status = aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
      gradOut, outputSize, inputSize, false, 0.0, 0.0, 0.0, gradInput, &workspaceSize, &executor);
  aclDestroyTensor(gradOut);
  aclDestroyTensor(gradInput);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  if (status != ACLNN_SUCCESS) return status;
  if (workspace.Allocate(workspaceSize) != ACL_SUCCESS) {
    aclDestroyAclOpExecutor(executor);
    return ACLNN_ERR_INNER;
  }
  return aclnnUpsampleTrilinear3dBackward(workspace.data(), workspaceSize, executor, stream);
}

// Enough copying to keep a stream busy for several milliseconds on any machine: `copies` copies of
// 32 MiB between two buffers (at least 0.5 GiB of memory traffic for 8 copies).
class BusyWork {
 public:
  static constexpr size_t kBytes = size_t{32} << 20;
  BusyWork() : a_(kBytes), b_(kBytes) {}
  void Enqueue(aclrtStream stream, int copies = 8) {
    for (int i = 0; i < copies; ++i) {
      void *dst = i % 2 == 0 ? b_.data() : a_.data();
      const void *src = i % 2 == 0 ? a_.data() : b_.data();
      ASSERT_EQ(aclrtMemcpyAsync(dst, kBytes, src, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), ACL_SUCCESS);
    }
  }

 private:
  DeviceBuffer a_;
  DeviceBuffer b_;
};

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_UT_RUNTIME_RUNTIME_TEST_UTIL_H_
