// The plan's input from the kernels' views of validated tensors: what both ops' GetWorkspaceSize
// (op_api/upsample_executor.cpp) and the kernel tests (tests/ut/op_kernel/kernel_tester.h) plan from.
#ifndef TRILINEAR3D_OP_API_TILING_INPUT_H_
#define TRILINEAR3D_OP_API_TILING_INPUT_H_

#include "common/data_type.h"
#include "op_host/resample_tiling.h"
#include "op_kernel/kernel_args.h"

namespace trilinear3d::op_api {

// src: gradOut / self, dst: gradInput / out, in logical NCDHW (dataType theirs; scales per axis, as the
// operator's rule lets them count: TilingInput::userScales).
// Leaves cores at 1 and the requests (forced kernel, streamed stores) at their defaults.
tiling::TilingInput TilingInputOf(tiling::Direction direction, DataType dataType,
                                  const kernel::TensorView5d &src, const kernel::TensorView5d &dst,
                                  bool alignCorners, const double scales[3]);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_TILING_INPUT_H_
