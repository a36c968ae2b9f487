// What an executor hands a kernel launch, and the per-ISA kernel table.
#ifndef TRILINEAR3D_OP_KERNEL_KERNEL_ARGS_H_
#define TRILINEAR3D_OP_KERNEL_KERNEL_ARGS_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <atomic>
#include <cstdint>
#include <vector>

#include "op_host/resample_tiling.h"

namespace trilinear3d::kernel {

// A 5-D view in logical (N, C, D, H, W) order; data points at element (0,0,0,0,0) and
// strides are in elements (any non-negative values).
struct TensorView5d {
  void *data = nullptr;
  int64_t dims[5] = {0, 0, 0, 0, 0};
  int64_t strides[5] = {0, 0, 0, 0, 0};
};

struct KernelArgs {
  const tiling::TilingData *tiling = nullptr;
  const void *tables = nullptr;              // PlanTables<float> or PlanTables<double> by the dtype's Acc
  TensorView5d src;                          // gradOut (backward) / self (forward)
  TensorView5d dst;                          // gradInput (backward) / out (forward)
  void *workspace = nullptr;                 // tiling->blockDim * scratch per core
  std::atomic<int64_t> *nextItem = nullptr;  // shared work counter for dynamic item scheduling
};

using KernelFn = void (*)(const KernelArgs &args, int blockIdx);

// One ISA tier's entry point of every registry kernel (op_host/kernel_registry.h), by Kernel id.
struct IsaKernels {
  const char *name;
  int lanesF32;  // vector steps width for the W pass (0: scalar lists)
  int lanesF64;
  KernelFn entryPoints[tiling::kKernelCount];

  KernelFn EntryPoint(tiling::Kernel kernel) const { return entryPoints[static_cast<int>(kernel)]; }
};

// The best kernels this CPU runs, chosen once (TRILINEAR3D_ISA=avx512|avx2|baseline overrides,
// falling back to the best supported one when the requested ISA is not available).
const IsaKernels &SelectedKernels();

// Every tier this CPU supports, best first (the kernel tests run each one directly).
std::vector<const IsaKernels *> SupportedIsaKernels();

}  // namespace trilinear3d::kernel

#endif  // TRILINEAR3D_OP_KERNEL_KERNEL_ARGS_H_
