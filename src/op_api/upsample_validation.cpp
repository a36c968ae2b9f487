#include "op_api/upsample_validation.h"

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

int32_t CheckRank5(const char *api, const char *name, const aclTensor &t) {
  if (t.viewDims.size() != 5) {
    runtime::ReportError("%s: %s must be 5-D, got %zu-D shape %s", api, name, t.viewDims.size(),
                         ShapeString(t.viewDims).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
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
    runtime::ReportError("%s: %s format %d (%s) is not supported; use ND, NCDHW or NDHWC", api, name,
                         static_cast<int>(t.format), FormatName(t.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
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

int32_t CheckMemoryAndScales(const char *api, const char *sourceName, const aclTensor &source,
                             const char *destinationName, const aclTensor &destination,
                             const int64_t inputDhw[3], const aclIntArray &outputSize,
                             const double scales[3]) {
  int32_t s = CheckTensorMemory(api, sourceName, source);
  if (s == ACLNN_SUCCESS) s = CheckTensorMemory(api, destinationName, destination);
  if (s == ACLNN_SUCCESS) s = CheckScales(api, inputDhw, outputSize.values.data(), scales);
  return s;
}

}  // namespace trilinear3d::op_api
