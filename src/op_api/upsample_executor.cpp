#include "op_api/upsample_executor.h"

#include <atomic>
#include <new>

#include "runtime/core_pool.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

template <typename A>
std::unique_ptr<kernel::PlanTables<A>> BuildTables(const tiling::TilingData &t, int lanes) {
  auto tables = std::make_unique<kernel::PlanTables<A>>();
  const math::AxisSpec d = tiling::AxisSpecOf(t.d, t.alignCorners);
  const math::AxisSpec h = tiling::AxisSpecOf(t.h, t.alignCorners);
  const math::AxisSpec w = tiling::AxisSpecOf(t.w, t.alignCorners);
  tables->d = kernel::BuildTapTable<A>(d);
  tables->h = kernel::BuildTapTable<A>(h);
  tables->w = kernel::BuildTapTable<A>(w);
  const bool backward = t.direction == tiling::Direction::kBackward;
  tables->rowW = backward ? kernel::BuildBackwardRowGather<A>(w) : kernel::BuildForwardRowGather<A>(w);
  if (t.layout == tiling::RowLayout::kWInner && lanes > 0) kernel::BuildRowSteps(&tables->rowW, lanes);
  if (backward && t.passOrder == tiling::PassOrder::kWidthLast) {
    tables->colD = kernel::BuildBackwardRowGather<A>(d);
    tables->colH = kernel::BuildBackwardRowGather<A>(h);
  }
  return tables;
}

}  // namespace

std::unique_ptr<UpsampleExecutor> UpsampleExecutor::Plan(const tiling::TilingInput &input,
                                                         const kernel::TensorView5d &src,
                                                         const kernel::TensorView5d &dst,
                                                         std::string *error) {
  std::unique_ptr<UpsampleExecutor> e(new (std::nothrow) UpsampleExecutor());
  if (!e) {
    *error = "out of memory";
    return nullptr;
  }
  if (!tiling::ComputeTiling(input, &e->tiling_, error)) return nullptr;
  e->src_ = src;
  e->dst_ = dst;
  e->kernels_ = &kernel::SelectedKernels();
  if (e->tiling_.itemCount == 0) return e;  // empty: nothing to plan
  try {
    if (input.dataType == DataType::kFloat64) {
      e->tablesF64_ = BuildTables<double>(e->tiling_, e->kernels_->lanesF64);
    } else {
      e->tablesF32_ = BuildTables<float>(e->tiling_, e->kernels_->lanesF32);
    }
  } catch (const std::bad_alloc &) {
    *error = "out of memory while building the weight tables";
    return nullptr;
  }
  return e;
}

void UpsampleExecutor::Execute(void *workspace) {
  if (tiling_.itemCount == 0) return;
  std::atomic<int64_t> nextItem{0};
  kernel::KernelArgs args;
  args.tiling = &tiling_;
  args.tables =
      tablesF64_ ? static_cast<const void *>(tablesF64_.get()) : static_cast<const void *>(tablesF32_.get());
  args.src = src_;
  args.dst = dst_;
  args.workspace = workspace;
  args.nextItem = &nextItem;
  const kernel::KernelFn fn =
      tiling_.direction == tiling::Direction::kBackward ? kernels_->backward : kernels_->forward;
  runtime::LaunchSpmd(static_cast<int>(tiling_.blockDim), [&](int blockIdx) { fn(args, blockIdx); });
}

int32_t PlanAndPublish(const char *api, const tiling::TilingInput &input, const kernel::TensorView5d &src,
                       const kernel::TensorView5d &dst, uint64_t *workspaceSize, aclOpExecutor **executor) {
  std::string error;
  std::unique_ptr<UpsampleExecutor> e = UpsampleExecutor::Plan(input, src, dst, &error);
  if (!e) {
    runtime::ReportError("%s: planning failed: %s", api, error.c_str());
    return ACLNN_ERR_INNER_TILING_ERROR;
  }
  *workspaceSize = e->WorkspaceSize();
  *executor = Publish(e.release());
  return ACLNN_SUCCESS;
}

}  // namespace trilinear3d::op_api
