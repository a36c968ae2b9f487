// aclnnUpsampleBicubic2d (forward): CANN's two-phase API and validation order (null, dtypes, formats, ranks,
// outputSize, C, H and W, out's shape, the scales), on the resampling engine with a unit D axis and the
// cubic filter on H and W.
#include "aclnnop/aclnn_upsample_bicubic_2d.h"

#include "op_api/filter_2d_validation.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, const double scalesH,
    const double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  constexpr const char *kApi = "aclnnUpsampleBicubic2d";
  int32_t s = op_api::CheckNotNull(kApi, {{workspaceSize, "workspaceSize"},
                                          {executor, "executor"},
                                          {self, "self"},
                                          {outputSize, "outputSize"},
                                          {out, "out"}});
  if (s == ACLNN_SUCCESS) {
    s = op_api::CheckFilter2dForward(kApi, op_host::UpsampleBicubic2dDef(), *self, *outputSize, scalesH,
                                     scalesW, *out);
  }
  if (s != ACLNN_SUCCESS) return s;
  if (op_api::IsEmpty(*self)) return op_api::PublishEmpty(workspaceSize, executor);  // N is 0
  double axisScales[3];
  op_api::Filter2dAxisScales(scalesH, scalesW, axisScales);
  return op_api::PlanAndPublish(kApi, tiling::Direction::kForward, *self, *out, alignCorners, axisScales,
                                workspaceSize, executor, math::Filter::kCubic);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2d(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor("aclnnUpsampleBicubic2d", workspace, workspaceSize, executor, stream);
}
