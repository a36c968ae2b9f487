// Tiling of the resize operators on the CPU. See the header for the contract; the kernels'
// own tilings are in tiling_*.cpp, the choice among them in kernel_registry.cpp.
#include "op_host/resample_tiling.h"

#include <algorithm>

#include "op_host/kernel_registry.h"
#include "op_host/kernel_tiling.h"

namespace trilinear3d::tiling {
namespace {

AxisTiling MakeAxisTiling(const math::AxisSpec &axis) {
  AxisTiling t;
  t.inSize = axis.in;
  t.outSize = axis.out;
  t.scale = axis.scale;
  t.filter = axis.filter;
  t.needResize = axis.NeedResize();
  t.belowMinScale = t.needResize && axis.scale < kMinSupportScale;
  t.slideCount = CeilDiv(axis.in, kSlideSize);
  for (const auto &[first, last] : SlideWindows(axis))
    t.singleCoreK = std::max(t.singleCoreK, last - first + 1);
  return t;
}

}  // namespace

TilingContext::TilingContext(const TilingInput &in) : input(in) {
  for (int i = 0; i < 3; ++i) {
    axes[i] = math::MakeAxis(in.inSize[i], in.outSize[i], in.alignCorners, in.userScales[i], in.filters[i]);
  }
  backward = in.direction == Direction::kBackward;
  layout = in.channelsContiguous && in.c >= kMinChannelsInner ? RowLayout::kCInner : RowLayout::kWInner;
  rowWidth = layout == RowLayout::kCInner ? in.c : 1;
  const int64_t *dst = backward ? in.inSize : in.outSize;
  dstD = dst[0];
  dstH = dst[1];
  dstW = dst[2];
  srcW = backward ? in.outSize[2] : in.inSize[2];
  srcRowElems = srcW * rowWidth;
  accBytes = AccElementSize(in.dataType);
  srcElemBytes = ElementSize(in.dataType);
}

void SplitItems(const TilingContext &ctx, int64_t hChunk, int64_t wChunk, TilingData *t) {
  const int64_t dstD = ctx.dstD, dstH = ctx.dstH, dstW = ctx.dstW;
  int64_t dChunk = dstD;
  const int64_t targetItems = ctx.input.cores > 1 ? 4 * ctx.input.cores : 1;
  const int64_t planes = std::max<int64_t>(t->planeCount, 1);
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
  t->hChunk = hChunk;
  t->dChunk = dChunk;
  t->wChunk = wChunk;
  t->hChunkCount = CeilDiv(dstH, hChunk);
  t->dChunkCount = CeilDiv(dstD, dChunk);
  t->wChunkCount = CeilDiv(dstW, wChunk);
  t->itemCount = t->planeCount * t->dChunkCount * t->hChunkCount * t->wChunkCount;
  t->blockDim = t->itemCount == 0 ? 0 : std::min<int64_t>(ctx.input.cores, t->itemCount);
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
  for (int64_t o = 0; o < axis.out; ++o) axis.ForEachTap(o, [&](int64_t i, double) { reach(i, o); });
  for (auto &w : windows) {
    if (w.second < 0) w.first = 0;
  }
  return windows;
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
  const TilingContext ctx(input);
  TilingData t;
  t.direction = input.direction;
  t.dataType = input.dataType;
  t.n = input.n;
  t.c = input.c;
  t.batch = input.n * input.c;
  t.alignCorners = input.alignCorners;
  t.d = MakeAxisTiling(ctx.axes[0]);
  t.h = MakeAxisTiling(ctx.axes[1]);
  t.w = MakeAxisTiling(ctx.axes[2]);
  t.layout = ctx.layout;
  t.planeCount = t.layout == RowLayout::kCInner ? input.n : t.batch;
  t.rowElems = ctx.dstW * ctx.rowWidth;
  const double dstBytes = static_cast<double>(t.batch) * static_cast<double>(ctx.dstD) *
                          static_cast<double>(ctx.dstH) * static_cast<double>(ctx.dstW) *
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

  const KernelEntry &kernel = ChooseKernel(ctx);
  t.kernel = kernel.id;
  // Per-core scratch, each buffer 64-byte aligned (the layouts are in the kernels' tilings).
  const int64_t scratchBytes = kernel.tile(ctx, &t);
  t.scratchElemsPerCore = scratchBytes / ctx.accBytes;
  t.workspaceSize =
      t.itemCount == 0 ? 0 : static_cast<uint64_t>(scratchBytes) * static_cast<uint64_t>(t.blockDim);
  *out = t;
  return true;
}

}  // namespace trilinear3d::tiling
