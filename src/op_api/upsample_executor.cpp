#include "op_api/upsample_executor.h"

#include <atomic>
#include <new>

#include "runtime/core_pool.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {

std::unique_ptr<UpsampleExecutor> UpsampleExecutor::Plan(const tiling::TilingInput &input,
                                                         const kernel::TensorView5d &src,
                                                         const kernel::TensorView5d &dst,
                                                         std::string *error) {
  std::unique_ptr<UpsampleExecutor> e(new (std::nothrow) UpsampleExecutor());
  if (!e) {
    *error = "out of memory";
    return nullptr;
  }
  e->kernels_ = &kernel::SelectedKernels();
  e->plan_ = GetPlan(input, e->kernels_->lanesF32, e->kernels_->lanesF64, error);
  if (!e->plan_) return nullptr;
  e->src_ = src;
  e->dst_ = dst;
  return e;
}

void UpsampleExecutor::Execute(void *workspace) {
  const tiling::TilingData &t = plan_->tiling;
  if (t.itemCount == 0) return;
  std::atomic<int64_t> nextItem{0};
  kernel::KernelArgs args;
  args.tiling = &t;
  args.tables = plan_->tablesF64 ? static_cast<const void *>(plan_->tablesF64.get())
                                 : static_cast<const void *>(plan_->tablesF32.get());
  args.src = src_;
  args.dst = dst_;
  args.workspace = workspace;
  args.nextItem = &nextItem;
  const kernel::KernelFn fn =
      t.direction == tiling::Direction::kBackward ? kernels_->backward : kernels_->forward;
  runtime::LaunchSpmd(static_cast<int>(t.blockDim), [&](int blockIdx) { fn(args, blockIdx); });
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
