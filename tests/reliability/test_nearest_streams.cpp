// Reliability of the nearest group (docs/spec.md §3, §9): every entry point's executors enqueued on
// several streams at once from several threads, each writing a guarded view (sliced, permuted) that must
// hold exactly the reference's values with the guard bands intact; and large channels-last planes whose
// items span several cores, forward and backward, with the bands checked after each.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "acl_test_environment.h"
#include "nearest_runner.h"

namespace trilinear3d::reliability {
namespace {

using test::NearestCase;
using test::NearestEntry;

NearestCase CaseOf(const test::NearestEntryInfo &info, int variant) {
  NearestCase c;
  c.entry = info.entry;
  c.dtype = variant % 2 == 0 ? ACL_FLOAT : ACL_BF16;
  c.format = info.rank == 3 ? ACL_FORMAT_NCL : info.rank == 4 ? ACL_FORMAT_NHWC : ACL_FORMAT_NDHWC;
  c.srcLayout = variant % 3 == 0 ? test::MemLayout::kSliced : test::MemLayout::kPermuted;
  c.dstLayout = variant % 3 == 1 ? test::MemLayout::kSliced : test::MemLayout::kContiguous;
  c.in = {2, 9, info.rank == 5 ? 3 : 1, info.rank >= 4 ? 7 : 1, 13};
  c.out = {info.rank == 5 ? 7 : 1, info.rank >= 4 ? 19 : 1, 5};
  c.nonFinite = variant % 4 == 3;
  return c;
}

// Four threads, each running every entry point's cases in its own order: every result exact, every
// guard band intact (RunNearestCase checks the bands of the written tensor).
TEST(NearestStreams, ConcurrentEntryPointsKeepTheirViews) {
  const uint64_t seed = test::FreshSeed();
  SCOPED_TRACE(test::SeedTrace(seed));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(seed + static_cast<uint64_t>(t));
      for (int round = 0; round < 3; ++round) {
        for (size_t k = 0; k < std::size(test::kNearestEntries); ++k) {
          const auto &info =
              test::kNearestEntries[(k + static_cast<size_t>(t) * 5) % std::size(test::kNearestEntries)];
          if (!test::NearestCaseMatches(CaseOf(info, t + round), rng)) ++failures;
        }
      }
    });
  }
  for (std::thread &thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

// Planes of a bench's channel count, whose items the cores share: guard bands and values hold.
TEST(NearestStreams, LargeChannelsLastPlanes) {
  test::TracedRng rng;
  for (NearestEntry entry :
       {NearestEntry::kNearest3d, NearestEntry::kNearest3dBackward, NearestEntry::kExact3dBackward}) {
    NearestCase c;
    c.entry = entry;
    c.format = ACL_FORMAT_NDHWC;
    c.in = {1, 64, 4, 16, 16};
    c.out = {8, 32, 32};
    EXPECT_TRUE(test::NearestCaseMatches(c, rng));
  }
}

}  // namespace
}  // namespace trilinear3d::reliability
