// InferShape (the seed's upsample_trilinear3d_backward_infershape.cpp): the output shape from
// the input's shape and the attrs, with the seed's rules and clear errors.
#ifndef TRILINEAR3D_OP_HOST_UPSAMPLE_TRILINEAR3D_INFERSHAPE_H_
#define TRILINEAR3D_OP_HOST_UPSAMPLE_TRILINEAR3D_INFERSHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace trilinear3d::op_host {

// Backward: gradOutput must be 5-D (N, C, oD, oH, oW) and inputSize of 5 elements. Exactly one
// of outputSize (3 elements equal to gradOutput's D, H, W) and scales (3 values > 0 with
// floor(inputSize[2 + i] * scales[i]) equal to gradOutput's D, H, W) must be non-empty.
// The result is inputSize. On failure returns false and a message naming the values.
bool InferShapeUpsampleTrilinear3dGrad(const std::vector<int64_t> &gradOutputShape,
                                       const std::vector<int64_t> &outputSize,
                                       const std::vector<int64_t> &inputSize,
                                       const std::vector<double> &scales,
                                       std::vector<int64_t> *gradInputShape, std::string *error);

// Forward: x must be 5-D; exactly one of outputSize (3 elements > 0) and scales (3 values > 0,
// output floor(x.D * scales[0]) ...) must be non-empty. The result is (N, C, oD, oH, oW).
bool InferShapeUpsampleTrilinear3d(const std::vector<int64_t> &xShape, const std::vector<int64_t> &outputSize,
                                   const std::vector<double> &scales, std::vector<int64_t> *yShape,
                                   std::string *error);

// floor(size * scale) as CANN computes it, or -1 when it is not a representable size.
int64_t ScaledSize(int64_t size, double scale);

}  // namespace trilinear3d::op_host

#endif  // TRILINEAR3D_OP_HOST_UPSAMPLE_TRILINEAR3D_INFERSHAPE_H_
