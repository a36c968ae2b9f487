// Run-time ISA choice: once per process, from the CPU's features.
#include <cstdlib>
#include <cstring>

#include "op_kernel/kernel_args.h"

namespace trilinear3d::kernel {

namespace avx512 {
const IsaKernels &Kernels();
}
namespace avx2 {
const IsaKernels &Kernels();
}
namespace baseline {
const IsaKernels &Kernels();
}

namespace {

bool CpuHasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}

bool CpuHasAvx2() {
  __builtin_cpu_init();
  // F16C has no __builtin_cpu_supports name in GCC 12; every AVX2 CPU has it.
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

const IsaKernels &Choose() {
  const char *forced = std::getenv("TRILINEAR3D_ISA");
  const bool has512 = CpuHasAvx512();
  const bool has2 = CpuHasAvx2();
  if (forced != nullptr) {
    if (std::strcmp(forced, "baseline") == 0) return baseline::Kernels();
    if (std::strcmp(forced, "avx2") == 0 && has2) return avx2::Kernels();
    if (std::strcmp(forced, "avx512") == 0 && has512) return avx512::Kernels();
  }
  if (has512) return avx512::Kernels();
  if (has2) return avx2::Kernels();
  return baseline::Kernels();
}

}  // namespace

const IsaKernels &SelectedKernels() {
  static const IsaKernels &chosen = Choose();
  return chosen;
}

}  // namespace trilinear3d::kernel
