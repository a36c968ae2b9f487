// aclnnUpsampleNearestExact3dBackward: CANN's two-phase API. The nearest-exact rule's gradient (PyTorch's
// _upsample_nearest_exact3d_backward); the scales count when all three are > 0.
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearestExact3dBackward";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesD,
    double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{gradOut, "gradOut"},
                                                {outputSize, "outputSize"},
                                                {inputSize, "inputSize"},
                                                {gradInput, "gradInput"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::AllOrNoneScales({scalesD, scalesH, scalesW}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest3dGradDef(), 5, true, "gradOut"};
  return op_api::PublishNearestBackward(rule, math::Filter::kNearestExact, *gradOut, *outputSize, *inputSize,
                                        "gradInput", *gradInput, axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact3dBackward(void *workspace, uint64_t workspaceSize,
                                                           aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
