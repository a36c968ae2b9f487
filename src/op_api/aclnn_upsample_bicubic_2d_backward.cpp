// aclnnUpsampleBicubic2dBackward: CANN's two-phase API and validation order (null, ranks, array sizes, H and
// W, gradOut's and gradInput's shapes, formats, dtypes), on the resampling engine with a unit D axis and the
// cubic filter's transposed taps on H and W.
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"

#include <vector>

#include "op_api/filter_2d_validation.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize,
    const bool alignCorners, double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  constexpr const char *kApi = "aclnnUpsampleBicubic2dBackward";
  int32_t s = op_api::CheckNotNull(kApi, {{workspaceSize, "workspaceSize"},
                                          {executor, "executor"},
                                          {inputSize, "inputSize"},
                                          {gradInput, "gradInput"},
                                          {gradOut, "gradOut"},
                                          {outputSize, "outputSize"}});
  if (s == ACLNN_SUCCESS) {
    s = op_api::CheckFilter2dBackward(kApi, op_host::UpsampleBicubic2dGradDef(), *gradOut, *outputSize,
                                      *inputSize, *gradInput);
  }
  if (s != ACLNN_SUCCESS) return s;
  if (op_api::IsEmpty(*gradOut)) return op_api::PublishEmpty(workspaceSize, executor);  // N or C is 0
  double axisScales[3];
  op_api::Filter2dAxisScales(scalesH, scalesW, axisScales);
  // Sizes unchanged on both axes: the gradient is copied whatever the scales (PyTorch's backward and CANN's
  // do so): one tap per axis.
  const std::vector<int64_t> in = op_api::LogicalDims(*gradInput), o = op_api::LogicalDims(*gradOut);
  const bool copy = in[2] == o[2] && in[3] == o[3];
  return op_api::PlanAndPublish(kApi, tiling::Direction::kBackward, *gradOut, *gradInput, alignCorners,
                                axisScales, workspaceSize, executor,
                                copy ? math::Filter::kUnit : math::Filter::kCubic);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dBackward(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor("aclnnUpsampleBicubic2dBackward", workspace, workspaceSize, executor, stream);
}
