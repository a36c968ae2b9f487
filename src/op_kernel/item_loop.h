// What both kernels do around their items, compiled once per ISA (included only from isa/*.cpp):
// a core's scratch slice of the workspace, and the loop over the shared item counter.
#ifndef TRILINEAR3D_OP_KERNEL_ITEM_LOOP_H_
#define TRILINEAR3D_OP_KERNEL_ITEM_LOOP_H_

#include <cstdint>

#include "op_kernel/kernel_args.h"
#include "op_kernel/simd_row_ops.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

// Elements of a buffer of `elems` elements rounded up to 64 bytes: the scratch layout tiling counts.
inline int64_t Align64(int64_t elems, int64_t elemBytes) {
  return (elems * elemBytes + 63) / 64 * 64 / elemBytes;
}

// Core blockIdx: builds a Runner on its slice of the workspace, then runs items taken from the shared
// counter until none are left. Which core runs an item does not change its result.
template <typename Runner>
void RunItems(const KernelArgs &args, int blockIdx) {
  using A = typename Runner::A;
  const tiling::TilingData &t = *args.tiling;
  auto *scratch = reinterpret_cast<A *>(static_cast<char *>(args.workspace) +
                                        static_cast<int64_t>(blockIdx) * t.scratchElemsPerCore *
                                            static_cast<int64_t>(sizeof(A)));
  Runner runner(args, scratch);
  for (int64_t item = args.nextItem->fetch_add(1); item < t.itemCount; item = args.nextItem->fetch_add(1)) {
    runner.Run(item);
  }
  StreamFence();  // non-temporal stores are visible before the launch reports completion
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_ITEM_LOOP_H_
