// aclnnUpsampleNearestExact2d: CANN's two-phase API. Nearest-exact 2-D; each scale > 0 sets its axis's source
// step float(1 / scale). CANN refuses N = 0 here.
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearestExact2d";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(const aclTensor *self,
                                                                   const aclIntArray *outputSize,
                                                                   double scalesH, double scalesW,
                                                                   aclTensor *out, uint64_t *workspaceSize,
                                                                   aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{self, "self"},
                                                {outputSize, "outputSize"},
                                                {out, "out"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::PerAxisScales({scalesH, scalesW}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest2dDef(), 4, false};
  return op_api::PublishNearestForward(rule, math::Filter::kNearestExact, *self, *outputSize, *out,
                                       axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact2d(void *workspace, uint64_t workspaceSize,
                                                   aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
