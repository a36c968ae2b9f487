// aclnnUpsampleNearestExact1dBackward: CANN's two-phase API. The nearest-exact rule's gradient (PyTorch's
// _upsample_nearest_exact1d_backward); scales > 0 counts.
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearestExact1dBackward";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize, double scales,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{gradOutput, "gradOutput"},
                                                {outputSize, "outputSize"},
                                                {inputSize, "inputSize"},
                                                {out, "out"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::PerAxisScales({scales}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest1dGradDef(), 3, true, "gradOutput"};
  return op_api::PublishNearestBackward(rule, math::Filter::kNearestExact, *gradOutput, *outputSize,
                                        *inputSize, "out", *out, axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact1dBackward(void *workspace, uint64_t workspaceSize,
                                                           aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
