// UpsampleTrilinear3dBackward kernel, width-last order (D -> H -> W; Kernel::kBackwardWidthLast), for
// gradients that shrink: the D and H passes combine whole rows while the data is large, and the
// W pass, the only one that permutes lanes, runs on the smallest tensor.
//
// An item is (plane, D chunk, H chunk, W chunk) of gradInput; W is cut only when channels-inner
// rows are longer than tiling::kRingRowBytes (TilingData::wChunkCount). Per gradInput D index id:
//   D step: slab[oh] = sum over id's gradOut planes od (increasing) of wD * gradOut[od, oh, cols],
//           for the gradOut rows oh the chunk's H taps span and the columns its W taps span;
//   H step: hRow = sum over ih's taps oh (increasing) of wH * slab[oh];
//   W pass: banded gather of the H step's rows, stored into gradInput.
// W-inner rows (short): the D step runs over the chunk's whole slab first (a contiguous block of
// gradOut when rows are dense: one long row combination per kSweepTaps planes, converted on load),
// then the H and W steps kRowBatch rows at a time (W: vector steps; on the AVX tiers, a W pass on the rows'
// lanes takes eight rows, their H step written interleaved: EightRowsHAndW), while the gradOut slabs the
// next D step needs (beyond those it shares with id) are requested in doses (PrefetchQueue), so
// that reading gradOut overlaps computing. fp16 on a tier without a conversion instruction: on SSE2 the D
// step widens the planes raw as it loads them, those id shares with id + 1 summed into both indices'
// slabs (RawDStep); else (NEON, or an inf or a NaN met) each gradOut slab is widened once into scratch
// (WidenedSlab) for the D indices that share it. bf16 split rows: the planes id shares with id + 1 are
// loaded and widened once, summed into both indices' slabs (carrySlab_).
// Channels-inner rows (long): the slab is a ring of rows, D-stepped just before the first H row
// that needs them (RingRows), and the W pass sums channel vectors (ResampleRowCInner). A unit D axis
// (every 2-D operator) needs no ring: the H step reads the gradOut rows themselves (DirectRows).
// Every element's sum runs over the same terms in the same order whatever the item split, so every
// core count gives the same bits. Scratch: the slab and a few rows (TilingData::slabRows).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <utility>

#include "op_kernel/kernel_args.h"
#include "op_kernel/prefetch_queue.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/combine_rows.h"
#include "op_kernel/combine_rows_fp16_raw.h"
#include "op_kernel/item_loop.h"
#include "op_kernel/resample_row_c_inner.h"
#include "op_kernel/resample_rows_w_inner.h"
#include "op_kernel/resample_rows_w_row_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::kRowBatch;
static_assert(tiling::kRowBatch == 4, "the W pass takes rows four at a time");
using tiling::kTapGroup;
using tiling::RowLayout;
using tiling::TilingData;

template <typename T>
class BackwardWidthLastRunner : RunnerLaunch {
 public:
  using A = Acc<T>;

  BackwardWidthLastRunner(const KernelArgs &args, A *scratch)
      : RunnerLaunch(args), p_(TablesOf<A>(args)), out_(dst_, t_, t_.wChunkCount == 1) {
    const bool cInner = t_.layout == RowLayout::kCInner;
    const int64_t bytes = static_cast<int64_t>(sizeof(A));
    const int64_t slabRowCap = t_.slabCols * rowWidth_;  // the longest slab row (W chunk's span)
    srcRowStride_ = Align64(slabRowCap, bytes);
    dstRowStride_ = Align64(t_.wChunk * rowWidth_, bytes);
    // The scratch layout of tiling: the ring (channels inner) has one H-step and one W-pass row.
    const int64_t rowsInFlight = cInner ? 1 : kRowBatch;
    slab_ = scratch;
    const int64_t slabStride = Align64(t_.slabRows * slabRowCap, bytes);
    dSlab_ = slab_;
    carrySlab_ = t_.carrySlab ? slab_ + slabStride : nullptr;
    hRows_ = slab_ + slabStride * (t_.carrySlab ? 2 : 1);
    wRows_ = hRows_ + rowsInFlight * srcRowStride_;
    tapRows_ = wRows_ + rowsInFlight * dstRowStride_;
    // A direct plane leaves the ring unused (DirectRows): it and the H-step row hold a batch's H-step rows.
    if (srcRowStride_ > 0) {
      directBatch_ = static_cast<int>(std::min<int64_t>(kRowBatch, (hRows_ - slab_) / srcRowStride_ + 1));
    }
    // Rows whose elements are contiguous in memory (the dtype, unit stride), and whether
    // consecutive H rows follow each other whole (then a slab of rows is one contiguous run).
    const int64_t *s = src_.strides;
    unitRows_ = cInner ? (s[1] == 1 && s[4] == t_.c) : s[4] == 1;
    denseSlab_ = unitRows_ && s[3] == t_.w.outSize * rowWidth_ && t_.wChunkCount == 1;
    if constexpr (std::is_same_v<T, Fp16> && kFp16WidensByIntegerOps) {
      if (denseSlab_ && t_.widenedPlanes > 0 && t_.widenedPlanes <= tiling::kMaxWidenedPlanes) {
        widened_ = tapRows_ + kTapGroup * srcRowStride_;
        widenedStride_ = slabStride;
        // Raw slabs where every D weight times 2^112 is exact and finite.
        rawWidening_ = kWidensFp16Raw && std::all_of(p_.colD.w.begin(), p_.colD.w.end(),
                                                     [](A w) { return std::fabs(w) <= A(0x1p15f); });
        rawPairs_ = kHaveFp16RawRows && rawWidening_ && !SymmetricFirstSweep();
      }
    }
    if constexpr (std::is_same_v<T, float>) {
      // Only rows with a halving run, linear or cubic: the list outputs would store into gradInput with
      // ordinary stores.
      streamDstRows_ = kStreamsDstRows && t_.streamStores && LineAlignedPositions(dst_, t_.layout, t_.c) &&
                       (p_.rowW.halving.begin < p_.rowW.halving.end ||
                        p_.rowW.cubicHalving.begin < p_.rowW.cubicHalving.end);
    }
    if constexpr (std::is_same_v<T, Bf16>) {
      splitRows_ = kHaveSplitRows && !cInner && denseSlab_ && p_.rowW.srcLen == t_.w.outSize &&
                   w_inner::HalvingSplitApplies(p_.rowW);
      narrowRows_ = w_inner::kHaveHalvingSplitNarrow && dst_.strides[4] == 1 && t_.wChunkCount == 1;
      if (splitRows_ && narrowRows_) splitEnds_ = w_inner::BuildSplitEnds(p_.rowW);
    }
    if (!splitRows_) carrySlab_ = nullptr;  // only the split D step carries, and the raw fp16 one:
    if (rawPairs_) carrySlab_ = widened_;   // its carried slab is the first widened slab's room
    if constexpr (std::is_same_v<A, float>) {
      if (!splitRows_ && !cInner && t_.wChunkCount == 1 && p_.rowW.srcLen == t_.w.outSize) {
        rowEnds_ = w_inner::BuildRowEnds(p_.rowW);
        rowLanesW_ =
            w_inner::BackwardRowLanesApplies(p_.rowW);  // a halving run under four: never with rowEnds_
        if constexpr (w_inner::kEightRowLanes) {
          eightRows_ = rowLanesW_ && !rowEnds_.vectors && p_.rowW.srcLen <= w_inner::kEightRowsMaxSrc &&
                       p_.rowW.dstLen <= w_inner::kEightRowsMaxDst &&
                       LongestList(p_.colH) <= w_inner::kRowLanesMaxTaps;
          joinedRows_ = dst_.strides[4] == 1 && dst_.strides[3] == t_.w.inSize;
        }
      }
    }
  }

  void Run(int64_t item, int64_t nextItem) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize, t_.w.inSize);
    h0_ = b.h0;
    h1_ = b.h1;
    w0_ = b.w0;
    w1_ = b.w1;
    HWindow(h0_, h1_, &ohFirst_, &slabRowCount_);
    colFirst_ = 0;
    colCount_ = t_.w.outSize;  // whole rows, as the W pass's vector steps expect
    if (t_.wChunkCount > 1) SlabWindow(p_.rowW, w0_, w1_, t_.w.outSize, &colFirst_, &colCount_);
    srcRowElems_ = colCount_ > 0 ? colCount_ * rowWidth_ : 0;
    hStepElems_ = srcRowElems_;
    if (t_.layout == RowLayout::kWInner)
      hStepElems_ = (srcRowElems_ + kHStepLanes - 1) / kHStepLanes * kHStepLanes;
    srcBase_ = PlaneBase<const T>(src_, t_, b.plane) + (colCount_ > 0 ? colFirst_ * src_.strides[4] : 0);
    dstBase_ = PlaneBase<T>(dst_, t_, b.plane) + w0_ * dst_.strides[4];
    std::fill(std::begin(widenedOd_), std::end(widenedOd_), -1);  // the item's slabs are not widened yet
    rawSlabs_ = rawWidening_;
    carriedId_ = -1;
    if (rawPairs_) {  // the slabs' places as the constructor set them (RawDStep swaps them)
      dSlab_ = slab_;
      carrySlab_ = widened_;
    }
    for (int64_t id = b.d0; id < b.d1; ++id) {
      const bool reached = p_.colD.begin[id] < p_.colD.begin[id + 1] && slabRowCount_ > 0 && colCount_ > 0;
      out_.Begin(DstRow(id, h0_));
      directPlane_ = reached ? DirectPlane(id) : nullptr;
      // An identity D axis's plane (two entries) is direct once FiniteRows has read the item's rows of it.
      directRowsRead_ = directPlane_ != nullptr && p_.colD.begin[id + 1] - p_.colD.begin[id] == 2;
      if (t_.layout == RowLayout::kCInner) {
        RingRows(id, reached);
      } else {
        PlanDStep(b, id, reached && directPlane_ == nullptr);
        QueueNextPlanes(b, id, nextItem);
        if (reached && directPlane_ == nullptr) DStep(id);
        int64_t ih = h0_;
        if (eightRows_ && reached && directPlane_ == nullptr) {
          for (; ih < h1_; ih += kEightRows)
            EightRowsHAndW(id, ih, static_cast<int>(std::min(kEightRows, h1_ - ih)));
        }
        for (; ih < h1_; ih += kRowBatch) {
          const int count = static_cast<int>(std::min<int64_t>(kRowBatch, h1_ - ih));
          HAndWSteps(id, ih, count, reached);
        }
      }
      out_.Finish();
    }
  }

 private:
  // Elements per piece of a D step's long row combination; a prefetch dose follows each piece.
  static constexpr int64_t kPieceElems = 1024;
  // Taps per CombineRows call of the dense D step and of the H step from the slab: a D index's list
  // (B7: 5 or 6 planes) in one sweep over the slab instead of two.
  static constexpr int kSweepTaps = kCombineSweepTaps;
  // Taps per call of the split D step (bf16 split rows).
  static constexpr int kSplitSweepTaps = kCombineSplitSweepTaps;
  // AVX2's CombineRows sums a row's last (srcRowElems mod 8) elements one at a time: on short W-inner
  // rows (36: B7) most of the H step. Its H step from the slab runs whole vectors instead (hStepElems_,
  // the row rounded up): the lanes past the row read the next slab row (the last row: the padding after
  // the slab and the H-step rows, inside the scratch) and land in the H-step row's padding (rows
  // srcRowStride_ apart, 64-byte multiples), which nothing reads. Each element's operations are the
  // same (the tail's scalar FMA is the lanes'), so are its bits. AVX-512's tail is one masked vector.
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
  static constexpr int64_t kHStepLanes = 32 / static_cast<int64_t>(sizeof(A));
#else
  static constexpr int64_t kHStepLanes = 1;
#endif

  // The gradOut indices the taps of gradInput indices [i0, i1) on one axis span (lists: that
  // axis's gather lists, in increasing gradOut index): first and count (<= 0: none).
  static void SlabWindow(const RowGather<A> &lists, int64_t i0, int64_t i1, int64_t outSize, int64_t *first,
                         int64_t *count) {
    int64_t lo = outSize, hi = -1;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t e0 = lists.begin[i], e1 = lists.begin[i + 1];
      if (e0 == e1) continue;
      lo = std::min<int64_t>(lo, lists.src[e0]);
      hi = std::max<int64_t>(hi, lists.src[e1 - 1]);
    }
    *first = lo;
    *count = hi - lo + 1;
  }

  // SlabWindow of colH for gradInput rows [h0, h1), the last two answers kept: it walks every list of
  // the chunk, and an item and the next one (which QueueNextPlanes looks at) take one or two H chunks.
  void HWindow(int64_t h0, int64_t h1, int64_t *first, int64_t *count) {
    Window *w = &windows_[0];
    if (w->h0 != h0 || w->h1 != h1) {
      std::swap(windows_[0], windows_[1]);
      if (w->h0 != h0 || w->h1 != h1) {
        w->h0 = h0;
        w->h1 = h1;
        SlabWindow(p_.colH, h0, h1, t_.h.outSize, &w->first, &w->count);
      }
    }
    *first = w->first;
    *count = w->count;
  }

  // Queues the gradOut slabs the next D step will need that this one does not read: the planes
  // of id + 1 beyond id's last, or, after the item's last id, the next item's first planes. They
  // are requested in doses while id is computed (dense slabs only: one range per plane).
  void QueueNextPlanes(const ItemBounds &b, int64_t id, int64_t nextItem) {
    prefetch_.Clear();
    if (!denseSlab_) return;
    const int64_t slabBytes = slabRowCount_ * srcRowElems_ * static_cast<int64_t>(sizeof(T));
    if (id + 1 < b.d1) {
      int64_t lastOd =
          p_.colD.begin[id] < p_.colD.begin[id + 1] ? p_.colD.src[p_.colD.begin[id + 1] - 1] : -1;
      for (int64_t e = p_.colD.begin[id + 1]; e < p_.colD.begin[id + 2]; ++e) {
        if (p_.colD.src[e] <= lastOd) continue;
        lastOd = p_.colD.src[e];  // an identity D axis lists its plane twice: requested once
        prefetch_.Add(srcBase_ + p_.colD.src[e] * src_.strides[2] + ohFirst_ * src_.strides[3], slabBytes);
      }
    } else if (nextItem < t_.itemCount) {
      const ItemBounds n = DecodeItem(t_, nextItem, t_.d.inSize, t_.h.inSize, t_.w.inSize);
      int64_t first = 0, count = 0;
      HWindow(n.h0, n.h1, &first, &count);
      const T *base = PlaneBase<const T>(src_, t_, n.plane);
      const int64_t rowBytes = srcRowElems_ * static_cast<int64_t>(sizeof(T));
      for (int64_t e = p_.colD.begin[n.d0]; e < p_.colD.begin[n.d0 + 1]; ++e) {
        if (e > p_.colD.begin[n.d0] && p_.colD.src[e] == p_.colD.src[e - 1]) continue;  // requested once
        prefetch_.Add(base + p_.colD.src[e] * src_.strides[2] + first * src_.strides[3], count * rowBytes);
      }
    }
    const int64_t perSweep = splitRows_ ? kSplitSweepTaps : kSweepTaps;
    auto sweeps = [perSweep](int64_t entries) { return (entries + perSweep - 1) / perSweep; };
    const int64_t groups = sweeps(entries_.shared - entries_.start) + sweeps(entries_.end - entries_.shared);
    const int64_t pieces = groups * ((slabRowCount_ * srcRowElems_ + kPieceElems - 1) / kPieceElems);
    prefetch_.PlanDoses((directPlane_ != nullptr ? 0 : pieces) + (h1_ - h0_));
  }

  // The gradOut plane whose rows are gradInput index id's D step as they are, or null: a D list of one
  // tap of weight 1 (a unit axis), whose D step would copy each row exactly (1 * x is x, converted
  // exactly from a narrow dtype), over rows of unit stride. The H step then reads the gradOut rows
  // themselves (converting as it loads), which sums the same values in the same order.
  // An identity D axis lists its plane twice, weights 1 and +0 (ComputeTap: an inf there makes NaN, as
  // in PyTorch): its D step copies every finite element exactly (x + 0 x is x, -0 included) and only
  // turns inf into NaN, so W-inner rows of the accumulation type read the plane directly when the
  // rows the item's H step reads are all finite (FiniteRows); otherwise the D step runs. HStep sums a
  // row the same way from either source, so no output's bits depend on which one its item took.
  const T *DirectPlane(int64_t id) const {
    const int64_t e0 = p_.colD.begin[id], e1 = p_.colD.begin[id + 1];
    if (!unitRows_ || e0 == e1) return nullptr;
    const T *plane = srcBase_ + p_.colD.src[e0] * src_.strides[2];
    if (e1 - e0 == 1 && p_.colD.w[e0] == A(1)) return plane;
    if constexpr (std::is_same_v<T, A>) {
      if (t_.layout == RowLayout::kWInner && e1 - e0 == 2 && p_.colD.src[e0] == p_.colD.src[e0 + 1] &&
          IsOneAndPlusZero(p_.colD.w[e0], p_.colD.w[e0 + 1]) && FiniteRows(plane)) {
        return plane;
      }
    }
    return nullptr;
  }

  // Whether {a, b} is {1, +0} in either order (a -0 weight would turn a -0 element into +0).
  static bool IsOneAndPlusZero(A a, A b) {
    auto plusZero = [](A w) { return w == A(0) && !std::signbit(w); };
    return (a == A(1) && plusZero(b)) || (plusZero(a) && b == A(1));
  }

  // Whether the item's slab rows of plane (the gradOut rows its H taps span, its columns) hold only
  // finite values, by summing them: an inf or NaN makes the sum non-finite. A sum of finite values that
  // overflows says "no" too, and the D step then runs, which gives the same bits. One read of rows the
  // H step then reads from cache. The vector sums run across the rows and are reduced once: a reduction
  // per row (a chain of V scalar adds through memory) cost more than the row's loads on short rows
  // (B8's 128 elements, AVX-512 most).
  bool FiniteRows(const A *plane) const {
    A sum = A(0);
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
    using L = TierLanes<A>;
    typename L::Vec a = L::Zero(), b = L::Zero();
#endif
    for (int64_t r = 0; r < slabRowCount_; ++r) {
      const A *row = plane + (ohFirst_ + r) * src_.strides[3];
      int64_t x = 0;
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
      for (; x + 2 * L::kLanes <= srcRowElems_; x += 2 * L::kLanes) {
        a = L::Add(a, L::Load(row + x));
        b = L::Add(b, L::Load(row + x + L::kLanes));
      }
#endif
      for (; x < srcRowElems_; ++x) sum += row[x];
    }
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
    alignas(64) A lanes[L::kLanes];
    L::Store(lanes, L::Add(a, b));
    for (int64_t k = 0; k < L::kLanes; ++k) sum += lanes[k];
#endif
    return std::isfinite(sum);
  }

  // The entries of gradInput index id's D list its D step sums: [start, end), those from `shared` on
  // also into id + 1's slab, whose list begins with their planes in the same order (carrySlab_, a D step
  // that runs: `runs`). Entries before start are in id's slab already: id - 1's D step summed them.
  void PlanDStep(const ItemBounds &b, int64_t id, bool runs) {
    const int64_t e0 = p_.colD.begin[id], e1 = p_.colD.begin[id + 1];
    entries_ = DStepEntries{carriedId_ == id ? e0 + carriedEntries_ : e0, e1, e1};
    if (carrySlab_ == nullptr || !runs || id + 1 >= b.d1 || DirectPlane(id + 1) != nullptr) return;
    const int64_t f0 = p_.colD.begin[id + 1], f1 = p_.colD.begin[id + 2];
    const auto *src = p_.colD.src.data();
    for (int64_t s = std::max(entries_.start, e1 - (f1 - f0)); s < e1; ++s) {  // the longest such tail
      if (std::equal(src + s, src + e1, src + f0)) {
        entries_.shared = s;
        return;
      }
    }
  }

  // dSlab_[r] = D pass of gradOut rows ohFirst_ + r for gradInput index id.
  void DStep(int64_t id) {
    if (splitRows_) {
      SplitDStep(id);
      return;
    }
    if (!denseSlab_) {
      for (int64_t r = 0; r < slabRowCount_; ++r) DStepRow(id, ohFirst_ + r);
      return;
    }
    if (rawPairs_ && rawSlabs_ && RawDStep(id)) return;
    const int64_t e0 = p_.colD.begin[id], e1 = p_.colD.begin[id + 1];
    const int64_t n = slabRowCount_ * srcRowElems_;
    for (int64_t g = e0; g < e1; g += kSweepTaps) {
      const int k = static_cast<int>(std::min<int64_t>(kSweepTaps, e1 - g));
      const T *planes[kSweepTaps];
      for (int j = 0; j < k; ++j) {
        planes[j] = srcBase_ + p_.colD.src[g + j] * src_.strides[2] + ohFirst_ * src_.strides[3];
      }
      if (widened_ != nullptr) {
        const A *rows[kSweepTaps];
        // All of a group's slabs raw or none: CombineRows' path (symmetric pairs or not) follows the
        // weights, so a group mixing the two could sum in another order. A slab that cannot be raw turns
        // the item's raw slabs exact (WidenedSlab), so a group during which that happened is gathered
        // again, all exact.
        const bool rawBefore = rawSlabs_;
        for (int j = 0; j < k; ++j) rows[j] = WidenedSlab(p_.colD.src[g + j], planes[j], n);
        if (rawBefore && !rawSlabs_) {
          for (int j = 0; j < k; ++j) rows[j] = WidenedSlab(p_.colD.src[g + j], planes[j], n);
        }
        A w[kSweepTaps];  // raw slabs: the weights times 2^112
        for (int j = 0; j < k; ++j) w[j] = rawSlabs_ ? p_.colD.w[g + j] * A(0x1p112f) : p_.colD.w[g + j];
        for (int64_t x = 0; x < n; x += kPieceElems) {
          const A *at[kSweepTaps];
          for (int j = 0; j < k; ++j) at[j] = rows[j] + x;
          CombineRows(dSlab_ + x, at, w, k, std::min(kPieceElems, n - x), g > e0);
          prefetch_.IssueDose();
        }
        continue;
      }
      for (int64_t x = 0; x < n; x += kPieceElems) {
        const T *at[kSweepTaps];
        for (int j = 0; j < k; ++j) at[j] = planes[j] + x;
        RequestNextPiece(at, k, n - x);
        CombineRows(dSlab_ + x, at, p_.colD.w.data() + g, k, std::min(kPieceElems, n - x), g > e0);
        prefetch_.IssueDose();
      }
    }
  }

  // The next piece of each of the k planes at `at` (left: the elements from `at` to the slab's end),
  // requested into L1 before this piece is combined: the planes are read once, a few streams at a time
  // between the slab's stores, which the hardware prefetcher alone leaves waiting on DRAM (the split D
  // step requests its sources 4 KB ahead inside CombineSplitK).
  static void RequestNextPiece(const T *const *at, int k, int64_t left) {
    const int64_t bytes = std::min(kPieceElems, left - kPieceElems) * static_cast<int64_t>(sizeof(T));
    for (int j = 0; j < k; ++j) {
      const char *next = reinterpret_cast<const char *>(at[j] + kPieceElems);
      for (int64_t b = 0; b < bytes; b += PrefetchQueue::kLineBytes) __builtin_prefetch(next + b, 0, 3);
    }
  }

  // The slab of gradOut plane od (at plane, n elements) widened to A: slot od mod widenedPlanes,
  // widened when it holds another plane. A D index's planes span at most widenedPlanes, so the slabs it
  // reads have distinct slots, and one the next index shares is widened once for both. While rawSlabs_
  // (rawWidening_ allows it and no plane of the item has failed it, by an inf or a NaN or MXCSR's modes)
  // every slab holds 2^-112 times the values (WidenFp16Raw), which the D step multiplies by its weights
  // times 2^112; else the values CombineRows widens on load (exact). Either way the D step sums the same
  // terms. A failure ends the item's raw slabs: those widened are widened again, exactly, when next asked
  // for, so a slot's slab is raw exactly while rawSlabs_ holds.
  const A *WidenedSlab(int64_t od, const T *plane, int64_t n) {
    const int64_t slot = od % t_.widenedPlanes;
    A *slab = widened_ + slot * widenedStride_;
    if (widenedOd_[slot] != od) {
      bool raw = false;
      if constexpr (std::is_same_v<T, Fp16>) {
        raw = rawSlabs_ && WidenFp16Raw(plane, slab, n);
        if (rawSlabs_ && !raw) {
          rawSlabs_ = false;
          std::fill(std::begin(widenedOd_), std::end(widenedOd_), -1);
        }
      }
      if (!raw) LoadRow(plane, 1, slab, n);
      widenedOd_[slot] = od;
    }
    return slab;
  }

  // The D step of raw fp16 slabs (rawPairs_, while rawSlabs_), entries_ of id's list in groups of up to
  // kSweepTaps read from gradOut and widened as they are loaded (CombineRowsFp16Raw), those from
  // entries_.shared on also summed into id + 1's slab (carrySlab_), as the split D step does. Each
  // element's sum is the chain over id's whole list in order, as the widened slabs' D step sums it when
  // its first sweep is not a symmetric one (SymmetricFirstSweep): the same bits. False when an inf or a
  // NaN was among the planes, or MXCSR's modes forbid the raw values: then the item's slabs are exact
  // from here on, id's D step is to be run again from its first entry, and nothing is carried.
  bool RawDStep(int64_t id) {
    if (carriedId_ == id) std::swap(dSlab_, carrySlab_);
    carriedId_ = -1;
    const int64_t e0 = p_.colD.begin[id];
    const DStepEntries e = entries_;
    const int64_t n = slabRowCount_ * srcRowElems_;
    bool raw = true;
    for (int64_t g = e.start; g < e.end;) {
      const bool pair = g >= e.shared;
      const int k = static_cast<int>(std::min<int64_t>(kSweepTaps, (pair ? e.end : e.shared) - g));
      const int64_t gNext = pair ? p_.colD.begin[id + 1] + (g - e.shared) : 0;
      const T *planes[kSweepTaps];
      A w[kSweepTaps], wNext[kSweepTaps];
      for (int j = 0; j < k; ++j) {
        planes[j] = srcBase_ + p_.colD.src[g + j] * src_.strides[2] + ohFirst_ * src_.strides[3];
        w[j] = p_.colD.w[g + j] * A(0x1p112f);
        wNext[j] = pair ? p_.colD.w[gNext + j] * A(0x1p112f) : A(0);
      }
      for (int64_t x = 0; x < n; x += kPieceElems) {
        const T *at[kSweepTaps];
        for (int j = 0; j < k; ++j) at[j] = planes[j] + x;
        RequestNextPiece(at, k, n - x);
        if constexpr (std::is_same_v<T, Fp16>) {
          raw = CombineRowsFp16Raw(dSlab_ + x, pair ? carrySlab_ + x : nullptr, at, w, wNext, k,
                                   std::min(kPieceElems, n - x), g > e0, g > e.shared) &&
                raw;
        }
        prefetch_.IssueDose();
      }
      g += k;
    }
    if (!raw) {
      dSlab_ = slab_;
      carrySlab_ = widened_;
      rawSlabs_ = false;
      std::fill(std::begin(widenedOd_), std::end(widenedOd_), -1);
      return false;
    }
    if (e.shared < e.end) {
      carriedId_ = id + 1;
      carriedEntries_ = e.end - e.shared;
    }
    return true;
  }

  // Whether some D index's first sweep of the widened slabs' D step (its first kSweepTaps entries) has an
  // even count of symmetric weights: CombineRows then adds symmetric pairs of rows first (the 128-bit
  // tier's CombineSymmetricK), a sum RawDStep's chains would not give bit for bit.
  bool SymmetricFirstSweep() const {
    for (int64_t id = 0; id < t_.d.inSize; ++id) {
      const int64_t e0 = p_.colD.begin[id];
      const int64_t k = std::min<int64_t>(kSweepTaps, p_.colD.begin[id + 1] - e0);
      if (k == 0 || k % 2 != 0) continue;
      bool symmetric = true;
      for (int64_t j = 0; j < k / 2 && symmetric; ++j) {
        symmetric = std::memcmp(&p_.colD.w[e0 + j], &p_.colD.w[e0 + k - 1 - j], sizeof(A)) == 0;
      }
      if (symmetric) return true;
    }
    return false;
  }

  // The D step of split slab rows (splitRows_: dense), entries_ of id's list in groups of up to
  // kSweepTaps: those before entries_.shared into the slab, the others into it and into id + 1's slab
  // (carrySlab_), which id + 1's D step then takes as its own and completes.
  void SplitDStep(int64_t id) {
    if (carriedId_ == id) std::swap(dSlab_, carrySlab_);
    carriedId_ = -1;
    const int64_t e0 = p_.colD.begin[id];
    const DStepEntries e = entries_;
    const A *w = p_.colD.w.data();
    for (int64_t g = e.start; g < e.end;) {
      const bool pair = g >= e.shared;
      const int k = static_cast<int>(std::min<int64_t>(kSplitSweepTaps, (pair ? e.end : e.shared) - g));
      const T *planes[kSplitSweepTaps];
      for (int j = 0; j < k; ++j) {
        planes[j] = srcBase_ + p_.colD.src[g + j] * src_.strides[2] + ohFirst_ * src_.strides[3];
      }
      const A *wNext = pair ? w + p_.colD.begin[id + 1] + (g - e.shared) : nullptr;
      SplitDStepRows(planes, k, w + g, wNext, g > e0, g > e.shared);
      g += k;
    }
    if (e.shared < e.end) {
      carriedId_ = id + 1;
      carriedEntries_ = e.end - e.shared;
    }
  }

  // One tap group of the split D step, a piece's rows (about kPieceElems elements) per call; the
  // prefetch doses as the pieces issue them. wNext (or null): the group's weights in id + 1's list, summed
  // into carrySlab_ from the same loads (accumulateNext: onto what it holds).
  void SplitDStepRows(const T *const *planes, int k, const A *w, const A *wNext, bool accumulate,
                      bool accumulateNext) {
    if constexpr (std::is_same_v<T, Bf16>) {
      const int64_t n = slabRowCount_ * srcRowElems_;
      const int64_t pieceRows = std::max<int64_t>(1, kPieceElems / srcRowElems_);
      int64_t issued = 0;
      for (int64_t r = 0; r < slabRowCount_; r += pieceRows) {
        const int64_t rows = std::min(pieceRows, slabRowCount_ - r), at = r * srcRowElems_;
        const T *src[kSplitSweepTaps];
        for (int j = 0; j < k; ++j) src[j] = planes[j] + at;
        if (wNext != nullptr) {
          CombineRowsSplitPair(dSlab_ + at, carrySlab_ + at, src, w, wNext, k, srcRowElems_, rows, accumulate,
                               accumulateNext);
        } else {
          CombineRowsSplit(dSlab_ + at, src, w, k, srcRowElems_, rows, accumulate);
        }
        const int64_t due = r + rows == slabRowCount_ ? (n + kPieceElems - 1) / kPieceElems
                                                      : (r + rows) * srcRowElems_ / kPieceElems;
        for (; issued < due; ++issued) prefetch_.IssueDose();
      }
    }
  }

  // Slab row of gradOut row oh: rows [ohFirst_, ohFirst_ + slabRows) in order (W inner: a chunk's
  // span fits the slab), or as a ring (channels inner: row oh at (oh - ohFirst_) mod slabRows).
  A *SlabRow(int64_t oh) const {
    int64_t r = oh - ohFirst_;
    if (r >= t_.slabRows) r %= t_.slabRows;
    return dSlab_ + r * srcRowElems_;
  }

  // SlabRow(oh) = the D step of gradOut row oh for gradInput index id.
  void DStepRow(int64_t id, int64_t oh) {
    const int64_t e0 = p_.colD.begin[id], e1 = p_.colD.begin[id + 1];
    for (int64_t g = e0; g < e1; g += kTapGroup) {
      const int k = static_cast<int>(std::min<int64_t>(kTapGroup, e1 - g));
      const T *planes[kTapGroup];
      for (int j = 0; j < k; ++j) planes[j] = srcBase_ + p_.colD.src[g + j] * src_.strides[2];
      CombineTapRows(planes, oh * src_.strides[3], p_.colD.w.data() + g, k, g > e0, SlabRow(oh));
    }
  }

  // hRow = the H step of gradInput row ih from the slab; zeros when no tap reaches ih, or no D tap
  // reaches the current index (reached false). Returns whether it summed.
  bool HStep(int64_t ih, bool reached, A *hRow) const {
    const int64_t e0 = p_.colH.begin[ih], e1 = p_.colH.begin[ih + 1];
    if (!reached || e0 == e1) {
      std::fill(hRow, hRow + srcRowElems_, A(0));
      return false;
    }
    if (directPlane_ != nullptr) {  // a cubic list's eight taps in one sweep where the tier sweeps eight
      const T *rows[kSweepTaps];
      for (int64_t g = e0; g < e1; g += kSweepTaps) {
        const int k = static_cast<int>(std::min<int64_t>(kSweepTaps, e1 - g));
        for (int j = 0; j < k; ++j) rows[j] = directPlane_ + p_.colH.src[g + j] * src_.strides[3];
        if constexpr (std::is_same_v<T, Bf16>) {
          if (splitRows_) {
            CombineRowsSplit(hRow, rows, p_.colH.w.data() + g, k, srcRowElems_, 1, g > e0);
            continue;
          }
        }
        CombineRows(hRow, rows, p_.colH.w.data() + g, k, srcRowElems_, g > e0);
      }
      return true;
    }
    const A *rows[kSweepTaps];
    for (int64_t g = e0; g < e1; g += kSweepTaps) {
      const int k = static_cast<int>(std::min<int64_t>(kSweepTaps, e1 - g));
      for (int j = 0; j < k; ++j) rows[j] = SlabRow(p_.colH.src[g + j]);
      CombineRows(hRow, rows, p_.colH.w.data() + g, k, hStepElems_, g > e0);
    }
    return true;
  }

  // out = (accumulate ? out : 0) + sum of w[j] * row j, the gradOut rows (the item's columns) at
  // planes[j] + offset; strided rows are converted and packed first.
  void CombineTapRows(const T *const *planes, int64_t offset, const A *w, int k, bool accumulate, A *out) {
    const T *rows[kTapGroup];
    for (int j = 0; j < k; ++j) rows[j] = planes[j] + offset;
    if (unitRows_) {
      CombineRows(out, rows, w, k, srcRowElems_, accumulate);
      return;
    }
    const A *packed[kTapGroup];
    for (int j = 0; j < k; ++j) {
      packed[j] = ReadRow(rows[j], src_, t_.layout, colCount_, t_.c, tapRows_ + j * srcRowStride_);
    }
    CombineRows(out, packed, w, k, srcRowElems_, accumulate);
  }

  // Channels-inner rows (long: W x C): gradInput index id one row ih at a time, its D step kept as
  // a ring of gradOut rows (slabRows of them: the most one ih's H taps span). Each gradOut row's D
  // step is computed once, just before the first ih that needs it, so reading gradOut interleaves
  // with the H and W steps instead of alternating with them in long phases, and the working set is
  // a few rows. The planes id + 1 shares with id are read again from the last-level cache
  // (TilingData::hChunk keeps an H chunk's rows of them there). Not done, since both are slower:
  // blocks of a row taken through all three steps to stay in L1 (the reads of gradOut then jump
  // between eight short runs), and software prefetch of the next row's gradOut rows.
  void RingRows(int64_t id, bool reached) {
    if (directPlane_ != nullptr) {
      DirectRows(id);
      return;
    }
    int64_t next = ohFirst_;  // gradOut rows [ohFirst_, next) have had their D step
    A *hRow = hRows_;
    for (int64_t ih = h0_; ih < h1_; ++ih) {
      const int64_t h0 = p_.colH.begin[ih], h1 = p_.colH.begin[ih + 1];
      if (reached && h0 < h1 && directPlane_ == nullptr) {
        for (const int64_t last = p_.colH.src[h1 - 1]; next <= last; ++next) DStepRow(id, next);
      }
      HStep(ih, reached, hRow);
      if constexpr (std::is_same_v<T, A>) {
        if (streamDstRows_) {  // the W pass writes the gradInput row itself
          const RowTargets<A> *noTargets = nullptr;
          ResampleRowCInner(p_.rowW, ResampleSpan{w0_, w1_, colFirst_}, hRow, DstRow(id, ih), t_.c,
                            SourceIn::kCache, noTargets, true);
          continue;
        }
      }
      ResampleRowCInner(p_.rowW, ResampleSpan{w0_, w1_, colFirst_}, hRow, wRows_, t_.c, SourceIn::kCache);
      out_.Put(wRows_, DstRow(id, ih), w1_ - w0_);
    }
  }

  // Channels-inner rows of gradInput index id whose D step is a direct plane (a unit D axis): no ring,
  // the H step reads the gradOut rows themselves, directBatch_ rows at a time. The batch's rows in colH's
  // cubic halving run are H-stepped at once (CombineCubicHalvingRows: each gradOut row loaded once for
  // the batch's rows it feeds), the others one by one (HStep); then each row's W pass, which writes the
  // gradInput row itself when streamDstRows_, else a W-pass row that is then stored.
  void DirectRows(int64_t id) {
    const CubicHalvingRun<A> &run = p_.colH.cubicHalving;
    const int64_t stride = src_.strides[3];
    for (int64_t ih = h0_; ih < h1_; ih += directBatch_) {
      const int count = static_cast<int>(std::min<int64_t>(directBatch_, h1_ - ih));
      const int64_t lo = std::max<int64_t>(ih, run.begin), hi = std::min<int64_t>(ih + count, run.end);
      for (int k = 0; k < count; ++k) {
        if (ih + k == lo && lo < hi) {
          const int rows = static_cast<int>(hi - lo);
          CombineCubicHalvingRows(slab_ + k * srcRowStride_, srcRowStride_, rows,
                                  directPlane_ + (2 * lo - 3) * stride, stride, run.w, srcRowElems_);
          k += rows - 1;
          continue;
        }
        HStep(ih + k, true, slab_ + k * srcRowStride_);
      }
      for (int k = 0; k < count; ++k) {
        const ResampleSpan span{w0_, w1_, colFirst_};
        if constexpr (std::is_same_v<T, A>) {
          if (streamDstRows_) {  // the W pass writes the gradInput row itself
            const RowTargets<A> *noTargets = nullptr;
            ResampleRowCInner(p_.rowW, span, slab_ + k * srcRowStride_, DstRow(id, ih + k), t_.c,
                              SourceIn::kCache, noTargets, true);
            continue;
          }
        }
        ResampleRowCInner(p_.rowW, span, slab_ + k * srcRowStride_, wRows_, t_.c, SourceIn::kCache);
        out_.Put(wRows_, DstRow(id, ih + k), w1_ - w0_);
      }
    }
  }

  // W-inner rows: the H step of gradInput rows ih .. ih + count - 1 from the slab, their W pass, and
  // the store. Rows no tap reaches (or a D index none reaches) are zero. The rows of a cubic halving run
  // take HStep one by one, not CombineCubicHalvingRows (as DirectRows does): over short W-inner rows its
  // fourteen concurrent row streams read the plane slower than HStep's 4-row sweeps, though with fewer
  // instructions.
  void HAndWSteps(int64_t id, int64_t ih, int count, bool reached) {
    const A *hRows[kRowBatch];
    A *wRows[kRowBatch];
    for (int k = 0; k < count; ++k) {
      hRows[k] = hRows_ + k * srcRowStride_;
      wRows[k] = wRows_ + k * dstRowStride_;
    }
    // The batch's rows [a, b) in colH's halving run, from a direct plane: their H steps at once.
    int a = count, b = count;
    if (reached && directPlane_ != nullptr) HalvingRunRows(ih, count, &a, &b);
    for (int k = 0; k < count; ++k) {
      if (k == a) {
        HalvingHSteps(ih + a, b - a, hRows_ + a * srcRowStride_);
        k = b - 1;
        continue;
      }
      if (HStep(ih + k, reached, hRows_ + k * srcRowStride_)) prefetch_.IssueDose();
    }
    if constexpr (std::is_same_v<T, Bf16>) {
      // The W pass narrows into gradInput: no W-pass rows to store. The H-step rows follow the slab and
      // precede the W-pass rows, so the element before each and the one after it are scratch (the
      // baseline tier's ends read them, and clear them).
      if (splitRows_ && narrowRows_) {
        T *dstRows[kRowBatch];
        for (int k = 0; k < count; ++k) dstRows[k] = DstRow(id, ih + k);
        w_inner::HalvingRowsSplitNarrow(p_.rowW, splitEnds_, hRows, dstRows, count);
        return;
      }
    }
    // A short last batch repeats its first row: four rows cost little more than one, and the
    // extra results land in unused W-pass rows.
    for (int k = count; k < kRowBatch; ++k) {
      hRows[k] = hRows[0];
      wRows[k] = wRows_ + k * dstRowStride_;
    }
    bool done = false;
    if constexpr (std::is_same_v<A, float>) {
      if (splitRows_) {
        w_inner::HalvingRowsSplit<kRowBatch>(p_.rowW, hRows, wRows);
        done = true;
      } else if (rowEnds_.vectors) {
        w_inner::HalvingRowsWithEnds<kRowBatch>(p_.rowW, rowEnds_, hRows, wRows);
        done = true;
      } else if constexpr (w_inner::kRowLanesW) {
        if (rowLanesW_) {
          w_inner::FourRowsOnLanesW(p_.rowW, hRows, wRows);
          done = true;
        }
      }
    }
    if (!done) ResampleRowsWInner<kRowBatch>(p_.rowW, hRows, wRows);
    for (int k = 0; k < count; ++k) {
      out_.Put(wRows[k], DstRow(id, ih + k), t_.w.inSize);
    }
  }

  // W-inner rows whose W pass runs on eight rows' lanes (eightRows_), from the slab of a D index that
  // runs: the H step of gradInput rows ih .. ih + count - 1 (count <= 8; a short batch repeats its last
  // row in the spare lanes, whose results nothing stores) straight into the interleaved rows, their W pass,
  // and the store. Each row sums HStep's terms in its order (CombineEightRowsInterleaved), over whole
  // vectors as the AVX2 H step does (hStepElems_: the lanes past the row read scratch and land in
  // interleaved positions the W pass does not read); one prefetch dose per row summed, as HStep's caller
  // issues them.
  void EightRowsHAndW(int64_t id, int64_t ih, int count) {
    if constexpr (std::is_same_v<A, float> && w_inner::kEightRowLanes) {
      w_inner::TapList taps[kEightRows];
      int summed = 0;
      for (int r = 0; r < static_cast<int>(kEightRows); ++r) {
        const int64_t row = ih + std::min(r, count - 1);
        const int64_t e0 = p_.colH.begin[row], e1 = p_.colH.begin[row + 1];
        taps[r] = {p_.colH.src.data() + e0, p_.colH.w.data() + e0, static_cast<int>(e1 - e0)};
        if (r < count && e1 > e0) ++summed;
      }
      alignas(64) float il[kEightRows * w_inner::kEightRowsMaxSrc];
      alignas(64) float wOut[kEightRows * w_inner::kEightRowsMaxDst];
      // SlabRow's rows (W inner: no ring).
      w_inner::CombineEightRowsInterleaved(taps, dSlab_, ohFirst_, srcRowElems_, (srcRowElems_ + 7) / 8 * 8,
                                           il);
      prefetch_.IssueDoses(summed);
      // The W-pass rows follow each other whole, as gradInput's rows do when joinedRows_: then one store.
      const int64_t width = t_.w.inSize;
      float *rows[kEightRows];
      for (int r = 0; r < static_cast<int>(kEightRows); ++r) rows[r] = wOut + r * width;
      w_inner::EightRowsOnLanesW(p_.rowW, il, rows);
      if (joinedRows_) {
        out_.Put(wOut, DstRow(id, ih), count * width);
      } else {
        for (int k = 0; k < count; ++k) out_.Put(rows[k], DstRow(id, ih + k), width);
      }
    }
  }

  // The most taps a list of `lists` has.
  static int64_t LongestList(const RowGather<A> &lists) {
    int64_t longest = 0;
    for (int64_t i = 0; i < lists.dstLen; ++i)
      longest = std::max(longest, lists.begin[i + 1] - lists.begin[i]);
    return longest;
  }

  // The rows [*a, *b) of the batch ih .. ih + count - 1 whose H lists are in colH's halving run (its
  // lists are gradOut rows 2 ih - 1 .. 2 ih + 2 with the run's weights, one tap group); *a = *b = count
  // when none is.
  void HalvingRunRows(int64_t ih, int count, int *a, int *b) const {
    const HalvingRun<A> &run = p_.colH.halving;
    const int64_t lo = std::max<int64_t>(ih, run.begin), hi = std::min<int64_t>(ih + count, run.end);
    if (lo < hi) {
      *a = static_cast<int>(lo - ih);
      *b = static_cast<int>(hi - ih);
    }
  }

  // HStep of gradInput rows ih .. ih + rows - 1 of colH's halving run from the direct plane into the
  // rows at hOut (srcRowStride_ apart), the sums HStep makes, each gradOut row loaded once for the rows it
  // feeds (CombineLinearHalvingRows; split rows: CombineHalvingRowsSplit, each one widened once). One
  // prefetch dose per row, as HStep's callers issue them (the next item's rows). A whole batch also
  // requests, as it combines, the eight gradOut rows new to the batch kAheadBatches later (rows 2 ih + 8
  // kAheadBatches + 1 on), when the item's window holds them: the queue's doses run an item ahead, and the
  // hardware prefetchers do not follow ten short rows read side by side, so without these the item's own
  // rows come from memory as they are read. Not when FiniteRows has just read them (directRowsRead_).
  void HalvingHSteps(int64_t ih, int rows, A *hOut) {
    static_assert(kTapGroup >= 4, "a halving list is one tap group");
    constexpr int64_t kAheadBatches = 2;
    const int64_t stride = src_.strides[3];
    const T *first = directPlane_ + (2 * ih - 1) * stride;
    const int64_t aheadRow = 2 * ih + 2 * kRowBatch * kAheadBatches + 1;
    const bool dense = stride == srcRowElems_;  // eight rows one contiguous block
    const T *ahead =
        rows == kRowBatch && dense && !directRowsRead_ && aheadRow + 2 * kRowBatch <= ohFirst_ + slabRowCount_
            ? directPlane_ + aheadRow * stride
            : nullptr;
    if (splitRows_) {
      if constexpr (std::is_same_v<T, Bf16>) {
        CombineHalvingRowsSplit(hOut, srcRowStride_, rows, first, stride, p_.colH.halving.w, srcRowElems_,
                                ahead);
      }
    } else {
      CombineLinearHalvingRows(hOut, srcRowStride_, rows, first, stride, p_.colH.halving.w, srcRowElems_,
                               ahead);
    }
    prefetch_.IssueDoses(rows);
  }

  T *DstRow(int64_t id, int64_t ih) const { return dstBase_ + id * dst_.strides[2] + ih * dst_.strides[3]; }

  const PlanTables<A> &p_;
  DstRowWriter<T> out_;  // the destination rows of one D index
  int64_t srcRowElems_ = 0, srcRowStride_ = 0, dstRowStride_ = 0;
  int64_t hStepElems_ = 0;  // elements the H step from the slab computes per row (kHStepLanes)
  A *slab_ = nullptr, *hRows_ = nullptr, *wRows_ = nullptr, *tapRows_ = nullptr;
  A *dSlab_ = nullptr;  // the current D index's slab (SlabRow): slab_, or the two slabs in turn (carrySlab_)
  // bf16 split rows (TilingData::carrySlab): the other slab, where a D step sums the planes its index
  // shares with the next one into the next one's slab (carriedEntries_ of carriedId_'s list; -1: none).
  A *carrySlab_ = nullptr;
  int64_t carriedId_ = -1, carriedEntries_ = 0;
  struct DStepEntries {
    int64_t start = 0, shared = 0, end = 0;
  };
  DStepEntries entries_;  // PlanDStep's answer for the current D index
  const T *srcBase_ = nullptr;
  const T *directPlane_ = nullptr;  // DirectPlane of the current D index (W-inner rows)
  bool directRowsRead_ = false;     // FiniteRows has read the item's rows of directPlane_
  T *dstBase_ = nullptr;
  int64_t h0_ = 0, h1_ = 0, ohFirst_ = 0, slabRowCount_ = 0;
  int64_t w0_ = 0, w1_ = 0, colFirst_ = 0, colCount_ = 0;  // the W chunk and the gradOut columns it spans
  bool unitRows_ = false, denseSlab_ = false;
  int directBatch_ = 1;         // DirectRows' rows per batch
  bool streamDstRows_ = false;  // channels inner: the W pass streams the gradInput rows itself
  // bf16 rows whose W pass is a halving run: the D step (or, for a direct plane, the H step) widens
  // gradOut into split rows (CombineRowsSplit), the H step keeps them split, and the W pass reads them
  // split (HalvingRowsSplit): the same sums, with fewer instructions for the widening and the W pass.
  bool splitRows_ = false;
  // Split rows whose W pass narrows straight into gradInput (HalvingRowsSplitNarrow): unit-stride
  // destination rows, whole.
  bool narrowRows_ = false;
  w_inner::SplitEnds splitEnds_;  // rowW's ends for HalvingRowsSplitNarrow
  w_inner::RowEnds rowEnds_;      // rowW's ends for HalvingRowsWithEnds (rows not split)
  bool rowLanesW_ = false;  // batches of four whole rows W-resampled on the rows' lanes (FourRowsOnLanesW)
  // batches of eight whole rows H-stepped and W-resampled on the rows' lanes (EightRowsHAndW)
  bool eightRows_ = false;
  bool joinedRows_ = false;  // gradInput's W-inner rows follow each other whole (one store per batch)
  static constexpr int64_t kEightRows = 8;
  struct Window {
    int64_t h0 = -1, h1 = -1, first = 0, count = 0;
  };
  Window windows_[2];  // HWindow's last two answers, the latest first
  // fp16 on a tier that widens it by integer operations (dense slabs): the widened gradOut slabs
  // (WidenedSlab), widenedStride_ elements apart, and the plane each slot holds in this item (-1: none).
  A *widened_ = nullptr;
  int64_t widenedStride_ = 0;
  int64_t widenedOd_[tiling::kMaxWidenedPlanes] = {};
  bool rawWidening_ = false;  // the D weights allow raw slabs (times 2^112: exact and finite)
  bool rawSlabs_ = false;     // the item's slabs may still be raw (WidenedSlab)
  bool rawPairs_ = false;     // fp16 planes widened raw as the D step loads them (RawDStep)
  PrefetchQueue prefetch_;
};

}  // namespace

void RunBackwardWidthLast(const KernelArgs &args, int blockIdx) {
  RunItemsForDataType<BackwardWidthLastRunner>(args, blockIdx);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
