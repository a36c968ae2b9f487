// Tiling of the backward's doubling stencil (Kernel::kBackwardStencil2x).
#include <algorithm>

#include "op_host/kernel_tiling.h"

namespace trilinear3d::tiling {

// Scratch: two D accumulator planes (hChunk x stencilRowStride floats) | three rows of
// stencilRowStride floats (the portable kernel's W-pass row and H accumulators).
int64_t TileBackwardStencil2x(const TilingContext &ctx, TilingData *t) {
  t->stencilRowStride = CeilDiv(ctx.dstW, 16) * 16;
  // The two D accumulator planes of a chunk within the cache budget.
  const int64_t hChunk =
      std::clamp<int64_t>(kCacheBudgetBytes / (2 * t->stencilRowStride * ctx.accBytes), 1, ctx.dstH);
  SplitItems(ctx, hChunk, ctx.dstW, t);
  return (2 * t->hChunk + 3) * t->stencilRowStride * ctx.accBytes;
}

}  // namespace trilinear3d::tiling
