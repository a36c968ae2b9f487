// aclnnUpsampleNearestExact2dBackward: CANN's two-phase API. The nearest-exact rule's gradient (PyTorch's
// _upsample_nearest_exact2d_backward); each scale > 0 counts for its axis.
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearestExact2dBackward";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesH,
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{gradOutput, "gradOutput"},
                                                {outputSize, "outputSize"},
                                                {inputSize, "inputSize"},
                                                {out, "out"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::PerAxisScales({scalesH, scalesW}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest2dGradDef(), 4, true, "gradOutput"};
  return op_api::PublishNearestBackward(rule, math::Filter::kNearestExact, *gradOutput, *outputSize,
                                        *inputSize, "out", *out, axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact2dBackward(void *workspace, uint64_t workspaceSize,
                                                           aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
