// aclnnUpsampleBilinear2d (forward): CANN's two-phase API and validation order (null, dtypes, formats and
// ranks, N and C, scales, outputSize against out), on the resampling engine with a unit D axis.
#include "aclnnop/aclnn_upsample_bilinear_2d.h"

#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleBilinear2d";

int32_t CheckParams(const aclTensor &self, const aclIntArray &outputSize, double scalesH, double scalesW,
                    const aclTensor &out) {
  const op_host::OpDef &def = op_host::UpsampleBilinear2dDef();
  int32_t s = CheckDataTypes(kApi, def, "self", self, "out", out);
  if (s == ACLNN_SUCCESS && self.format != out.format) {
    runtime::ReportError("%s: self format %s and out format %s must be the same", kApi,
                         FormatName(self.format), FormatName(out.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "self", self);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "self", self, 4);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 4);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> in = LogicalDims(self), o = LogicalDims(out);
  if (in[0] != o[0] || in[1] != o[1]) {
    runtime::ReportError("%s: self N, C (%lld, %lld) and out N, C (%lld, %lld) must be equal", kApi,
                         static_cast<long long>(in[0]), static_cast<long long>(in[1]),
                         static_cast<long long>(o[0]), static_cast<long long>(o[1]));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (scalesH < 0.0 || scalesW < 0.0) {  // CANN's test: a NaN scale passes (and is then not used)
    runtime::ReportError("%s: scalesH %g and scalesW %g must not be negative", kApi, scalesH, scalesW);
    return ACLNN_ERR_PARAM_INVALID;
  }
  // CANN reads the first two elements of outputSize (its own example passes four).
  s = CheckArraySizeAtLeast(kApi, "outputSize", outputSize, 2);
  if (s != ACLNN_SUCCESS) return s;
  if (outputSize.values[0] != o[2] || outputSize.values[1] != o[3]) {
    runtime::ReportError(
        "%s: outputSize (H %lld, W %lld) differs from out's H, W (%lld, %lld) (out shape %s, format %s)",
        kApi, static_cast<long long>(outputSize.values[0]), static_cast<long long>(outputSize.values[1]),
        static_cast<long long>(o[2]), static_cast<long long>(o[3]), ShapeString(out.viewDims).c_str(),
        FormatName(out.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  for (const std::vector<int64_t> *dims : {&in, &o}) {
    for (int64_t d : *dims) {
      if (d < 0) {
        runtime::ReportError("%s: %s shape %s has a negative dim", kApi, dims == &in ? "self" : "out",
                             ShapeString(dims == &in ? self.viewDims : out.viewDims).c_str());
        return ACLNN_ERR_PARAM_INVALID;
      }
    }
  }
  return CheckMemory(kApi, "self", self, "out", out);
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{self, "self"},
                                                  {outputSize, "outputSize"},
                                                  {out, "out"},
                                                  {workspaceSize, "workspaceSize"},
                                                  {executor, "executor"}});
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*self, *outputSize, scalesH, scalesW, *out);
  if (s != ACLNN_SUCCESS) return s;
  // CANN: an empty self or out (any dim 0) is an empty result, whatever the other sizes.
  if (op_api::IsEmpty(*self) || op_api::IsEmpty(*out)) return op_api::PublishEmpty(workspaceSize, executor);
  const std::vector<int64_t> in = op_api::LogicalDims(*self), o = op_api::LogicalDims(*out);
  double axisScales[3];
  op_api::Bilinear2dAxisScales(&in[2], &o[2], scalesH, scalesW, axisScales);
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kForward, *self, *out, alignCorners,
                                axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2d(void *workspace, uint64_t workspaceSize,
                                               aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
