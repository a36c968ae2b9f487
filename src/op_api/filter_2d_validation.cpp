#include "op_api/filter_2d_validation.h"

#include <vector>

#include "aclnn/aclnn_base.h"
#include "common/resample_math.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_validation.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

// CANN's tolerance for a scale against its output size: out is floor(in * s) or lies between
// floor(in * (s - 1e-5)) and floor(in * (s + 1e-5)).
constexpr double kScaleTolerance = 1e-5;

bool ScaleGivesSize(int64_t in, int64_t out, double scale) {
  if (!(scale > 0.0)) return true;  // not used: the sizes decide
  const double size = static_cast<double>(in);
  const int64_t exact = math::TruncSize(size * scale);
  const int64_t high = math::TruncSize(size * (scale + kScaleTolerance));
  const int64_t low = math::TruncSize(size * (scale - kScaleTolerance));
  return out == exact || (out >= low && out <= high);
}

int32_t CheckScale(const char *api, const char *name, int64_t in, int64_t out, double scale) {
  if (ScaleGivesSize(in, out, scale)) return ACLNN_SUCCESS;
  runtime::ReportError("%s: %s = %g conflicts with the output size %lld: floor(%lld * %g) = %lld", api, name,
                       scale, static_cast<long long>(out), static_cast<long long>(in), scale,
                       static_cast<long long>(math::TruncSize(static_cast<double>(in) * scale)));
  return ACLNN_ERR_PARAM_INVALID;
}

int32_t CheckSizesPositive(const char *api, int64_t inH, int64_t inW, int64_t outH, int64_t outW) {
  if (inH > 0 && inW > 0 && outH > 0 && outW > 0) return ACLNN_SUCCESS;
  runtime::ReportError("%s: H and W must be > 0, got input (H %lld, W %lld) and output (H %lld, W %lld)", api,
                       static_cast<long long>(inH), static_cast<long long>(inW), static_cast<long long>(outH),
                       static_cast<long long>(outW));
  return ACLNN_ERR_PARAM_INVALID;
}

}  // namespace

int32_t CheckFilter2dForward(const char *api, const op_host::OpDef &def, const aclTensor &self,
                             const aclIntArray &outputSize, double scalesH, double scalesW,
                             const aclTensor &out) {
  int32_t s = CheckDataTypes(api, def, "self", self, "out", out);
  if (s == ACLNN_SUCCESS && self.format != out.format) {
    runtime::ReportError("%s: self format %s and out format %s must be the same", api,
                         FormatName(self.format), FormatName(out.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (s == ACLNN_SUCCESS) s = CheckFormat(api, def, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank(api, "self", self, 4);
  if (s == ACLNN_SUCCESS) s = CheckRank(api, "out", out, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(api, "outputSize", outputSize, 2);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> in = LogicalDims(self);
  if (in[1] <= 0) {
    runtime::ReportError("%s: self must have C > 0, got shape %s (format %s)", api,
                         ShapeString(self.viewDims).c_str(), FormatName(self.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  const int64_t outH = outputSize.values[0], outW = outputSize.values[1];
  s = CheckSizesPositive(api, in[2], in[3], outH, outW);
  if (s == ACLNN_SUCCESS)
    s = CheckLogicalDims(api, "out", out, {in[0], in[1], outH, outW}, "self N, C and outputSize");
  if (s == ACLNN_SUCCESS) s = CheckScale(api, "scalesH", in[2], outH, scalesH);
  if (s == ACLNN_SUCCESS) s = CheckScale(api, "scalesW", in[3], outW, scalesW);
  return s == ACLNN_SUCCESS ? CheckMemory(api, "self", self, "out", out) : s;
}

int32_t CheckFilter2dBackward(const char *api, const op_host::OpDef &def, const aclTensor &gradOut,
                              const aclIntArray &outputSize, const aclIntArray &inputSize,
                              const aclTensor &gradInput) {
  int32_t s = CheckRank(api, "gradOut", gradOut, 4);
  if (s == ACLNN_SUCCESS) s = CheckRank(api, "gradInput", gradInput, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(api, "outputSize", outputSize, 2);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(api, "inputSize", inputSize, 4);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> in = InputSizeAsNchw(inputSize, gradInput.format);
  const int64_t outH = outputSize.values[0], outW = outputSize.values[1];
  s = CheckSizesPositive(api, in[2], in[3], outH, outW);
  if (s == ACLNN_SUCCESS) {
    s = CheckLogicalDims(api, "gradOut", gradOut, {in[0], in[1], outH, outW},
                         "inputSize N, C and outputSize");
  }
  if (s == ACLNN_SUCCESS) s = CheckLogicalDims(api, "gradInput", gradInput, in, "inputSize");
  if (s == ACLNN_SUCCESS) s = CheckFormat(api, def, "gradOut", gradOut);
  if (s == ACLNN_SUCCESS && gradOut.format != gradInput.format) {
    runtime::ReportError("%s: gradOut format %s and gradInput format %s must be the same", api,
                         FormatName(gradOut.format), FormatName(gradInput.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (s == ACLNN_SUCCESS) s = CheckDataTypes(api, def, "gradOut", gradOut, "gradInput", gradInput);
  return s == ACLNN_SUCCESS ? CheckMemory(api, "gradOut", gradOut, "gradInput", gradInput) : s;
}

int32_t CheckScalesNotNegative(const char *api, double scalesH, double scalesW) {
  if (scalesH < 0.0 || scalesW < 0.0) {
    runtime::ReportError("%s: scalesH %g and scalesW %g must not be negative", api, scalesH, scalesW);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

int32_t CheckSameFormat(const char *api, const char *aName, const aclTensor &a, const char *bName,
                        const aclTensor &b) {
  if (a.format == b.format) return ACLNN_SUCCESS;
  runtime::ReportError("%s: %s format %s and %s format %s must be the same", api, aName, FormatName(a.format),
                       bName, FormatName(b.format));
  return ACLNN_ERR_PARAM_INVALID;
}

int32_t CheckBatchAndChannels(const char *api, const char *aName, const aclTensor &a, const char *bName,
                              const aclTensor &b) {
  const std::vector<int64_t> x = LogicalDims(a), y = LogicalDims(b);
  if (x[0] == y[0] && x[1] == y[1]) return ACLNN_SUCCESS;
  runtime::ReportError("%s: %s N, C (%lld, %lld) must be %s's (%lld, %lld)", api, bName,
                       static_cast<long long>(y[0]), static_cast<long long>(y[1]), aName,
                       static_cast<long long>(x[0]), static_cast<long long>(x[1]));
  return ACLNN_ERR_PARAM_INVALID;
}

int32_t CheckAllSizesPositive(const char *api, const int64_t nchw[4], int64_t outH, int64_t outW) {
  if (nchw[0] > 0 && nchw[1] > 0 && nchw[2] > 0 && nchw[3] > 0 && outH > 0 && outW > 0) return ACLNN_SUCCESS;
  runtime::ReportError(
      "%s: sizes must be > 0, got input (N %lld, C %lld, H %lld, W %lld) and output (H %lld, W %lld)", api,
      static_cast<long long>(nchw[0]), static_cast<long long>(nchw[1]), static_cast<long long>(nchw[2]),
      static_cast<long long>(nchw[3]), static_cast<long long>(outH), static_cast<long long>(outW));
  return ACLNN_ERR_PARAM_INVALID;
}

namespace {

constexpr double kMaxShrink = 50.0;
constexpr double kMinStep = 0.02;

}  // namespace

int32_t CheckShrinkLimit(const char *api, int64_t inH, int64_t inW, int64_t outH, int64_t outW,
                         double scalesH, double scalesW, bool integerRatio) {
  auto step = [&](int64_t in, int64_t out, double scale) {
    if (scale > 0.0) return static_cast<double>(static_cast<float>(1.0 / scale));
    return integerRatio ? static_cast<double>(in / out)
                        : static_cast<double>(static_cast<float>(in) / static_cast<float>(out));
  };
  const double h = step(inH, outH, scalesH), w = step(inW, outW, scalesW);
  if (h <= kMaxShrink && w <= kMaxShrink) return ACLNN_SUCCESS;
  runtime::ReportError(
      "%s: a shrink by more than 50 is not supported: source steps H %g, W %g (input %lldx%lld, "
      "output %lldx%lld, scalesH %g, scalesW %g)",
      api, h, w, static_cast<long long>(inH), static_cast<long long>(inW), static_cast<long long>(outH),
      static_cast<long long>(outW), scalesH, scalesW);
  return ACLNN_ERR_PARAM_INVALID;
}

int32_t CheckGrowthLimit(const char *api, int64_t inH, int64_t inW, int64_t outH, int64_t outW,
                         double scalesH, double scalesW) {
  auto step = [](int64_t in, int64_t out, double scale) {
    if (scale > 0.0) return 1.0 / scale;
    return out != 0 ? static_cast<double>(in) / static_cast<double>(out) : 0.0;
  };
  const double h = step(inH, outH, scalesH), w = step(inW, outW, scalesW);
  if (h >= kMinStep && w >= kMinStep) return ACLNN_SUCCESS;
  runtime::ReportError(
      "%s: a growth by more than 50 is not supported: source steps H %g, W %g (input %lldx%lld, "
      "output %lldx%lld, scalesH %g, scalesW %g)",
      api, h, w, static_cast<long long>(inH), static_cast<long long>(inW), static_cast<long long>(outH),
      static_cast<long long>(outW), scalesH, scalesW);
  return ACLNN_ERR_PARAM_INVALID;
}

void Filter2dAxisScales(double scalesH, double scalesW, double axisScales[3]) {
  axisScales[0] = 0.0;
  axisScales[1] = scalesH > 0.0 ? scalesH : 0.0;
  axisScales[2] = scalesW > 0.0 ? scalesW : 0.0;
}

void DropScalesOfKeptAxes(const int64_t inHw[2], const int64_t outHw[2], double axisScales[3]) {
  for (int a = 0; a < 2; ++a) {
    if (inHw[a] == outHw[a]) axisScales[1 + a] = 0.0;
  }
}

}  // namespace trilinear3d::op_api
