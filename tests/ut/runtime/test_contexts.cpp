// Contexts per thread (CANN's default-context rule), aclrtGetRunMode and aclrtGetMemInfo.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "acl_test_environment.h"
#include "runtime_test_util.h"

namespace trilinear3d::test {
namespace {

// Runs body on a new thread and waits for it: each thread starts with no current context.
template <typename Body>
void OnNewThread(Body body) {
  std::thread thread(body);
  thread.join();
}

aclrtContext Current() {
  aclrtContext context = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&context), ACL_SUCCESS);
  return context;
}

// A new context on device 0, current on this thread from then on.
aclrtContext NewContext() {
  aclrtContext context = nullptr;
  EXPECT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  EXPECT_NE(context, nullptr);
  return context;
}

// The test environment called aclrtSetDevice(0) on the main thread.
TEST(Contexts, SetDeviceMakesTheDefaultContextCurrent) {
  const aclrtContext mainDefault = Current();
  EXPECT_NE(mainDefault, nullptr);
  OnNewThread([&] {
    aclrtContext context = reinterpret_cast<aclrtContext>(0x1);
    EXPECT_EQ(aclrtGetCurrentContext(&context), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_EQ(context, nullptr);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(Current(), mainDefault);  // one default context per device
  });
}

TEST(Contexts, CreatedContextIsCurrentOnTheCreatingThreadOnly) {
  const aclrtContext mainDefault = Current();
  const aclrtContext created = NewContext();
  EXPECT_NE(created, mainDefault);
  EXPECT_EQ(Current(), created);
  OnNewThread([&] {
    aclrtContext none = nullptr;
    EXPECT_EQ(aclrtGetCurrentContext(&none), ACL_ERROR_RT_CONTEXT_NULL);
    ASSERT_EQ(aclrtSetCurrentContext(created), ACL_SUCCESS);  // shared across threads on request
    EXPECT_EQ(Current(), created);
  });
  ASSERT_EQ(aclrtSetCurrentContext(mainDefault), ACL_SUCCESS);
  EXPECT_EQ(Current(), mainDefault);
  ASSERT_EQ(aclrtSetCurrentContext(created), ACL_SUCCESS);
  EXPECT_EQ(Current(), created);
  // Destroying the current context: the thread falls back to the default one (it set the device).
  ASSERT_EQ(aclrtDestroyContext(created), ACL_SUCCESS);
  EXPECT_EQ(Current(), mainDefault);
}

TEST(Contexts, ContextDestroyedByAnotherThreadIsGoneEverywhere) {
  const aclrtContext created = NewContext();
  aclrtContext onThread = nullptr;
  std::atomic<bool> set{false}, destroyed{false};
  std::thread thread([&] {
    EXPECT_EQ(aclrtSetCurrentContext(created), ACL_SUCCESS);
    set = true;  // whatever the call returned: the main thread waits for it
    while (!destroyed) std::this_thread::yield();
    // This thread never set the device: no default context to fall back on.
    EXPECT_EQ(aclrtGetCurrentContext(&onThread), ACL_ERROR_RT_CONTEXT_NULL);
  });
  while (!set) std::this_thread::yield();
  ASSERT_EQ(aclrtDestroyContext(created), ACL_SUCCESS);
  destroyed = true;
  thread.join();
  EXPECT_EQ(onThread, nullptr);
}

TEST(Contexts, ResetDeviceLeavesTheDefaultContext) {
  OnNewThread([] {
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_NE(Current(), nullptr);
    ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    aclrtContext context = nullptr;
    EXPECT_EQ(aclrtGetCurrentContext(&context), ACL_ERROR_RT_CONTEXT_NULL);
  });
  EXPECT_NE(Current(), nullptr);  // other threads keep theirs
}

TEST(Contexts, BadArgumentsAndStaleHandles) {
  aclrtContext context = reinterpret_cast<aclrtContext>(0x1);
  EXPECT_EQ(aclrtCreateContext(&context, 1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(context, nullptr);
  EXPECT_EQ(aclrtCreateContext(&context, -1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);

  const aclrtContext mainDefault = Current();
  EXPECT_EQ(aclrtDestroyContext(mainDefault), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(Current(), mainDefault);

  const aclrtContext created = NewContext();
  ASSERT_EQ(aclrtDestroyContext(created), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(created), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetCurrentContext(created), ACL_ERROR_INVALID_PARAM);
  int notAContext = 0;
  EXPECT_EQ(aclrtSetCurrentContext(&notAContext), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyContext(&notAContext), ACL_ERROR_INVALID_PARAM);
  aclrtEvent event = nullptr;  // an event handle is not a context
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetCurrentContext(event), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(Current(), mainDefault);
}

// Streams are not bound to a context: work queued under any context runs.
TEST(Contexts, StreamsWorkUnderAnyContext) {
  const aclrtContext created = NewContext();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  DeviceBuffer buffer(256);
  ASSERT_EQ(aclrtMemsetAsync(buffer.data(), 256, 3, 256, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);  // back to the default context
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(buffer.bytes()[255], 3);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(created), ACL_SUCCESS);
}

TEST(Contexts, ThreadsKeepTheirOwnContexts) {
  constexpr int kThreads = 4;
  constexpr int kIterations = 200;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIterations; ++i) {
        aclrtContext own = nullptr;
        aclrtContext current = nullptr;
        if (aclrtCreateContext(&own, 0) != ACL_SUCCESS) ++failures;
        if (aclrtGetCurrentContext(&current) != ACL_SUCCESS || current != own) ++failures;
        if (aclrtSetCurrentContext(own) != ACL_SUCCESS) ++failures;
        if (aclrtDestroyContext(own) != ACL_SUCCESS) ++failures;
        if (aclrtGetCurrentContext(&current) != ACL_ERROR_RT_CONTEXT_NULL) ++failures;
      }
    });
  }
  for (auto &thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

// aclFinalize ends every context; after aclInit a thread has the default context again once it sets
// the device.
TEST(Contexts, FinalizeDestroysEveryContext) {
  const aclrtContext created = NewContext();
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  aclrtContext context = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&context), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtSetCurrentContext(created), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyContext(created), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_NE(Current(), nullptr);
}

TEST(RunMode, IsHost) {
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_EQ(static_cast<int>(ACL_DEVICE), 0);
  EXPECT_EQ(static_cast<int>(ACL_HOST), 1);
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(MemInfo, EveryAttributeReportsTheHostMemory) {
  size_t firstTotal = 0;
  for (int attr = ACL_DDR_MEM; attr <= ACL_HBM_MEM_P2P_NORMAL; ++attr) {
    size_t free = 0, total = 0;
    ASSERT_EQ(aclrtGetMemInfo(static_cast<aclrtMemAttr>(attr), &free, &total), ACL_SUCCESS) << attr;
    EXPECT_GT(total, size_t{1} << 20) << attr;
    EXPECT_LE(free, total) << attr;
    if (attr == ACL_DDR_MEM) firstTotal = total;
    EXPECT_EQ(total, firstTotal) << attr;
  }
}

TEST(MemInfo, BadArguments) {
  size_t free = 7, total = 7;
  EXPECT_EQ(aclrtGetMemInfo(static_cast<aclrtMemAttr>(-1), &free, &total), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetMemInfo(static_cast<aclrtMemAttr>(10), &free, &total), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &total), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(free, 7u);
  EXPECT_EQ(total, 7u);
}

}  // namespace
}  // namespace trilinear3d::test
