// The executor of both ops: the plan (tiling and weight tables) from GetWorkspaceSize, shared with
// other executors of equal shapes (plan_cache.h), the tensors' views copied, and a launch of the
// chosen ISA's kernel over blockDim worker cores.
#ifndef TRILINEAR3D_OP_API_UPSAMPLE_EXECUTOR_H_
#define TRILINEAR3D_OP_API_UPSAMPLE_EXECUTOR_H_

#include <memory>
#include <string>

#include "op_api/op_executor.h"
#include "op_api/plan_cache.h"
#include "op_host/resample_tiling.h"
#include "op_kernel/kernel_args.h"
#include "op_kernel/kernel_plan.h"
#include "runtime/meta_objects.h"

namespace trilinear3d::op_api {

class UpsampleExecutor final : public aclOpExecutor {
 public:
  // Plans the op; on failure returns null with *error set (an inner error: inputs were validated).
  static std::unique_ptr<UpsampleExecutor> Plan(const tiling::TilingInput &input,
                                                const kernel::TensorView5d &src,
                                                const kernel::TensorView5d &dst, std::string *error);

  // The kernels lay their scratch out in 64-byte lines from the workspace's start (aligned vector loads,
  // whole-line stores); a caller's workspace may start anywhere (a sub-allocator's need not be aligned as
  // aclrtMalloc's is), so it is asked for one line more and Execute starts the scratch at the first line
  // boundary in it.
  static constexpr uint64_t kWorkspaceAlignment = 64;
  uint64_t WorkspaceSize() const override {
    const uint64_t scratch = plan_->tiling.workspaceSize;
    return scratch > 0 ? scratch + kWorkspaceAlignment : 0;
  }
  void Execute(void *workspace) override;
  const tiling::TilingData &Tiling() const { return plan_->tiling; }

 private:
  UpsampleExecutor() = default;

  std::shared_ptr<const UpsamplePlan> plan_;
  kernel::TensorView5d src_;
  kernel::TensorView5d dst_;
  kernel::KernelFn entryPoint_ = nullptr;  // the chosen ISA's function of the plan's kernel
};

// Plans and publishes an executor for validated tensors of rank 3 to 5 (src: gradOut / self, dst:
// gradInput / out), reporting an inner error on failure; the shared tail of every operator's
// GetWorkspaceSize. axisScales: the D, H, W user scales as the operator's rule lets them count (> 0),
// else 0 (tiling::TilingInput::userScales). filter: the operator's axes' filter (its missing axes take
// math::Filter::kUnit).
int32_t PlanAndPublish(const char *api, tiling::Direction direction, const aclTensor &src,
                       const aclTensor &dst, bool alignCorners, const double axisScales[3],
                       uint64_t *workspaceSize, aclOpExecutor **executor,
                       math::Filter filter = math::Filter::kLinear);

// Publishes an executor with nothing to do (an empty tensor that the operator accepts, whatever its other
// sizes): workspace 0, and a run that writes nothing.
int32_t PublishEmpty(uint64_t *workspaceSize, aclOpExecutor **executor);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_UPSAMPLE_EXECUTOR_H_
