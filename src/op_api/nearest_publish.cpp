#include "op_api/nearest_publish.h"

#include <algorithm>

#include "aclnn/aclnn_base.h"
#include "op_api/upsample_executor.h"

namespace trilinear3d::op_api {

int32_t PublishNearestForward(const NearestRule &rule, math::Filter filter, const aclTensor &self,
                              const aclIntArray &outputSize, const aclTensor &out, const double axisScales[3],
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
  const int32_t s = CheckNearestForward(rule, self, outputSize, out);
  if (s != ACLNN_SUCCESS) return s;
  if (IsEmpty(self)) return PublishEmpty(workspaceSize, executor);
  return PlanAndPublish(rule.api, tiling::Direction::kForward, self, out, false, axisScales, workspaceSize,
                        executor, filter);
}

int32_t PublishNearestBackward(const NearestRule &rule, math::Filter filter, const aclTensor &gradOut,
                               const aclIntArray &outputSize, const aclIntArray &inputSize,
                               const char *gradInputName, const aclTensor &gradInput,
                               const double axisScales[3], uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
  const int32_t s = CheckNearestBackward(rule, gradOut, outputSize, inputSize, gradInputName, gradInput);
  if (s != ACLNN_SUCCESS) return s;
  // Sizes > 0: gradOut is empty exactly when N or C is 0, and gradInput then too.
  if (IsEmpty(gradOut)) return PublishEmpty(workspaceSize, executor);
  return PlanAndPublish(rule.api, tiling::Direction::kBackward, gradOut, gradInput, false, axisScales,
                        workspaceSize, executor, filter);
}

void PerAxisScales(std::initializer_list<double> scales, double axisScales[3]) {
  std::fill(axisScales, axisScales + 3, 0.0);
  double *axis = axisScales + 3 - scales.size();
  for (double scale : scales) *axis++ = scale > 0.0 ? scale : 0.0;
}

void AllOrNoneScales(std::initializer_list<double> scales, double axisScales[3]) {
  const bool all = std::all_of(scales.begin(), scales.end(), [](double s) { return s > 0.0; });
  PerAxisScales(scales, axisScales);
  if (!all) std::fill(axisScales, axisScales + 3, 0.0);
}

}  // namespace trilinear3d::op_api
