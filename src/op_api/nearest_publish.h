// The common tail of the nearest operators' GetWorkspaceSize, after their null checks: the group's checks
// (upsample_validation.h), the empty no-op, and the plan on the resampling engine with the operator's
// one-tap filter. axisScales: the D, H, W scales as the operator's rule lets them count (> 0), else 0.
#ifndef TRILINEAR3D_OP_API_NEAREST_PUBLISH_H_
#define TRILINEAR3D_OP_API_NEAREST_PUBLISH_H_

#include <cstdint>

#include "common/resample_math.h"
#include "op_api/upsample_validation.h"
#include "runtime/meta_objects.h"

namespace trilinear3d::op_api {

int32_t PublishNearestForward(const NearestRule &rule, math::Filter filter, const aclTensor &self,
                              const aclIntArray &outputSize, const aclTensor &out, const double axisScales[3],
                              uint64_t *workspaceSize, aclOpExecutor **executor);

int32_t PublishNearestBackward(const NearestRule &rule, math::Filter filter, const aclTensor &gradOut,
                               const aclIntArray &outputSize, const aclIntArray &inputSize,
                               const char *gradInputName, const aclTensor &gradInput,
                               const double axisScales[3], uint64_t *workspaceSize, aclOpExecutor **executor);

// The scales of an operator that takes each axis's scale on its own: those > 0, the others 0; scales
// lists the operator's axes (1 to 3 of them), the last W.
void PerAxisScales(std::initializer_list<double> scales, double axisScales[3]);
// The 3-D operators' rule (CANN): all three when all are > 0, else none.
void AllOrNoneScales(std::initializer_list<double> scales, double axisScales[3]);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_NEAREST_PUBLISH_H_
