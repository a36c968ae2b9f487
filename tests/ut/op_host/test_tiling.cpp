// ComputeTiling and the kernel registry: invariants of every kernel's tiling on many random shapes
// (each kernel forced in turn), the registry's choice and its fallback for a forced kernel that does not
// apply, a few hand-worked shapes per kernel checked field by field, SlideWindows against brute force,
// and the workspace bound on docs/spec.md §8's bench cases.
//
// Expected values are derived in this file, not by calling the implementation's helpers:
// arithmetic is written out in the comments. Notation used below:
//   B = kCacheBudgetBytes = 524288 (512 KiB); acc = accumulation bytes (4 for fp32/fp16/bf16, 8 for double);
//   R(x) = x bytes rounded up to a multiple of 64;  cdiv = ceiling division.
//   Backward, width-first (W -> H -> D; the hand cases below force it with TilingInput::forcedKernel
//   unless they say otherwise): dst = gradInput (in-side sizes), src row = gradOut row (srcW = out W).
//     hChunk0 = clamp(B / ((1 + ringPlanes) * rowElems * acc), 1, dstH); dChunk0 = dstD;
//     scratch = (R(srcW * rowWidth * acc) + R(rowElems * acc)) * kRowBatch   (gradOut rows and W-pass rows,
//               kRowBatch of each) + R(hChunk * rowElems * acc) * (1 + ringPlanes)   (H-pass chunk, D ring).
//   Forward: dst = out (out-side sizes), src row = self row (srcW = in W).
//     hChunk0 = clamp(B / (srcW * rowWidth * acc), 1, dstH), W last rounded down to a multiple of
//     kRowBatch (4) when 4 < hChunk0 < dstH;
//     scratch = R(srcRowBytes) * (2 + kRowBatch + srcRows) + R(rowElems * acc) * kRowBatch (two converted
//     self rows, kRowBatch H-pass rows, the D-pass rows; kRowBatch W-pass rows), srcRows = most self H rows
//     one H chunk's taps span. When W shrinks and the registry's estimate says it is cheaper, the forward
//     goes W first: hChunk0 = clamp(B / (3 * ceil(inH / outH) * rowElems * acc), 1, dstH); scratch =
//     R(srcRowBytes) + R(rowElems * acc) * (2 + kRowBatch + 3 * srcRows) (one converted self row, two
//     W-resampled rows, the destination rows, out-wide D-pass rows, two cached planes of as many rows).
//   Backward, width-last (D -> H -> W): perRow = (shared + kTapGroup) * srcW * rowWidth * dtypeBytes
//     + srcW * rowWidth * acc, shared = most gradOut D planes two consecutive gradInput D indices share;
//     rows = max(1, B / perRow); hChunk0 = clamp(floor(max(1, rows - 3) / (outH / inH)), 1, dstH), cut
//     while span > rows (see the code); span(hChunk) = most gradOut H rows one chunk's taps reach;
//     slabRows = span(final hChunk);
//     scratch = R(slabRows * srcW * rowWidth * acc) * (1 + widenedPlanes + carry) +
//               R(srcW * rowWidth * acc) * (kRowBatch + kTapGroup) + R(rowElems * acc) * kRowBatch;
//               widenedPlanes (fp16 W-inner rows, one W chunk) = the most gradOut D planes one gradInput D
//               index's taps span, when that is at most kMaxWidenedPlanes (16) and as many slabs fit B, else
//               0; carry (carrySlab: bf16 W-inner rows, one W chunk) = 1, else 0.
//   Backward, width-last, channels inner (the ring kernel): cols = max(1, kRingRowBytes (65536) /
//     (c * acc)); when srcW > cols, wChunk0 = clamp(floor(max(1, cols - 3) / (outW / inW)), 1, dstW), cut
//     while spanW > cols, slabCols = spanW(wChunk) if wChunk < dstW; else wChunk = dstW, slabCols = srcW.
//     perRow = kTapGroup * slabCols * c * dtypeBytes, rows = max(1, kRingReuseBytes (4 MiB) / perRow),
//     hChunk as above from rows; slabRows = span(1) (the ring); the core split counts W chunks with
//     the planes; scratch as above with slabCols for srcW, wChunk for dstW, and one H-step row and one
//     W-pass row for kRowBatch of each.
//   Backward order (the registry's choice): cost = sum over passes of weight * max(elements before, after),
//   weight 3 for
//     the W pass on W-inner rows, else 1; width-last when strictly cheaper, and on a tie for
//     channels-inner rows.
//   Core split (cores > 1): target = 4 * cores items; if planes * cdiv(dstH, hChunk) < target then
//     hChunk = min(hChunk, cdiv(dstH, min(dstH, cdiv(target, planes)))); then if still < target,
//     dChunk = cdiv(dstD, min(dstD, cdiv(target, planes * hChunkCount))). planes = max(planeCount, 1).
//   ringPlanes: backward only; a gradInput D index is "open" from the first to the last gradOut od
//     that reaches it; since i0(o) is monotone, the open set at od is exactly the (at most 2) taps of od,
//     so it is 2 whenever D's input size is > 1 and 1 when it is 1.
//   singleCoreK: the widest [first o, last o] window of one slide of 16 source indices.
//     For an exact 2x upsample (scale 0.5, half-pixel): src(o) = o/2 - 0.25, so source k is reached by
//     o = 2k-1 .. 2k+2 (0 .. 2 for k = 0; 2k-1 .. 2k+1 for the last k): a full first slide spans
//     0..32 (33), a full middle slide 32s-1 .. 32s+32 (34), and a short last slide 32s-1 .. out-1.
//     For an exact 2x downsample (scale 2): o reaches 2o and 2o+1 only, so a slide of 16 spans 8.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "brute_force.h"
#include "op_host/kernel_registry.h"
#include "op_host/resample_tiling.h"

namespace trilinear3d::tiling {
namespace {

using test::BruteAxis;
using test::MakeBruteAxis;

constexpr uint64_t kMiB = 1024 * 1024;

struct ExpectedAxis {
  int64_t inSize;
  int64_t outSize;
  double scale;
  bool needResize;
  bool belowMinScale;
  int64_t slideCount;
  int64_t singleCoreK;
};

struct Expected {
  Direction direction = Direction::kBackward;
  DataType dataType = DataType::kFloat32;
  int64_t n = 0;
  int64_t c = 0;
  int64_t batch = 0;
  bool alignCorners = false;
  ExpectedAxis d{}, h{}, w{};
  RowLayout layout = RowLayout::kWInner;
  Kernel kernel = Kernel::kBackwardWidthFirst;  // forward cases set theirs
  int64_t stencilRowStride = 0;
  int64_t slabRows = 0;
  int64_t slabCols = -1;  // -1: srcW for the width-last backward, else 0
  int64_t wChunk = 0;     // 0: dstW (one W chunk)
  int64_t wChunkCount = 1;
  int64_t planeCount = 0;
  int64_t rowElems = 0;
  int64_t dChunk = 0;
  int64_t hChunk = 0;
  int64_t dChunkCount = 0;
  int64_t hChunkCount = 0;
  int64_t itemCount = 0;
  int64_t blockDim = 0;
  int64_t ringPlanes = 0;
  int64_t widenedPlanes = 0;
  int64_t scratchElemsPerCore = 0;
  uint64_t workspaceSize = 0;
};

struct Shape3 {
  int64_t d, h, w;
};

TilingInput MakeInput(Direction direction, DataType dataType, int64_t n, int64_t c, Shape3 in, Shape3 out,
                      int64_t cores, bool alignCorners = false) {
  TilingInput input;
  input.direction = direction;
  input.dataType = dataType;
  input.n = n;
  input.c = c;
  input.inSize[0] = in.d;
  input.inSize[1] = in.h;
  input.inSize[2] = in.w;
  input.outSize[0] = out.d;
  input.outSize[1] = out.h;
  input.outSize[2] = out.w;
  input.alignCorners = alignCorners;
  input.cores = cores;
  // The hand-worked backward cases below were worked for the width-first layout; the other kernels'
  // cases and the automatic choice have their own tests.
  if (direction == Direction::kBackward) input.forcedKernel = Kernel::kBackwardWidthFirst;
  return input;
}

TilingData Tile(const TilingInput &input) {
  TilingData t;
  std::string error;
  EXPECT_TRUE(ComputeTiling(input, &t, &error)) << error;
  return t;
}

void ExpectAxis(const char *name, const AxisTiling &a, const ExpectedAxis &e) {
  SCOPED_TRACE(std::string("axis ") + name);
  EXPECT_EQ(a.inSize, e.inSize) << "inSize";
  EXPECT_EQ(a.outSize, e.outSize) << "outSize";
  EXPECT_EQ(a.scale, e.scale) << "scale";
  EXPECT_EQ(a.needResize, e.needResize) << "needResize";
  EXPECT_EQ(a.belowMinScale, e.belowMinScale) << "belowMinScale";
  EXPECT_EQ(a.slideCount, e.slideCount) << "slideCount";
  EXPECT_EQ(a.singleCoreK, e.singleCoreK) << "singleCoreK";
}

void ExpectTiling(const TilingData &t, const Expected &e) {
  EXPECT_EQ(t.direction, e.direction) << "direction";
  EXPECT_EQ(t.dataType, e.dataType) << "dataType";
  EXPECT_EQ(t.n, e.n) << "n";
  EXPECT_EQ(t.c, e.c) << "c";
  EXPECT_EQ(t.batch, e.batch) << "batch";
  EXPECT_EQ(t.alignCorners, e.alignCorners) << "alignCorners";
  ExpectAxis("d", t.d, e.d);
  ExpectAxis("h", t.h, e.h);
  ExpectAxis("w", t.w, e.w);
  EXPECT_EQ(t.layout, e.layout) << "layout";
  EXPECT_EQ(t.kernel, e.kernel) << "kernel " << KernelName(t.kernel);
  EXPECT_EQ(t.stencilRowStride, e.stencilRowStride) << "stencilRowStride";
  EXPECT_EQ(t.slabRows, e.slabRows) << "slabRows";
  const bool backward = e.direction == Direction::kBackward;
  const int64_t dstW = backward ? e.w.inSize : e.w.outSize;
  const int64_t srcW = backward ? e.w.outSize : e.w.inSize;
  const bool widthLastBackward = e.kernel == Kernel::kBackwardWidthLast;
  EXPECT_EQ(t.slabCols, e.slabCols >= 0 ? e.slabCols : (widthLastBackward ? srcW : 0)) << "slabCols";
  EXPECT_EQ(t.wChunk, e.wChunk > 0 ? e.wChunk : dstW) << "wChunk";
  EXPECT_EQ(t.wChunkCount, e.wChunkCount) << "wChunkCount";
  EXPECT_EQ(t.planeCount, e.planeCount) << "planeCount";
  EXPECT_EQ(t.rowElems, e.rowElems) << "rowElems";
  EXPECT_EQ(t.dChunk, e.dChunk) << "dChunk";
  EXPECT_EQ(t.hChunk, e.hChunk) << "hChunk";
  EXPECT_EQ(t.dChunkCount, e.dChunkCount) << "dChunkCount";
  EXPECT_EQ(t.hChunkCount, e.hChunkCount) << "hChunkCount";
  EXPECT_EQ(t.itemCount, e.itemCount) << "itemCount";
  EXPECT_EQ(t.blockDim, e.blockDim) << "blockDim";
  EXPECT_EQ(t.ringPlanes, e.ringPlanes) << "ringPlanes";
  EXPECT_EQ(t.widenedPlanes, e.widenedPlanes) << "widenedPlanes";
  EXPECT_EQ(t.scratchElemsPerCore, e.scratchElemsPerCore) << "scratchElemsPerCore";
  EXPECT_EQ(t.workspaceSize, e.workspaceSize) << "workspaceSize";
}

// Cross-checks of the hand values against brute force over math::ComputeTap (small axes only):
// the hand arithmetic above and the brute force must agree with each other as well as with the code.
void ExpectBruteForceAgrees(const TilingInput &in, const Expected &e) {
  const ExpectedAxis *axes[3] = {&e.d, &e.h, &e.w};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("brute force, axis " + std::to_string(i));
    const BruteAxis a = MakeBruteAxis(in.inSize[i], in.outSize[i], in.alignCorners, in.userScales[i]);
    EXPECT_EQ(axes[i]->scale, a.scale);
    EXPECT_EQ(axes[i]->singleCoreK, test::BruteSingleCoreK(a));
    EXPECT_EQ(axes[i]->slideCount, static_cast<int64_t>(test::BruteSlideWindows(a).size()));
  }
  if (e.kernel == Kernel::kBackwardWidthFirst && in.inSize[0] * in.outSize[0] <= 64 * 64) {
    const BruteAxis d = MakeBruteAxis(in.inSize[0], in.outSize[0], in.alignCorners, in.userScales[0]);
    EXPECT_EQ(e.ringPlanes, test::BruteMaxOpen(d)) << "ringPlanes";
  }
}

// Backward scratch from its hand-computed parts (bytes): kRowBatch gradOut rows and kRowBatch W-pass
// rows, then the H-pass chunk and the D ring (chunkAndRingBytes = R(chunk) * (1 + ringPlanes)).
// The workspace is one scratch per launched core (e->blockDim must be set).
void SetBackwardScratch(Expected *e, int64_t srcRowBytes, int64_t wRowBytes, int64_t chunkAndRingBytes,
                        int64_t accBytes) {
  const int64_t bytes = (srcRowBytes + wRowBytes) * kRowBatch + chunkAndRingBytes;
  e->scratchElemsPerCore = bytes / accBytes;
  e->workspaceSize = static_cast<uint64_t>(bytes * e->blockDim);
}

void CheckCase(const TilingInput &in, const Expected &e) {
  ExpectTiling(Tile(in), e);
  ExpectBruteForceAgrees(in, e);
}

// ---------------------------------------------------------------------------------------------
// Hand-worked shapes.

// Tails: 2x upsample with sizes that are not multiples of 16. fp32, 1 core.
TilingInput TailsInput(DataType dataType) {
  return MakeInput(Direction::kBackward, dataType, 2, 3, {3, 19, 21}, {6, 38, 42}, 1);
}

Expected TailsExpectedFp32() {
  Expected e;
  e.n = 2;
  e.c = 3;
  e.batch = 6;
  e.d = {3, 6, 3.0 / 6.0, true, false, 1, 6};       // one slide: every o (0..5)
  e.h = {19, 38, 19.0 / 38.0, true, false, 2, 33};  // slide 0: 0..32 = 33; slide 1 (16..18): 31..37 = 7
  e.w = {21, 42, 21.0 / 42.0, true, false, 2, 33};  // slide 0: 33; slide 1 (16..20): 31..41 = 11
  e.layout = RowLayout::kWInner;
  e.planeCount = 6;  // n * c
  e.rowElems = 21;   // gradInput W
  e.ringPlanes = 2;
  e.hChunk = 19;  // B / (3 * 21 * 4 = 252) = 2080 -> clamp to dstH 19; 1 core: no split
  e.dChunk = 3;
  e.hChunkCount = 1;
  e.dChunkCount = 1;
  e.itemCount = 6;  // 6 planes * 1 * 1
  e.blockDim = 1;
  // R(42*4=168)=192, R(21*4=84)=128, R(19*21*4=1596)=1600 * 3 = 4800
  SetBackwardScratch(&e, 192, 128, 4800, 4);
  return e;
}

TEST(Tiling, TailsFp32OneCore) { CheckCase(TailsInput(DataType::kFloat32), TailsExpectedFp32()); }

TEST(Tiling, TailsDoubleAccumulatesInDouble) {
  Expected e = TailsExpectedFp32();
  e.dataType = DataType::kFloat64;
  // hChunk: B / (3 * 21 * 8 = 504) = 1040 -> clamp 19 (unchanged).
  // R(42*8=336)=384, R(21*8=168)=192, R(19*21*8=3192)=3200 * 3 = 9600
  SetBackwardScratch(&e, 384, 192, 9600, 8);
  CheckCase(TailsInput(DataType::kFloat64), e);
}

// Non-integer ratios (odd in, even out: no source index lands on an integer), 3 cores.
TilingInput OddRatiosInput(DataType dataType) {
  return MakeInput(Direction::kBackward, dataType, 1, 5, {7, 9, 37}, {12, 22, 76}, 3);
}

Expected OddRatiosExpected(DataType dataType) {
  Expected e;
  e.dataType = dataType;
  e.n = 1;
  e.c = 5;
  e.batch = 5;
  e.d = {7, 12, 7.0 / 12.0, true, false, 1, 12};
  e.h = {9, 22, 9.0 / 22.0, true, false, 1, 22};
  // src(o) = (74 o - 39) / 152. Slide 0 (i 0..15): i0 <= 15 <=> o <= 33 -> 0..33 = 34.
  // Slide 1 (16..31): i1 >= 16 <=> o >= 32; i0 <= 31 <=> o <= 66 -> 32..66 = 35.
  // Slide 2 (32..36): i0 >= 31 <=> o >= 65 -> 65..75 = 11.  K = 35.
  e.w = {37, 76, 37.0 / 76.0, true, false, 3, 35};
  e.planeCount = 5;
  e.rowElems = 37;
  e.ringPlanes = 2;
  // hChunk0 = B / (3 * 37 * 4 = 444) = 1180 -> clamp 9. target 12 > 5 planes * 1:
  // hChunk = min(9, cdiv(9, min(9, cdiv(12, 5) = 3)) = 3) = 3 -> 5 * 3 = 15 items >= 12, D not split.
  e.hChunk = 3;
  e.dChunk = 7;
  e.hChunkCount = 3;
  e.dChunkCount = 1;
  e.itemCount = 15;
  e.blockDim = 3;
  // R(76*4=304)=320, R(37*4=148)=192, R(3*37*4=444)=448 * 3 = 1344
  SetBackwardScratch(&e, 320, 192, 1344, 4);
  return e;
}

TEST(Tiling, OddRatiosThreeCores) {
  CheckCase(OddRatiosInput(DataType::kFloat32), OddRatiosExpected(DataType::kFloat32));
}

// Channels-contiguous memory with C >= 8: rows are (W, C) interleaved, planes are N.
TilingInput ChannelsInput(int64_t c, bool channelsContiguous) {
  TilingInput in = MakeInput(Direction::kBackward, DataType::kFloat32, 2, c, {4, 6, 10}, {8, 12, 20}, 3);
  in.channelsContiguous = channelsContiguous;
  return in;
}

Expected ChannelsAxes(int64_t c) {
  Expected e;
  e.n = 2;
  e.c = c;
  e.batch = 2 * c;
  e.d = {4, 8, 0.5, true, false, 1, 8};
  e.h = {6, 12, 0.5, true, false, 1, 12};
  e.w = {10, 20, 0.5, true, false, 1, 20};
  e.ringPlanes = 2;
  return e;
}

TEST(Tiling, ChannelsContiguousCAtLeast8IsCInner) {
  Expected e = ChannelsAxes(8);
  e.layout = RowLayout::kCInner;
  e.planeCount = 2;  // n
  e.rowElems = 80;   // 10 * 8
  // hChunk0 = clamp(B / (3 * 80 * 4 = 960) = 546, 1, 6) = 6. target 12: 2 * 1 < 12 ->
  // hChunk = min(6, cdiv(6, min(6, cdiv(12, 2) = 6))) = 1 -> 2 * 6 = 12 items: D not split.
  e.hChunk = 1;
  e.dChunk = 4;
  e.hChunkCount = 6;
  e.dChunkCount = 1;
  e.itemCount = 12;
  e.blockDim = 3;
  // R(20*8*4=640)=640, R(80*4=320)=320, R(1*80*4=320)=320 * 3 = 960
  SetBackwardScratch(&e, 640, 320, 960, 4);
  CheckCase(ChannelsInput(8, true), e);
}

// Empty tensors: nothing to do, no workspace, no cores.
TEST(Tiling, EmptyNTwoCores) {
  const TilingInput in = MakeInput(Direction::kBackward, DataType::kFloat32, 0, 4, {4, 4, 4}, {8, 8, 8}, 2);
  Expected e;
  e.n = 0;
  e.c = 4;
  e.batch = 0;
  e.d = {4, 8, 0.5, true, false, 1, 8};
  e.h = e.d;
  e.w = e.d;
  e.planeCount = 0;
  e.rowElems = 4;
  e.ringPlanes = 2;
  // Split as for 1 plane (planes = max(0, 1)): hChunk 1, dChunk cdiv(4, min(4, cdiv(8, 4))) = 2.
  e.hChunk = 1;
  e.dChunk = 2;
  e.hChunkCount = 4;
  e.dChunkCount = 2;
  e.itemCount = 0;
  e.blockDim = 0;
  // (unused) R(32)=64, R(16)=64, R(16)=64 * 3 = 192
  SetBackwardScratch(&e, 64, 64, 192, 4);
  e.workspaceSize = 0;  // no items: no cores, no workspace
  CheckCase(in, e);
}

// Forward direction: destination = out, source row = self row, no D ring.
TEST(Tiling, ForwardUpsampleOneCore) {
  const TilingInput in = MakeInput(Direction::kForward, DataType::kFloat32, 1, 2, {4, 6, 10}, {8, 12, 20}, 1);
  Expected e;
  e.direction = Direction::kForward;
  e.kernel = Kernel::kForwardWidthLast;
  e.n = 1;
  e.c = 2;
  e.batch = 2;
  e.d = {4, 8, 0.5, true, false, 1, 8};
  e.h = {6, 12, 0.5, true, false, 1, 12};
  e.w = {10, 20, 0.5, true, false, 1, 20};
  e.planeCount = 2;
  e.rowElems = 20;  // out W
  e.ringPlanes = 0;
  e.hChunk = 12;  // B / (10 * 4) = 13107 -> clamp dstH 12
  e.dChunk = 8;
  e.hChunkCount = 1;
  e.dChunkCount = 1;
  e.itemCount = 2;
  e.blockDim = 1;
  // srcRows: out rows 0..11 tap self rows 0 .. 5 (o = 11: src 5.25, i1 clamped to 5) = 6.
  // R(10*4=40)=64 * (2 + 4 + 6) = 768 + R(20*4=80)=128 * 4 = 512 -> 1280 bytes = 320
  e.scratchElemsPerCore = 320;
  e.workspaceSize = 1280;
  CheckCase(in, e);
  EXPECT_EQ(test::BruteSourceSpanPerChunk(MakeBruteAxis(6, 12, false), 12), 6);
}

TEST(Tiling, ForwardMixedTailsThreeCores) {
  const TilingInput in = MakeInput(Direction::kForward, DataType::kFloat32, 1, 3, {5, 9, 13}, {3, 20, 7}, 3);
  Expected e;
  e.direction = Direction::kForward;
  // W 13 -> 7 shrinks; W first 2*5*9*13 + 3*9*7 + 3*20*7 = 1779 < W last 3*9*13 + 3*20*13 + 2*3*20*13 = 2691.
  e.kernel = Kernel::kForwardWidthFirst;
  e.n = 1;
  e.c = 3;
  e.batch = 3;
  e.d = {5, 3, 5.0 / 3.0, true, false, 1, 3};
  e.h = {9, 20, 9.0 / 20.0, true, false, 1, 20};
  e.w = {13, 7, 13.0 / 7.0, true, false, 1, 7};
  e.planeCount = 3;
  e.rowElems = 7;
  e.ringPlanes = 0;
  // W first: D-pass rows are 7 wide, and two cached planes as many. hChunk0 = clamp(B / (3 * 28), 1, 20)
  // = 20. target 12: 3 * 1 < 12 -> hChunk = min(20, cdiv(20, min(20, cdiv(12, 3) = 4))) = 5 -> 3 * 4 = 12
  // items: D not split.
  e.hChunk = 5;
  e.dChunk = 3;
  e.hChunkCount = 4;
  e.dChunkCount = 1;
  e.itemCount = 12;
  e.blockDim = 3;
  // H taps, src(o) = 0.45 o - 0.275: chunk 0..4 -> rows 0..2 (3); 5..9 -> 1..4 (4); 10..14 -> 4..7 (4);
  // 15..19 -> 6..8 (3). srcRows = 4. R(13*4=52)=64 (one source row) + R(7*4=28)=64 * (2 + 4 + 3 * 4) =
  // 1152 -> 1216 bytes = 304
  e.scratchElemsPerCore = 304;
  e.workspaceSize = 1216 * 3;
  CheckCase(in, e);
  EXPECT_EQ(test::BruteSourceSpanPerChunk(MakeBruteAxis(9, 20, false), 5), 4);
}

// The bench cases' gradInput planes (N 1, C 64; H and W 128 from 256, exact 2x) with D as given:
// the fields every such tiling shares.
Expected BenchPlanesExpected(DataType dataType, const ExpectedAxis &d) {
  Expected e;
  e.dataType = dataType;
  e.n = 1;
  e.c = 64;
  e.batch = 64;
  e.d = d;
  e.h = {128, 256, 0.5, true, false, 8, 34};
  e.w = e.h;
  e.planeCount = 64;
  e.rowElems = 128;
  return e;
}

// B1, width-last (its automatic order), 2 cores.
TEST(Tiling, WidthLastBenchB1TwoCores) {
  TilingInput in =
      MakeInput(Direction::kBackward, DataType::kFloat32, 1, 64, {8, 128, 128}, {16, 256, 256}, 2);
  in.forcedKernel.reset();
  Expected e = BenchPlanesExpected(DataType::kFloat32, {8, 16, 0.5, true, false, 1, 16});
  e.kernel = Kernel::kBackwardWidthLast;
  // shared: gradInput d is reached by od 2d-1 .. 2d+2, and d = 1 also by od 0 (src clamps to 0: taps 0
  // and 1, weight 0 on 1): d = 0 by 0..2, d = 1 by 0..4 -> 3.
  // perRow = (3 + 4) * 256 * 4 + 256 * 4 = 8192; rows = 524288 / 8192 = 64;
  // hChunk0 = floor(61 / 2.0) = 30; span(30): rows 30..59 are reached by oh 59 .. 120 = 62 <= 64.
  // target 8: 64 * 5 >= 8, no split.
  e.hChunk = 30;
  e.dChunk = 8;
  e.hChunkCount = 5;
  e.dChunkCount = 1;
  e.itemCount = 320;
  e.blockDim = 2;
  e.slabRows = 62;
  // R(62 * 256 * 4 = 63488) = 63488 + R(1024) * (4 + 4) = 8192 + R(512) * 4 = 2048 -> 73728 bytes.
  e.scratchElemsPerCore = 73728 / 4;
  e.workspaceSize = 73728 * 2;
  CheckCase(in, e);
  const BruteAxis d = MakeBruteAxis(8, 16, false), h = MakeBruteAxis(128, 256, false);
  EXPECT_EQ(test::BruteMaxShared(d), 3);
  EXPECT_EQ(test::BruteTapSpanPerChunk(h, 30), 62);
}

// B3 (NDHWC), width-last (its automatic order: a tie along C), 2 cores: the ring kernel.
TEST(Tiling, WidthLastRingBenchB3TwoCores) {
  TilingInput in =
      MakeInput(Direction::kBackward, DataType::kFloat32, 1, 64, {8, 128, 128}, {16, 256, 256}, 2);
  in.forcedKernel.reset();
  in.channelsContiguous = true;
  Expected e = BenchPlanesExpected(DataType::kFloat32, {8, 16, 0.5, true, false, 1, 16});
  e.kernel = Kernel::kBackwardWidthLast;
  e.layout = RowLayout::kCInner;
  e.planeCount = 1;
  e.rowElems = 128 * 64;
  // cols = 65536 / (64 * 4) = 256 = srcW: no W chunks, slabCols = 256.
  // perRow = 4 * 256 * 64 * 4 = 262144; rows = 4194304 / 262144 = 16; hChunk0 = floor(13 / 2.0) = 6;
  // span(6) = 14 (rows 6..11: oh 11 .. 24) <= 16. target 8: 1 * 1 * 22 >= 8, no split.
  e.hChunk = 6;
  e.dChunk = 8;
  e.hChunkCount = 22;
  e.dChunkCount = 1;
  e.itemCount = 22;
  e.blockDim = 2;
  // The ring: row k is reached by oh 2k-1 .. 2k+2, and row 1 also by oh 0 (src clamps to 0: taps 0
  // and 1, weight 0 on 1) -> 5.
  e.slabRows = 5;
  // The ring holds one H-step and one W-pass row:
  // R(5 * 16384 * 4 = 327680) + R(65536) * (1 + 4) = 327680 + R(32768) * 1 = 32768 -> 688128 bytes.
  e.scratchElemsPerCore = 688128 / 4;
  e.workspaceSize = 688128 * 2;
  CheckCase(in, e);
  const BruteAxis h = MakeBruteAxis(128, 256, false);
  EXPECT_EQ(test::BruteTapSpanPerChunk(h, 6), 14);
  EXPECT_EQ(test::BruteTapSpanPerChunk(h, 1), 5);
}

// Channels-inner rows of 72 KB (fp32): the ring kernel cuts W into chunks; few rows split D too.
TEST(Tiling, WidthLastRingWChunksTwoCores) {
  TilingInput in = MakeInput(Direction::kBackward, DataType::kFloat32, 1, 72, {2, 3, 120}, {3, 5, 250}, 2);
  // Forced: kAuto picks width-first here (first 3750 + 1800 + 1080 = 6630, last 3750 + 2500 + 1500 = 7750).
  in.forcedKernel = Kernel::kBackwardWidthLast;
  in.channelsContiguous = true;
  const BruteAxis d = MakeBruteAxis(2, 3, false), h = MakeBruteAxis(3, 5, false),
                  w = MakeBruteAxis(120, 250, false);
  Expected e;
  e.n = 1;
  e.c = 72;
  e.batch = 72;
  e.d = {2, 3, d.scale, true, false, 1, 3};
  e.h = {3, 5, h.scale, true, false, 1, 5};
  e.w = {120, 250, w.scale, true, false, 8, test::BruteSingleCoreK(w)};
  e.layout = RowLayout::kCInner;
  e.kernel = Kernel::kBackwardWidthLast;
  e.planeCount = 1;
  e.rowElems = 120 * 72;
  // cols = 65536 / 288 = 227 < 250: wChunk0 = floor(224 / (250 / 120)) = 107; span(107) = 224 (col 106 is
  // reached up to o 223: src(223) = 223.5 * 0.48 - 0.5 = 106.78) <= 227 -> wChunk 107, 2 chunks.
  e.wChunk = 107;
  e.wChunkCount = 2;
  e.slabCols = 224;
  // perRow = 4 * 224 * 72 * 4 = 258048; rows = 16; hChunk0 = floor(13 / (5 / 3)) = 7 -> dstH = 3.
  // target 8: 1 * 2 * 1 = 2 < 8 -> hChunk = min(3, cdiv(3, min(3, cdiv(8, 2)))) = 1; 1 * 2 * 3 = 6 < 8 ->
  // dChunk = cdiv(2, min(2, cdiv(8, 6))) = 1.
  e.hChunk = 1;
  e.dChunk = 1;
  e.hChunkCount = 3;
  e.dChunkCount = 2;
  e.itemCount = 12;
  e.blockDim = 2;
  // The ring: H row 1 is reached by oh 0..3 (oh 0 clamps to taps 0 and 1) -> 4.
  e.slabRows = 4;
  // R(4 * 16128 * 4 = 258048) + R(64512) * (1 + 4) = 322560 + R(107 * 72 * 4 = 30816) = 30848
  // -> 611456 bytes.
  e.scratchElemsPerCore = 611456 / 4;
  e.workspaceSize = 611456 * 2;
  CheckCase(in, e);
  EXPECT_EQ(test::BruteTapSpanPerChunk(w, 107), 224);
  EXPECT_EQ(test::BruteTapSpanPerChunk(h, 1), 4);
}

// B1 at 64 cores: the H split fills the cores.
TEST(Tiling, BenchB1SixtyFourCores) {
  const TilingInput in =
      MakeInput(Direction::kBackward, DataType::kFloat32, 1, 64, {8, 128, 128}, {16, 256, 256}, 64);
  Expected e = BenchPlanesExpected(DataType::kFloat32, {8, 16, 0.5, true, false, 1, 16});
  e.ringPlanes = 2;
  // hChunk0 = clamp(B / (3 * 512) = 341, 1, 128) = 128. target 256: 64 * 1 < 256 ->
  // hChunk = min(128, cdiv(128, min(128, cdiv(256, 64) = 4))) = 32 -> 256 items.
  e.hChunk = 32;
  e.dChunk = 8;
  e.hChunkCount = 4;
  e.dChunkCount = 1;
  e.itemCount = 256;
  e.blockDim = 64;
  // R(256*4)=1024, R(128*4)=512, R(32*128*4=16384)=16384 * 3 = 49152
  SetBackwardScratch(&e, 1024, 512, 49152, 4);
  CheckCase(in, e);
}

// ---------------------------------------------------------------------------------------------
// The doubling stencil (Kernel::kBackwardStencil2x).

// The doubling stencil's shapes as the op asks for them: no forced kernel, gradOut rows of unit W stride.
TilingInput StencilInput(int64_t n, int64_t c, Shape3 in, Shape3 out, int64_t cores) {
  TilingInput input = MakeInput(Direction::kBackward, DataType::kFloat32, n, c, in, out, cores);
  input.forcedKernel.reset();
  input.srcUnitW = true;
  return input;
}

// B1, 2 cores, as the op asks: W -> H -> D, whole planes (two 128 x 128 accumulator planes:
// 2 x 64 KB <= 512 KB).
TEST(Tiling, Stencil2xBenchB1TwoCores) {
  const TilingInput in = StencilInput(1, 64, {8, 128, 128}, {16, 256, 256}, 2);
  Expected e = BenchPlanesExpected(DataType::kFloat32, {8, 16, 0.5, true, false, 1, 16});
  e.kernel = Kernel::kBackwardStencil2x;
  e.stencilRowStride = 128;
  // hChunk = min(128, 524288 / (2 * 128 * 4) = 512); 64 planes >= 4 x 2 items: no split.
  e.hChunk = 128;
  e.dChunk = 8;
  e.hChunkCount = 1;
  e.dChunkCount = 1;
  e.itemCount = 64;
  e.blockDim = 2;
  // (2 x 128 + 3) rows x 128 floats x 4 bytes = 132608 bytes per core.
  e.scratchElemsPerCore = 132608 / 4;
  e.workspaceSize = 2 * 132608;
  CheckCase(in, e);
  EXPECT_TRUE(Tile(in).streamStores);  // 32 MiB of gradInput
}

// Wide rows: the two accumulator planes bound the H chunk (W 1000 -> rows of 1008 floats:
// 524288 / (2 x 1008 x 4) = 65 rows), and a tail row of W rounded up to whole vectors.
TEST(Tiling, Stencil2xWideRowsChunkH) {
  TilingInput in = StencilInput(1, 1, {3, 100, 1000}, {6, 200, 2000}, 1);
  in.forcedKernel = Kernel::kBackwardStencil2x;
  const TilingData t = Tile(in);
  EXPECT_EQ(t.kernel, Kernel::kBackwardStencil2x);
  EXPECT_EQ(t.stencilRowStride, 1008);
  EXPECT_EQ(t.hChunk, 65);
  EXPECT_EQ(t.hChunkCount, 2);
  EXPECT_EQ(t.dChunk, 3);
  EXPECT_EQ(t.itemCount, 2);
  EXPECT_EQ(t.scratchElemsPerCore, (2 * 65 + 3) * 1008);
  EXPECT_EQ(t.workspaceSize, static_cast<uint64_t>((2 * 65 + 3) * 1008 * 4));
}

// The seed's sample (examples/test_aclnn_upsample_trilinear3d_backward.cpp): gradOut 2 x 2 x 2 x 2 x 2 to
// gradInput 2 x 2 x 1 x 1 x 1, fp32, NCDHW, 2 cores. Every axis doubles 1 -> 2 with scale 0.5: the stencil.
TEST(Tiling, SeedSampleTwoCores) {
  const TilingInput in = StencilInput(2, 2, {1, 1, 1}, {2, 2, 2}, 2);
  Expected e;
  e.kernel = Kernel::kBackwardStencil2x;
  e.n = 2;
  e.c = 2;
  e.batch = 4;
  e.d = {1, 2, 0.5, true, false, 1, 2};  // one slide, reached by o = 0 and 1
  e.h = e.d;
  e.w = e.d;
  e.planeCount = 4;
  e.rowElems = 1;
  e.stencilRowStride = 16;  // W 1 rounded up to 16
  // hChunk = clamp(524288 / (2 * 16 * 4), 1, 1) = 1. target 8: 4 planes < 8, but H and D have one index.
  e.hChunk = 1;
  e.dChunk = 1;
  e.hChunkCount = 1;
  e.dChunkCount = 1;
  e.itemCount = 4;
  e.blockDim = 2;
  // (2 x 1 + 3) rows x 16 floats x 4 bytes = 320 bytes per core.
  e.scratchElemsPerCore = 80;
  e.workspaceSize = 640;
  CheckCase(in, e);
}

// Everything that keeps a doubling off the stencil kernel, each on B1's shape.
TEST(KernelRegistry, Stencil2xOnlyForExactDoublingFp32UnitRows) {
  auto b1 = [] { return StencilInput(1, 64, {8, 128, 128}, {16, 256, 256}, 2); };
  ASSERT_EQ(Tile(b1()).kernel, Kernel::kBackwardStencil2x);
  const std::vector<std::pair<const char *, std::function<void(TilingInput &)>>> changes = {
      {"align_corners", [](TilingInput &in) { in.alignCorners = true; }},
      {"bf16", [](TilingInput &in) { in.dataType = DataType::kBFloat16; }},
      {"fp16", [](TilingInput &in) { in.dataType = DataType::kFloat16; }},
      {"fp64", [](TilingInput &in) { in.dataType = DataType::kFloat64; }},
      {"strided W", [](TilingInput &in) { in.srcUnitW = false; }},
      {"channels inner", [](TilingInput &in) { in.channelsContiguous = true; }},
      {"forward",
       [](TilingInput &in) {
         in.direction = Direction::kForward;
         std::swap(in.inSize, in.outSize);
       }},
      {"one axis not doubled", [](TilingInput &in) { in.outSize[0] = 15; }},
      {"identity axis", [](TilingInput &in) { in.outSize[0] = 8; }},
      {"user scales not 2",
       [](TilingInput &in) {
         in.userScales[0] = 2.0;
         in.userScales[1] = 2.0;
         in.userScales[2] = 2.0001;  // floor(128 x 2.0001) = 256, but the real scale is 1 / 2.0001
       }},
      {"backward_width_first forced", [](TilingInput &in) { in.forcedKernel = Kernel::kBackwardWidthFirst; }},
      {"backward_width_last forced", [](TilingInput &in) { in.forcedKernel = Kernel::kBackwardWidthLast; }},
  };
  for (const auto &[name, change] : changes) {
    SCOPED_TRACE(name);
    TilingInput in = b1();
    change(in);
    EXPECT_NE(Tile(in).kernel, Kernel::kBackwardStencil2x);
  }
  // User scales of exactly 2 give the same real scale 0.5: the stencil applies.
  TilingInput scaled = b1();
  for (double &s : scaled.userScales) s = 2.0;
  EXPECT_EQ(Tile(scaled).kernel, Kernel::kBackwardStencil2x);
}
// ---------------------------------------------------------------------------------------------
// The registry's choice, and forced kernels.

// The backward's automatic choice written out: W -> H -> D costs w*max(S, S_w) + max(S_w, S_wh) + max(S_wh,
// S_whd); D -> H -> W costs max(S, S_d) + max(S_d, S_dh) + w*max(S_dh, S_dhw), S = gradOut elements per
// plane, S_x = after the passes x; w = 3 for W-inner rows, 1 for C-inner.
Kernel HandBackwardKernel(const TilingInput &in, bool cInner) {
  const double w = cInner ? 1.0 : 3.0;
  const double iD = static_cast<double>(in.inSize[0]), iH = static_cast<double>(in.inSize[1]),
               iW = static_cast<double>(in.inSize[2]);
  const double oD = static_cast<double>(in.outSize[0]), oH = static_cast<double>(in.outSize[1]),
               oW = static_cast<double>(in.outSize[2]);
  const double s = oD * oH * oW;
  const double first = w * std::max(s, oD * oH * iW) + std::max(oD * oH * iW, oD * iH * iW) +
                       std::max(oD * iH * iW, iD * iH * iW);
  const double last = std::max(s, iD * oH * oW) + std::max(iD * oH * oW, iD * iH * oW) +
                      w * std::max(iD * iH * oW, iD * iH * iW);
  if (last == first) return cInner ? Kernel::kBackwardWidthLast : Kernel::kBackwardWidthFirst;
  return last < first ? Kernel::kBackwardWidthLast : Kernel::kBackwardWidthFirst;
}

TEST(KernelRegistry, BackwardPicksTheCheaperOrder) {
  struct Row {
    Shape3 in, out;
    bool channelsLast;
    Kernel expected;
    const char *why;
  };
  const Row rows[] = {
      // B1: first 3*1M + 512K + 256K = 3.77M, last 1M + 512K + 3*256K = 2.29M.
      {{8, 128, 128}, {16, 256, 256}, false, Kernel::kBackwardWidthLast, "2x upsample forward"},
      // B6: first 3*32K + 64K + 128K = 288K, last 32K + 64K + 3*128K = 480K.
      {{32, 64, 64}, {16, 32, 32}, false, Kernel::kBackwardWidthFirst, "2x downsample forward"},
      // B3 (C inner, w = 1): both 1M + 512K + 256K: a tie along C takes the ring kernel's order.
      {{8, 128, 128}, {16, 256, 256}, true, Kernel::kBackwardWidthLast, "tie along C"},
      // The same sizes with W inner: first 3M + 512K + 256K, last 1M + 512K + 768K.
      {{8, 128, 128}, {16, 256, 256}, false, Kernel::kBackwardWidthLast, "no tie along W"},
      // Identity with C inner: a tie, the ring kernel's order.
      {{4, 5, 6}, {4, 5, 6}, true, Kernel::kBackwardWidthLast, "identity along C"},
      // Identity everywhere: 3S + S + S both ways.
      {{4, 5, 6}, {4, 5, 6}, false, Kernel::kBackwardWidthFirst, "identity"},
      // B8 (D identity): first 3*262144 + 131072 + 65536 = 983040, last 262144 + 262144 + 3*131072 = 917504.
      {{16, 64, 64}, {16, 128, 128}, false, Kernel::kBackwardWidthLast, "D identity, H and W 2x"},
  };
  for (const Row &r : rows) {
    SCOPED_TRACE(r.why);
    TilingInput in = MakeInput(Direction::kBackward, DataType::kFloat32, 1, 16, r.in, r.out, 2);
    in.forcedKernel.reset();
    in.channelsContiguous = r.channelsLast;
    EXPECT_EQ(Tile(in).kernel, r.expected);
    EXPECT_EQ(HandBackwardKernel(in, r.channelsLast), r.expected);
  }
}

// The forward's choice written out: W first only when W shrinks and
// 2 * P * R * iW + oD * R * oW + oD * oH * oW < oD * R * iW + oD * oH * iW + 2 * oD * oH * iW,
// P = min(iD, 2 oD) source planes, R = min(iH, 2 oH) source rows.
Kernel HandForwardKernel(const TilingInput &in) {
  const double iD = static_cast<double>(in.inSize[0]), iH = static_cast<double>(in.inSize[1]),
               iW = static_cast<double>(in.inSize[2]);
  const double oD = static_cast<double>(in.outSize[0]), oH = static_cast<double>(in.outSize[1]),
               oW = static_cast<double>(in.outSize[2]);
  if (oW >= iW) return Kernel::kForwardWidthLast;
  const double p = std::min(iD, 2 * oD), r = std::min(iH, 2 * oH);
  return 2 * p * r * iW + oD * r * oW + oD * oH * oW < oD * r * iW + oD * oH * iW + 2 * oD * oH * iW
             ? Kernel::kForwardWidthFirst
             : Kernel::kForwardWidthLast;
}

TEST(KernelRegistry, ForwardResamplesFirstOnlyWhenCheaper) {
  struct Row {
    Shape3 in, out;
    Kernel expected;
    const char *why;
  };
  const Row rows[] = {
      // W grows: always last (F1: in 8x128x128 -> out 16x256x256).
      {{8, 128, 128}, {16, 256, 256}, Kernel::kForwardWidthLast, "W grows"},
      {{4, 5, 6}, {4, 5, 6}, Kernel::kForwardWidthLast, "identity"},
      // first 2*16*64*256 + 32*64*192 + 32*64*192 = 1.31M, last 32*64*256 + 32*64*256 + 2*32*64*256 = 2.10M.
      {{16, 64, 256}, {32, 64, 192}, Kernel::kForwardWidthFirst, "D grows, W shrinks"},
      // first 2*32*32*256 + 16*32*64 + 16*16*64 = 573K, last 16*32*256 + 16*16*256 + 2*16*16*256 = 327K.
      {{64, 64, 256}, {16, 16, 64}, Kernel::kForwardWidthLast, "everything shrinks 4x"},
      // first 2*1*8*4097 + 17*8*5 + 17*4*5 = 66.9K, last 17*8*4097 + 17*4*4097 + 2*17*4*4097 = 1.39M.
      {{1, 18, 4097}, {17, 4, 5}, Kernel::kForwardWidthFirst, "a wide W to 5 (a fuzz find)"},
  };
  for (const Row &r : rows) {
    SCOPED_TRACE(r.why);
    const TilingInput in = MakeInput(Direction::kForward, DataType::kFloat32, 1, 2, r.in, r.out, 2);
    EXPECT_EQ(Tile(in).kernel, r.expected);
    EXPECT_EQ(HandForwardKernel(in), r.expected);
  }
}

// The registry lists every kernel once, in the documented order of preference, under its name.
TEST(KernelRegistry, ListsEveryKernelInOrderOfPreference) {
  const std::pair<Kernel, const char *> expected[kKernelCount] = {
      {Kernel::kBackwardStencil2x, "backward_stencil2x"},
      {Kernel::kBackwardWidthFirst, "backward_width_first"},
      {Kernel::kBackwardWidthLast, "backward_width_last"},
      {Kernel::kForwardWidthFirst, "forward_width_first"},
      {Kernel::kForwardWidthLast, "forward_width_last"},
      {Kernel::kNearestBackward, "nearest_backward"},
      {Kernel::kNearestForward, "nearest_forward"},
  };
  for (int k = 0; k < kKernelCount; ++k) {
    const KernelEntry &entry = KernelEntries()[k];
    SCOPED_TRACE(entry.name);
    EXPECT_EQ(entry.id, expected[k].first);
    EXPECT_STREQ(entry.name, expected[k].second);
    EXPECT_EQ(&KernelEntryOf(entry.id), &entry);
    EXPECT_EQ(entry.direction,
              k < 3 || entry.id == Kernel::kNearestBackward ? Direction::kBackward : Direction::kForward);
    Kernel named = Kernel::kForwardWidthLast;
    ASSERT_TRUE(KernelNamed(entry.name, &named));
    EXPECT_EQ(named, entry.id);
  }
  Kernel unused = Kernel::kBackwardStencil2x;
  EXPECT_FALSE(KernelNamed("width_first", &unused)) << "a bare order is not a kernel name";
  EXPECT_FALSE(KernelNamed("", &unused));
  // The tables each kernel reads: none for the stencil (fixed weights), columns for the width-last
  // backward, taps for the others; the W pass's gather per direction.
  EXPECT_FALSE(KernelEntryOf(Kernel::kBackwardStencil2x).tables.taps);
  EXPECT_EQ(KernelEntryOf(Kernel::kBackwardStencil2x).tables.rowW, RowGatherKind::kNone);
  EXPECT_TRUE(KernelEntryOf(Kernel::kBackwardWidthLast).tables.columns);
  EXPECT_FALSE(KernelEntryOf(Kernel::kBackwardWidthLast).tables.taps);
  EXPECT_TRUE(KernelEntryOf(Kernel::kBackwardWidthFirst).tables.taps);
  EXPECT_EQ(KernelEntryOf(Kernel::kBackwardWidthFirst).tables.rowW, RowGatherKind::kBackward);
  EXPECT_EQ(KernelEntryOf(Kernel::kForwardWidthFirst).tables.rowW, RowGatherKind::kForward);
}

// Representative shapes of each kernel as the op asks (unit-stride rows, nothing forced).
TEST(KernelRegistry, ChoosesTheExpectedKernel) {
  struct Row {
    const char *why;
    Direction direction;
    DataType dataType;
    Shape3 in, out;
    bool channelsLast;
    Kernel expected;
  };
  const Row rows[] = {
      {"B1 (exact 2x, fp32)",
       Direction::kBackward,
       DataType::kFloat32,
       {8, 128, 128},
       {16, 256, 256},
       false,
       Kernel::kBackwardStencil2x},
      {"B2 (exact 2x, bf16)",
       Direction::kBackward,
       DataType::kBFloat16,
       {8, 128, 128},
       {16, 256, 256},
       false,
       Kernel::kBackwardWidthLast},
      {"B3 (exact 2x, channels last)",
       Direction::kBackward,
       DataType::kFloat32,
       {8, 128, 128},
       {16, 256, 256},
       true,
       Kernel::kBackwardWidthLast},
      {"B6 (2x downsample forward)",
       Direction::kBackward,
       DataType::kFloat32,
       {32, 64, 64},
       {16, 32, 32},
       false,
       Kernel::kBackwardWidthFirst},
      {"identity",
       Direction::kBackward,
       DataType::kFloat64,
       {4, 5, 6},
       {4, 5, 6},
       false,
       Kernel::kBackwardWidthFirst},
      {"F1 (2x upsample)",
       Direction::kForward,
       DataType::kFloat32,
       {8, 128, 128},
       {16, 256, 256},
       false,
       Kernel::kForwardWidthLast},
      {"a wide W to 5",
       Direction::kForward,
       DataType::kFloat32,
       {1, 18, 4097},
       {17, 4, 5},
       false,
       Kernel::kForwardWidthFirst},
      {"forward doubling",
       Direction::kForward,
       DataType::kFloat32,
       {4, 4, 4},
       {8, 8, 8},
       false,
       Kernel::kForwardWidthLast},
  };
  for (const Row &r : rows) {
    SCOPED_TRACE(r.why);
    TilingInput in = MakeInput(r.direction, r.dataType, 1, 64, r.in, r.out, 2);
    in.forcedKernel.reset();
    in.channelsContiguous = r.channelsLast;
    in.srcUnitW = !r.channelsLast;
    EXPECT_EQ(Tile(in).kernel, r.expected) << KernelName(Tile(in).kernel);
  }
}

// A forced kernel runs wherever it applies; where it does not (another direction, or the stencil on a
// shape that is not an exact fp32 doubling) the tiling is the automatic one, field for field.
TEST(KernelRegistry, ForcedKernelFallsBackWhereItDoesNotApply) {
  auto expectSameTiling = [](const TilingData &a, const TilingData &b) {
    EXPECT_EQ(a.kernel, b.kernel);
    EXPECT_EQ(a.hChunk, b.hChunk);
    EXPECT_EQ(a.dChunk, b.dChunk);
    EXPECT_EQ(a.wChunk, b.wChunk);
    EXPECT_EQ(a.itemCount, b.itemCount);
    EXPECT_EQ(a.scratchElemsPerCore, b.scratchElemsPerCore);
    EXPECT_EQ(a.workspaceSize, b.workspaceSize);
  };
  const TilingInput backward =
      MakeInput(Direction::kBackward, DataType::kFloat32, 1, 2, {8, 8, 8}, {16, 16, 15}, 2);
  const TilingInput forward =
      MakeInput(Direction::kForward, DataType::kFloat32, 1, 2, {8, 8, 8}, {16, 16, 15}, 2);
  for (const TilingInput &base : {backward, forward}) {
    TilingInput automatic = base;
    automatic.forcedKernel.reset();
    const TilingData byDefault = Tile(automatic);
    for (int k = 0; k < kKernelCount; ++k) {
      const KernelEntry &entry = KernelEntries()[k];
      SCOPED_TRACE(std::string(entry.name) +
                   (base.direction == Direction::kBackward ? " on a backward" : " on a forward"));
      TilingInput in = base;
      in.forcedKernel = entry.id;
      const TilingData t = Tile(in);
      // Every kernel of a direction applies to every input of it, except the stencil and the nearest
      // kernels (which take only problems with a nearest axis).
      if (entry.direction == base.direction && entry.id != Kernel::kBackwardStencil2x &&
          entry.id != Kernel::kNearestBackward && entry.id != Kernel::kNearestForward) {
        EXPECT_EQ(t.kernel, entry.id);
      } else {
        expectSameTiling(t, byDefault);
      }
    }
  }
  // The forward's kernels are forceable too: W first on a forward whose W grows.
  TilingInput in = forward;
  in.outSize[2] = 20;
  in.forcedKernel = Kernel::kForwardWidthFirst;
  EXPECT_EQ(Tile(in).kernel, Kernel::kForwardWidthFirst);
  in.forcedKernel.reset();
  EXPECT_EQ(Tile(in).kernel, Kernel::kForwardWidthLast);
  // The stencil forced where it applies is what the registry takes anyway.
  TilingInput doubling = StencilInput(1, 3, {4, 5, 6}, {8, 10, 12}, 2);
  doubling.forcedKernel = Kernel::kBackwardStencil2x;
  EXPECT_EQ(Tile(doubling).kernel, Kernel::kBackwardStencil2x);
}

// Non-temporal destination stores: above kStreamStoreBytes (4 MiB) of destination by default, for
// both directions and both backward orders; a request forces them on or off and changes nothing else.
TEST(Tiling, StreamStoresBySizeUnlessRequested) {
  struct Case {
    Direction direction;
    std::optional<Kernel> forced;
    Shape3 in, out;
    bool streamedByDefault;
  };
  // Destinations: 1 x 4 x (in for the backward, out for the forward) fp32; 4 MiB is 1 Mi elements.
  const Case cases[] = {
      {Direction::kBackward, Kernel::kBackwardWidthLast, {8, 16, 16}, {16, 32, 32}, false},  // 32 KiB
      {Direction::kBackward, Kernel::kBackwardWidthFirst, {8, 16, 16}, {4, 8, 8}, false},
      {Direction::kForward, std::nullopt, {8, 16, 16}, {16, 32, 32}, false},                     // 256 KiB
      {Direction::kBackward, Kernel::kBackwardWidthLast, {16, 128, 130}, {32, 256, 260}, true},  // 4.1 MiB
      {Direction::kBackward, Kernel::kBackwardWidthFirst, {16, 128, 130}, {8, 64, 65}, true},
      {Direction::kForward, std::nullopt, {8, 64, 65}, {16, 128, 130}, true},
      {Direction::kForward, std::nullopt, {8, 64, 64}, {16, 128, 128}, false},  // 4 MiB exactly
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.direction == Direction::kForward ? "forward " : "backward ") +
                 std::to_string(c.in.w) + " -> " + std::to_string(c.out.w));
    TilingInput in = MakeInput(c.direction, DataType::kFloat32, 1, 4, c.in, c.out, 2);
    in.forcedKernel = c.forced;
    const TilingData byDefault = Tile(in);
    EXPECT_EQ(byDefault.streamStores, c.streamedByDefault);
    in.streamStores = StreamStoresRequest::kAlways;
    const TilingData always = Tile(in);
    EXPECT_TRUE(always.streamStores);
    in.streamStores = StreamStoresRequest::kNever;
    const TilingData never = Tile(in);
    EXPECT_FALSE(never.streamStores);
    for (const TilingData *t : {&always, &never}) {
      EXPECT_EQ(t->kernel, byDefault.kernel);
      EXPECT_EQ(t->itemCount, byDefault.itemCount);
      EXPECT_EQ(t->hChunk, byDefault.hChunk);
      EXPECT_EQ(t->workspaceSize, byDefault.workspaceSize);
    }
  }
}

// The bench cases' gradInput planes (N 1, C 64; H and W 128 from 256, exact 2x) with D as given:
// the fields every such tiling shares.
// ---------------------------------------------------------------------------------------------
// Errors.

TEST(Tiling, RejectsInvalidInput) {
  const TilingInput good = MakeInput(Direction::kBackward, DataType::kFloat32, 1, 1, {4, 4, 4}, {8, 8, 8}, 1);
  TilingData t;
  std::string error;
  ASSERT_TRUE(ComputeTiling(good, &t, &error)) << error;
  for (int axis = 0; axis < 3; ++axis) {
    for (int64_t bad : {int64_t{0}, int64_t{-3}}) {
      TilingInput in = good;
      in.inSize[axis] = bad;
      error.clear();
      EXPECT_FALSE(ComputeTiling(in, &t, &error)) << "inSize[" << axis << "] = " << bad;
      EXPECT_FALSE(error.empty());
      in = good;
      in.outSize[axis] = bad;
      error.clear();
      EXPECT_FALSE(ComputeTiling(in, &t, &error)) << "outSize[" << axis << "] = " << bad;
      EXPECT_FALSE(error.empty());
    }
  }
  TilingInput in = good;
  in.n = -1;
  EXPECT_FALSE(ComputeTiling(in, &t, &error));
  in = good;
  in.c = -1;
  EXPECT_FALSE(ComputeTiling(in, &t, &error));
  in = good;
  in.cores = 0;
  EXPECT_FALSE(ComputeTiling(in, &t, &error));
  in = good;
  in.cores = -2;
  EXPECT_FALSE(ComputeTiling(in, &t, &error));
}

// ---------------------------------------------------------------------------------------------
// SlideWindows against brute force.

TEST(SlideWindows, MatchBruteForce) {
  struct AxisCase {
    int64_t in, out;
    bool alignCorners;
    double userScale;
  };
  const AxisCase cases[] = {
      {19, 38, false, 0.0}, {37, 76, false, 0.0}, {37, 76, true, 0.0},    {64, 1, false, 0.0},
      {64, 1, true, 0.0},   {1, 64, false, 0.0},  {1, 64, true, 0.0},     {16, 16, false, 0.0},
      {33, 33, true, 0.0},  {100, 7, false, 0.0}, {7, 100, false, 0.0},   {5, 12, false, 2.5},
      {6, 15, false, 2.6},  {48, 17, true, 0.0},  {128, 256, false, 0.0}, {300, 13, false, 0.0},
      {17, 1, false, 0.0},  {40, 40, false, 3.0}, {2, 3, false, 0.0},     {3, 2, true, 0.0},
  };
  for (const AxisCase &c : cases) {
    SCOPED_TRACE("in " + std::to_string(c.in) + " out " + std::to_string(c.out) + " ac " +
                 std::to_string(c.alignCorners) + " s " + std::to_string(c.userScale));
    const BruteAxis a = MakeBruteAxis(c.in, c.out, c.alignCorners, c.userScale);
    const math::AxisSpec spec{c.in, c.out, c.alignCorners, a.scale};
    EXPECT_EQ(SlideWindows(spec), test::BruteSlideWindows(a));
  }
}

TEST(SlideWindows, EmptyWindowsWhereNoTapReaches) {
  // 64 -> 1: src(0) = 31.5, only sources 31 (slide 1) and 32 (slide 2) are reached.
  const std::vector<std::pair<int64_t, int64_t>> expected = {{0, -1}, {0, 0}, {0, 0}, {0, -1}};
  EXPECT_EQ(SlideWindows(math::AxisSpec{64, 1, false, 64.0}), expected);
}

TEST(SlideWindows, HandWorkedTwoXUpsample) {
  // 40 -> 80, scale 0.5: slide 0 (0..15) -> o 0..32; slide 1 (16..31) -> 31..64; slide 2 (32..39) -> 63..79.
  const std::vector<std::pair<int64_t, int64_t>> expected = {{0, 32}, {31, 64}, {63, 79}};
  EXPECT_EQ(SlideWindows(math::AxisSpec{40, 80, false, 0.5}), expected);
}

// ---------------------------------------------------------------------------------------------
// Invariants on random shapes, each kernel forced in turn: the registry's choice, consistent counts,
// items that cover the destination exactly once, enough scratch for the kernels' buffers.

int64_t Align64Elems(int64_t elems, int64_t elemBytes) {
  return (elems * elemBytes + 63) / 64 * 64 / elemBytes;
}

// The item order the kernels decode (op_kernel/item_loop.h): plane, then D, H and W chunks, W fastest.
// Counts how often each destination element (plane, d, h, w) is in an item; every count must be 1.
::testing::AssertionResult ItemsCoverOnce(const TilingData &t, int64_t dstD, int64_t dstH, int64_t dstW) {
  std::vector<uint8_t> seen(static_cast<size_t>(t.planeCount * dstD * dstH * dstW), 0);
  for (int64_t item = 0; item < t.itemCount; ++item) {
    int64_t rest = item;
    const int64_t wc = rest % t.wChunkCount;
    rest /= t.wChunkCount;
    const int64_t hc = rest % t.hChunkCount;
    rest /= t.hChunkCount;
    const int64_t dc = rest % t.dChunkCount;
    const int64_t plane = rest / t.dChunkCount;
    for (int64_t d = dc * t.dChunk; d < std::min(dstD, (dc + 1) * t.dChunk); ++d) {
      for (int64_t h = hc * t.hChunk; h < std::min(dstH, (hc + 1) * t.hChunk); ++h) {
        for (int64_t w = wc * t.wChunk; w < std::min(dstW, (wc + 1) * t.wChunk); ++w) {
          ++seen[static_cast<size_t>(((plane * dstD + d) * dstH + h) * dstW + w)];
        }
      }
    }
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    if (seen[i] != 1) {
      return ::testing::AssertionFailure() << "element " << i << " is in " << int{seen[i]} << " items";
    }
  }
  return ::testing::AssertionSuccess();
}

bool IsNearestKernel(Kernel k) { return k == Kernel::kNearestBackward || k == Kernel::kNearestForward; }

// The doubling stencil's condition written out: fp32, unit-stride W-inner source rows, align_corners
// false, every axis doubled with real scale 0.5.
bool HandStencilApplies(const TilingInput &in, bool cInner, const BruteAxis brute[3]) {
  bool doubling = in.direction == Direction::kBackward && in.dataType == DataType::kFloat32 && in.srcUnitW &&
                  !in.alignCorners && !cInner;
  for (int i = 0; i < 3; ++i)
    doubling = doubling && in.outSize[i] == 2 * in.inSize[i] && brute[i].scale == 0.5;
  return doubling;
}

TEST(Tiling, InvariantsOnRandomShapes) {
  std::mt19937_64 rng(20240607);
  auto size = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const DataType dtypes[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64};
  const int64_t coreChoices[] = {1, 2, 3, 5, 64};
  int chosen[kKernelCount] = {};
  for (int iter = 0; iter < 300; ++iter) {
    TilingInput in;
    in.direction = size(0, 1) ? Direction::kBackward : Direction::kForward;
    in.dataType = dtypes[size(0, 3)];
    in.n = size(0, 3);
    // Now and then enough channels that channels-inner rows exceed kRingRowBytes (W chunks).
    in.c = size(0, 9) == 0 ? size(400, 900) : size(0, 12);
    for (int i = 0; i < 3; ++i) {
      in.inSize[i] = size(1, 40);
      in.outSize[i] = size(0, 3) == 0 ? in.inSize[i] : size(1, 40);
    }
    in.alignCorners = size(0, 1) == 1;
    if (size(0, 3) == 0) {
      for (double &s : in.userScales) s = static_cast<double>(size(1, 40)) / 8.0;
    }
    in.channelsContiguous = size(0, 1) == 1;
    in.srcUnitW = size(0, 3) != 0;
    if (size(0, 4) == 0) {  // a doubling on every axis now and then: the stencil kernel's shapes
      for (int i = 0; i < 3; ++i) in.outSize[i] = 2 * in.inSize[i];
      if (size(0, 1) == 0) {  // half of them as the stencil takes them
        in.dataType = DataType::kFloat32;
        in.alignCorners = false;
        in.srcUnitW = true;
      }
    }
    in.cores = coreChoices[size(0, 4)];

    const bool backward = in.direction == Direction::kBackward;
    const bool cInner = in.channelsContiguous && in.c >= 8;
    const int64_t rowWidth = cInner ? in.c : 1;
    const int64_t dstD = backward ? in.inSize[0] : in.outSize[0];
    const int64_t dstH = backward ? in.inSize[1] : in.outSize[1];
    const int64_t dstW = backward ? in.inSize[2] : in.outSize[2];
    const int64_t srcW = backward ? in.outSize[2] : in.inSize[2];
    const int64_t acc = in.dataType == DataType::kFloat64 ? 8 : 4;
    BruteAxis brute[3];
    for (int i = 0; i < 3; ++i) {
      brute[i] = MakeBruteAxis(in.inSize[i], in.outSize[i], in.alignCorners, in.userScales[i]);
    }
    const bool stencilApplies = HandStencilApplies(in, cInner, brute);
    const Kernel automatic = !backward        ? HandForwardKernel(in)
                             : stencilApplies ? Kernel::kBackwardStencil2x
                                              : HandBackwardKernel(in, cInner);

    // Unforced first, then each kernel forced.
    for (int forced = -1; forced < kKernelCount; ++forced) {
      in.forcedKernel.reset();
      if (forced >= 0) in.forcedKernel = KernelEntries()[forced].id;
      SCOPED_TRACE("iteration " + std::to_string(iter) + ", forced " +
                   (forced >= 0 ? KernelEntries()[forced].name : "none"));
      const TilingData t = Tile(in);
      const bool applies = forced >= 0 && KernelEntries()[forced].direction == in.direction &&
                           (KernelEntries()[forced].id != Kernel::kBackwardStencil2x || stencilApplies) &&
                           !IsNearestKernel(KernelEntries()[forced].id);
      EXPECT_EQ(t.kernel, applies ? *in.forcedKernel : automatic) << KernelName(t.kernel);
      ++chosen[static_cast<int>(t.kernel)];

      EXPECT_EQ(t.batch, in.n * in.c);
      EXPECT_EQ(t.layout, cInner ? RowLayout::kCInner : RowLayout::kWInner);
      EXPECT_EQ(t.planeCount, cInner ? in.n : in.n * in.c);
      EXPECT_EQ(t.rowElems, dstW * rowWidth);
      ASSERT_GE(t.hChunk, 1);
      ASSERT_GE(t.dChunk, 1);
      EXPECT_LE(t.hChunk, dstH);
      EXPECT_LE(t.dChunk, dstD);
      EXPECT_EQ(t.hChunkCount, (dstH + t.hChunk - 1) / t.hChunk);
      EXPECT_EQ(t.dChunkCount, (dstD + t.dChunk - 1) / t.dChunk);
      ASSERT_GE(t.wChunk, 1);
      EXPECT_LE(t.wChunk, dstW);
      EXPECT_EQ(t.wChunkCount, (dstW + t.wChunk - 1) / t.wChunk);
      EXPECT_EQ(t.itemCount, t.planeCount * t.dChunkCount * t.hChunkCount * t.wChunkCount);
      EXPECT_EQ(t.blockDim, std::min(in.cores, t.itemCount));
      EXPECT_LE(t.blockDim, in.cores);
      if (t.planeCount * dstD * dstH * dstW <= 200000) {
        EXPECT_TRUE(ItemsCoverOnce(t, dstD, dstH, dstW));
      }
      EXPECT_EQ(static_cast<int64_t>(t.workspaceSize),
                t.itemCount == 0 ? 0 : t.blockDim * t.scratchElemsPerCore * acc);
      EXPECT_EQ(t.scratchElemsPerCore * acc % 64, 0) << "each core's scratch must keep 64-byte alignment";

      const AxisTiling *axes[3] = {&t.d, &t.h, &t.w};
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(axes[i]->inSize, in.inSize[i]);
        EXPECT_EQ(axes[i]->outSize, in.outSize[i]);
        EXPECT_EQ(axes[i]->scale, brute[i].scale);
        EXPECT_EQ(axes[i]->needResize, in.inSize[i] != in.outSize[i]);
        EXPECT_EQ(axes[i]->belowMinScale, in.inSize[i] != in.outSize[i] && brute[i].scale < 0.02);
        EXPECT_EQ(axes[i]->slideCount, (in.inSize[i] + 15) / 16);
        EXPECT_EQ(axes[i]->singleCoreK, test::BruteSingleCoreK(brute[i]));
      }

      // The kernels' scratch layouts (op_kernel/isa/*.cpp) must fit in scratchElemsPerCore.
      const int64_t srcRowElems = srcW * rowWidth;
      switch (t.kernel) {
        case Kernel::kBackwardStencil2x: {
          // Two accumulator planes of hChunk rows and three rows, each row dstW rounded up to 16 floats.
          EXPECT_EQ(t.stencilRowStride, (dstW + 15) / 16 * 16);
          EXPECT_EQ(t.wChunk, dstW);
          EXPECT_LE(2 * t.hChunk * t.stencilRowStride * 4,
                    std::max<int64_t>(kCacheBudgetBytes, 2 * t.stencilRowStride * 4));
          EXPECT_GE(t.scratchElemsPerCore, (2 * t.hChunk + 3) * t.stencilRowStride);
          break;
        }
        case Kernel::kBackwardWidthLast: {
          // Channels inner: a ring of the rows one H index spans, W chunks of rows up to kRingRowBytes.
          EXPECT_EQ(t.slabRows, test::BruteTapSpanPerChunk(brute[1], cInner ? 1 : t.hChunk));
          if (!cInner || srcRowElems * acc <= kRingRowBytes) {
            EXPECT_EQ(t.wChunk, dstW);
            EXPECT_EQ(t.slabCols, srcW);
          } else {
            // A chunk of one W index may span more (extreme ratios); wider chunks fit the row budget.
            if (t.wChunk > 1) {
              EXPECT_LE(t.slabCols, std::max<int64_t>(1, kRingRowBytes / (in.c * acc)));
            }
            EXPECT_EQ(t.slabCols, t.wChunk == dstW ? srcW : test::BruteTapSpanPerChunk(brute[2], t.wChunk));
          }
          const int64_t slabRowElems = t.slabCols * rowWidth;
          const int64_t rowsInFlight = cInner ? 1 : kRowBatch;
          // fp16 W-inner rows, whole: the widened slabs of the gradOut planes one gradInput D index spans,
          // when they are at most kMaxWidenedPlanes and fit the cache budget.
          const int64_t slabElems = Align64Elems(t.slabRows * slabRowElems, acc);
          const int64_t dSpan = test::BruteTapSpanPerChunk(brute[0], 1);
          const bool widens = in.dataType == DataType::kFloat16 && !cInner && t.wChunkCount == 1 &&
                              dSpan <= kMaxWidenedPlanes && dSpan * slabElems * acc <= kCacheBudgetBytes;
          EXPECT_EQ(t.widenedPlanes, widens ? dSpan : 0);
          // bf16 W-inner rows, whole: a second slab, for the planes consecutive D indices share.
          const bool carries = in.dataType == DataType::kBFloat16 && !cInner && t.wChunkCount == 1;
          EXPECT_EQ(t.carrySlab, carries);
          const int64_t need = slabElems * (1 + t.widenedPlanes + (carries ? 1 : 0)) +
                               Align64Elems(slabRowElems, acc) * (rowsInFlight + kTapGroup) +
                               Align64Elems(t.wChunk * rowWidth, acc) * rowsInFlight;
          EXPECT_LE(need, t.scratchElemsPerCore);
          break;
        }
        case Kernel::kBackwardWidthFirst: {
          EXPECT_EQ(t.wChunk, dstW);
          EXPECT_EQ(t.slabRows, 0);
          EXPECT_GE(t.ringPlanes, test::BruteMaxOpen(brute[0]));
          const int64_t need = (Align64Elems(srcRowElems, acc) + Align64Elems(t.rowElems, acc)) * kRowBatch +
                               Align64Elems(t.hChunk * t.rowElems, acc) * (1 + t.ringPlanes);
          EXPECT_LE(need, t.scratchElemsPerCore);
          break;
        }
        case Kernel::kForwardWidthFirst:
        case Kernel::kForwardWidthLast: {
          EXPECT_EQ(t.ringPlanes, 0);
          EXPECT_EQ(t.wChunk, dstW);
          const int64_t srcRows = test::BruteSourceSpanPerChunk(brute[1], t.hChunk);
          const int64_t need = t.kernel == Kernel::kForwardWidthFirst
                                   ? Align64Elems(srcRowElems, acc) +
                                         Align64Elems(t.rowElems, acc) * (2 + kRowBatch + 3 * srcRows)
                                   : Align64Elems(srcRowElems, acc) * (2 + kRowBatch + srcRows) +
                                         Align64Elems(t.rowElems, acc) * kRowBatch;
          EXPECT_LE(need, t.scratchElemsPerCore);
          break;
        }
        case Kernel::kNearestBackward:
        case Kernel::kNearestForward:
          ADD_FAILURE() << "a nearest kernel on a problem without nearest axes";
          break;
      }
      if (HasFailure()) return;
    }
  }
  for (int k = 0; k < kKernelCount; ++k) {
    if (IsNearestKernel(KernelEntries()[k].id)) continue;  // Tiling.NearestProblems
    EXPECT_GT(chosen[k], 0) << KernelEntries()[k].name << " was never tiled";
  }
}

// The nearest operators' problems (a nearest filter on their axes, unit axes elsewhere) take the nearest
// kernels whatever is forced, with items that cover the destination once and room for one accumulator
// row and one converted source row per core (the backward); the two-tap kernels never take them.
TEST(Tiling, NearestProblems) {
  std::mt19937_64 rng(20261204);
  auto size = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const DataType dtypes[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64,
                             DataType::kUInt8};
  for (int iter = 0; iter < 200; ++iter) {
    TilingInput in;
    in.direction = size(0, 1) ? Direction::kBackward : Direction::kForward;
    in.dataType = dtypes[size(0, in.direction == Direction::kForward ? 4 : 3)];
    in.n = size(0, 3);
    in.c = size(1, 12);
    const int unitAxes = static_cast<int>(size(0, 2));
    const math::Filter filter = size(0, 1) ? math::Filter::kNearest : math::Filter::kNearestExact;
    for (int i = 0; i < 3; ++i) {
      in.filters[i] = i < unitAxes ? math::Filter::kUnit : filter;
      in.inSize[i] = i < unitAxes ? 1 : size(1, 40);
      in.outSize[i] = i < unitAxes ? 1 : size(1, 40);
    }
    in.channelsContiguous = size(0, 1) == 1;
    in.cores = size(1, 5);
    in.streamStores = size(0, 1) ? StreamStoresRequest::kAlways : StreamStoresRequest::kNever;
    const bool backward = in.direction == Direction::kBackward;
    const Kernel expected = backward ? Kernel::kNearestBackward : Kernel::kNearestForward;
    for (int forced = -1; forced < kKernelCount; ++forced) {
      in.forcedKernel.reset();
      if (forced >= 0) in.forcedKernel = KernelEntries()[forced].id;
      SCOPED_TRACE("iteration " + std::to_string(iter) + ", forced " +
                   (forced >= 0 ? KernelEntries()[forced].name : "none"));
      const TilingData t = Tile(in);
      EXPECT_EQ(t.kernel, expected) << KernelName(t.kernel);
      const int64_t dstD = backward ? in.inSize[0] : in.outSize[0];
      const int64_t dstH = backward ? in.inSize[1] : in.outSize[1];
      const int64_t dstW = backward ? in.inSize[2] : in.outSize[2];
      EXPECT_TRUE(ItemsCoverOnce(t, dstD, dstH, dstW));
      const int64_t rowWidth = t.layout == RowLayout::kCInner ? in.c : 1;
      const int64_t acc = in.dataType == DataType::kFloat64 ? 8 : 4;
      const int64_t srcW = backward ? in.outSize[2] : in.inSize[2];
      if (backward) {
        EXPECT_GE(t.scratchElemsPerCore,
                  Align64Elems(dstW * rowWidth, acc) + Align64Elems(srcW * rowWidth, acc));
      } else {
        const int64_t elem = in.dataType == DataType::kFloat64   ? 8
                             : in.dataType == DataType::kFloat32 ? 4
                             : in.dataType == DataType::kUInt8   ? 1
                                                                 : 2;
        EXPECT_EQ(t.scratchElemsPerCore * acc, t.streamStores ? Align64Elems(dstW * rowWidth * elem, 1) : 0);
      }
      if (HasFailure()) return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// docs/spec.md §8's bench shapes: workspace <= 64 MiB (a bench target) at 1, 2 and 64 cores, both ops.

TEST(Tiling, BenchWorkspaceAtMost64MiB) {
  struct Bench {
    const char *id;
    int64_t n, c;
    Shape3 in, out;  // gradInput <- gradOut (forward: self -> out)
    DataType dataType;
    bool channelsLast;
    bool alignCorners;
  };
  const Bench benches[] = {
      {"B1", 1, 64, {8, 128, 128}, {16, 256, 256}, DataType::kFloat32, false, false},
      {"B2", 1, 64, {8, 128, 128}, {16, 256, 256}, DataType::kBFloat16, false, false},
      {"B3", 1, 64, {8, 128, 128}, {16, 256, 256}, DataType::kFloat32, true, false},
      {"B4", 1, 64, {8, 128, 128}, {256, 256, 256}, DataType::kBFloat16, false, false},
      {"B5", 1, 3, {16, 64, 64}, {37, 129, 131}, DataType::kFloat32, false, true},
      {"B6", 2, 16, {32, 64, 64}, {16, 32, 32}, DataType::kFloat32, false, false},
      {"B7", 8, 3, {16, 16, 8}, {42, 45, 36}, DataType::kFloat16, false, false},
      {"B8", 2, 32, {16, 64, 64}, {16, 128, 128}, DataType::kFloat32, false, false},
  };
  for (const Bench &b : benches) {
    for (Direction direction : {Direction::kBackward, Direction::kForward}) {
      for (int64_t cores : {int64_t{1}, int64_t{2}, int64_t{64}}) {
        for (bool asTheLibraryAsks : {false, true}) {  // and as the op asks: nothing forced, unit-stride rows
          TilingInput in = MakeInput(direction, b.dataType, b.n, b.c, b.in, b.out, cores, b.alignCorners);
          in.channelsContiguous = b.channelsLast;
          if (asTheLibraryAsks) {
            in.forcedKernel.reset();
            in.srcUnitW = !b.channelsLast;
          }
          const TilingData t = Tile(in);
          SCOPED_TRACE(std::string(b.id) + (direction == Direction::kBackward ? " backward" : " forward") +
                       " cores " + std::to_string(cores) + (asTheLibraryAsks ? " auto" : " width-first"));
          EXPECT_LE(t.workspaceSize, 64 * kMiB);
          EXPECT_GT(t.workspaceSize, 0u);
          EXPECT_EQ(t.blockDim, std::min(cores, t.itemCount));
          EXPECT_EQ(t.layout, b.channelsLast ? RowLayout::kCInner : RowLayout::kWInner);
          // B1 is the one bench case the doubling stencil takes (fp32, NCDHW, every axis doubled).
          EXPECT_EQ(t.kernel == Kernel::kBackwardStencil2x,
                    asTheLibraryAsks && direction == Direction::kBackward && std::string(b.id) == "B1");
        }
      }
    }
  }
}

}  // namespace
}  // namespace trilinear3d::tiling
