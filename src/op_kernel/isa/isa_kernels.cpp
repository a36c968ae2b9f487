// This ISA's kernel table (the file is compiled once per ISA; see CMakeLists.txt).
#include "op_kernel/kernel_args.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/resample_rows_w_inner.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

void RunBackwardWidthFirst(const KernelArgs &args, int blockIdx);
void RunBackwardWidthLast(const KernelArgs &args, int blockIdx);
void RunBackwardStencil2x(const KernelArgs &args, int blockIdx);
void RunForward(const KernelArgs &args, int blockIdx);

namespace {

// The backward's two pass orders are two kernels, and the doubling stencil a third; the tiling
// picked one (TilingData::stencil2x, then passOrder).
void RunBackward(const KernelArgs &args, int blockIdx) {
  if (args.tiling->stencil2x) {
    RunBackwardStencil2x(args, blockIdx);
  } else if (args.tiling->passOrder == tiling::PassOrder::kWidthLast) {
    RunBackwardWidthLast(args, blockIdx);
  } else {
    RunBackwardWidthFirst(args, blockIdx);
  }
}

}  // namespace

const IsaKernels &Kernels() {
#define TRILINEAR3D_STR2(x) #x
#define TRILINEAR3D_STR(x) TRILINEAR3D_STR2(x)
  static const IsaKernels kernels{TRILINEAR3D_STR(TRILINEAR3D_ISA), GatherLanes<float>(),
                                  GatherLanes<double>(), &RunBackward, &RunForward};
#undef TRILINEAR3D_STR
#undef TRILINEAR3D_STR2
  return kernels;
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
