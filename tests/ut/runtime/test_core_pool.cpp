// The core pool (src/runtime/core_pool.cpp, compiled in): every block of a launch runs exactly once,
// the blocks of a launch run at the same time, and a launch nested in a block runs inline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/core_pool.h"

namespace trilinear3d::runtime {
namespace {

// Runs a launch of blockDim blocks; each block counts its runs.
struct CountedLaunch {
  explicit CountedLaunch(int blockDim) : runs(static_cast<size_t>(blockDim)) {}

  void Run() {
    LaunchSpmd(static_cast<int>(runs.size()), [this](int blockIdx) {
      runs[static_cast<size_t>(blockIdx)].fetch_add(1, std::memory_order_relaxed);
    });
  }

  void ExpectEachBlockOnce() const {
    for (size_t b = 0; b < runs.size(); ++b) EXPECT_EQ(runs[b].load(), 1) << "block " << b;
  }

  std::vector<std::atomic<int>> runs;
};

TEST(CorePool, EveryBlockRunsOnce) {
  for (int blockDim : {1, 2, 3, 5, 8, 17, 64}) {
    for (int repeat = 0; repeat < 20; ++repeat) {
      CountedLaunch launch(blockDim);
      launch.Run();
      launch.ExpectEachBlockOnce();
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(CorePool, NoBlocksDoNothing) {
  int runs = 0;
  LaunchSpmd(0, [&](int) { ++runs; });
  LaunchSpmd(-3, [&](int) { ++runs; });
  EXPECT_EQ(runs, 0);
}

// With blockDim <= the threads the pool can start, every block has a thread of its own and the blocks
// run at the same time: here each block waits until all have started (deadline: a failure, not a hang).
TEST(CorePool, BlocksRunConcurrently) {
  for (int blockDim : {2, 3, 4, 8}) {
    for (int repeat = 0; repeat < 10; ++repeat) {
      std::atomic<int> started{0};
      std::atomic<int> sawAll{0};
      LaunchSpmd(blockDim, [&](int) {
        started.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < blockDim && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
        if (started.load() == blockDim) sawAll.fetch_add(1);
      });
      EXPECT_EQ(sawAll.load(), blockDim) << "blockDim " << blockDim;
    }
  }
}

// A block that throws is reported (stderr, quiet here) and ends; the process and the other blocks go on.
TEST(CorePool, AThrowingBlockDoesNotStopTheOthers) {
  setenv("TRILINEAR3D_QUIET", "1", 1);
  for (int thrower : {0, 1, 3}) {
    std::vector<std::atomic<int>> finished(4);
    LaunchSpmd(4, [&](int blockIdx) {
      if (blockIdx == thrower) throw std::runtime_error("block failed on purpose");
      finished[static_cast<size_t>(blockIdx)].fetch_add(1);
    });
    for (int b = 0; b < 4; ++b) EXPECT_EQ(finished[static_cast<size_t>(b)].load(), b == thrower ? 0 : 1) << b;
  }
  CountedLaunch after(4);  // the pool still works
  after.Run();
  after.ExpectEachBlockOnce();
}

// A launch from inside a block runs inline on that thread (the pool is busy with the outer one).
TEST(CorePool, NestedLaunchRunsInline) {
  std::vector<std::atomic<int>> inner(4 * 3);
  LaunchSpmd(4, [&](int outer) {
    const std::thread::id self = std::this_thread::get_id();
    LaunchSpmd(3, [&](int blockIdx) {
      EXPECT_EQ(std::this_thread::get_id(), self);
      inner[static_cast<size_t>(outer * 3 + blockIdx)].fetch_add(1);
    });
  });
  for (size_t i = 0; i < inner.size(); ++i) EXPECT_EQ(inner[i].load(), 1) << i;
}

}  // namespace
}  // namespace trilinear3d::runtime
