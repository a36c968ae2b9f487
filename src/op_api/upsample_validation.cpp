#include "op_api/upsample_validation.h"

#include <algorithm>
#include <string>

#include "aclnn/aclnn_base.h"
#include "common/resample_math.h"
#include "op_api/tensor_checks.h"
#include "op_host/upsample_trilinear3d_infershape.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {

int32_t CheckDataTypes(const char *api, const op_host::OpDef &def, const char *aName, const aclTensor &a,
                       const char *bName, const aclTensor &b) {
  if (!op_host::SupportsDataType(def, a.dataType)) {
    runtime::ReportError("%s: %s dtype %d is not supported (FLOAT=0, FLOAT16=1, DOUBLE=11, BF16=27)", api,
                         aName, static_cast<int>(a.dataType));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (b.dataType != a.dataType) {
    runtime::ReportError("%s: %s dtype %d differs from %s dtype %d; they must be the same", api, bName,
                         static_cast<int>(b.dataType), aName, static_cast<int>(a.dataType));
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

int32_t CheckRank(const char *api, const char *name, const aclTensor &t, size_t rank) {
  if (t.viewDims.size() != rank) {
    runtime::ReportError("%s: %s must be %zu-D, got %zu-D shape %s", api, name, rank, t.viewDims.size(),
                         ShapeString(t.viewDims).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

int32_t CheckRank5(const char *api, const char *name, const aclTensor &t) {
  return CheckRank(api, name, t, 5);
}

int32_t CheckArraySize(const char *api, const char *name, const aclIntArray &a, size_t expected) {
  if (a.values.size() != expected) {
    runtime::ReportError("%s: %s must have %zu elements, got %zu: %s", api, name, expected, a.values.size(),
                         ShapeString(a.values).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

int32_t CheckFormat(const char *api, const op_host::OpDef &def, const char *name, const aclTensor &t) {
  if (!op_host::SupportsFormat(def, t.format)) {
    std::string supported;
    for (aclFormat f : def.formats) supported += std::string(supported.empty() ? "" : ", ") + FormatName(f);
    runtime::ReportError("%s: %s format %d (%s) is not supported; use one of %s", api, name,
                         static_cast<int>(t.format), FormatName(t.format), supported.c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

int32_t CheckArraySizeAtLeast(const char *api, const char *name, const aclIntArray &a, size_t least) {
  if (a.values.size() < least) {
    runtime::ReportError("%s: %s must have at least %zu elements, got %zu: %s", api, name, least,
                         a.values.size(), ShapeString(a.values).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

std::vector<int64_t> LogicalDims(const aclTensor &t) {
  int64_t dims[5], strides[5];
  LogicalNcdhw(t, dims, strides);
  const size_t rank = t.viewDims.size();
  std::vector<int64_t> logical = {dims[0], dims[1]};
  logical.insert(logical.end(), dims + 5 - (rank - 2), dims + 5);
  return logical;
}

const char *LayoutName(size_t rank) { return rank == 3 ? "NCL" : rank == 4 ? "NCHW" : "NCDHW"; }

int32_t CheckLogicalDims(const char *api, const char *name, const aclTensor &t,
                         const std::vector<int64_t> &expected, const char *expectedFrom) {
  const std::vector<int64_t> logical = LogicalDims(t);
  if (logical != expected) {
    runtime::ReportError("%s: %s shape %s (format %s, as %s %s) must be %s (%s) from %s", api, name,
                         ShapeString(t.viewDims).c_str(), FormatName(t.format), LayoutName(logical.size()),
                         ShapeString(logical).c_str(), ShapeString(expected).c_str(),
                         LayoutName(expected.size()), expectedFrom);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

std::vector<int64_t> InputSizeAsNchw(const aclIntArray &inputSize, int32_t format) {
  const std::vector<int64_t> &v = inputSize.values;
  if (format == ACL_FORMAT_NHWC) return {v[0], v[3], v[1], v[2]};
  return v;
}

void Bilinear2dAxisScales(const int64_t inHw[2], const int64_t outHw[2], double scalesH, double scalesW,
                          double axisScales[3]) {
  const bool use = scalesH > 0.0 && scalesW > 0.0 && op_host::ScaledSize(inHw[0], scalesH) == outHw[0] &&
                   op_host::ScaledSize(inHw[1], scalesW) == outHw[1];
  axisScales[0] = 0.0;
  axisScales[1] = use ? scalesH : 0.0;
  axisScales[2] = use ? scalesW : 0.0;
}

bool IsEmpty(const aclTensor &t) {
  return std::any_of(t.viewDims.begin(), t.viewDims.end(), [](int64_t d) { return d == 0; });
}

int32_t CheckPositive(const char *api, const char *name, const aclIntArray &a, size_t first) {
  for (size_t i = first; i < a.values.size(); ++i) {
    if (a.values[i] <= 0) {
      runtime::ReportError("%s: %s[%zu] is %lld; spatial sizes must be > 0 (%s %s)", api, name, i,
                           static_cast<long long>(a.values[i]), name, ShapeString(a.values).c_str());
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  return ACLNN_SUCCESS;
}

int32_t CheckLogicalShape(const char *api, const char *name, const aclTensor &t,
                          const std::vector<int64_t> &expected, const char *expectedFrom) {
  int64_t dims[5], strides[5];
  LogicalNcdhw(t, dims, strides);
  const std::vector<int64_t> logical(dims, dims + 5);
  if (logical != expected) {
    runtime::ReportError("%s: %s shape %s (format %s, as NCDHW %s) must be %s (NCDHW) from %s", api, name,
                         ShapeString(t.viewDims).c_str(), FormatName(t.format), ShapeString(logical).c_str(),
                         ShapeString(expected).c_str(), expectedFrom);
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

int32_t CheckScales(const char *api, const int64_t in[3], const int64_t out[3], const double scales[3]) {
  if (!math::UseUserScales(scales[0], scales[1], scales[2])) return ACLNN_SUCCESS;
  static const char *kNames[3] = {"scalesD", "scalesH", "scalesW"};
  for (int i = 0; i < 3; ++i) {
    const int64_t expected = op_host::ScaledSize(in[i], scales[i]);
    if (expected != out[i]) {
      runtime::ReportError(
          "%s: %s = %g with input size %lld gives floor(%lld * %g) = %lld, but the output size is "
          "%lld (scales [%g,%g,%g] must match outputSize)",
          api, kNames[i], scales[i], static_cast<long long>(in[i]), static_cast<long long>(in[i]), scales[i],
          static_cast<long long>(expected), static_cast<long long>(out[i]), scales[0], scales[1], scales[2]);
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  return ACLNN_SUCCESS;
}

int32_t CheckOutputShape(const char *api, const char *name, const aclTensor &t, const int64_t inputNc[2],
                         const aclIntArray &outputSize, const char *expectedFrom) {
  const std::vector<int64_t> expected = {inputNc[0], inputNc[1], outputSize.values[0], outputSize.values[1],
                                         outputSize.values[2]};
  return CheckLogicalShape(api, name, t, expected, expectedFrom);
}

int32_t CheckMemory(const char *api, const char *sourceName, const aclTensor &source,
                    const char *destinationName, const aclTensor &destination) {
  int32_t s = CheckTensorMemory(api, sourceName, source);
  if (s == ACLNN_SUCCESS) s = CheckTensorMemory(api, destinationName, destination);
  return s;
}

int32_t CheckMemoryAndScales(const char *api, const char *sourceName, const aclTensor &source,
                             const char *destinationName, const aclTensor &destination,
                             const int64_t inputDhw[3], const aclIntArray &outputSize,
                             const double scales[3]) {
  int32_t s = CheckMemory(api, sourceName, source, destinationName, destination);
  if (s == ACLNN_SUCCESS) s = CheckScales(api, inputDhw, outputSize.values.data(), scales);
  return s;
}

int32_t CheckNearestForward(const NearestRule &rule, const aclTensor &self, const aclIntArray &outputSize,
                            const aclTensor &out) {
  const char *api = rule.api;
  const size_t spatial = rule.rank - 2;
  int32_t s = CheckDataTypes(api, rule.def, "self", self, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank(api, "self", self, rule.rank);
  if (s == ACLNN_SUCCESS) s = CheckRank(api, "out", out, rule.rank);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(api, "outputSize", outputSize, spatial);
  if (s == ACLNN_SUCCESS) s = CheckFormat(api, rule.def, "self", self);
  if (s == ACLNN_SUCCESS) s = CheckFormat(api, rule.def, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckPositive(api, "outputSize", outputSize, 0);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> in = LogicalDims(self);
  bool ok = in[0] >= (rule.emptyBatchOk ? 0 : 1) && in[1] > 0;
  for (size_t i = 2; i < in.size(); ++i) ok = ok && in[i] > 0;
  if (!ok) {
    runtime::ReportError("%s: self shape %s (format %s, as %s %s) must have %s, C and the spatial sizes > 0",
                         api, ShapeString(self.viewDims).c_str(), FormatName(self.format),
                         LayoutName(in.size()), ShapeString(in).c_str(),
                         rule.emptyBatchOk ? "N >= 0" : "N > 0");
    return ACLNN_ERR_PARAM_INVALID;
  }
  std::vector<int64_t> expected = {in[0], in[1]};
  expected.insert(expected.end(), outputSize.values.begin(), outputSize.values.end());
  s = CheckLogicalDims(api, "out", out, expected, "(self N, C, outputSize)");
  return s == ACLNN_SUCCESS ? CheckMemory(api, "self", self, "out", out) : s;
}

int32_t CheckNearestBackward(const NearestRule &rule, const aclTensor &gradOut, const aclIntArray &outputSize,
                             const aclIntArray &inputSize, const char *gradInputName,
                             const aclTensor &gradInput) {
  const char *api = rule.api;
  const size_t spatial = rule.rank - 2;
  int32_t s = CheckDataTypes(api, rule.def, rule.gradOutName, gradOut, gradInputName, gradInput);
  if (s == ACLNN_SUCCESS) s = CheckRank(api, rule.gradOutName, gradOut, rule.rank);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(api, "outputSize", outputSize, spatial);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(api, "inputSize", inputSize, rule.rank);
  if (s == ACLNN_SUCCESS) s = CheckRank(api, gradInputName, gradInput, rule.rank);
  if (s == ACLNN_SUCCESS) s = CheckFormat(api, rule.def, rule.gradOutName, gradOut);
  if (s == ACLNN_SUCCESS) s = CheckFormat(api, rule.def, gradInputName, gradInput);
  if (s == ACLNN_SUCCESS) s = CheckPositive(api, "outputSize", outputSize, 0);
  if (s == ACLNN_SUCCESS) s = CheckPositive(api, "inputSize", inputSize, 2);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> &in = inputSize.values;
  if (in[0] < 0 || in[1] < 0) {
    runtime::ReportError("%s: inputSize %s has a negative N or C", api, ShapeString(in).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  std::vector<int64_t> expected = {in[0], in[1]};
  expected.insert(expected.end(), outputSize.values.begin(), outputSize.values.end());
  s = CheckLogicalDims(api, rule.gradOutName, gradOut, expected, "(inputSize N, C, outputSize)");
  if (s == ACLNN_SUCCESS) s = CheckLogicalDims(api, gradInputName, gradInput, in, "inputSize");
  return s == ACLNN_SUCCESS ? CheckMemory(api, rule.gradOutName, gradOut, gradInputName, gradInput) : s;
}

}  // namespace trilinear3d::op_api
