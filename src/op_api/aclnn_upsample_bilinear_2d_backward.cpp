// aclnnUpsampleBilinear2dBackward (V1) and aclnnUpsampleBilinear2dBackwardV2: CANN's two-phase APIs on the
// resampling engine with a unit D axis. The two versions check the same things in CANN's two orders and
// differ in their scales (V1 ignores them, V2 takes them where they give the sizes) and in the tensor whose
// format orders inputSize (V1: out's, V2: gradOut's).
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"

#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApiV1 = "aclnnUpsampleBilinear2dBackward";
constexpr const char *kApiV2 = "aclnnUpsampleBilinear2dBackwardV2";

enum class Version { kV1, kV2 };

struct Call {
  Version version;
  const char *api;
  const aclTensor &gradOut;
  const aclIntArray &outputSize;
  const aclIntArray &inputSize;
  const aclTensor &out;
};

// The array sizes, in the version's order.
int32_t CheckArraySizes(const Call &c) {
  if (c.version == Version::kV1) {
    int32_t s = CheckArraySize(c.api, "outputSize", c.outputSize, 2);
    return s == ACLNN_SUCCESS ? CheckArraySize(c.api, "inputSize", c.inputSize, 4) : s;
  }
  int32_t s = CheckArraySize(c.api, "inputSize", c.inputSize, 4);
  return s == ACLNN_SUCCESS ? CheckArraySize(c.api, "outputSize", c.outputSize, 2) : s;
}

// Sizes > 0 and gradOut's shape from inputSize (N, C) and outputSize; *inNchw: inputSize as (N, C, H, W).
int32_t CheckSizes(const Call &c, std::vector<int64_t> *inNchw) {
  const aclTensor &orderedBy = c.version == Version::kV1 ? c.out : c.gradOut;
  *inNchw = InputSizeAsNchw(c.inputSize, orderedBy.format);
  const std::vector<int64_t> &in = *inNchw;
  const std::vector<int64_t> &o = c.outputSize.values;
  if (in[0] < 0 || in[1] < 0 || in[2] <= 0 || in[3] <= 0 || o[0] <= 0 || o[1] <= 0) {
    runtime::ReportError(
        "%s: inputSize %s (as NCHW %s, by %s format %s) and outputSize %s must have H, W > 0 "
        "and N, C >= 0",
        c.api, ShapeString(c.inputSize.values).c_str(), ShapeString(in).c_str(),
        c.version == Version::kV1 ? "out's" : "gradOut's", FormatName(orderedBy.format),
        ShapeString(o).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  return CheckLogicalDims(c.api, "gradOut", c.gradOut, {in[0], in[1], o[0], o[1]},
                          "(inputSize N, C, outputSize)");
}

// out's N and C are gradOut's: V2 checks them before the dtypes, out's whole shape after them.
int32_t CheckOutBatchAndChannels(const Call &c) {
  const std::vector<int64_t> g = LogicalDims(c.gradOut), o = LogicalDims(c.out);
  if (g[0] == o[0] && g[1] == o[1]) return ACLNN_SUCCESS;
  runtime::ReportError("%s: out N, C (%lld, %lld) must be gradOut's (%lld, %lld) (out shape %s, format %s)",
                       c.api, static_cast<long long>(o[0]), static_cast<long long>(o[1]),
                       static_cast<long long>(g[0]), static_cast<long long>(g[1]),
                       ShapeString(c.out.viewDims).c_str(), FormatName(c.out.format));
  return ACLNN_ERR_PARAM_INVALID;
}

int32_t CheckParams(const Call &c, std::vector<int64_t> *inNchw) {
  const op_host::OpDef &def = op_host::UpsampleBilinear2dGradDef();
  int32_t s = CheckRank(c.api, "gradOut", c.gradOut, 4);
  if (s == ACLNN_SUCCESS) s = CheckArraySizes(c);
  if (s == ACLNN_SUCCESS) s = CheckFormat(c.api, def, "out", c.out);
  if (s == ACLNN_SUCCESS) s = CheckFormat(c.api, def, "gradOut", c.gradOut);
  if (s == ACLNN_SUCCESS) s = CheckSizes(c, inNchw);
  if (s == ACLNN_SUCCESS) s = CheckRank(c.api, "out", c.out, 4);
  // V1 compares out with inputSize before the dtypes, V2 after them (its final output-shape check).
  auto outShape = [&] { return CheckLogicalDims(c.api, "out", c.out, *inNchw, "inputSize"); };
  auto dataTypes = [&] { return CheckDataTypes(c.api, def, "gradOut", c.gradOut, "out", c.out); };
  const bool v1 = c.version == Version::kV1;
  if (s == ACLNN_SUCCESS && !v1) s = CheckOutBatchAndChannels(c);  // V2: CANN's CheckNCDimValid, first
  if (s == ACLNN_SUCCESS) s = v1 ? outShape() : dataTypes();
  if (s == ACLNN_SUCCESS) s = v1 ? dataTypes() : outShape();
  return s == ACLNN_SUCCESS ? CheckMemory(c.api, "gradOut", c.gradOut, "out", c.out) : s;
}

int32_t GetWorkspaceSize(Version version, const char *api, const aclTensor *gradOut,
                         const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
                         double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
  int32_t s = version == Version::kV1 ? CheckNotNull(api, {{gradOut, "gradOut"},
                                                           {outputSize, "outputSize"},
                                                           {inputSize, "inputSize"},
                                                           {out, "out"},
                                                           {workspaceSize, "workspaceSize"},
                                                           {executor, "executor"}})
                                      : CheckNotNull(api, {{gradOut, "gradOut"},
                                                           {inputSize, "inputSize"},
                                                           {outputSize, "outputSize"},
                                                           {out, "out"},
                                                           {workspaceSize, "workspaceSize"},
                                                           {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  const Call call{version, api, *gradOut, *outputSize, *inputSize, *out};
  std::vector<int64_t> in;
  s = CheckParams(call, &in);
  if (s != ACLNN_SUCCESS) return s;
  if (IsEmpty(*gradOut)) return PublishEmpty(workspaceSize, executor);  // N or C is 0
  double axisScales[3] = {0.0, 0.0, 0.0};
  if (version == Version::kV2)
    Bilinear2dAxisScales(&in[2], outputSize->values.data(), scalesH, scalesW, axisScales);
  return PlanAndPublish(api, tiling::Direction::kBackward, *gradOut, *out, alignCorners, axisScales,
                        workspaceSize, executor);
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return op_api::GetWorkspaceSize(op_api::Version::kV1, op_api::kApiV1, gradOut, outputSize, inputSize,
                                  alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackward(void *workspace, uint64_t workspace_size,
                                                       aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApiV1, workspace, workspace_size, executor, stream);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return op_api::GetWorkspaceSize(op_api::Version::kV2, op_api::kApiV2, gradOut, outputSize, inputSize,
                                  alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardV2(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApiV2, workspace, workspaceSize, executor, stream);
}
