// aclnnUpsampleNearest2dBackward: CANN's two-phase API. Each input sums the gradients of the outputs that
// picked it (PyTorch's upsample_nearest2d_backward); each scale > 0 counts for its axis.
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearest2dBackward";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesH,
    double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{gradOut, "gradOut"},
                                                {outputSize, "outputSize"},
                                                {inputSize, "inputSize"},
                                                {gradInput, "gradInput"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::PerAxisScales({scalesH, scalesW}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest2dGradDef(), 4, true, "gradOut"};
  return op_api::PublishNearestBackward(rule, math::Filter::kNearest, *gradOut, *outputSize, *inputSize,
                                        "gradInput", *gradInput, axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2dBackward(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
