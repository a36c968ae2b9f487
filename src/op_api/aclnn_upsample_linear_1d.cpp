// aclnnUpsampleLinear1d (forward): CANN's two-phase API and validation order (null, shapes, scale, dtypes),
// on the resampling engine as a 5-D problem with unit D and H axes.
#include "aclnnop/aclnn_upsample_linear_1d.h"

#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "op_host/upsample_trilinear3d_infershape.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleLinear1d";

int32_t CheckParams(const aclTensor &self, const aclIntArray &outputSize, double scale,
                    const aclTensor &out) {
  int32_t s = CheckRank(kApi, "self", self, 3);
  if (s == ACLNN_SUCCESS) s = CheckRank(kApi, "out", out, 3);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 1);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> in = LogicalDims(self);
  // CANN's forward takes N = 0 (nothing to do) but neither C = 0 nor L = 0.
  if (in[0] < 0 || in[1] <= 0 || in[2] <= 0) {
    runtime::ReportError("%s: self shape %s must be (N >= 0, C > 0, L > 0)", kApi,
                         ShapeString(self.viewDims).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckPositive(kApi, "outputSize", outputSize, 0);
  if (s == ACLNN_SUCCESS) {
    s = CheckLogicalDims(kApi, "out", out, {in[0], in[1], outputSize.values[0]}, "(self N, C, outputSize)");
  }
  if (s != ACLNN_SUCCESS) return s;
  // A scale >= 0 must give the output size (CANN checks it for 0 too); a negative one stands for "no
  // scale".
  if (scale >= 0.0 && op_host::ScaledSize(in[2], scale) != outputSize.values[0]) {
    runtime::ReportError(
        "%s: scale %g with input L %lld gives floor(%lld * %g) = %lld, but outputSize[0] is %lld "
        "(a scale >= 0 must give the output size; a negative one leaves it to the sizes)",
        kApi, scale, static_cast<long long>(in[2]), static_cast<long long>(in[2]), scale,
        static_cast<long long>(op_host::ScaledSize(in[2], scale)),
        static_cast<long long>(outputSize.values[0]));
    return ACLNN_ERR_PARAM_INVALID;
  }
  s = CheckDataTypes(kApi, op_host::UpsampleLinear1dDef(), "self", self, "out", out);
  return s == ACLNN_SUCCESS ? CheckMemory(kApi, "self", self, "out", out) : s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleLinear1dGetWorkspaceSize(const aclTensor *self,
                                                             const aclIntArray *outputSize,
                                                             const bool alignCorners, const double scale,
                                                             aclTensor *out, uint64_t *workspaceSize,
                                                             aclOpExecutor **executor) {
  // CANN's order: self, out, outputSize.
  int32_t s = op_api::CheckNotNull(op_api::kApi, {{self, "self"},
                                                  {out, "out"},
                                                  {outputSize, "outputSize"},
                                                  {workspaceSize, "workspaceSize"},
                                                  {executor, "executor"}});
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*self, *outputSize, scale, *out);
  if (s != ACLNN_SUCCESS) return s;
  if (op_api::IsEmpty(*self)) return op_api::PublishEmpty(workspaceSize, executor);
  const double axisScales[3] = {0.0, 0.0, scale > 0.0 ? scale : 0.0};
  return op_api::PlanAndPublish(op_api::kApi, tiling::Direction::kForward, *self, *out, alignCorners,
                                axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleLinear1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
