// aclnnUpsampleNearest1dV2: CANN's two-phase API. Nearest 1-D with a float scale: scaleL > 0 sets the source
// step float(1 / scaleL), else the sizes decide.
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearest1dV2";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest1dV2GetWorkspaceSize(const aclTensor *self,
                                                                const aclIntArray *outputSize, float scaleL,
                                                                aclTensor *out, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{self, "self"},
                                                {outputSize, "outputSize"},
                                                {out, "out"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::PerAxisScales({static_cast<double>(scaleL)}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest1dDef(), 3, true};
  return op_api::PublishNearestForward(rule, math::Filter::kNearestPlain, *self, *outputSize, *out,
                                       axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest1dV2(void *workspace, uint64_t workspaceSize,
                                                aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
