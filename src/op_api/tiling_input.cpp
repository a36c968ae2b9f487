#include "op_api/tiling_input.h"

namespace trilinear3d::op_api {

tiling::TilingInput TilingInputOf(tiling::Direction direction, DataType dataType,
                                  const kernel::TensorView5d &src, const kernel::TensorView5d &dst,
                                  bool alignCorners, const double scales[3]) {
  // The small side (gradInput / self) has the in-side sizes, the large side (gradOut / out) the
  // out-side ones; the large side is the tensor streamed, whose C stride decides the rows' layout.
  const bool backward = direction == tiling::Direction::kBackward;
  const kernel::TensorView5d &small = backward ? dst : src;
  const kernel::TensorView5d &large = backward ? src : dst;
  tiling::TilingInput input;
  input.direction = direction;
  input.dataType = dataType;
  input.n = small.dims[0];
  input.c = small.dims[1];
  for (int i = 0; i < 3; ++i) {
    input.inSize[i] = small.dims[2 + i];
    input.outSize[i] = large.dims[2 + i];
    input.userScales[i] = scales[i];
  }
  input.alignCorners = alignCorners;
  input.channelsContiguous = large.strides[1] == 1 && input.c > 1;
  input.srcUnitW = src.strides[4] == 1;
  return input;
}

}  // namespace trilinear3d::op_api
