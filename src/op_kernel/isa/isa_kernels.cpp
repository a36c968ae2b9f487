// This ISA's entry point of every registry kernel (the file is compiled once per ISA; see
// CMakeLists.txt). The registry (op_host/kernel_registry.cpp) chooses the kernel; this table only
// maps its id to this tier's function.
#include "op_kernel/kernel_args.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/resample_rows_w_inner.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

void RunBackwardWidthFirst(const KernelArgs &args, int blockIdx);
void RunBackwardWidthLast(const KernelArgs &args, int blockIdx);
void RunBackwardStencil2x(const KernelArgs &args, int blockIdx);
void RunForward(const KernelArgs &args, int blockIdx);
void RunNearestBackward(const KernelArgs &args, int blockIdx);
void RunNearestForward(const KernelArgs &args, int blockIdx);

namespace {

// The forward's two orders are one function: it reads TilingData::kernel.
KernelFn EntryPointOf(tiling::Kernel kernel) {
  switch (kernel) {
    case tiling::Kernel::kBackwardStencil2x:
      return &RunBackwardStencil2x;
    case tiling::Kernel::kBackwardWidthFirst:
      return &RunBackwardWidthFirst;
    case tiling::Kernel::kBackwardWidthLast:
      return &RunBackwardWidthLast;
    case tiling::Kernel::kForwardWidthFirst:
    case tiling::Kernel::kForwardWidthLast:
      return &RunForward;
    case tiling::Kernel::kNearestBackward:
      return &RunNearestBackward;
    case tiling::Kernel::kNearestForward:
      return &RunNearestForward;
  }
  return nullptr;  // not reached: every Kernel is a case
}

IsaKernels MakeKernels() {
#define TRILINEAR3D_STR2(x) #x
#define TRILINEAR3D_STR(x) TRILINEAR3D_STR2(x)
  IsaKernels kernels{TRILINEAR3D_STR(TRILINEAR3D_ISA), GatherLanes<float>(), GatherLanes<double>(), {}};
#undef TRILINEAR3D_STR
#undef TRILINEAR3D_STR2
  for (int k = 0; k < tiling::kKernelCount; ++k)
    kernels.entryPoints[k] = EntryPointOf(static_cast<tiling::Kernel>(k));
  return kernels;
}

}  // namespace

const IsaKernels &Kernels() {
  static const IsaKernels kernels = MakeKernels();
  return kernels;
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
