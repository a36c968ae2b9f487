// aclnnResize: CANN's two-phase API; out = floor(self * scales) on H and W. Mode "nearest" is PyTorch's
// interpolate(scale_factor, mode="nearest") (the nearest rule with the scales), "bilinear" its
// interpolate(scale_factor, mode="bilinear", align_corners=False) on the linear engine (docs/spec.md §3).
// Validation in CANN's order: null, mode, dtypes, formats, shapes (with the scales' N and C of 1), then
// step 5.
#include "aclnnop/aclnn_resize.h"

#include <cmath>
#include <cstring>

#include "common/resample_math.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "op_host/op_defs.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnResize";

// CANN compares the mode's prefix ("nearest..." and "bilinear..." both pass).
bool StartsWith(const char *text, const char *prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

int32_t CheckParams(const aclTensor &self, const aclFloatArray &scales, const char *mode,
                    const aclTensor &out) {
  if (!StartsWith(mode, "nearest") && !StartsWith(mode, "bilinear")) {
    runtime::ReportError("%s: mode \"%s\" is not supported; use \"nearest\" or \"bilinear\"", kApi, mode);
    return ACLNN_ERR_PARAM_INVALID;
  }
  const op_host::OpDef &def = op_host::ResizeDef();
  int32_t s = CheckDataTypes(kApi, def, "self", self, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "self", self);
  if (s != ACLNN_SUCCESS) return s;
  if (out.format != self.format) {
    runtime::ReportError("%s: out format %s differs from self format %s; they must be the same", kApi,
                         FormatName(out.format), FormatName(self.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckRank(kApi, "self", self, 4);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 4);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<float> &f = scales.values;
  if (f.size() != 4 || f[0] != 1.0f || f[1] != 1.0f || !(f[2] > 0.0f) || !(f[3] > 0.0f)) {
    std::string list;
    for (float v : f) list += (list.empty() ? "" : ", ") + std::to_string(v);
    runtime::ReportError("%s: scales [%s] must hold 4 factors (N, C, H, W): N and C 1, H and W > 0", kApi,
                         list.c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  const std::vector<int64_t> in = LogicalDims(self);
  if (in[0] <= 0 || in[1] <= 0 || in[2] <= 0 || in[3] <= 0) {
    runtime::ReportError("%s: self shape %s is empty; aclnnResize takes no empty tensor", kApi,
                         ShapeString(self.viewDims).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  // CANN's sizes: int64(double(in) * double(scale)).
  const int64_t outH = math::TruncSize(static_cast<double>(in[2]) * static_cast<double>(f[2]));
  const int64_t outW = math::TruncSize(static_cast<double>(in[3]) * static_cast<double>(f[3]));
  if (outH <= 0 || outW <= 0) {
    runtime::ReportError("%s: scales H %g and W %g give an empty out (%lld x %lld) from self H %lld, W %lld",
                         kApi, static_cast<double>(f[2]), static_cast<double>(f[3]),
                         static_cast<long long>(outH), static_cast<long long>(outW),
                         static_cast<long long>(in[2]), static_cast<long long>(in[3]));
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckLogicalDims(kApi, "out", out, {in[0], in[1], outH, outW},
                       "(self N, C, floor(self H, W * scales))");
  return s == ACLNN_SUCCESS ? CheckMemory(kApi, "self", self, "out", out) : s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnResizeGetWorkspaceSize(const aclTensor *self, const aclFloatArray *scales,
                                                   const char *mode, aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{self, "self"},
                                                  {scales, "scales"},
                                                  {mode, "mode"},
                                                  {out, "out"},
                                                  {workspaceSize, "workspaceSize"},
                                                  {executor, "executor"}});
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*self, *scales, mode, *out);
  if (s != ACLNN_SUCCESS) return s;
  const double axisScales[3] = {0.0, scales->values[2], scales->values[3]};
  const bool nearest = op_api::StartsWith(mode, "nearest");
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kForward, *self, *out, false, axisScales,
                                workspaceSize, executor,
                                nearest ? math::Filter::kNearest : math::Filter::kLinear);
}

extern "C" aclnnStatus aclnnResize(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
