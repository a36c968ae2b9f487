// The kernel registry: which kernel runs for a plan's input. kernel_registry.cpp lists every kernel
// in order of preference with its applicability check, its tiling and the tables it reads; the
// per-ISA entry points are looked up by Kernel id (op_kernel/kernel_args.h, IsaKernels::EntryPoint),
// so op_host does not depend on per-ISA code (docs/design.md, "Kernel registry").
#ifndef TRILINEAR3D_OP_HOST_KERNEL_REGISTRY_H_
#define TRILINEAR3D_OP_HOST_KERNEL_REGISTRY_H_

#include <cstdint>

#include "op_host/kernel_tiling.h"
#include "op_host/resample_tiling.h"

namespace trilinear3d::tiling {

// The W pass's table: the backward's transposed taps, or the forward's two taps per output.
enum class RowGatherKind { kNone, kBackward, kForward };

// The weight tables a kernel reads (op_api/plan_cache.cpp builds exactly these).
struct KernelTables {
  bool taps = false;     // TapTable d, h: the D and H taps (width-first backward, forward)
  bool columns = false;  // RowGather colD, colH: each gradInput D / H index's taps (width-last backward)
  RowGatherKind rowW = RowGatherKind::kNone;
  bool listsOnly = false;  // rowW without vector steps (a kernel that reads only its lists)
};

struct KernelEntry {
  Kernel id;
  const char *name;  // TRILINEAR3D_KERNEL's value that forces it
  Direction direction;
  // Whether the kernel computes this input correctly (beyond its direction, which the walk checks).
  bool (*applies)(const TilingContext &ctx);
  // The cost estimate: whether the automatic choice takes this kernel over the later entries of its
  // direction (the last entry of a direction is always preferred).
  bool (*preferred)(const TilingContext &ctx);
  // Chunks, core split and scratch layout; returns the scratch bytes per core (kernel_tiling.h).
  int64_t (*tile)(const TilingContext &ctx, TilingData *t);
  KernelTables tables;
};

// The kernel that runs: input.forcedKernel where it applies, else the first entry of the input's
// direction that applies and is preferred.
const KernelEntry &ChooseKernel(const TilingContext &ctx);

const KernelEntry &KernelEntryOf(Kernel id);

// The registry's entries in order of preference (kKernelCount of them).
const KernelEntry *KernelEntries();

// The kernel with this registry name; false for a name the registry does not hold.
bool KernelNamed(const char *name, Kernel *id);

inline const char *KernelName(Kernel id) { return KernelEntryOf(id).name; }

}  // namespace trilinear3d::tiling

#endif  // TRILINEAR3D_OP_HOST_KERNEL_REGISTRY_H_
