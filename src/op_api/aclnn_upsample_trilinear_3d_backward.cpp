// aclnnUpsampleTrilinear3dBackward: the two-phase API. Validation follows CANN's CheckParams
// order (docs/spec.md §4); layout and dtype adaptation fold into the kernel, which reads and writes
// every supported view directly (no Contiguous / Transpose / Cast / ViewCopy copies).
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleTrilinear3dBackward";

int32_t CheckParams(const aclTensor &gradOut, const aclIntArray &outputSize, const aclIntArray &inputSize,
                    const double scales[3], const aclTensor &gradInput) {
  const op_host::OpDef &def = op_host::UpsampleTrilinear3dGradDef();
  int32_t s = CheckDataTypes(kApi, def, "gradOut", gradOut, "gradInput", gradInput);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "gradOut", gradOut);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 3);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "inputSize", inputSize, 5);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "gradInput", gradInput);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "gradOut", gradOut);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "gradInput", gradInput);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "outputSize", outputSize, 0);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "inputSize", inputSize, 2);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> &in = inputSize.values;
  if (in[0] < 0 || in[1] < 0) {
    runtime::ReportError("%s: inputSize %s has a negative N or C", kApi, ShapeString(in).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckOutputShape(kApi, "gradOut", gradOut, in.data(), outputSize, "(inputSize N, C, outputSize)");
  if (s == ACLNN_SUCCESS) s = CheckLogicalShape(kApi, "gradInput", gradInput, in, "inputSize");
  if (s != ACLNN_SUCCESS) return s;
  return CheckMemoryAndScales(kApi, "gradOut", gradOut, "gradInput", gradInput, &in[2], outputSize, scales);
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesD, double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{gradOut, "gradOut"},
                                                  {outputSize, "outputSize"},
                                                  {inputSize, "inputSize"},
                                                  {gradInput, "gradInput"},
                                                  {workspaceSize, "workspaceSize"},
                                                  {executor, "executor"}});
  const double scales[3] = {scalesD, scalesH, scalesW};
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*gradOut, *outputSize, *inputSize, scales, *gradInput);
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  math::AllOrNoScales(scales, axisScales);
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kBackward, *gradOut, *gradInput,
                                alignCorners, axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleTrilinear3dBackward(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
