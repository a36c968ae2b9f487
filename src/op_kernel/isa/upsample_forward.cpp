// UpsampleTrilinear3d (forward) kernel: the adjoint of the backward's scheme, D -> H -> W, fused
// per item (plane, D chunk, H chunk of out) so that out is written once and self is read from
// cache. Per out D index: blend the two self planes (only the H rows the chunk needs; the 2-D
// operators' unit D axis, one tap of weight 1, reads the source rows in place instead), then per
// out row blend all of its H taps' rows in one pass (BlendOutputTaps) and W-resample it (banded
// gather, vector steps) into out. An exact 2x W takes the doubling vectors, linear or cubic
// (resample_rows_w_doubling.h, resample_rows_w_cubic2x.h), which write streamed, line-aligned out
// rows themselves (DoublingRowStreamed, CubicDoublingRowsStreamed).
// When W shrinks enough (Kernel::kForwardWidthFirst) every source row is W-resampled first and
// the D and H blends run on out-wide rows: they would otherwise blend the input's wide rows once per
// out row. The W-resampled rows of the last two source planes are kept, so that a plane shared by
// consecutive out D indices (every plane, when D grows) is converted and resampled once per item.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "op_kernel/kernel_args.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/blend_resample_c_inner_streamed.h"
#include "op_kernel/blend_tap_rows.h"
#include "op_kernel/item_loop.h"
#include "op_kernel/resample_rows_w_cubic2x_streamed.h"
#include "op_kernel/resample_rows_w_inner.h"
#include "op_kernel/resample_rows_w_row_lanes.h"
#include "op_kernel/row_arith.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::RowLayout;
using tiling::TilingData;

template <typename T>
class ForwardItemRunner : RunnerLaunch {
 public:
  using A = Acc<T>;

  ForwardItemRunner(const KernelArgs &args, A *scratch)
      : RunnerLaunch(args), p_(TablesOf<A>(args)), out_(dst_, t_, true) {
    srcRowElems_ = t_.w.inSize * rowWidth_;
    const int64_t bytes = static_cast<int64_t>(sizeof(A));
    const int64_t srcRowStride = Align64(srcRowElems_, bytes);
    rowA_ = scratch;
    rowB_ = rowA_ + srcRowStride;
    hRow_ = rowB_ + srcRowStride;
    dstRowStride_ = Align64(t_.rowElems, bytes);
    dstRow_ = hRow_ + tiling::kRowBatch * srcRowStride;
    dPlane_ = dstRow_ + tiling::kRowBatch * dstRowStride_;
    srcRowStride_ = srcRowStride;
    if constexpr (w_inner::kDoublingVectors && std::is_same_v<T, float>) {
      streamedW_ = t_.layout == RowLayout::kWInner && t_.streamStores &&
                   w_inner::StreamsDoublingRows(p_.rowW) && LineAlignedRows(dst_);
      streamedCubicW_ = t_.layout == RowLayout::kWInner && t_.streamStores &&
                        w_inner::StreamsCubicDoublingRows(p_.rowW) && LineAlignedRows(dst_);
      rowLanesW_ = t_.layout == RowLayout::kWInner && w_inner::RowLanesApplies(p_.rowW) &&
                   !w_inner::DoublingApplies(p_.rowW) && !w_inner::CubicDoublingApplies(p_.rowW);
    }
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
    if constexpr (std::is_same_v<T, float>) {
      streamDstRows_ = t_.layout == RowLayout::kCInner && t_.streamStores &&
                       LineAlignedPositions(dst_, t_.layout, t_.c) && TwoEntryLists(p_.rowW);
    }
#endif
    if constexpr (std::is_same_v<T, A>) {
      const int64_t *s = src_.strides;
      srcInPlace_ = t_.layout == RowLayout::kWInner ? s[4] == 1 : (s[1] == 1 && s[4] == t_.c);
    }
    widthFirst_ = t_.kernel == tiling::Kernel::kForwardWidthFirst;
#if defined(TRILINEAR3D_HAVE_VEC128)
    if constexpr (w_inner::kPairListsW && std::is_same_v<A, float>) {
      rowPairsW_ = t_.layout == RowLayout::kWInner && !widthFirst_ && !rowLanesW_ &&
                   !w_inner::DoublingApplies(p_.rowW) && !w_inner::CubicDoublingApplies(p_.rowW) &&
                   pairsW_.Build(p_.rowW);
      // Every batch then takes that path (one or two H taps per row), so that fp32 rows of unit stride
      // can be written by it directly, instead of through scratch rows that out_ copies.
      directPairsW_ =
          rowPairsW_ && std::is_same_v<T, float> && dst_.strides[4] == 1 && p_.h.moreBegin.empty();
    }
#endif
    if (widthFirst_) {
      // The tiling's W-first layout: one converted source row | two W-resampled rows (the taps streamed
      // row by row) | destination rows | D-pass rows | two cached planes of W-resampled source rows;
      // the last three hold as many rows as an item reads, destination-wide (dstRowStride_ apart).
      rowB_ = nullptr;
      wRows_[0] = rowA_ + srcRowStride;
      wRows_[1] = wRows_[0] + dstRowStride_;
      dstRow_ = wRows_[1] + dstRowStride_;
      dPlane_ = dstRow_ + tiling::kRowBatch * dstRowStride_;
      hRow_ = nullptr;
    }
  }

  void Run(int64_t item, int64_t /*nextItem: no look-ahead here*/) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.outSize, t_.h.outSize, t_.w.outSize);
    const int64_t od0 = b.d0, od1 = b.d1, oh0 = b.h0, oh1 = b.h1;
    srcBase_ = PlaneBase<const T>(src_, t_, b.plane);
    dstBase_ = PlaneBase<T>(dst_, t_, b.plane);
    const int64_t ihFirst = p_.h.i0[oh0];
    const int64_t ihLast = p_.h.LastSource(oh1 - 1);  // i1 = -1: one tap
    if (widthFirst_) {
      const int64_t planeElems = (ihLast - ihFirst + 1) * dstRowStride_;
      for (int k = 0; k < 2; ++k) {
        cached_[k] = {dPlane_ + (k + 1) * planeElems, -1};
      }
    }
    for (int64_t od = od0; od < od1; ++od) {
      if (widthFirst_) {
        WidthFirstPlane(od, od1, oh0, oh1, ihFirst, ihLast);
        continue;
      }
      // D pass over the H rows this chunk needs, unless it is the identity (one tap of weight 1: the
      // 2-D operators' unit D axis) on source rows the H pass can read in place: w * x with w = 1 is x.
      const A *hTapRows = dPlane_;
      int64_t hTapStride = srcRowStride_;
      if (srcInPlace_ && p_.d.i1[od] < 0 && p_.d.l0[od] == A(1)) {
        hTapRows = SourceRow(p_.d.i0[od], ihFirst, rowA_);
        hTapStride = src_.strides[3];
      } else {
        for (int64_t ih = ihFirst; ih <= ihLast; ++ih) {
          const auto [a, b] = DTapRows(od, ih);
          BlendRows(dPlane_ + (ih - ihFirst) * srcRowStride_, a, p_.d.l0[od], b, p_.d.l1[od], srcRowElems_);
        }
      }
      // H pass, then the W pass of kRowBatch rows at once (they share the gather's steps).
      out_.Begin(OutRow(od, oh0));  // out rows of od, in increasing oh, until Finish
      constexpr int kBatch = static_cast<int>(tiling::kRowBatch);
      for (int64_t oh = oh0; oh < oh1; oh += kBatch) {
        const int count = static_cast<int>(std::min<int64_t>(kBatch, oh1 - oh));
        const A *hRows[kBatch];
        A *outRows[kBatch];
        for (int k = 0; k < count; ++k) outRows[k] = dstRow_ + k * dstRowStride_;
#if defined(TRILINEAR3D_HAVE_VEC128)
        if constexpr (w_inner::kPairListsW && std::is_same_v<A, float>) {
          // The batch's H blend interleaved into hRow_ (four rows' room), then the W pass on the rows'
          // lanes from the table of one- and two-entry lists (also for a batch of fewer rows: the last
          // row repeated into the spare lanes, whose results stay in scratch).
          if (rowPairsW_ && FillBatchLaneTaps(oh, count, hTapRows, ihFirst, hTapStride)) {
            w_inner::BlendFourRowsInterleaved(laneTaps_, srcRowElems_, hRow_);
            for (int k = count; k < kBatch; ++k) outRows[k] = dstRow_ + k * dstRowStride_;
            if (directPairsW_) {
              if constexpr (std::is_same_v<T, float>) {
                for (int k = 0; k < count; ++k) outRows[k] = OutRow(od, oh + k);
              }
              pairsW_.Run(hRow_, outRows);
              continue;
            }
            pairsW_.Run(hRow_, outRows);
            for (int k = 0; k < count; ++k) out_.Put(outRows[k], OutRow(od, oh + k), t_.w.outSize);
            continue;
          }
        }
#endif
        if constexpr (w_inner::kRowLanesW && std::is_same_v<T, float>) {
          // The batch's H blend interleaved into hRow_ (four rows' room), then the W pass on the rows'
          // lanes.
          if (rowLanesW_ && count == kBatch && FillLaneTaps(oh, kBatch, hTapRows, ihFirst, hTapStride)) {
            w_inner::BlendFourRowsInterleaved(laneTaps_, srcRowElems_, hRow_);
            w_inner::RowLanesW(p_.rowW, hRow_, outRows);
            for (int k = 0; k < count; ++k) out_.Put(outRows[k], OutRow(od, oh + k), t_.w.outSize);
            continue;
          }
        }
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
        if constexpr (std::is_same_v<T, float>) {
          if (streamDstRows_ && p_.h.moreBegin.empty()) {  // H blend and W pass in one, into the out rows
            for (int k = 0; k < count; ++k) {
              const size_t r = static_cast<size_t>(oh + k);
              const int64_t i1 = p_.h.i1[r];
              c_inner::BlendResampleRowCInnerStreamed(
                  p_.rowW, hTapRows + (p_.h.i0[r] - ihFirst) * hTapStride, p_.h.l0[r],
                  i1 < 0 ? nullptr : hTapRows + (i1 - ihFirst) * hTapStride, p_.h.l1[r], t_.c,
                  OutRow(od, oh + k));
            }
            continue;
          }
        }
#endif
        for (int k = 0; k < count; ++k) {
          A *hRow = hRow_ + k * srcRowStride_;
          BlendOutputTaps(hRow, p_.h, oh + k, hTapRows, ihFirst, hTapStride, srcRowElems_);
          hRows[k] = hRow;
        }
        if constexpr (w_inner::kDoublingVectors && std::is_same_v<T, float>) {
          if (streamedW_) {  // the W pass writes the out rows itself
            for (int k = 0; k < count; ++k)
              w_inner::DoublingRowStreamed(p_.rowW, hRows[k], OutRow(od, oh + k));
            continue;
          }
          if (streamedCubicW_) {
            for (int k = 0; k < count; ++k) outRows[k] = OutRow(od, oh + k);
            w_inner::CubicDoublingRowsStreamed(p_.rowW, hRows, outRows, count);
            continue;
          }
        }
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
        if constexpr (std::is_same_v<T, float>) {
          if (streamDstRows_) {  // the W pass writes the out rows itself
            for (int k = 0; k < count; ++k) StreamResampleW(hRows[k], OutRow(od, oh + k));
            continue;
          }
        }
#endif
        if (t_.layout == RowLayout::kWInner && count == kBatch) {
          ResampleRowsWInner<kBatch>(p_.rowW, hRows, outRows);
        } else {
          for (int k = 0; k < count; ++k) ResampleW(hRows[k], outRows[k]);
        }
        for (int k = 0; k < count; ++k) out_.Put(outRows[k], OutRow(od, oh + k), t_.w.outSize);
      }
      out_.Finish();
    }
  }

 private:
  // Out D index od, rows [oh0, oh1), W first: the two D tap planes' W-resampled rows (from the cache,
  // or resampled row by row), blended into out-wide D-pass rows, and each out row blended from two
  // of those.
  void WidthFirstPlane(int64_t od, int64_t od1, int64_t oh0, int64_t oh1, int64_t ihFirst, int64_t ihLast) {
    const int64_t i0 = p_.d.i0[od], i1 = p_.d.i1[od];
    // A tap plane the next out D index of the item also reads is resampled whole into a slot;
    // otherwise row by row (a plane read once gains nothing from a pass through the cache).
    auto nextReads = [&](int64_t id) {
      return od + 1 < od1 && (p_.d.i0[od + 1] == id || p_.d.i1[od + 1] == id);
    };
    const TapRows a = TapPlane(i0, -1, nextReads(i0), ihFirst, ihLast);
    const TapRows b = i1 == i0 || i1 < 0 ? a : TapPlane(i1, a.slot, nextReads(i1), ihFirst, ihLast);
    for (int64_t ih = ihFirst; ih <= ihLast; ++ih) {
      const A *rowA = TapRow(a, i0, ih, ihFirst);
      const A *rowB = i1 < 0 ? nullptr : i1 == i0 ? rowA : TapRow(b, i1, ih, ihFirst);
      BlendRows(dPlane_ + (ih - ihFirst) * dstRowStride_, rowA, p_.d.l0[od], rowB, p_.d.l1[od], t_.rowElems);
    }
    out_.Begin(OutRow(od, oh0));  // out rows of od, in increasing oh, until Finish
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      BlendOutputTaps(dstRow_, p_.h, oh, dPlane_, ihFirst, dstRowStride_, t_.rowElems);
      out_.Put(dstRow_, OutRow(od, oh), t_.w.outSize);
    }
    out_.Finish();
  }

  // Where a W-first tap plane's resampled rows are: a slot of cached_ holding rows [ihFirst, ihLast]
  // (whole), or, streamed, wRows_[slot], refilled for each row just before the blend reads it.
  struct TapRows {
    int slot;
    bool whole;
  };

  // Source plane id's rows for this out D index: the slot that holds them, else a slot other than
  // `keep` (the other tap's), filled whole when `reuse` (the next out D index reads the plane too).
  // Taps only move forward within an item, so the slot given up is the one with the lower plane.
  TapRows TapPlane(int64_t id, int keep, bool reuse, int64_t ihFirst, int64_t ihLast) {
    for (int k = 0; k < 2; ++k) {
      if (cached_[k].plane == id) return {k, true};
    }
    int slot = cached_[0].plane <= cached_[1].plane ? 0 : 1;
    if (slot == keep) slot = 1 - slot;
    if (!reuse) return {slot, false};  // streamed through wRows_[slot]: the slot's rows stay as they are
    for (int64_t ih = ihFirst; ih <= ihLast; ++ih) {
      ResampleW(SourceRow(id, ih, rowA_), cached_[slot].rows + (ih - ihFirst) * dstRowStride_);
    }
    cached_[slot].plane = id;
    return {slot, true};
  }

  const A *TapRow(const TapRows &tap, int64_t id, int64_t ih, int64_t ihFirst) {
    if (tap.whole) return cached_[tap.slot].rows + (ih - ihFirst) * dstRowStride_;
    ResampleW(SourceRow(id, ih, rowA_), wRows_[tap.slot]);
    return wRows_[tap.slot];
  }

  // Row ih of out D index od's two D tap planes (in place or converted into rowA_ / rowB_), W last; one
  // pointer twice when both taps are one plane (an edge, or D of size 1), so it is converted once; null
  // for the second of a unit axis's one tap.
  std::pair<const A *, const A *> DTapRows(int64_t od, int64_t ih) {
    const A *a = SourceRow(p_.d.i0[od], ih, rowA_);
    const int64_t i1 = p_.d.i1[od];
    return {a, i1 < 0 ? nullptr : i1 == p_.d.i0[od] ? a : SourceRow(i1, ih, rowB_)};
  }

  // laneTaps_ = the H taps of out rows oh .. oh + count - 1 (BlendOutputTaps' order), tap i's row at
  // rows + (i - first) * stride; false (laneTaps_ unusable) when a row has more taps than it holds.
  bool FillLaneTaps(int64_t oh, int count, const A *rows, int64_t first, int64_t stride) {
    const TapTable<A> &h = p_.h;
    for (int r = 0; r < count; ++r) {
      const size_t k = static_cast<size_t>(oh + r);
      const int64_t more = h.moreBegin.empty() ? 0 : h.moreBegin[k + 1] - h.moreBegin[k];
      if (2 + more > w_inner::kRowLanesMaxTaps) return false;
      w_inner::RowLanesTaps &t = laneTaps_[r];
      t.count = 0;
      ForEachTapRow(h, oh + r, rows, first, stride, [&t](const A *row, A w) {
        t.row[t.count] = row;
        t.w[t.count++] = w;
      });
    }
    return true;
  }

#if defined(TRILINEAR3D_HAVE_VEC128)
  // FillLaneTaps for a batch of count rows (1 to 4): the lanes past the batch's last row repeat its taps.
  bool FillBatchLaneTaps(int64_t oh, int count, const A *rows, int64_t first, int64_t stride) {
    const TapTable<A> &h = p_.h;
    if (h.moreBegin.empty()) {  // one or two taps (the linear filters): ForEachTapRow's, the tables read once
      const int64_t *__restrict i0 = h.i0.data(), *__restrict i1 = h.i1.data();
      const A *__restrict l0 = h.l0.data(), *__restrict l1 = h.l1.data();
      for (int r = 0; r < 4; ++r) {
        const int64_t o = oh + std::min(r, count - 1);
        w_inner::RowLanesTaps &t = laneTaps_[r];
        t.row[0] = rows + (i0[o] - first) * stride;
        t.w[0] = l0[o];
        t.count = 1;
        if (i1[o] >= 0) {
          t.row[1] = rows + (i1[o] - first) * stride;
          t.w[1] = l1[o];
          t.count = 2;
        }
      }
      return true;
    }
    for (int r = 0; r < 4; ++r) {
      const int64_t o = oh + std::min(r, count - 1);
      const size_t k = static_cast<size_t>(o);
      const int64_t more = h.moreBegin.empty() ? 0 : h.moreBegin[k + 1] - h.moreBegin[k];
      if (2 + more > w_inner::kRowLanesMaxTaps) return false;
      w_inner::RowLanesTaps &t = laneTaps_[r];
      t.count = 0;
      ForEachTapRow(h, o, rows, first, stride, [&t](const A *row, A w) {
        t.row[t.count] = row;
        t.w[t.count++] = w;
      });
    }
    return true;
  }
#endif

  const A *SourceRow(int64_t id, int64_t ih, A *buffer) {
    return ReadRow(srcBase_ + id * src_.strides[2] + ih * src_.strides[3], src_, t_.layout, t_.w.inSize, t_.c,
                   buffer);
  }

  void ResampleW(const A *hRow, A *outRow) {
    const RowGather<A> &g = p_.rowW;
    if (t_.layout == RowLayout::kWInner) {
      ResampleRowsWInner(g, hRow, outRow);
      return;
    }
    const int64_t c = t_.c;
    for (int64_t ow = 0; ow < g.dstLen; ++ow) {
      const int64_t e = g.begin[ow], end = g.begin[ow + 1];  // the linear filter: two entries
      BlendRows(outRow + ow * c, hRow + g.src[e] * c, g.w[e], end > e + 1 ? hRow + g.src[e + 1] * c : nullptr,
                end > e + 1 ? g.w[e + 1] : A(0), c);
      for (int64_t m = e + 2; m < end; ++m) AxpyRow(outRow + ow * c, hRow + g.src[m] * c, g.w[m], c, false);
    }
  }

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
  // ResampleW of a channels-inner row straight into a line-aligned out row (streamDstRows_): each
  // position's two-entry blend with StreamBlendRows, BlendRows' operations.
  void StreamResampleW(const float *hRow, float *outRow) {
    const RowGather<float> &g = p_.rowW;
    const int64_t c = t_.c;
    for (int64_t ow = 0; ow < g.dstLen; ++ow) {
      const int64_t e = g.begin[ow], end = g.begin[ow + 1];
      StreamBlendRows(outRow + ow * c, hRow + g.src[e] * c, g.w[e],
                      end > e + 1 ? hRow + g.src[e + 1] * c : nullptr, end > e + 1 ? g.w[e + 1] : 0.0f, c);
    }
  }
#endif

  // Whether every output of g takes one or two entries (the linear filter's W gather), as
  // StreamResampleW's blends do.
  static bool TwoEntryLists(const RowGather<A> &g) {
    for (int64_t ow = 0; ow < g.dstLen; ++ow) {
      const int64_t n = g.begin[ow + 1] - g.begin[ow];
      if (n < 1 || n > 2) return false;
    }
    return true;
  }

  T *OutRow(int64_t od, int64_t oh) const { return dstBase_ + od * dst_.strides[2] + oh * dst_.strides[3]; }

  // Whether every W-inner row of the view starts a 64-byte line and is contiguous.
  static bool LineAlignedRows(const TensorView5d &view) {
    constexpr int64_t kLineElems = 64 / static_cast<int64_t>(sizeof(T));
    bool aligned = reinterpret_cast<uintptr_t>(view.data) % 64 == 0 && view.strides[4] == 1;
    for (int axis = 0; axis < 4; ++axis) aligned = aligned && view.strides[axis] % kLineElems == 0;
    return aligned;
  }

  const PlanTables<A> &p_;
  DstRowWriter<T> out_;  // the destination rows of one D index
  int64_t srcRowElems_ = 0, srcRowStride_ = 0, dstRowStride_ = 0;
  A *rowA_ = nullptr, *rowB_ = nullptr, *hRow_ = nullptr, *dstRow_ = nullptr, *dPlane_ = nullptr;
  struct CachedRows {
    A *rows;
    int64_t plane;  // source D index whose W-resampled rows these are; -1: none yet
  };
  CachedRows cached_[2] = {};  // W first: the two most recent D tap planes, per item
  A *wRows_[2] = {};           // W first: the W-resampled rows of taps streamed row by row
  bool widthFirst_ = false;
  bool streamedW_ = false;       // rows of an exact 2x W, streamed into line-aligned out rows by the W pass
  bool streamedCubicW_ = false;  // the same for the cubic exact 2x W
  bool rowLanesW_ = false;       // batches of four rows W-resampled on the rows' lanes (RowLanesW)
  bool streamDstRows_ = false;   // channels inner: the W pass streams line-aligned out rows itself
  w_inner::RowLanesTaps laneTaps_[tiling::kRowBatch];
  bool srcInPlace_ = false;  // source rows are read in place (ReadRow converts nothing)
  const T *srcBase_ = nullptr;
  T *dstBase_ = nullptr;
#if defined(TRILINEAR3D_HAVE_VEC128)  // (the AVX tiers' runner keeps its layout)
  bool rowPairsW_ = false;            // batches of four rows W-resampled on the rows' lanes through pairsW_
  bool directPairsW_ = false;         // rowPairsW_ writing the out rows itself
  w_inner::PairListsW pairsW_;
#endif
};

}  // namespace

void RunForward(const KernelArgs &args, int blockIdx) {
  RunItemsForDataType<ForwardItemRunner>(args, blockIdx);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
