// Tiling of the width-last backward (Kernel::kBackwardWidthLast: D -> H -> W through a D-step slab,
// or a ring of D-step rows for channels-inner rows).
#include <algorithm>
#include <vector>

#include "op_host/kernel_tiling.h"

namespace trilinear3d::tiling {
namespace {

// Width-last backward: the most gradOut D planes two consecutive gradInput D indices share. While
// the D step walks one index's planes, these must stay cached for the next index.
int64_t MaxSharedPlanes(const math::AxisSpec &axis) {
  const math::GatherTable table = math::BackwardTable(axis);
  int64_t most = 0;
  for (int64_t i = 0; i + 1 < axis.in; ++i) {
    if (table.Count(i) == 0 || table.Count(i + 1) == 0) continue;
    const int64_t last = table.Of(i)[table.Count(i) - 1].o;
    const int64_t first = table.Of(i + 1)[0].o;
    most = std::max(most, last - first + 1);
  }
  return most;
}

// Width-last backward: the most gradOut indices one in-side index's taps span on an axis (its list's
// first to last), 0 when no index has taps.
int64_t MaxTapSpan(const math::AxisSpec &axis) {
  const math::GatherTable table = math::BackwardTable(axis);
  int64_t most = 0;
  for (int64_t i = 0; i < axis.in; ++i) {
    if (table.Count(i) == 0) continue;
    most = std::max(most, table.Of(i)[table.Count(i) - 1].o - table.Of(i)[0].o + 1);
  }
  return most;
}

// Width-last backward: the most gradOut H rows the taps of one chunk of hChunk gradInput rows span.
int64_t MaxTapRowsPerChunk(const math::AxisSpec &axis, const math::GatherTable &table, int64_t hChunk) {
  int64_t most = 1;
  for (int64_t start = 0; start < axis.in; start += hChunk) {
    int64_t first = axis.out, last = -1;
    for (int64_t i = start; i < std::min(start + hChunk, axis.in); ++i) {
      if (table.Count(i) == 0) continue;
      first = std::min(first, table.Of(i)[0].o);
      last = std::max(last, table.Of(i)[table.Count(i) - 1].o);
    }
    most = std::max(most, last - first + 1);
  }
  return most;
}

// Width-last backward: the largest chunk of in-side indices (at most axis.in) whose taps span at
// most `budget` out-side indices, or 1. A chunk of k spans about k * out / in + 3 (the first guess),
// cut while its widest span is over the budget.
int64_t ChunkWithinSpan(const math::AxisSpec &axis, const math::GatherTable &table, int64_t budget) {
  const double perIndex = static_cast<double>(axis.out) / static_cast<double>(axis.in);
  int64_t chunk = static_cast<int64_t>(static_cast<double>(std::max<int64_t>(1, budget - 3)) / perIndex);
  chunk = std::clamp<int64_t>(chunk, 1, axis.in);
  for (int64_t span = MaxTapRowsPerChunk(axis, table, chunk); chunk > 1 && span > budget;
       span = MaxTapRowsPerChunk(axis, table, chunk)) {
    chunk = std::max<int64_t>(1, chunk * budget / span - 1);
  }
  return chunk;
}

}  // namespace

// Scratch: D-step slab (slabRows unpadded rows of slabCols source positions) | bf16 W inner: a second
// slab (TilingData::carrySlab) | kRowBatch H-step rows | kRowBatch W-pass rows (wChunk positions) |
// kTapGroup converted source rows (strided views) | fp16 W inner: widenedPlanes slabs of widened gradOut
// (TilingData::widenedPlanes); channels inner (the ring) one H-step and one W-pass row.
int64_t TileBackwardWidthLast(const TilingContext &ctx, TilingData *t) {
  const TilingInput &input = ctx.input;
  const math::AxisSpec *axes = ctx.axes;
  // The H axis's gather lists, built once for every span computed below.
  const math::GatherTable tableH = math::BackwardTable(axes[1]);
  int64_t wChunk = ctx.dstW;
  t->slabCols = ctx.srcW;
  int64_t perSlabRow = 0;
  int64_t budget = kCacheBudgetBytes;
  if (t->layout == RowLayout::kCInner) {
    // Channels inner (the kernel's ring of D-step rows): W blocks whose rows fit kRingRowBytes, and
    // H chunks whose gradOut rows in one D index's planes stay in the last-level cache for the
    // next index, which shares some of them.
    const int64_t colBudget = std::max<int64_t>(1, kRingRowBytes / (input.c * ctx.accBytes));
    if (ctx.srcW > colBudget) {
      const math::GatherTable tableW = math::BackwardTable(axes[2]);
      wChunk = ChunkWithinSpan(axes[2], tableW, colBudget);
      if (wChunk < ctx.dstW) t->slabCols = MaxTapRowsPerChunk(axes[2], tableW, wChunk);
    }
    perSlabRow = kTapGroup * t->slabCols * input.c * ctx.srcElemBytes;
    budget = kRingReuseBytes;
  } else {
    // Per slab row: the D-step slab row (acc), the kTapGroup gradOut rows being combined and the
    // planes the next D index shares (dtype), all cached at once.
    perSlabRow = (MaxSharedPlanes(axes[0]) + kTapGroup) * ctx.srcRowElems * ctx.srcElemBytes +
                 ctx.srcRowElems * ctx.accBytes;
  }
  const int64_t rowsBudget = std::max<int64_t>(1, budget / std::max<int64_t>(1, perSlabRow));
  SplitItems(ctx, ChunkWithinSpan(axes[1], tableH, rowsBudget), wChunk, t);

  // The slab: the D step of the chunk's rows (W inner), or a ring of the rows one H index spans.
  t->slabRows = MaxTapRowsPerChunk(axes[1], tableH, t->layout == RowLayout::kCInner ? 1 : t->hChunk);
  const int64_t slabRowElems = t->slabCols * ctx.rowWidth;
  const int64_t rowsInFlight =
      t->layout == RowLayout::kCInner ? 1 : kRowBatch;  // the ring: one row at a time
  const int64_t acc = ctx.accBytes;
  const int64_t slabElems = RoundUp64Bytes(t->slabRows * slabRowElems, acc);
  if (t->layout == RowLayout::kWInner && input.dataType == DataType::kFloat16 && t->wChunkCount == 1) {
    const int64_t span = MaxTapSpan(axes[0]);
    if (span <= kMaxWidenedPlanes && span * slabElems * acc <= kCacheBudgetBytes) t->widenedPlanes = span;
  }
  t->carrySlab =
      t->layout == RowLayout::kWInner && input.dataType == DataType::kBFloat16 && t->wChunkCount == 1;
  return slabElems * (1 + t->widenedPlanes + (t->carrySlab ? 1 : 0)) +
         RoundUp64Bytes(slabRowElems, acc) * (rowsInFlight + kTapGroup) +
         RoundUp64Bytes(wChunk * ctx.rowWidth, acc) * rowsInFlight;
}

}  // namespace trilinear3d::tiling
