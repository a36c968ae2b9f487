#include "op_host/upsample_trilinear3d_infershape.h"

#include <cmath>

#include "common/list_string.h"

namespace trilinear3d::op_host {
namespace {

// Checks the "exactly one of outputSize / scales" rule and gives the spatial output sizes.
bool SpatialOutputSizes(const char *op, const std::vector<int64_t> &spatialIn,
                        const std::vector<int64_t> &outputSize, const std::vector<double> &scales,
                        std::vector<int64_t> *sizes, std::string *error) {
  if (outputSize.empty() == scales.empty()) {
    *error = std::string(op) + ": exactly one of output_size and scales must be non-empty, got output_size " +
             ListString(outputSize) + " and scales " + ListString(scales);
    return false;
  }
  if (!outputSize.empty()) {
    if (outputSize.size() != 3) {
      *error = std::string(op) + ": output_size must have 3 elements, got " + ListString(outputSize);
      return false;
    }
    for (int64_t v : outputSize) {
      if (v <= 0) {
        *error = std::string(op) + ": output_size must be positive, got " + ListString(outputSize);
        return false;
      }
    }
    *sizes = outputSize;
    return true;
  }
  if (scales.size() != 3) {
    *error = std::string(op) + ": scales must have 3 elements, got " + ListString(scales);
    return false;
  }
  sizes->resize(3);
  for (size_t i = 0; i < 3; ++i) {
    (*sizes)[i] = ScaledSize(spatialIn[i], scales[i]);
    if ((*sizes)[i] <= 0) {
      *error = std::string(op) + ": scales " + ListString(scales) + " with input sizes " +
               ListString(spatialIn) + " give a non-positive output size";
      return false;
    }
  }
  return true;
}

}  // namespace

int64_t ScaledSize(int64_t size, double scale) {
  const double v = std::floor(static_cast<double>(size) * scale);
  if (!(v >= 0.0) || v > 9.0e18) return -1;  // NaN, negative or beyond int64
  return static_cast<int64_t>(v);
}

bool InferShapeUpsampleTrilinear3dGrad(const std::vector<int64_t> &gradOutputShape,
                                       const std::vector<int64_t> &outputSize,
                                       const std::vector<int64_t> &inputSize,
                                       const std::vector<double> &scales,
                                       std::vector<int64_t> *gradInputShape, std::string *error) {
  const char *op = "UpsampleTrilinear3dGrad";
  if (gradOutputShape.size() != 5) {
    *error = std::string(op) + ": grad_output must be 5-D, got " + ListString(gradOutputShape);
    return false;
  }
  if (inputSize.size() != 5) {
    *error = std::string(op) + ": input_size must have 5 elements, got " + ListString(inputSize);
    return false;
  }
  std::vector<int64_t> sizes;
  const std::vector<int64_t> spatialIn(inputSize.begin() + 2, inputSize.end());
  if (!SpatialOutputSizes(op, spatialIn, outputSize, scales, &sizes, error)) return false;
  for (size_t i = 0; i < 3; ++i) {
    if (gradOutputShape[2 + i] != sizes[i]) {
      *error = std::string(op) + ": grad_output " + ListString(gradOutputShape) +
               " does not match the output size " + ListString(sizes) +
               (scales.empty() ? " (output_size)" : " (floor(input_size * scales))");
      return false;
    }
  }
  *gradInputShape = inputSize;
  return true;
}

bool InferShapeUpsampleTrilinear3d(const std::vector<int64_t> &xShape, const std::vector<int64_t> &outputSize,
                                   const std::vector<double> &scales, std::vector<int64_t> *yShape,
                                   std::string *error) {
  const char *op = "UpsampleTrilinear3d";
  if (xShape.size() != 5) {
    *error = std::string(op) + ": x must be 5-D, got " + ListString(xShape);
    return false;
  }
  std::vector<int64_t> sizes;
  const std::vector<int64_t> spatialIn(xShape.begin() + 2, xShape.end());
  if (!SpatialOutputSizes(op, spatialIn, outputSize, scales, &sizes, error)) return false;
  *yShape = {xShape[0], xShape[1], sizes[0], sizes[1], sizes[2]};
  return true;
}

}  // namespace trilinear3d::op_host
