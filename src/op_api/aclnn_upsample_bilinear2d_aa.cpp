// aclnnUpsampleBilinear2dAA (forward): CANN's two-phase API and validation order (null, dtypes, formats,
// ranks, outputSize, N and C, negative scales, sizes > 0, the shrink limit), on the resampling engine with a
// unit D axis and the antialiased triangle filter on H and W.
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"

#include <vector>

#include "op_api/filter_2d_validation.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleBilinear2dAA";

int32_t CheckParams(const aclTensor &input, const aclIntArray &outputSize, double scalesH, double scalesW,
                    const aclTensor &out) {
  const op_host::OpDef &def = op_host::UpsampleBilinear2dAADef();
  int32_t s = CheckDataTypes(kApi, def, "input", input, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckSameFormat(kApi, "input", input, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "input", input, 4);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 2);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "input", input);
  if (s == ACLNN_SUCCESS) s = CheckBatchAndChannels(kApi, "input", input, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckScalesNotNegative(kApi, scalesH, scalesW);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> in = LogicalDims(input);
  const int64_t outH = outputSize.values[0], outW = outputSize.values[1];
  s = CheckAllSizesPositive(kApi, in.data(), outH, outW);
  if (s == ACLNN_SUCCESS) s = CheckShrinkLimit(kApi, in[2], in[3], outH, outW, scalesH, scalesW, true);
  // Beyond CANN's checks (its kernel writes a copy): out must be the shape the sizes give.
  if (s == ACLNN_SUCCESS)
    s = CheckLogicalDims(kApi, "out", out, {in[0], in[1], outH, outW}, "input N, C, outputSize");
  return s == ACLNN_SUCCESS ? CheckMemory(kApi, "input", input, "out", out) : s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(
    const aclTensor *input, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{workspaceSize, "workspaceSize"},
                                                  {executor, "executor"},
                                                  {input, "input"},
                                                  {outputSize, "outputSize"},
                                                  {out, "out"}});
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*input, *outputSize, scalesH, scalesW, *out);
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::Filter2dAxisScales(scalesH, scalesW, axisScales);
  const std::vector<int64_t> in = op_api::LogicalDims(*input);
  op_api::DropScalesOfKeptAxes(&in[2], outputSize->values.data(), axisScales);
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kForward, *input, *out, alignCorners,
                                axisScales, workspaceSize, executor, math::Filter::kLinearAntialias);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dAA(void *workspace, uint64_t workspaceSize,
                                                 aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
