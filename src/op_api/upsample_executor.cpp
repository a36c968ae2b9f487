#include "op_api/upsample_executor.h"

#include <atomic>
#include <cstdint>
#include <new>
#include <utility>

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
  const uintptr_t address = reinterpret_cast<uintptr_t>(workspace);
  args.workspace = workspace == nullptr
                       ? nullptr
                       : static_cast<char *>(workspace) + (-address & (kWorkspaceAlignment - 1));
  args.nextItem = &nextItem;
  runtime::LaunchSpmd(static_cast<int>(t.blockDim), [&](int blockIdx) { entryPoint_(args, blockIdx); });
}

namespace {

// The stride from one (N, C) plane to the next when the view steps through its planes uniformly (C
// planes of stride strides[1], then N of C times that), else 0.
int64_t UniformPlaneStride(const kernel::TensorView5d &v) {
  const int64_t n = v.dims[0], c = v.dims[1];
  if (c == 1) return n == 1 ? 1 : v.strides[0];
  if (n == 1 || v.strides[0] == c * v.strides[1]) return v.strides[1];
  return 0;
}

// A problem whose D and H are unit axes on both sides (the 1-D operators') has one row per plane, so the
// kernels' row batches and items would each hold one row. When both views step through their planes
// uniformly, the planes become the rows of an identity H axis (one plane of N * C rows): the same terms in
// the same order for every element, in batches of rows.
void FoldPlanesIntoRows(kernel::TensorView5d *src, kernel::TensorView5d *dst) {
  for (const kernel::TensorView5d *v : {src, dst}) {
    if (v->dims[2] != 1 || v->dims[3] != 1 || v->dims[0] * v->dims[1] <= 1) return;
  }
  const int64_t srcRow = UniformPlaneStride(*src), dstRow = UniformPlaneStride(*dst);
  if (srcRow == 0 || dstRow == 0) return;
  for (auto [v, row] : {std::pair{src, srcRow}, std::pair{dst, dstRow}}) {
    const int64_t rows = v->dims[0] * v->dims[1];
    v->dims[0] = v->dims[1] = v->dims[2] = 1;
    v->dims[3] = rows;
    v->strides[3] = row;
    v->strides[0] = v->strides[1] = v->strides[2] = rows * row;
  }
}

}  // namespace

int32_t PlanAndPublish(const char *api, tiling::Direction direction, const aclTensor &src,
                       const aclTensor &dst, bool alignCorners, const double axisScales[3],
                       uint64_t *workspaceSize, aclOpExecutor **executor, math::Filter filter) {
  DataType dataType = DataType::kFloat32;
  ToDataType(src.dataType, &dataType);  // validated: one of the op's dtypes
  kernel::TensorView5d srcView = KernelView(src, ElementSize(dataType));
  kernel::TensorView5d dstView = KernelView(dst, ElementSize(dataType));
  FoldPlanesIntoRows(&srcView, &dstView);
  tiling::TilingInput input = TilingInputOf(direction, dataType, srcView, dstView, alignCorners, axisScales);
  // The axes a 2-D (1-D) operator does not have: D (and H), one tap each.
  for (size_t a = 0; a + src.viewDims.size() < 5; ++a) input.filters[a] = math::Filter::kUnit;
  for (size_t a = 5 - src.viewDims.size(); a < 3; ++a) input.filters[a] = filter;
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
