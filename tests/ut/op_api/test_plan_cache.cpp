// The plan cache (op_api/plan_cache.h): equal inputs share one plan, every field of the input is part
// of the key, least recently used plans go first, TRILINEAR3D_PLAN_CACHE sets the size (0: off), a
// cached plan equals a freshly built one, and concurrent lookups are safe.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "op_api/plan_cache.h"

namespace trilinear3d::op_api {
namespace {

using tiling::Direction;
using tiling::Kernel;
using tiling::TilingInput;

constexpr int kLanesF32 = 16;
constexpr int kLanesF64 = 8;

// A fresh shape per test (the cache is process-wide): W in grows with `seed`.
TilingInput Input(int64_t seed) {
  TilingInput in;
  in.direction = Direction::kBackward;
  in.dataType = DataType::kFloat32;
  in.n = 1;
  in.c = 3;
  const int64_t inSize[3] = {4, 6, 100 + seed}, outSize[3] = {8, 12, 2 * (100 + seed)};
  for (int i = 0; i < 3; ++i) {
    in.inSize[i] = inSize[i];
    in.outSize[i] = outSize[i];
  }
  in.cores = 2;
  return in;
}

std::shared_ptr<const UpsamplePlan> Get(const TilingInput &in) {
  std::string error;
  std::shared_ptr<const UpsamplePlan> plan = GetPlan(in, kLanesF32, kLanesF64, &error);
  EXPECT_TRUE(plan) << error;
  return plan;
}

// Sets TRILINEAR3D_PLAN_CACHE for one scope.
class ScopedCacheSize {
 public:
  explicit ScopedCacheSize(const char *value) { setenv("TRILINEAR3D_PLAN_CACHE", value, 1); }
  ~ScopedCacheSize() { unsetenv("TRILINEAR3D_PLAN_CACHE"); }
};

TEST(PlanCache, EqualInputsShareOnePlan) {
  const TilingInput in = Input(1);
  const PlanCacheStats before = GetPlanCacheStats();
  const auto first = Get(in);
  const auto second = Get(in);
  const PlanCacheStats after = GetPlanCacheStats();
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(after.builds - before.builds, 1u);
  EXPECT_EQ(after.hits - before.hits, 1u);
}

TEST(PlanCache, EveryInputFieldIsPartOfTheKey) {
  const TilingInput base = Input(2);
  std::vector<std::function<void(TilingInput &)>> changes = {
      [](TilingInput &in) { in.direction = Direction::kForward; },
      [](TilingInput &in) { in.dataType = DataType::kFloat16; },
      [](TilingInput &in) { in.dataType = DataType::kFloat64; },
      [](TilingInput &in) { in.n = 2; },
      [](TilingInput &in) { in.c = 4; },
      [](TilingInput &in) { in.inSize[0] = 5; },
      [](TilingInput &in) { in.inSize[1] = 7; },
      [](TilingInput &in) { in.inSize[2] = 90; },
      [](TilingInput &in) { in.outSize[0] = 9; },
      [](TilingInput &in) { in.outSize[1] = 13; },
      [](TilingInput &in) { in.outSize[2] = 201; },
      [](TilingInput &in) { in.alignCorners = true; },
      [](TilingInput &in) {
        in.userScales[0] = 2.0;
        in.userScales[1] = 2.0;
        in.userScales[2] = 2.0;
      },
      [](TilingInput &in) { in.channelsContiguous = true; },
      [](TilingInput &in) { in.srcUnitW = !in.srcUnitW; },
      [](TilingInput &in) { in.cores = 3; },
      [](TilingInput &in) { in.forcedKernel = Kernel::kBackwardWidthFirst; },
      [](TilingInput &in) { in.forcedKernel = Kernel::kBackwardStencil2x; },
      [](TilingInput &in) { in.streamStores = tiling::StreamStoresRequest::kAlways; },
  };
  const auto basePlan = Get(base);
  for (size_t k = 0; k < changes.size(); ++k) {
    SCOPED_TRACE("change " + std::to_string(k));
    // The base plan used again first: with more changes than the cache keeps, it would otherwise have
    // been dropped by the time the last fields are checked, and a key missing them would go unseen.
    ASSERT_EQ(Get(base).get(), basePlan.get());
    TilingInput in = base;
    changes[k](in);
    const PlanCacheStats before = GetPlanCacheStats();
    const auto plan = Get(in);
    EXPECT_NE(plan.get(), basePlan.get());
    EXPECT_EQ(GetPlanCacheStats().builds - before.builds, 1u) << "a changed field must not hit";
  }
}

TEST(PlanCache, CachedPlanEqualsAFreshOne) {
  TilingInput in = Input(3);
  in.channelsContiguous = true;
  in.c = 16;
  const auto cached = Get(in);
  ASSERT_EQ(Get(in).get(), cached.get());
  std::shared_ptr<const UpsamplePlan> fresh;
  {
    const ScopedCacheSize off("0");
    fresh = Get(in);
  }
  ASSERT_NE(fresh.get(), cached.get());
  EXPECT_EQ(fresh->tiling.workspaceSize, cached->tiling.workspaceSize);
  EXPECT_EQ(fresh->tiling.itemCount, cached->tiling.itemCount);
  EXPECT_EQ(fresh->bytes, cached->bytes);
  ASSERT_TRUE(fresh->tablesF32 && cached->tablesF32);
  EXPECT_EQ(fresh->tablesF32->rowW.src, cached->tablesF32->rowW.src);
  EXPECT_EQ(fresh->tablesF32->rowW.w, cached->tablesF32->rowW.w);
  EXPECT_EQ(fresh->tablesF32->colD.w, cached->tablesF32->colD.w);
  EXPECT_GT(cached->bytes, 0u);
}

TEST(PlanCache, SizeZeroBuildsEveryTime) {
  const ScopedCacheSize off("0");
  const TilingInput in = Input(4);
  const PlanCacheStats before = GetPlanCacheStats();
  const auto first = Get(in);
  const auto second = Get(in);
  EXPECT_NE(first.get(), second.get());
  EXPECT_EQ(GetPlanCacheStats().builds - before.builds, 2u);
  EXPECT_EQ(GetPlanCacheStats().hits - before.hits, 0u);
}

TEST(PlanCache, LeastRecentlyUsedGoesFirst) {
  const ScopedCacheSize two("2");
  const TilingInput a = Input(5), b = Input(6), c = Input(7);
  const auto planA = Get(a);
  Get(b);
  ASSERT_EQ(Get(a).get(), planA.get()) << "a is now the most recent";
  Get(c);  // evicts b
  PlanCacheStats before = GetPlanCacheStats();
  EXPECT_EQ(Get(a).get(), planA.get());
  EXPECT_EQ(GetPlanCacheStats().hits - before.hits, 1u);
  before = GetPlanCacheStats();
  Get(b);
  EXPECT_EQ(GetPlanCacheStats().builds - before.builds, 1u) << "b was evicted";
}

TEST(PlanCache, InvalidSizeKeepsTheDefault) {
  const ScopedCacheSize bad("lots");
  const TilingInput in = Input(8);
  const auto first = Get(in);
  EXPECT_EQ(Get(in).get(), first.get());
}

TEST(PlanCache, ConcurrentLookupsSharePlans) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::vector<std::vector<const UpsamplePlan *>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &seen] {
      for (int r = 0; r < kRounds; ++r) {
        std::string error;
        const auto plan = GetPlan(Input(100 + r % 5), kLanesF32, kLanesF64, &error);
        seen[static_cast<size_t>(t)].push_back(plan ? plan.get() : nullptr);
      }
    });
  }
  for (auto &thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int r = 0; r < kRounds; ++r) {
      ASSERT_NE(seen[static_cast<size_t>(t)][static_cast<size_t>(r)], nullptr);
    }
  }
  // Five shapes: once each is cached, every thread gets the same plan for it.
  for (int t = 0; t < kThreads; ++t) {
    for (int r = 10; r < kRounds; ++r) {
      EXPECT_EQ(seen[static_cast<size_t>(t)][static_cast<size_t>(r)], seen[0][static_cast<size_t>(r)]);
    }
  }
}

}  // namespace
}  // namespace trilinear3d::op_api
