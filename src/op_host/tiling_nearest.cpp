// Tiling of the nearest kernels (Kernel::kNearestBackward, kNearestForward): items of whole destination
// rows; the backward keeps one accumulator row and one converted gradOut row per core, the forward one
// gathered row when its stores are streamed.
#include "op_host/kernel_tiling.h"

namespace trilinear3d::tiling {

int64_t TileNearestBackward(const TilingContext &ctx, TilingData *t) {
  SplitItems(ctx, ctx.dstH, ctx.dstW, t);
  return RoundUp64Bytes(t->rowElems, ctx.accBytes) + RoundUp64Bytes(ctx.srcRowElems, ctx.accBytes);
}

int64_t TileNearestForward(const TilingContext &ctx, TilingData *t) {
  SplitItems(ctx, ctx.dstH, ctx.dstW, t);
  // A copy: no scratch, but for streamed stores one gathered destination row (in the dtype's bytes).
  return t->streamStores ? RoundUp64Bytes(t->rowElems, ctx.srcElemBytes) : 0;
}

}  // namespace trilinear3d::tiling
