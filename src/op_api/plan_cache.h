// Plans (the tiling and the weight tables: everything GetWorkspaceSize derives from shapes and
// attributes alone) kept for reuse, so that a training loop calling GetWorkspaceSize with the same
// shapes every step plans once. Executors share a plan; a plan never changes once built.
#ifndef TRILINEAR3D_OP_API_PLAN_CACHE_H_
#define TRILINEAR3D_OP_API_PLAN_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "op_host/resample_tiling.h"
#include "op_kernel/kernel_plan.h"

namespace trilinear3d::op_api {

struct UpsamplePlan {
  tiling::TilingData tiling;
  std::unique_ptr<kernel::PlanTables<float>> tablesF32;  // fp32 / fp16 / bf16 (fp32 accumulation)
  std::unique_ptr<kernel::PlanTables<double>> tablesF64;
  uint64_t bytes = 0;  // the tables' heap size
};

// Default cache limits: plans kept, and their tables' bytes in all.
constexpr int kPlanCacheEntries = 16;
constexpr uint64_t kPlanCacheBytes = 128ull << 20;

// The plan for `input` with the process's kernels (lanes per accumulation type): a cached one when an
// equal input was planned before and is still held, else a new one (then cached when the limits
// allow). Null with *error set on failure. Thread-safe. TRILINEAR3D_PLAN_CACHE (read at every call)
// sets the number of plans kept; 0 turns the cache off.
std::shared_ptr<const UpsamplePlan> GetPlan(const tiling::TilingInput &input, int lanesF32, int lanesF64,
                                            std::string *error);

// Counters for tests: lookups answered from the cache, and plans built.
struct PlanCacheStats {
  uint64_t hits = 0;
  uint64_t builds = 0;
};
PlanCacheStats GetPlanCacheStats();

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_PLAN_CACHE_H_
