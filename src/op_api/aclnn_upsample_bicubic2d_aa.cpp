// aclnnUpsampleBicubic2dAA (forward): CANN's two-phase API and validation order (null; an empty x or out is
// an empty result before the other checks; dtypes, rank, outputSize, sizes > 0, C > 0, formats, the shrink
// limit), on the resampling engine with a unit D axis and the antialiased cubic filter on H and W.
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"

#include <vector>

#include "op_api/filter_2d_validation.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleBicubic2dAA";

int32_t CheckParams(const aclTensor &x, const aclIntArray &outputSize, double scalesH, double scalesW,
                    const aclTensor &out) {
  const op_host::OpDef &def = op_host::UpsampleBicubic2dAADef();
  int32_t s = CheckDataTypes(kApi, def, "x", x, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "x", x, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 2);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> in = LogicalDims(x);
  const int64_t outH = outputSize.values[0], outW = outputSize.values[1];
  s = CheckAllSizesPositive(kApi, in.data(), outH, outW);  // x is not empty: outputSize decides
  if (s != ACLNN_SUCCESS) return s;
  if (!op_host::SupportsFormat(def, x.format) || !op_host::SupportsFormat(def, out.format)) {
    runtime::ReportError("%s: x format %s and out format %s must be NCHW or ND", kApi, FormatName(x.format),
                         FormatName(out.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckShrinkLimit(kApi, in[2], in[3], outH, outW, scalesH, scalesW, false);
  // Beyond CANN's checks (its kernel writes a copy): out must be 4-D and the shape the sizes give.
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 4);
  if (s == ACLNN_SUCCESS)
    s = CheckLogicalDims(kApi, "out", out, {in[0], in[1], outH, outW}, "x N, C, outputSize");
  return s == ACLNN_SUCCESS ? CheckMemory(kApi, "x", x, "out", out) : s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(
    const aclTensor *x, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{workspaceSize, "workspaceSize"},
                                                  {executor, "executor"},
                                                  {x, "x"},
                                                  {outputSize, "outputSize"},
                                                  {out, "out"}});
  if (s != ACLNN_SUCCESS) return s;
  if (op_api::IsEmpty(*x) || op_api::IsEmpty(*out)) return op_api::PublishEmpty(workspaceSize, executor);
  s = op_api::CheckParams(*x, *outputSize, scalesH, scalesW, *out);
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::Filter2dAxisScales(scalesH, scalesW, axisScales);
  const std::vector<int64_t> in = op_api::LogicalDims(*x);
  op_api::DropScalesOfKeptAxes(&in[2], outputSize->values.data(), axisScales);
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kForward, *x, *out, alignCorners, axisScales,
                                workspaceSize, executor, math::Filter::kCubicAntialias);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dAA(void *workspace, uint64_t workspaceSize,
                                                aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
