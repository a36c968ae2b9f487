// aclnnUpsampleTrilinear3d (forward): the same two-phase API and validation style as the backward.
#include "aclnnop/aclnn_upsample_trilinear_3d.h"

#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleTrilinear3d";

int32_t CheckParams(const aclTensor &self, const aclIntArray &outputSize, const double scales[3],
                    const aclTensor &out) {
  const op_host::OpDef &def = op_host::UpsampleTrilinear3dDef();
  int32_t s = CheckDataTypes(kApi, def, "self", self, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "self", self);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 3);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "self", self);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "outputSize", outputSize, 0);
  if (s != ACLNN_SUCCESS) return s;
  int64_t dims[5], strides[5];
  LogicalNcdhw(self, dims, strides);
  for (int i = 0; i < 5; ++i) {
    if (dims[i] < 0 || (i >= 2 && dims[i] == 0)) {
      runtime::ReportError(
          "%s: self shape %s (format %s) has an invalid dim %d = %lld (N >= 0; C, D, H, W > 0)", kApi,
          ShapeString(self.viewDims).c_str(), FormatName(self.format), i, static_cast<long long>(dims[i]));
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  // CANN's forward needs C > 0 (its op_api checks outC > 0; out's C is self's), while N = 0 is an
  // empty no-op. The backward accepts both.
  if (dims[1] == 0) {
    runtime::ReportError("%s: self shape %s (format %s) has C = 0; the forward needs C > 0 (N may be 0)",
                         kApi, ShapeString(self.viewDims).c_str(), FormatName(self.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckOutputShape(kApi, "out", out, dims, outputSize, "(self N, C, outputSize)");
  if (s != ACLNN_SUCCESS) return s;
  return CheckMemoryAndScales(kApi, "self", self, "out", out, &dims[2], outputSize, scales);
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, bool alignCorners, double scalesD, double scalesH,
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{self, "self"},
                                                  {outputSize, "outputSize"},
                                                  {out, "out"},
                                                  {workspaceSize, "workspaceSize"},
                                                  {executor, "executor"}});
  const double scales[3] = {scalesD, scalesH, scalesW};
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*self, *outputSize, scales, *out);
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  math::AllOrNoScales(scales, axisScales);
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kForward, *self, *out, alignCorners,
                                axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleTrilinear3d(void *workspace, uint64_t workspaceSize,
                                                aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
