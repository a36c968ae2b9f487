// aclnnUpsampleBilinear2dAABackward: CANN's two-phase API and validation order (null, dtypes, formats, ranks,
// array sizes, N and C, negative scales, sizes > 0, the growth limit), on the resampling engine with a unit D
// axis and the antialiased triangle filter's transposed taps on H and W.
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"

#include <vector>

#include "op_api/filter_2d_validation.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleBilinear2dAABackward";

int32_t CheckParams(const aclTensor &gradOutput, const aclIntArray &outputSize, const aclIntArray &inputSize,
                    double scalesH, double scalesW, const aclTensor &out) {
  const op_host::OpDef &def = op_host::UpsampleBilinear2dAAGradDef();
  int32_t s = CheckDataTypes(kApi, def, "gradOutput", gradOutput, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckSameFormat(kApi, "gradOutput", gradOutput, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "gradOutput", gradOutput, 4);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "inputSize", inputSize, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 2);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "gradOutput", gradOutput);
  if (s == ACLNN_SUCCESS) s = CheckBatchAndChannels(kApi, "gradOutput", gradOutput, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckScalesNotNegative(kApi, scalesH, scalesW);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> &in = inputSize.values;
  const int64_t outH = outputSize.values[0], outW = outputSize.values[1];
  s = CheckAllSizesPositive(kApi, in.data(), outH, outW);
  if (s == ACLNN_SUCCESS) s = CheckGrowthLimit(kApi, in[2], in[3], outH, outW, scalesH, scalesW);
  // Beyond CANN's checks (its kernel writes a copy): both tensors must be the shapes the sizes give.
  if (s == ACLNN_SUCCESS) {
    s = CheckLogicalDims(kApi, "gradOutput", gradOutput, {in[0], in[1], outH, outW},
                         "inputSize N, C, outputSize");
  }
  if (s == ACLNN_SUCCESS) s = CheckLogicalDims(kApi, "out", out, in, "inputSize");
  return s == ACLNN_SUCCESS ? CheckMemory(kApi, "gradOutput", gradOutput, "out", out) : s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{workspaceSize, "workspaceSize"},
                                                  {executor, "executor"},
                                                  {gradOutput, "gradOutput"},
                                                  {inputSize, "inputSize"},
                                                  {out, "out"},
                                                  {outputSize, "outputSize"}});
  if (s == ACLNN_SUCCESS)
    s = op_api::CheckParams(*gradOutput, *outputSize, *inputSize, scalesH, scalesW, *out);
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::Filter2dAxisScales(scalesH, scalesW, axisScales);
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kBackward, *gradOutput, *out, alignCorners,
                                axisScales, workspaceSize, executor, math::Filter::kLinearAntialias);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dAABackward(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
