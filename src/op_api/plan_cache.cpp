#include "op_api/plan_cache.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <list>
#include <mutex>
#include <new>
#include <utility>

#include "op_host/kernel_registry.h"

namespace trilinear3d::op_api {
namespace {

template <typename A>
std::unique_ptr<kernel::PlanTables<A>> BuildTables(const tiling::TilingData &t, int lanes) {
  auto tables = std::make_unique<kernel::PlanTables<A>>();
  const math::AxisSpec d = tiling::AxisSpecOf(t.d, t.alignCorners);
  const math::AxisSpec h = tiling::AxisSpecOf(t.h, t.alignCorners);
  const math::AxisSpec w = tiling::AxisSpecOf(t.w, t.alignCorners);
  // Only the tables the chosen kernel reads (a 2^20 axis costs tens of megabytes per table).
  const tiling::KernelTables &needed = tiling::KernelEntryOf(t.kernel).tables;
  if (needed.columns) {
    tables->colD = kernel::BuildBackwardRowGather<A>(d);
    tables->colH = kernel::BuildBackwardRowGather<A>(h);
  }
  if (needed.taps) {
    tables->d = kernel::BuildTapTable<A>(d);
    tables->h = kernel::BuildTapTable<A>(h);
  }
  if (needed.rowW == tiling::RowGatherKind::kNone) return tables;
  tables->rowW = needed.rowW == tiling::RowGatherKind::kBackward ? kernel::BuildBackwardRowGather<A>(w)
                                                                 : kernel::BuildForwardRowGather<A>(w);
  if (t.layout == tiling::RowLayout::kWInner && lanes > 0 && !needed.listsOnly) {
    kernel::BuildRowSteps(&tables->rowW, lanes);
  }
  return tables;
}

template <typename V>
uint64_t VectorBytes(const V &v) {
  return static_cast<uint64_t>(v.capacity()) * sizeof(typename V::value_type);
}

template <typename A>
uint64_t TapTableBytes(const kernel::TapTable<A> &t) {
  return VectorBytes(t.i0) + VectorBytes(t.i1) + VectorBytes(t.l0) + VectorBytes(t.l1) +
         VectorBytes(t.firstO) + VectorBytes(t.lastO) + VectorBytes(t.moreBegin) + VectorBytes(t.moreI) +
         VectorBytes(t.moreL);
}

template <typename A>
uint64_t RowGatherBytes(const kernel::RowGather<A> &g) {
  return VectorBytes(g.begin) + VectorBytes(g.src) + VectorBytes(g.w) + VectorBytes(g.blockStart) +
         VectorBytes(g.blockLanes) + VectorBytes(g.blockWindowed) + VectorBytes(g.blockHalfWindow) +
         VectorBytes(g.blockStepBegin) + VectorBytes(g.stepBase) + VectorBytes(g.stepMask) +
         VectorBytes(g.stepIdx) + VectorBytes(g.stepW);
}

template <typename A>
uint64_t TablesBytes(const kernel::PlanTables<A> *t) {
  if (t == nullptr) return 0;
  return TapTableBytes(t->d) + TapTableBytes(t->h) + RowGatherBytes(t->rowW) + RowGatherBytes(t->colD) +
         RowGatherBytes(t->colH);
}

// Everything the plan depends on. Inputs compare field by field (user scales by value: equal
// doubles give equal tilings); the kernels' lanes are fixed for the process but kept for clarity.
struct PlanKey {
  tiling::TilingInput input;
  int lanesF32 = 0;
  int lanesF64 = 0;

  bool operator==(const PlanKey &o) const {
    const tiling::TilingInput &a = input, &b = o.input;
    for (int i = 0; i < 3; ++i) {
      if (a.inSize[i] != b.inSize[i] || a.outSize[i] != b.outSize[i] || a.userScales[i] != b.userScales[i] ||
          a.filters[i] != b.filters[i]) {
        return false;
      }
    }
    return a.direction == b.direction && a.dataType == b.dataType && a.n == b.n && a.c == b.c &&
           a.alignCorners == b.alignCorners && a.channelsContiguous == b.channelsContiguous &&
           a.srcUnitW == b.srcUnitW && a.cores == b.cores && a.forcedKernel == b.forcedKernel &&
           a.streamStores == b.streamStores && lanesF32 == o.lanesF32 && lanesF64 == o.lanesF64;
  }
};

struct Cache {
  std::mutex mutex;
  // Most recently used first.
  std::list<std::pair<PlanKey, std::shared_ptr<const UpsamplePlan>>> entries;
  uint64_t bytes = 0;
  PlanCacheStats stats;
};

Cache &TheCache() {
  static Cache *cache = new Cache;  // never destroyed: executors may outlive static destruction
  return *cache;
}

// TRILINEAR3D_PLAN_CACHE: plans kept (0: none); unset or not a number in [0, 1024]: the default.
int EntryLimit() {
  const char *text = std::getenv("TRILINEAR3D_PLAN_CACHE");
  if (text == nullptr || *text == '\0') return kPlanCacheEntries;
  char *end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 0 || value > 1024) return kPlanCacheEntries;
  return static_cast<int>(value);
}

// Drops least recently used plans until the cache holds at most `entries` plans and `bytes` bytes.
// Requires cache.mutex. Executors holding a dropped plan keep it alive.
void TrimLocked(Cache &cache, size_t entries, uint64_t bytes) {
  while (!cache.entries.empty() && (cache.entries.size() > entries || cache.bytes > bytes)) {
    cache.bytes -= cache.entries.back().second->bytes;
    cache.entries.pop_back();
  }
}

// The entry of `key`, or cache.entries.end(). Requires cache.mutex.
auto FindLocked(Cache &cache, const PlanKey &key) {
  return std::find_if(cache.entries.begin(), cache.entries.end(),
                      [&](const auto &entry) { return entry.first == key; });
}

std::shared_ptr<const UpsamplePlan> BuildPlan(const tiling::TilingInput &input, int lanesF32, int lanesF64,
                                              std::string *error) {
  auto plan = std::make_shared<UpsamplePlan>();
  if (!tiling::ComputeTiling(input, &plan->tiling, error)) return nullptr;
  if (plan->tiling.itemCount == 0) return plan;  // empty: nothing to plan
  if (input.dataType == DataType::kFloat64) {
    plan->tablesF64 = BuildTables<double>(plan->tiling, lanesF64);
  } else {
    plan->tablesF32 = BuildTables<float>(plan->tiling, lanesF32);
  }
  plan->bytes = TablesBytes(plan->tablesF32.get()) + TablesBytes(plan->tablesF64.get());
  return plan;
}

}  // namespace

std::shared_ptr<const UpsamplePlan> GetPlan(const tiling::TilingInput &input, int lanesF32, int lanesF64,
                                            std::string *error) {
  Cache &cache = TheCache();
  const int limit = EntryLimit();
  const PlanKey key{input, lanesF32, lanesF64};
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    TrimLocked(cache, static_cast<size_t>(limit), kPlanCacheBytes);  // the limit may have been lowered
    const auto it = FindLocked(cache, key);
    if (it != cache.entries.end()) {
      cache.entries.splice(cache.entries.begin(), cache.entries, it);
      ++cache.stats.hits;
      return cache.entries.front().second;
    }
  }
  // Built outside the lock: a long axis takes a while, and other shapes need not wait.
  std::shared_ptr<const UpsamplePlan> plan;
  try {
    plan = BuildPlan(input, lanesF32, lanesF64, error);
  } catch (const std::bad_alloc &) {
    *error = "out of memory while building the weight tables";
    return nullptr;
  }
  if (!plan) return nullptr;
  std::lock_guard<std::mutex> lock(cache.mutex);
  ++cache.stats.builds;
  const auto built = FindLocked(cache, key);
  if (built != cache.entries.end()) return built->second;  // another thread built it meanwhile: share one
  if (limit > 0 && plan->bytes <= kPlanCacheBytes) {
    try {
      cache.entries.emplace_front(key, plan);
      cache.bytes += plan->bytes;
    } catch (const std::bad_alloc &) {
      // Not cached: the plan itself is fine.
    }
  }
  TrimLocked(cache, static_cast<size_t>(limit), kPlanCacheBytes);
  return plan;
}

PlanCacheStats GetPlanCacheStats() {
  Cache &cache = TheCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.stats;
}

}  // namespace trilinear3d::op_api
