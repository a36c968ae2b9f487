#include "op_api/upsample_executor.h"

#include <atomic>
#include <new>

#include "op_api/plan_requests.h"
#include "op_api/tensor_checks.h"
#include "op_api/tiling_input.h"
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
  const kernel::IsaKernels &kernels = kernel::SelectedKernels();
  e->plan_ = GetPlan(input, kernels.lanesF32, kernels.lanesF64, error);
  if (!e->plan_) return nullptr;
  e->entryPoint_ = kernels.EntryPoint(e->plan_->tiling.kernel);
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
  runtime::LaunchSpmd(static_cast<int>(t.blockDim), [&](int blockIdx) { entryPoint_(args, blockIdx); });
}

int32_t PlanAndPublish(const char *api, tiling::Direction direction, const aclTensor &src,
                       const aclTensor &dst, bool alignCorners, const double axisScales[3],
                       uint64_t *workspaceSize, aclOpExecutor **executor) {
  DataType dataType = DataType::kFloat32;
  ToDataType(src.dataType, &dataType);  // validated: one of the op's dtypes
  const kernel::TensorView5d srcView = KernelView(src, ElementSize(dataType));
  const kernel::TensorView5d dstView = KernelView(dst, ElementSize(dataType));
  tiling::TilingInput input = TilingInputOf(direction, dataType, srcView, dstView, alignCorners, axisScales);
  input.cores = runtime::ConfiguredCores();
  input.forcedKernel = RequestedKernel();
  input.streamStores = RequestedStreamStores();
  std::string error;
  std::unique_ptr<UpsampleExecutor> e = UpsampleExecutor::Plan(input, srcView, dstView, &error);
  if (!e) {
    runtime::ReportError("%s: planning failed: %s", api, error.c_str());
    return ACLNN_ERR_INNER_TILING_ERROR;
  }
  *workspaceSize = e->WorkspaceSize();
  *executor = Publish(e.release());
  return ACLNN_SUCCESS;
}

namespace {

class EmptyExecutor final : public aclOpExecutor {
 public:
  uint64_t WorkspaceSize() const override { return 0; }
  void Execute(void *) override {}
};

}  // namespace

int32_t PublishEmpty(uint64_t *workspaceSize, aclOpExecutor **executor) {
  aclOpExecutor *e = new (std::nothrow) EmptyExecutor();
  if (e == nullptr) {
    runtime::ReportError("planning failed: out of memory");
    return ACLNN_ERR_INNER_TILING_ERROR;
  }
  *workspaceSize = 0;
  *executor = Publish(e);
  return ACLNN_SUCCESS;
}

}  // namespace trilinear3d::op_api
