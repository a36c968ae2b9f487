// Tiling of the forward (Kernel::kForwardWidthLast: D -> H -> W; Kernel::kForwardWidthFirst:
// W -> D -> H), one kernel function with two scratch layouts.
#include <algorithm>

#include "op_host/kernel_tiling.h"

namespace trilinear3d::tiling {
namespace {

// Forward: the most source H rows the taps of one chunk of hChunk output rows reach.
int64_t MaxSourceRowsPerChunk(const math::AxisSpec &axis, int64_t hChunk) {
  int64_t most = 1;
  for (int64_t start = 0; start < axis.out; start += hChunk) {
    const int64_t last = std::min(start + hChunk, axis.out) - 1;
    most = std::max(most, axis.LastSource(last) - axis.FirstSource(start) + 1);
  }
  return most;
}

// Scratch, W last: two converted source rows | kRowBatch H-pass rows | kRowBatch destination rows |
// D-pass rows one chunk needs. W first: one converted source row | two W-resampled rows | kRowBatch
// destination rows | D-pass rows (destination-wide) one chunk needs | two planes of as many
// W-resampled source rows (the last two D tap planes).
int64_t TileForward(const TilingContext &ctx, bool widthFirst, TilingData *t) {
  // Rows held per destination row of a chunk: the D-pass source rows one output row needs (more when
  // the forward shrinks H); W first, also two planes of W-resampled source rows (as many rows as the
  // D pass). The D-pass rows are source rows, or destination-wide rows when W goes first.
  const int64_t rowsPerChunkRow = CeilDiv(ctx.input.inSize[1], ctx.input.outSize[1]) * (widthFirst ? 3 : 1);
  const int64_t rowBytes = std::max<int64_t>(1, (widthFirst ? t->rowElems : ctx.srcRowElems) * ctx.accBytes);
  int64_t hChunk = std::clamp<int64_t>(kCacheBudgetBytes / (rowsPerChunkRow * rowBytes), 1, ctx.dstH);
  // W last, a chunk that does not take all of H takes whole batches of kRowBatch rows: a chunk's rows past
  // its last batch take the one-row path (C3's chunks of 25 rows each left one).
  if (!widthFirst && hChunk > kRowBatch && hChunk < ctx.dstH) hChunk -= hChunk % kRowBatch;
  SplitItems(ctx, hChunk, ctx.dstW, t);
  const int64_t acc = ctx.accBytes;
  const int64_t srcRowsPerChunk = MaxSourceRowsPerChunk(ctx.axes[1], t->hChunk);
  return widthFirst ? RoundUp64Bytes(ctx.srcRowElems, acc) +
                          RoundUp64Bytes(t->rowElems, acc) * (2 + kRowBatch + 3 * srcRowsPerChunk)
                    : RoundUp64Bytes(ctx.srcRowElems, acc) * (2 + kRowBatch + srcRowsPerChunk) +
                          RoundUp64Bytes(t->rowElems, acc) * kRowBatch;
}

}  // namespace

int64_t TileForwardWidthFirst(const TilingContext &ctx, TilingData *t) { return TileForward(ctx, true, t); }
int64_t TileForwardWidthLast(const TilingContext &ctx, TilingData *t) { return TileForward(ctx, false, t); }

}  // namespace trilinear3d::tiling
