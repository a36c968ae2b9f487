// aclrtMemcpyAsync / aclrtMemsetAsync (enqueued, ordered with the other work on the stream, checked at
// the call) and aclrtSynchronizeStreamWithTimeout.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "runtime_test_util.h"

namespace trilinear3d::test {
namespace {

class AsyncMemory : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  void TearDown() override {
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
  }

  // The enqueue returned ACL_ERROR_INVALID_PARAM with a message holding `message`, and once the stream
  // drains, the zero-filled target still holds only zeros: the rejected call queued nothing.
  void ExpectRejectedLeavingZeros(aclError status, const char *message, const DeviceBuffer &target) {
    EXPECT_EQ(status, ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(message), std::string::npos) << message;
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_TRUE(AllBytesAre(target.bytes(), target.size(), 0));
  }

  aclrtStream stream_ = nullptr;
};

// Each copy sees exactly the fills queued before it: run out of order, b or c would hold another value.
TEST_F(AsyncMemory, CopiesAndFillsRunInStreamOrder) {
  constexpr size_t kBytes = size_t{4} << 20;
  DeviceBuffer a(kBytes), b(kBytes), c(kBytes);
  std::memset(b.data(), 0, kBytes);
  std::memset(c.data(), 0, kBytes);
  BusyWork busy;
  busy.Enqueue(stream_, 2);  // the worker is still busy while the rest is queued
  ASSERT_EQ(aclrtMemsetAsync(a.data(), kBytes, 1, kBytes, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(b.data(), kBytes, a.data(), kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(a.data(), kBytes, 0x102, kBytes, stream_), ACL_SUCCESS);  // low byte only: 2
  ASSERT_EQ(aclrtMemcpyAsync(c.data(), kBytes, a.data(), kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_TRUE(AllBytesAre(b.bytes(), kBytes, 1));
  EXPECT_TRUE(AllBytesAre(c.bytes(), kBytes, 2));
  EXPECT_TRUE(AllBytesAre(a.bytes(), kBytes, 2));
}

// Upload, clear, operator, download: all on one stream with a single synchronize at the end.
TEST_F(AsyncMemory, OperatorBetweenAsyncCopiesOnOneStream) {
  const std::vector<float> host = SeedGradOut();
  DeviceBuffer gradOut(kSeedGradOutCount * sizeof(float)), gradInput(kSeedGradInputCount * sizeof(float));
  Workspace workspace;
  std::vector<float> result(kSeedGradInputCount, -1.0f);
  ASSERT_EQ(aclrtMemcpyAsync(gradOut.data(), gradOut.size(), host.data(), gradOut.size(),
                             ACL_MEMCPY_HOST_TO_DEVICE, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(gradInput.data(), gradInput.size(), 0xff, gradInput.size(), stream_),
            ACL_SUCCESS);
  ASSERT_EQ(EnqueueSeedBackward(stream_, gradOut.data(), gradInput.data(), workspace), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(result.data(), result.size() * sizeof(float), gradInput.data(), gradInput.size(),
                             ACL_MEMCPY_DEVICE_TO_HOST, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (size_t i = 0; i < kSeedGradInputCount; ++i) EXPECT_EQ(result[i], kSeedExpected[i]) << i;
}

TEST_F(AsyncMemory, DefaultStream) {
  DeviceBuffer a(4096), b(4096);
  ASSERT_EQ(aclrtMemsetAsync(a.data(), 4096, 7, 4096, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(b.data(), 4096, a.data(), 4096, ACL_MEMCPY_HOST_TO_HOST, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_TRUE(AllBytesAre(b.bytes(), 4096, 7));
}

TEST_F(AsyncMemory, CountAboveDestMaxIsRejectedAndNothingIsCopied) {
  DeviceBuffer a(64), b(64);
  std::memset(a.data(), 1, 64);
  std::memset(b.data(), 0, 64);
  ExpectRejectedLeavingZeros(
      aclrtMemcpyAsync(b.data(), 32, a.data(), 64, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_),
      "aclrtMemcpyAsync: count 64 exceeds destMax 32", b);
}

TEST_F(AsyncMemory, CountAboveMaxCountIsRejectedAndNothingIsWritten) {
  DeviceBuffer a(64);
  std::memset(a.data(), 0, 64);
  ExpectRejectedLeavingZeros(aclrtMemsetAsync(a.data(), 16, 9, 17, stream_),
                             "aclrtMemsetAsync: count 17 exceeds maxCount 16", a);
}

TEST_F(AsyncMemory, NullPointersAndBadKind) {
  DeviceBuffer a(64);
  EXPECT_EQ(aclrtMemcpyAsync(nullptr, 64, a.data(), 8, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpyAsync(a.data(), 64, nullptr, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(nullptr, 64, 0, 8, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpyAsync(a.data(), 64, a.data(), 8, static_cast<aclrtMemcpyKind>(4), stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpyAsync(a.data(), 64, a.data(), 8, static_cast<aclrtMemcpyKind>(-1), stream_),
            ACL_ERROR_INVALID_PARAM);
  // Nothing to copy: null pointers are fine, as for aclrtMemcpy.
  EXPECT_EQ(aclrtMemcpyAsync(nullptr, 0, nullptr, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemsetAsync(nullptr, 0, 0, 0, stream_), ACL_SUCCESS);
}

TEST_F(AsyncMemory, DestroyedOrUnknownStreamIsRejected) {
  aclrtStream gone = nullptr;
  ASSERT_EQ(aclrtCreateStream(&gone), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(gone), ACL_SUCCESS);
  DeviceBuffer a(64), b(64);
  EXPECT_EQ(aclrtMemcpyAsync(b.data(), 64, a.data(), 64, ACL_MEMCPY_DEVICE_TO_DEVICE, gone),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(a.data(), 64, 0, 64, gone), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpyAsync(b.data(), 64, a.data(), 0, ACL_MEMCPY_DEVICE_TO_DEVICE, gone),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(a.data(), 64, 0, 0, gone), ACL_ERROR_INVALID_PARAM);
  int notAStream = 0;
  EXPECT_EQ(aclrtMemsetAsync(a.data(), 64, 0, 64, &notAStream), ACL_ERROR_INVALID_PARAM);
}

TEST_F(AsyncMemory, SynchronizeWithTimeoutOnIdleStreams) {
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 1), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, -1), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 1), ACL_SUCCESS);
}

// Half a gigabyte of copies cannot finish within a millisecond: the first wait times out, the work
// stays queued and a wait without a limit then sees it done.
TEST_F(AsyncMemory, SynchronizeWithTimeoutGivesUpThenWorkCompletes) {
  BusyWork busy;
  DeviceBuffer flag(64);
  std::memset(flag.data(), 0, 64);
  busy.Enqueue(stream_, 16);
  ASSERT_EQ(aclrtMemsetAsync(flag.data(), 64, 1, 64, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("still has work after 1 ms"), std::string::npos);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, -1), ACL_SUCCESS);
  EXPECT_TRUE(AllBytesAre(flag.bytes(), 64, 1));
}

TEST_F(AsyncMemory, SynchronizeWithTimeoutRejectsBadArguments) {
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, -2), ACL_ERROR_INVALID_PARAM);
  aclrtStream gone = nullptr;
  ASSERT_EQ(aclrtCreateStream(&gone), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(gone), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(gone, 10), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(gone, -1), ACL_ERROR_INVALID_PARAM);
}

}  // namespace
}  // namespace trilinear3d::test
