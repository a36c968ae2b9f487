// Tiling for UpsampleTrilinear3d(Backward) on the CPU. See the header for the contract.
#include "op_host/upsample_trilinear3d_tiling.h"

#include <algorithm>

namespace trilinear3d::tiling {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp64Bytes(int64_t elems, int64_t elemBytes) { return CeilDiv(elems * elemBytes, 64) * 64; }

AxisTiling MakeAxisTiling(const math::AxisSpec &axis) {
  AxisTiling t;
  t.inSize = axis.in;
  t.outSize = axis.out;
  t.scale = axis.scale;
  t.needResize = axis.NeedResize();
  t.belowMinScale = t.needResize && axis.scale < kMinSupportScale;
  t.slideCount = CeilDiv(axis.in, kSlideSize);
  for (const auto &[first, last] : SlideWindows(axis))
    t.singleCoreK = std::max(t.singleCoreK, last - first + 1);
  return t;
}

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

// Forward: the most source H rows the taps of one chunk of hChunk output rows reach.
int64_t MaxSourceRowsPerChunk(const math::AxisSpec &axis, int64_t hChunk) {
  int64_t most = 1;
  for (int64_t start = 0; start < axis.out; start += hChunk) {
    const int64_t last = std::min(start + hChunk, axis.out) - 1;
    most = std::max(most, axis.TapOf(last).i1 - axis.TapOf(start).i0 + 1);
  }
  return most;
}

}  // namespace

PassOrder ChooseBackwardPassOrder(const int64_t inSize[3], const int64_t outSize[3], RowLayout layout) {
  const double wCost = layout == RowLayout::kWInner ? 3.0 : 1.0;
  const double unit[3] = {1.0, 1.0, wCost};
  // Elements before and after a pass on `axis` when `done` axes are already at their in-side size.
  auto passCost = [&](int axis, const bool done[3]) {
    double before = 1.0;
    for (int a = 0; a < 3; ++a) before *= static_cast<double>(done[a] ? inSize[a] : outSize[a]);
    const double after = before / static_cast<double>(outSize[axis]) * static_cast<double>(inSize[axis]);
    return unit[axis] * std::max(before, after);
  };
  auto orderCost = [&](const int(&axes)[3]) {
    bool done[3] = {false, false, false};
    double cost = 0.0;
    for (int axis : axes) {
      cost += passCost(axis, done);
      done[axis] = true;
    }
    return cost;
  };
  const int widthFirst[3] = {2, 1, 0};
  const int widthLast[3] = {0, 1, 2};
  const double last = orderCost(widthLast), first = orderCost(widthFirst);
  if (last == first) return layout == RowLayout::kCInner ? PassOrder::kWidthLast : PassOrder::kWidthFirst;
  return last < first ? PassOrder::kWidthLast : PassOrder::kWidthFirst;
}

PassOrder ChooseForwardPassOrder(const int64_t inSize[3], const int64_t outSize[3]) {
  if (outSize[2] >= inSize[2]) return PassOrder::kWidthLast;
  constexpr double kResampleCost = 2.0;
  const double iD = static_cast<double>(inSize[0]), iH = static_cast<double>(inSize[1]),
               iW = static_cast<double>(inSize[2]);
  const double oD = static_cast<double>(outSize[0]), oH = static_cast<double>(outSize[1]),
               oW = static_cast<double>(outSize[2]);
  // Source planes and rows the two-tap D and H passes read.
  const double planes = std::min(iD, 2.0 * oD), rows = std::min(iH, 2.0 * oH);
  const double first = kResampleCost * planes * rows * iW + oD * rows * oW + oD * oH * oW;
  const double last = oD * rows * iW + oD * oH * iW + kResampleCost * oD * oH * iW;
  return first < last ? PassOrder::kWidthFirst : PassOrder::kWidthLast;
}

std::vector<std::pair<int64_t, int64_t>> SlideWindows(const math::AxisSpec &axis) {
  // Every tap (i0 and i1 of every o) reaches its slide; o increases, so a slide's first o is the
  // first that reaches it and its last the last. (No gather table: long axes plan in O(out).)
  const int64_t slides = (axis.in + kSlideSize - 1) / kSlideSize;
  std::vector<std::pair<int64_t, int64_t>> windows(static_cast<size_t>(slides), {axis.out, -1});
  auto reach = [&](int64_t i, int64_t o) {
    std::pair<int64_t, int64_t> &w = windows[static_cast<size_t>(i / kSlideSize)];
    w.first = std::min(w.first, o);
    w.second = o;
  };
  for (int64_t o = 0; o < axis.out; ++o) {
    const math::Tap t = axis.TapOf(o);
    reach(t.i0, o);
    reach(t.i1, o);
  }
  for (auto &w : windows) {
    if (w.second < 0) w.first = 0;
  }
  return windows;
}

bool StencilApplies(const TilingInput &input, const math::AxisSpec axes[3]) {
  if (input.direction != Direction::kBackward || input.dataType != DataType::kFloat32 || !input.srcUnitW ||
      input.alignCorners) {
    return false;
  }
  if (input.channelsContiguous && input.c >= kMinChannelsInner) return false;  // C-inner rows
  for (int i = 0; i < 3; ++i) {
    if (axes[i].out != 2 * axes[i].in || axes[i].scale != 0.5) return false;
  }
  return true;
}

bool ComputeTiling(const TilingInput &input, TilingData *out, std::string *error) {
  for (int i = 0; i < 3; ++i) {
    if (input.inSize[i] <= 0 || input.outSize[i] <= 0) {
      *error = "tiling: spatial sizes must be positive";
      return false;
    }
  }
  if (input.n < 0 || input.c < 0 || input.cores <= 0) {
    *error = "tiling: N, C must be >= 0 and cores > 0";
    return false;
  }
  TilingData t;
  t.direction = input.direction;
  t.dataType = input.dataType;
  t.n = input.n;
  t.c = input.c;
  t.batch = input.n * input.c;
  t.alignCorners = input.alignCorners;
  const bool userScales = math::UseUserScales(input.userScales[0], input.userScales[1], input.userScales[2]);
  math::AxisSpec axes[3];
  for (int i = 0; i < 3; ++i) {
    axes[i] = math::MakeAxis(input.inSize[i], input.outSize[i], input.alignCorners,
                             userScales ? input.userScales[i] : 0.0);
  }
  t.d = MakeAxisTiling(axes[0]);
  t.h = MakeAxisTiling(axes[1]);
  t.w = MakeAxisTiling(axes[2]);

  const bool backward = input.direction == Direction::kBackward;
  t.layout =
      input.channelsContiguous && input.c >= kMinChannelsInner ? RowLayout::kCInner : RowLayout::kWInner;
  const int64_t rowWidth = t.layout == RowLayout::kCInner ? input.c : 1;
  t.planeCount = t.layout == RowLayout::kCInner ? input.n : t.batch;
  // Destination: gradInput (in-side sizes) backward, out (out-side sizes) forward.
  const int64_t dstD = backward ? input.inSize[0] : input.outSize[0];
  const int64_t dstH = backward ? input.inSize[1] : input.outSize[1];
  const int64_t dstW = backward ? input.inSize[2] : input.outSize[2];
  const int64_t srcW = backward ? input.outSize[2] : input.inSize[2];
  t.rowElems = dstW * rowWidth;
  const int64_t srcRowElems = srcW * rowWidth;
  const int64_t accBytes = AccElementSize(input.dataType);

  const int64_t srcElemBytes = ElementSize(input.dataType);
  if (backward) {
    switch (input.passOrder) {
      case PassOrderRequest::kAuto:
      case PassOrderRequest::kStencil2x:
        t.stencil2x = StencilApplies(input, axes);
        t.passOrder = t.stencil2x ? PassOrder::kWidthFirst
                                  : ChooseBackwardPassOrder(input.inSize, input.outSize, t.layout);
        break;
      case PassOrderRequest::kWidthFirst:
        t.passOrder = PassOrder::kWidthFirst;
        break;
      case PassOrderRequest::kWidthLast:
        t.passOrder = PassOrder::kWidthLast;
        break;
    }
  } else {
    // The forward blends whole rows in D and H; it resamples W last (D -> H -> W) unless W shrinks and
    // resampling every source row first (W -> D -> H) costs less: a 65536-wide W going to 16 under an
    // H growing to 4097 is ~500x the work done W last. (PassOrderRequest applies to the backward only.)
    t.passOrder = ChooseForwardPassOrder(input.inSize, input.outSize);
  }
  const bool forwardWidthFirst = !backward && t.passOrder == PassOrder::kWidthFirst;
  const bool widthLast = backward && t.passOrder == PassOrder::kWidthLast;
  if (t.stencil2x) t.stencilRowStride = CeilDiv(dstW, 16) * 16;

  // H chunk: keep the per-core working set within the cache budget.
  int64_t hChunk = 1;
  int64_t wChunk = dstW;
  // Width-last: the H axis's gather lists, built once for every span computed below.
  const math::GatherTable tableH = widthLast ? math::BackwardTable(axes[1]) : math::GatherTable{};
  t.slabCols = widthLast ? srcW : 0;
  if (widthLast) {
    int64_t perSlabRow = 0;
    int64_t budget = kCacheBudgetBytes;
    if (t.layout == RowLayout::kCInner) {
      // Channels inner (the kernel's ring of D-step rows): W blocks whose rows fit kRingRowBytes, and
      // H chunks whose gradOut rows in one D index's planes stay in the last-level cache for the
      // next index, which shares some of them.
      const int64_t colBudget = std::max<int64_t>(1, kRingRowBytes / (input.c * accBytes));
      if (srcW > colBudget) {
        const math::GatherTable tableW = math::BackwardTable(axes[2]);
        wChunk = ChunkWithinSpan(axes[2], tableW, colBudget);
        if (wChunk < dstW) t.slabCols = MaxTapRowsPerChunk(axes[2], tableW, wChunk);
      }
      perSlabRow = kTapGroup * t.slabCols * input.c * srcElemBytes;
      budget = kRingReuseBytes;
    } else {
      // Per slab row: the D-step slab row (acc), the kTapGroup gradOut rows being combined and the
      // planes the next D index shares (dtype), all cached at once.
      perSlabRow =
          (MaxSharedPlanes(axes[0]) + kTapGroup) * srcRowElems * srcElemBytes + srcRowElems * accBytes;
    }
    const int64_t rowsBudget = std::max<int64_t>(1, budget / std::max<int64_t>(1, perSlabRow));
    hChunk = ChunkWithinSpan(axes[1], tableH, rowsBudget);
  } else if (t.stencil2x) {
    // The two D accumulator planes of a chunk within the cache budget.
    hChunk = std::clamp<int64_t>(kCacheBudgetBytes / (2 * t.stencilRowStride * accBytes), 1, dstH);
  } else {
    t.ringPlanes = backward ? MaxOpenDestinations(axes[0]) : 0;
    // Rows held per destination row of a chunk: backward the H-pass row and the D ring's rows;
    // forward the D-pass source rows one output row needs (more when the forward shrinks H).
    // W first, the forward also keeps two planes of W-resampled source rows (as many rows as the D pass).
    const int64_t rowsPerChunkRow =
        backward ? 1 + t.ringPlanes
                 : CeilDiv(input.inSize[1], input.outSize[1]) * (forwardWidthFirst ? 3 : 1);
    // (The forward's D-pass rows are source rows, or destination-wide rows when W goes first.)
    const int64_t rowBytes =
        std::max<int64_t>(1, (backward || forwardWidthFirst ? t.rowElems : srcRowElems) * accBytes);
    hChunk = kCacheBudgetBytes / (rowsPerChunkRow * rowBytes);
    hChunk = std::clamp<int64_t>(hChunk, 1, dstH);
  }
  int64_t dChunk = dstD;

  // Enough items for the cores to balance (dynamic scheduling), splitting H first (its chunk
  // boundaries cost the least re-reading), then D.
  const int64_t targetItems = input.cores > 1 ? 4 * input.cores : 1;
  const int64_t planes = std::max<int64_t>(t.planeCount, 1);
  const int64_t wChunks = CeilDiv(dstW, wChunk);
  if (planes * wChunks * CeilDiv(dstH, hChunk) < targetItems) {
    const int64_t wantedHChunks = std::min(dstH, CeilDiv(targetItems, planes * wChunks));
    hChunk = std::min(hChunk, CeilDiv(dstH, wantedHChunks));
  }
  if (planes * wChunks * CeilDiv(dstH, hChunk) * CeilDiv(dstD, dChunk) < targetItems) {
    const int64_t wantedDChunks =
        std::min(dstD, CeilDiv(targetItems, planes * wChunks * CeilDiv(dstH, hChunk)));
    dChunk = CeilDiv(dstD, wantedDChunks);
  }
  t.hChunk = hChunk;
  t.dChunk = dChunk;
  t.wChunk = wChunk;
  t.hChunkCount = CeilDiv(dstH, hChunk);
  t.dChunkCount = CeilDiv(dstD, dChunk);
  t.wChunkCount = CeilDiv(dstW, wChunk);
  t.itemCount = t.planeCount * t.dChunkCount * t.hChunkCount * t.wChunkCount;
  t.blockDim = t.itemCount == 0 ? 0 : std::min<int64_t>(input.cores, t.itemCount);
  const double dstBytes = static_cast<double>(t.batch) * static_cast<double>(dstD) *
                          static_cast<double>(dstH) * static_cast<double>(dstW) *
                          static_cast<double>(ElementSize(input.dataType));
  switch (input.streamStores) {
    case StreamStoresRequest::kAuto:
      t.streamStores = dstBytes > static_cast<double>(kStreamStoreBytes);
      break;
    case StreamStoresRequest::kAlways:
      t.streamStores = true;
      break;
    case StreamStoresRequest::kNever:
      t.streamStores = false;
      break;
  }

  // Per-core scratch, each buffer 64-byte aligned:
  //  width-first backward: kRowBatch source rows (converted / packed) | kRowBatch W-pass rows |
  //            H-pass chunk | D ring
  //  width-last backward: D-step slab (slabRows unpadded rows of slabCols source positions) |
  //            kRowBatch H-step rows | kRowBatch W-pass rows (wChunk positions) | kTapGroup converted
  //            source rows (strided views); channels inner (the ring) one H-step and one W-pass row
  //  forward:  two converted source rows | kRowBatch H-pass rows | kRowBatch destination rows |
  //            D-pass rows one chunk needs; W first: one converted source row | two W-resampled rows
  //            | kRowBatch destination rows | D-pass rows (destination-wide) one chunk needs | two planes
  //            of as many W-resampled source rows (the last two D tap planes)
  //  stencil2x backward: two D accumulator planes (hChunk x stencilRowStride floats) | three rows of
  //            stencilRowStride floats (the portable kernel's W-pass row and H accumulators)
  int64_t scratchBytes = 0;
  if (t.stencil2x) {
    scratchBytes = (2 * hChunk + 3) * t.stencilRowStride * accBytes;
  } else if (widthLast) {
    // The slab: the D step of the chunk's rows (W inner), or a ring of the rows one H index spans.
    t.slabRows = MaxTapRowsPerChunk(axes[1], tableH, t.layout == RowLayout::kCInner ? 1 : hChunk);
    const int64_t slabRowElems = t.slabCols * rowWidth;
    const int64_t rowsInFlight =
        t.layout == RowLayout::kCInner ? 1 : kRowBatch;  // the ring: one row at a time
    scratchBytes = RoundUp64Bytes(t.slabRows * slabRowElems, accBytes) +
                   RoundUp64Bytes(slabRowElems, accBytes) * (rowsInFlight + kTapGroup) +
                   RoundUp64Bytes(wChunk * rowWidth, accBytes) * rowsInFlight;
  } else if (backward) {
    scratchBytes =
        (RoundUp64Bytes(srcRowElems, accBytes) + RoundUp64Bytes(t.rowElems, accBytes)) * kRowBatch +
        RoundUp64Bytes(hChunk * t.rowElems, accBytes) * (1 + t.ringPlanes);
  } else {
    const int64_t srcRowsPerChunk = MaxSourceRowsPerChunk(axes[1], hChunk);
    scratchBytes = forwardWidthFirst
                       ? RoundUp64Bytes(srcRowElems, accBytes) +
                             RoundUp64Bytes(t.rowElems, accBytes) * (2 + kRowBatch + 3 * srcRowsPerChunk)
                       : RoundUp64Bytes(srcRowElems, accBytes) * (2 + kRowBatch + srcRowsPerChunk) +
                             RoundUp64Bytes(t.rowElems, accBytes) * kRowBatch;
  }
  t.scratchElemsPerCore = scratchBytes / accBytes;
  t.workspaceSize =
      t.itemCount == 0 ? 0 : static_cast<uint64_t>(scratchBytes) * static_cast<uint64_t>(t.blockDim);
  *out = t;
  return true;
}

}  // namespace trilinear3d::tiling
