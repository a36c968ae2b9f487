// aclnnUpsampleLinear1dBackward: CANN's two-phase API and validation order (null, shapes, dtypes, sizes,
// N and C, out's shape), then the scale's limit, on the resampling engine with unit D and H axes.
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"

#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "op_host/upsample_trilinear3d_infershape.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleLinear1dBackward";
// CANN: the backward's magnification (the scale, or outL / inL) is at most 500.
constexpr double kMaxScale = 500.0;

int32_t CheckParams(const aclTensor &gradOut, const aclIntArray &outputSize, const aclIntArray &inputSize,
                    const aclTensor &out) {
  int32_t s = CheckRank(kApi, "gradOut", gradOut, 3);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 1);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "inputSize", inputSize, 3);
  if (s == ACLNN_SUCCESS)
    s = CheckDataTypes(kApi, op_host::UpsampleLinear1dGradDef(), "gradOut", gradOut, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "outputSize", outputSize, 0);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "inputSize", inputSize, 2);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> &in = inputSize.values;
  if (in[0] < 0 || in[1] < 0) {
    runtime::ReportError("%s: inputSize %s has a negative N or C", kApi, ShapeString(in).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckLogicalDims(kApi, "gradOut", gradOut, {in[0], in[1], outputSize.values[0]},
                       "(inputSize N, C, outputSize)");
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 3);
  if (s == ACLNN_SUCCESS) s = CheckLogicalDims(kApi, "out", out, in, "inputSize");
  return s == ACLNN_SUCCESS ? CheckMemory(kApi, "gradOut", gradOut, "out", out) : s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleLinear1dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scales, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{gradOut, "gradOut"},
                                                  {outputSize, "outputSize"},
                                                  {inputSize, "inputSize"},
                                                  {out, "out"},
                                                  {workspaceSize, "workspaceSize"},
                                                  {executor, "executor"}});
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*gradOut, *outputSize, *inputSize, *out);
  if (s != ACLNN_SUCCESS) return s;
  if (op_api::IsEmpty(*gradOut)) return op_api::PublishEmpty(workspaceSize, executor);
  // A scale counts where it gives the output size (CANN: else the sizes decide, with no error).
  const int64_t inL = inputSize->values[2], outL = outputSize->values[0];
  const bool useScale = scales > 0.0 && op_host::ScaledSize(inL, scales) == outL;
  const double magnification = useScale ? scales : static_cast<double>(outL) / static_cast<double>(inL);
  if (magnification > op_api::kMaxScale) {
    runtime::ReportError("%s: the magnification %g (%s) is above the limit %g", op_api::kApi, magnification,
                         useScale ? "scales" : "outputSize[0] / inputSize[2]", op_api::kMaxScale);
    return ACLNN_ERR_PARAM_INVALID;
  }
  const double axisScales[3] = {0.0, 0.0, useScale ? scales : 0.0};
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kBackward, *gradOut, *out, alignCorners,
                                axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleLinear1dBackward(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
