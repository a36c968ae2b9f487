// Tiling of the width-first backward (Kernel::kBackwardWidthFirst: W -> H -> D through a ring of
// destination D planes).
#include <algorithm>
#include <vector>

#include "op_host/kernel_tiling.h"

namespace trilinear3d::tiling {
namespace {

// Backward: the most destination planes (source-side indices) whose gather lists are open at
// once while the gradOut indices are walked in increasing order.
int64_t MaxOpenDestinations(const math::AxisSpec &axis) {
  const math::GatherTable table = math::BackwardTable(axis);
  std::vector<int64_t> delta(static_cast<size_t>(axis.out) + 1, 0);
  for (int64_t i = 0; i < axis.in; ++i) {
    if (table.Count(i) == 0) continue;
    ++delta[static_cast<size_t>(table.Of(i)[0].o)];
    --delta[static_cast<size_t>(table.Of(i)[table.Count(i) - 1].o) + 1];
  }
  int64_t open = 0;
  int64_t most = 1;
  for (int64_t v : delta) {
    open += v;
    most = std::max(most, open);
  }
  return most;
}

}  // namespace

// Scratch: kRowBatch source rows (converted / packed) | kRowBatch W-pass rows | H-pass chunk | D ring.
int64_t TileBackwardWidthFirst(const TilingContext &ctx, TilingData *t) {
  t->ringPlanes = MaxOpenDestinations(ctx.axes[0]);
  // Rows held per destination row of a chunk: the H-pass row and the D ring's rows, within the cache
  // budget.
  const int64_t rowBytes = std::max<int64_t>(1, t->rowElems * ctx.accBytes);
  const int64_t hChunk =
      std::clamp<int64_t>(kCacheBudgetBytes / ((1 + t->ringPlanes) * rowBytes), 1, ctx.dstH);
  SplitItems(ctx, hChunk, ctx.dstW, t);
  const int64_t acc = ctx.accBytes;
  return (RoundUp64Bytes(ctx.srcRowElems, acc) + RoundUp64Bytes(t->rowElems, acc)) * kRowBatch +
         RoundUp64Bytes(t->hChunk * t->rowElems, acc) * (1 + t->ringPlanes);
}

}  // namespace trilinear3d::tiling
