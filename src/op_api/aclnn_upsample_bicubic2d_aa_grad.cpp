// aclnnUpsampleBicubic2dAAGrad: CANN's two-phase API and validation order (null, dtypes, negative scales,
// formats, ranks, array sizes, N and C, the growth limit, sizes > 0, formats NCHW / ND), on the resampling
// engine with a unit D axis and the antialiased cubic filter's transposed taps on H and W.
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"

#include <vector>

#include "op_api/filter_2d_validation.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleBicubic2dAAGrad";

int32_t CheckParams(const aclTensor &gradOutput, const aclIntArray &outputSize, const aclIntArray &inputSize,
                    double scalesH, double scalesW, const aclTensor &out) {
  const op_host::OpDef &def = op_host::UpsampleBicubic2dAAGradDef();
  int32_t s = CheckDataTypes(kApi, def, "gradOutput", gradOutput, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckScalesNotNegative(kApi, scalesH, scalesW);
  if (s == ACLNN_SUCCESS) s = CheckSameFormat(kApi, "gradOutput", gradOutput, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "gradOutput", gradOutput, 4);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "inputSize", inputSize, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 2);
  if (s == ACLNN_SUCCESS) s = CheckBatchAndChannels(kApi, "gradOutput", gradOutput, "out", out);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> &in = inputSize.values;
  const std::vector<int64_t> g = LogicalDims(gradOutput);  // CANN reads the output sizes off gradOutput here
  s = CheckGrowthLimit(kApi, in[2], in[3], g[2], g[3], scalesH, scalesW);
  if (s == ACLNN_SUCCESS) {
    const int64_t nchw[4] = {g[0], g[1], in[2], in[3]};
    s = CheckAllSizesPositive(kApi, nchw, g[2], g[3]);
  }
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "gradOutput", gradOutput);
  // Beyond CANN's checks (its kernel writes a copy): both tensors must be the shapes the sizes give.
  const int64_t outH = outputSize.values[0], outW = outputSize.values[1];
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

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
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
                                axisScales, workspaceSize, executor, math::Filter::kCubicAntialias);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGrad(void *workspace, uint64_t workspaceSize,
                                                    aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
