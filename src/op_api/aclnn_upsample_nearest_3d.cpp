// aclnnUpsampleNearest3d: CANN's two-phase API. Nearest 3-D; the scales count when all three are > 0 (CANN's
// op_api), else the sizes decide.
#include "aclnnop/aclnn_upsample_nearest_3d.h"

#include "op_api/nearest_publish.h"
#include "op_api/op_executor.h"
#include "op_api/tensor_checks.h"
#include "op_host/op_defs.h"

using namespace trilinear3d;

namespace {

constexpr const char *kApi = "aclnnUpsampleNearest3d";

}  // namespace

extern "C" aclnnStatus aclnnUpsampleNearest3dGetWorkspaceSize(const aclTensor *self,
                                                              const aclIntArray *outputSize, double scalesD,
                                                              double scalesH, double scalesW, aclTensor *out,
                                                              uint64_t *workspaceSize,
                                                              aclOpExecutor **executor) {
  const int32_t s = op_api::CheckNotNull(kApi, {{self, "self"},
                                                {out, "out"},
                                                {outputSize, "outputSize"},
                                                {workspaceSize, "workspaceSize"},
                                                {executor, "executor"}});
  if (s != ACLNN_SUCCESS) return s;
  double axisScales[3];
  op_api::AllOrNoneScales({scalesD, scalesH, scalesW}, axisScales);
  const op_api::NearestRule rule{kApi, op_host::UpsampleNearest3dDef(), 5, true};
  return op_api::PublishNearestForward(rule, math::Filter::kNearestPlain, *self, *outputSize, *out,
                                       axisScales, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest3d(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(kApi, workspace, workspaceSize, executor, stream);
}
