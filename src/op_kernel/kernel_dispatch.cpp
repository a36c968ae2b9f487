// Run-time ISA choice: once per process, from the CPU's features and TRILINEAR3D_ISA.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "op_kernel/kernel_args.h"
#include "trilinear3d/isa.h"

#if defined(__x86_64__) || defined(__i386__)
#define TRILINEAR3D_X86 1
#endif

namespace trilinear3d::kernel {

#if defined(TRILINEAR3D_X86)
namespace avx512 {
const IsaKernels &Kernels();
}
namespace avx2 {
const IsaKernels &Kernels();
}
#endif
namespace baseline {
const IsaKernels &Kernels();
}

namespace {

#if defined(TRILINEAR3D_X86)
// The tiers' instruction sets as isa_begin.h enables them. __builtin_cpu_supports also checks that
// the OS saves the vector registers (XSAVE state), so a CPU whose OS disabled AVX reports none.
bool CpuHasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}

bool CpuHasAvx2() {
  __builtin_cpu_init();
  // F16C has no __builtin_cpu_supports name in GCC 12; every CPU with AVX2 and FMA has it.
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

bool Always() { return true; }

struct Tier {
  const char *name;
  bool (*supported)();
  const IsaKernels &(*kernels)();
};

// Best first; the last one runs on every CPU of the architecture.
const Tier kTiers[] = {
#if defined(TRILINEAR3D_X86)
    {"avx512", CpuHasAvx512, avx512::Kernels},
    {"avx2", CpuHasAvx2, avx2::Kernels},
#endif
    {"baseline", Always, baseline::Kernels},
};

std::string TierList(bool supportedOnly) {
  std::string list;
  for (const Tier &tier : kTiers) {
    if (supportedOnly && !tier.supported()) continue;
    if (!list.empty()) list += ',';
    list += tier.name;
  }
  return list;
}

const char *Built() {
  static const std::string list = TierList(false);
  return list.c_str();
}

const char *Supported() {
  static const std::string list = TierList(true);
  return list.c_str();
}

const Tier &Choose() {
  const Tier *best = nullptr;
  for (const Tier &tier : kTiers) {
    if (tier.supported()) {
      best = &tier;
      break;
    }
  }
  const Tier *chosen = best;
  const char *forced = std::getenv("TRILINEAR3D_ISA");
  if (forced != nullptr && forced[0] != '\0') {
    const Tier *named = nullptr;
    for (const Tier &tier : kTiers) {
      if (std::strcmp(forced, tier.name) == 0) named = &tier;
    }
    if (named == nullptr) {
      std::fprintf(stderr, "[trilinear3d] TRILINEAR3D_ISA=%s is not a tier of this build (%s); using %s\n",
                   forced, Built(), best->name);
    } else if (!named->supported()) {
      std::fprintf(stderr,
                   "[trilinear3d] TRILINEAR3D_ISA=%s: this CPU does not support it (it supports %s); "
                   "using %s\n",
                   forced, Supported(), best->name);
    } else {
      chosen = named;
    }
  }
  const char *verbose = std::getenv("TRILINEAR3D_VERBOSE");
  if (verbose != nullptr && std::strcmp(verbose, "1") == 0) {
    std::fprintf(stderr, "[trilinear3d] kernels: %s (built: %s; this CPU supports: %s; TRILINEAR3D_ISA=%s)\n",
                 chosen->name, Built(), Supported(), forced != nullptr ? forced : "(unset)");
  }
  return *chosen;
}

const Tier &ChosenTier() {
  static const Tier &chosen = Choose();
  return chosen;
}

}  // namespace

const IsaKernels &SelectedKernels() {
  static const IsaKernels &kernels = ChosenTier().kernels();
  return kernels;
}

std::vector<const IsaKernels *> SupportedIsaKernels() {
  std::vector<const IsaKernels *> kernels;
  for (const Tier &tier : kTiers) {
    if (tier.supported()) kernels.push_back(&tier.kernels());
  }
  return kernels;
}

}  // namespace trilinear3d::kernel

const char *trilinear3dKernelIsa(void) { return trilinear3d::kernel::ChosenTier().name; }
const char *trilinear3dBuiltIsas(void) { return trilinear3d::kernel::Built(); }
const char *trilinear3dSupportedIsas(void) { return trilinear3d::kernel::Supported(); }
