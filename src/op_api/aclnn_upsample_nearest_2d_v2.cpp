// aclnnUpsampleNearest2dV2: CANN's two-phase API. Nearest 2-D with float scales, both counting when both are
// > 0 (CANN's op_api), else the sizes decide; an empty self or out is a no-op before any other check.
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearest2dV2";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(const aclTensor *self,
                                                                const aclIntArray *outputSize, float scalesH,
                                                                float scalesW, aclTensor *out,
                                                                uint64_t *workspaceSize,
                                                                aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{self, "self"},
                                                {out, "out"},
                                                {outputSize, "outputSize"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  if (op_api::IsEmpty(*self) || op_api::IsEmpty(*out)) return op_api::PublishEmpty(workspaceSize, executor);
  double axisScales[3];
  op_api::AllOrNoneScales({static_cast<double>(scalesH), static_cast<double>(scalesW)}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest2dDef(), 4, true};
  return op_api::PublishNearestForward(rule, math::Filter::kNearest, *self, *outputSize, *out, axisScales,
                                       workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2dV2(void *workspace, uint64_t workspaceSize,
                                                aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
