// Tiling: a pure function from (shapes, attrs, dtype, layout, core count) to TilingData, the
// plain struct the kernels consume. The CPU counterpart of the seed's
// upsample_trilinear3d_backward_tiling_func.cpp (SLIDE_SIZE, real scales, needResize per axis,
// per-direction core split, singleCoreK windows, workspace plan).
#ifndef TRILINEAR3D_OP_HOST_RESAMPLE_TILING_H_
#define TRILINEAR3D_OP_HOST_RESAMPLE_TILING_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/data_type.h"
#include "common/resample_math.h"

namespace trilinear3d::tiling {

constexpr int64_t kSlideSize = 16;                 // seed: SLIDE_SIZE, source points per slide
constexpr double kMinSupportScale = 0.02;          // seed: below this the NPU falls back to AICPU
constexpr int64_t kCacheBudgetBytes = 512 * 1024;  // per-core working set aimed at (L2)
constexpr int64_t kMinChannelsInner = 8;           // vectorise along C only when C is at least this
constexpr int64_t kRowBatch = 4;                   // rows W-resampled together (they share the steps)
// Destinations larger than this bypass the caches (non-temporal stores of whole lines): more than the
// cores' private caches hold, so the next operator would not find them there anyway, and writing
// them through the caches costs a read-for-ownership of every line (docs/performance.md).
constexpr int64_t kStreamStoreBytes = 4 << 20;
constexpr int64_t kTapGroup = 4;  // width-last backward: source rows combined per sweep of a D / H step
// Width-last backward over channels-inner rows (W x C, long: B3's are 64 KB), which the kernel
// D-steps into a ring of rows: rows longer than kRingRowBytes (accumulation type) are cut into W
// chunks, and an H chunk's gradOut rows in one D index's planes span at most kRingReuseBytes, so
// that they are still in the last-level cache when the next index reads the planes it shares.
constexpr int64_t kRingRowBytes = 64 * 1024;
constexpr int64_t kRingReuseBytes = 4 << 20;
// Width-last backward of fp16 W-inner rows: the most widened gradOut slabs a core keeps
// (TilingData::widenedPlanes).
constexpr int64_t kMaxWidenedPlanes = 16;

enum class Direction { kBackward, kForward };

// Which axis is innermost in the kernel's rows: W (NCDHW-like memory) or C (channels-last memory).
enum class RowLayout { kWInner, kCInner };

// The kernels (op_host/kernel_registry.cpp lists them with their checks, tilings and tables, in
// order of preference; docs/design.md has their passes). The backward's three separable passes
// commute (each is a banded matrix on its own axis), so the kernels differ in the work and the
// rounding, never in the math:
//  kBackwardStencil2x:   the exact doubling on every axis, W -> H -> D with fixed weights.
//  kBackwardWidthFirst:  W -> H -> D, the seed's order; cheap when the gradient grows (a downsampling
//                        forward): the W pass, the only one that moves data across lanes, then runs
//                        on the smallest tensor.
//  kBackwardWidthLast:   D -> H -> W; cheap when the gradient shrinks (an upsampling forward): the D
//                        and H passes combine whole rows (vector FMAs) while the data is large.
//  kForwardWidthFirst:   W -> D -> H: each source row resampled first, when W shrinks.
//  kForwardWidthLast:    D -> H -> W, every other forward.
//  kNearestBackward:    a problem whose axes all take one tap (a nearest operator): each gradInput
//                        element sums the gradOut elements that picked it, in increasing (D, H, W)
//                        output order, PyTorch's order.
//  kNearestForward:      the same problem's forward: a gather that copies the picked elements' bits.
enum class Kernel {
  kBackwardStencil2x,
  kBackwardWidthFirst,
  kBackwardWidthLast,
  kForwardWidthFirst,
  kForwardWidthLast,
  kNearestBackward,
  kNearestForward
};
constexpr int kKernelCount = 7;

// Whether destination rows are written with non-temporal stores (TilingData::streamStores).
// kAuto: above kStreamStoreBytes of destination; kAlways / kNever force it (tests reach the streamed
// stores' line joins with small shapes; a caller that reads a large result at once may keep it cached).
enum class StreamStoresRequest { kAuto, kAlways, kNever };

struct AxisTiling {
  int64_t inSize = 1;   // gradInput / forward-input size
  int64_t outSize = 1;  // gradOut / forward-output size
  double scale = 1.0;   // the real scale (math::AxisScale)
  math::Filter filter = math::Filter::kLinear;
  bool needResize = false;
  bool belowMinScale = false;  // scale < kMinSupportScale: the NPU's AICPU path; one kernel here
  int64_t slideCount = 0;      // ceil(inSize / kSlideSize)
  int64_t singleCoreK = 0;     // largest window of outSize indices one slide touches
};

struct TilingInput {
  Direction direction = Direction::kBackward;
  DataType dataType = DataType::kFloat32;
  int64_t n = 0;
  int64_t c = 0;
  int64_t inSize[3] = {1, 1, 1};   // D, H, W of gradInput (backward) / self (forward)
  int64_t outSize[3] = {1, 1, 1};  // D, H, W of gradOut (backward) / out (forward)
  bool alignCorners = false;
  // Per axis, the user's scale where the operator's rule lets it count (> 0), else 0 (the sizes decide):
  // the 3-D operators pass all three or none (math::AllOrNoScales), the 1-D and 2-D ones each axis's own.
  double userScales[3] = {0.0, 0.0, 0.0};
  // Per axis: kUnit for an axis the operator does not have (op_api: the D of the 2-D operators, D and H
  // of the 1-D ones), else the operator's filter (kLinear, kNearest, kNearestExact).
  math::Filter filters[3] = {math::Filter::kLinear, math::Filter::kLinear, math::Filter::kLinear};
  bool channelsContiguous = false;  // the big tensor's C stride is 1 (channels-last memory)
  bool srcUnitW = false;            // the source (gradOut / self) has W stride 1
  int64_t cores = 1;
  // A kernel to run instead of the registry's choice (tests, comparisons); ignored where it does not
  // apply (another direction, or a shape its check rejects).
  std::optional<Kernel> forcedKernel;
  StreamStoresRequest streamStores = StreamStoresRequest::kAuto;
};

struct TilingData {
  Direction direction = Direction::kBackward;
  DataType dataType = DataType::kFloat32;
  int64_t n = 0;
  int64_t c = 0;
  int64_t batch = 0;  // n * c
  bool alignCorners = false;
  AxisTiling d, h, w;
  RowLayout layout = RowLayout::kWInner;
  Kernel kernel = Kernel::kBackwardWidthLast;  // the registry's choice (ChooseKernel)
  // kBackwardStencil2x: every axis is the fixed stencil 1/4, 3/4, 3/4, 1/4 (op_kernel/stencil2x_steps.h),
  // applied W -> H -> D with the weights and the H sums in registers, each gradOut plane read once, in
  // order. Items: (plane, D chunk, H chunk); scratch: two D accumulator planes (hChunk rows of
  // stencilRowStride floats) and three rows for the ISAs without AVX-512.
  int64_t stencilRowStride = 0;  // floats per accumulator row: dstW rounded up to 16

  // Work split. The destination tensor (gradInput backward, out forward) is cut into items
  // (plane, D chunk, H chunk, W chunk); one core owns each item, so no two cores write one element and
  // every element's summation order is independent of the split: results are bitwise identical
  // for every core count.
  int64_t planeCount = 0;  // n * c (W inner) or n (C inner)
  int64_t rowElems = 0;    // elements of one destination row: dstW (W inner) or dstW * c (C inner)
  int64_t dChunk = 0;      // destination D indices per item
  int64_t hChunk = 0;      // destination H indices per item
  int64_t wChunk = 0;      // destination W indices per item (all of W, except width-last C inner)
  int64_t dChunkCount = 0;
  int64_t hChunkCount = 0;
  int64_t wChunkCount = 0;
  int64_t itemCount = 0;  // planeCount * dChunkCount * hChunkCount * wChunkCount
  int64_t blockDim = 0;   // worker cores launched: min(cores, itemCount)
  // The destination is too large to stay cached for its reader (or TilingInput::streamStores asks):
  // contiguous rows are written with non-temporal stores (no read-for-ownership of each line).
  bool streamStores = false;

  // Per-core scratch (in elements of the accumulation type) and the workspace.
  int64_t ringPlanes = 0;  // width-first backward: destination D planes accumulating at once
  int64_t slabRows = 0;    // width-last backward: gradOut H rows one H chunk's taps span (D-step slab)
  int64_t slabCols = 0;    // width-last backward: gradOut W positions one W chunk's taps span
  // Width-last backward of fp16 W-inner rows (whole rows): gradOut D planes' slabs kept widened to fp32,
  // as many as one gradInput D index's taps span (0: none, when that is over kMaxWidenedPlanes or their
  // slabs over kCacheBudgetBytes). The tiers whose fp16 widening is a sequence of integer operations
  // widen each plane's slab once for the D indices that share it, instead of once per index.
  int64_t widenedPlanes = 0;
  // Width-last backward of bf16 W-inner rows (whole rows): room for a second D-step slab, where the D step
  // of gradInput index id also starts id + 1's sum over the gradOut planes the two share (on the tiers
  // with split rows: each shared plane loaded and widened once, not once per index).
  bool carrySlab = false;
  int64_t scratchElemsPerCore = 0;
  uint64_t workspaceSize = 0;  // bytes: blockDim * scratch, each rounded to 64 bytes
};

// The math's view of a tiled axis (same sizes and scale): what the kernels' tables are built from.
inline math::AxisSpec AxisSpecOf(const AxisTiling &axis, bool alignCorners) {
  return math::AxisSpec{axis.inSize, axis.outSize, alignCorners, axis.scale, axis.filter};
}

// The tiling of the first kernel of the registry that applies and is preferred (or of
// input.forcedKernel where it applies). Returns false and sets *error when the input cannot be tiled
// (sizes must already be valid).
bool ComputeTiling(const TilingInput &input, TilingData *out, std::string *error);

// For each slide of kSlideSize source indices, the [first, last] window of destination-side
// indices (gradOut for backward) whose taps reach it; empty windows are {0, -1}.
std::vector<std::pair<int64_t, int64_t>> SlideWindows(const math::AxisSpec &axis);

}  // namespace trilinear3d::tiling

#endif  // TRILINEAR3D_OP_HOST_RESAMPLE_TILING_H_
