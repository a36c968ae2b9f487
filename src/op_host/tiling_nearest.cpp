// Tiling of the nearest kernels (Kernel::kNearestBackward, kNearestForward): items of whole destination
// rows; the backward keeps one accumulator row and one converted gradOut row per core.
#include "op_host/kernel_tiling.h"

namespace trilinear3d::tiling {

int64_t TileNearestBackward(const TilingContext &ctx, TilingData *t) {
  SplitItems(ctx, ctx.dstH, ctx.dstW, t);
  return RoundUp64Bytes(t->rowElems, ctx.accBytes) + RoundUp64Bytes(ctx.srcRowElems, ctx.accBytes);
}

int64_t TileNearestForward(const TilingContext &ctx, TilingData *t) {
  SplitItems(ctx, ctx.dstH, ctx.dstW, t);
  return 0;  // a copy: no scratch
}

}  // namespace trilinear3d::tiling
