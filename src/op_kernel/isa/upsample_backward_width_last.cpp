// UpsampleTrilinear3dBackward kernel, width-last order (D -> H -> W; TilingData::passOrder), for
// gradients that shrink: the D and H passes combine whole rows while the data is large, and the
// W pass, the only one that permutes lanes, runs on the smallest tensor.
//
// An item is (plane, D chunk, H chunk) of gradInput. Per gradInput D index id:
//   D step: slab[oh] = sum over id's gradOut planes od (increasing) of wD * gradOut[od, oh, :], for
//           the gradOut rows oh the chunk's H taps span (a contiguous block of gradOut when rows
//           are dense: one long row combination per kTapGroup planes, converted on load);
//   H step: hRow = sum over ih's taps oh (increasing) of wH * slab[oh], kRowBatch rows at a time;
//   W pass: banded gather of the kRowBatch rows (vector steps), stored into gradInput.
// While id is computed, the gradOut slabs the next D step needs (beyond those it shares with id) are
// requested in doses (PrefetchQueue), so that reading gradOut overlaps computing.
// Every element's sum runs over the same terms in the same order whatever the item split, so every
// core count gives the same bits. Scratch: the slab and a few rows (TilingData::slabRows).
#include <algorithm>
#include <cstring>

#include "op_kernel/combine_rows.h"
#include "op_kernel/item_loop.h"
#include "op_kernel/kernel_args.h"
#include "op_kernel/prefetch_queue.h"
#include "op_kernel/simd_row_ops.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::kRowBatch;
static_assert(tiling::kRowBatch == 4, "the W pass takes rows four at a time");
using tiling::kTapGroup;
using tiling::RowLayout;
using tiling::TilingData;

template <typename T>
class BackwardWidthLastRunner {
 public:
  using A = Acc<T>;

  BackwardWidthLastRunner(const KernelArgs &args, A *scratch)
      : t_(*args.tiling),
        p_(*static_cast<const PlanTables<A> *>(args.tables)),
        src_(args.src),
        dst_(args.dst) {
    const bool cInner = t_.layout == RowLayout::kCInner;
    srcRowElems_ = t_.w.outSize * (cInner ? t_.c : 1);
    const int64_t bytes = static_cast<int64_t>(sizeof(A));
    const int64_t srcRowStride = Align64(srcRowElems_, bytes);
    dstRowStride_ = Align64(t_.rowElems, bytes);
    slab_ = scratch;
    hRows_ = slab_ + Align64(t_.slabRows * srcRowElems_, bytes);
    wRows_ = hRows_ + kRowBatch * srcRowStride;
    tapRows_ = wRows_ + kRowBatch * dstRowStride_;
    srcRowStride_ = srcRowStride;
    // Rows whose elements are contiguous in memory (the dtype, unit stride), and whether
    // consecutive H rows follow each other (then a slab of rows is one contiguous run).
    const int64_t *s = src_.strides;
    unitRows_ = cInner ? (s[1] == 1 && s[4] == t_.c) : s[4] == 1;
    denseSlab_ = unitRows_ && s[3] == srcRowElems_;
  }

  void Run(int64_t item, int64_t nextItem) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize);
    h0_ = b.h0;
    h1_ = b.h1;
    srcBase_ = PlaneBase<const T>(src_, t_, b.plane);
    dstBase_ = PlaneBase<T>(dst_, t_, b.plane);
    SlabWindow(h0_, h1_, &ohFirst_, &slabRowCount_);
    for (int64_t id = b.d0; id < b.d1; ++id) {
      QueueNextPlanes(b, id, nextItem);
      const bool reached = p_.colD.begin[id] < p_.colD.begin[id + 1] && slabRowCount_ > 0;
      if (reached) DStep(id);
      for (int64_t ih = h0_; ih < h1_; ih += kRowBatch) {
        const int count = static_cast<int>(std::min<int64_t>(kRowBatch, h1_ - ih));
        HAndWSteps(id, ih, count, reached);
      }
    }
  }

 private:
  // Elements per piece of a D step's long row combination; a prefetch dose follows each piece.
  static constexpr int64_t kPieceElems = 1024;

  // The gradOut rows the taps of gradInput rows [h0, h1) span: first and count (0: none).
  // Lists are in increasing oh and monotone in ih.
  void SlabWindow(int64_t h0, int64_t h1, int64_t *first, int64_t *count) const {
    int64_t lo = t_.h.outSize, hi = -1;
    for (int64_t ih = h0; ih < h1; ++ih) {
      const int64_t e0 = p_.colH.begin[ih], e1 = p_.colH.begin[ih + 1];
      if (e0 == e1) continue;
      lo = std::min<int64_t>(lo, p_.colH.src[e0]);
      hi = std::max<int64_t>(hi, p_.colH.src[e1 - 1]);
    }
    *first = lo;
    *count = hi - lo + 1;
  }

  // Queues the gradOut slabs the next D step will need that this one does not read: the planes
  // of id + 1 beyond id's last, or, after the item's last id, the next item's first planes. They
  // are requested in doses while id is computed (dense slabs only: one range per plane).
  void QueueNextPlanes(const ItemBounds &b, int64_t id, int64_t nextItem) {
    prefetch_.Clear();
    if (!denseSlab_) return;
    const int64_t rowBytes = srcRowElems_ * static_cast<int64_t>(sizeof(T));
    if (id + 1 < b.d1) {
      const int64_t lastOd =
          p_.colD.begin[id] < p_.colD.begin[id + 1] ? p_.colD.src[p_.colD.begin[id + 1] - 1] : -1;
      for (int64_t e = p_.colD.begin[id + 1]; e < p_.colD.begin[id + 2]; ++e) {
        if (p_.colD.src[e] <= lastOd) continue;
        prefetch_.Add(srcBase_ + p_.colD.src[e] * src_.strides[2] + ohFirst_ * src_.strides[3],
                      slabRowCount_ * rowBytes);
      }
    } else if (nextItem < t_.itemCount) {
      const ItemBounds n = DecodeItem(t_, nextItem, t_.d.inSize, t_.h.inSize);
      int64_t first = 0, count = 0;
      SlabWindow(n.h0, n.h1, &first, &count);
      const T *base = PlaneBase<const T>(src_, t_, n.plane);
      for (int64_t e = p_.colD.begin[n.d0]; e < p_.colD.begin[n.d0 + 1]; ++e) {
        prefetch_.Add(base + p_.colD.src[e] * src_.strides[2] + first * src_.strides[3], count * rowBytes);
      }
    }
    const int64_t groups = (p_.colD.begin[id + 1] - p_.colD.begin[id] + kTapGroup - 1) / kTapGroup;
    const int64_t pieces = groups * ((slabRowCount_ * srcRowElems_ + kPieceElems - 1) / kPieceElems);
    prefetch_.PlanDoses(pieces + (h1_ - h0_));
  }

  // slab_[r] = D pass of gradOut rows ohFirst_ + r for gradInput index id.
  void DStep(int64_t id) {
    const int64_t e0 = p_.colD.begin[id], e1 = p_.colD.begin[id + 1];
    for (int64_t g = e0; g < e1; g += kTapGroup) {
      const int k = static_cast<int>(std::min<int64_t>(kTapGroup, e1 - g));
      const bool accumulate = g > e0;
      const T *planes[kTapGroup];
      for (int j = 0; j < k; ++j) {
        planes[j] = srcBase_ + p_.colD.src[g + j] * src_.strides[2] + ohFirst_ * src_.strides[3];
      }
      const A *w = p_.colD.w.data() + g;
      if (denseSlab_) {
        const int64_t n = slabRowCount_ * srcRowElems_;
        for (int64_t x = 0; x < n; x += kPieceElems) {
          const T *at[kTapGroup];
          for (int j = 0; j < k; ++j) at[j] = planes[j] + x;
          CombineRows(slab_ + x, at, w, k, std::min(kPieceElems, n - x), accumulate);
          prefetch_.IssueDose();
        }
        continue;
      }
      for (int64_t r = 0; r < slabRowCount_; ++r) {
        A *out = slab_ + r * srcRowElems_;
        const T *rows[kTapGroup];
        for (int j = 0; j < k; ++j) rows[j] = planes[j] + r * src_.strides[3];
        if (unitRows_) {
          CombineRows(out, rows, w, k, srcRowElems_, accumulate);
          continue;
        }
        const A *packed[kTapGroup];  // strided rows: converted and packed first
        for (int j = 0; j < k; ++j) {
          packed[j] = ReadRow(rows[j], src_, t_.layout, t_.w.outSize, t_.c, tapRows_ + j * srcRowStride_);
        }
        CombineRows(out, packed, w, k, srcRowElems_, accumulate);
      }
    }
  }

  // H step of gradInput rows ih .. ih + count - 1 from the slab, their W pass, and the store.
  // Rows no tap reaches (or a D index none reaches) are zero.
  void HAndWSteps(int64_t id, int64_t ih, int count, bool reached) {
    const A *hRows[kRowBatch];
    A *wRows[kRowBatch];
    for (int k = 0; k < count; ++k) {
      A *hRow = hRows_ + k * srcRowStride_;
      hRows[k] = hRow;
      wRows[k] = wRows_ + k * dstRowStride_;
      const int64_t e0 = p_.colH.begin[ih + k], e1 = p_.colH.begin[ih + k + 1];
      if (!reached || e0 == e1) {
        std::fill(hRow, hRow + srcRowElems_, A(0));
        continue;
      }
      const A *rows[kTapGroup];
      for (int64_t g = e0; g < e1; g += kTapGroup) {
        const int n = static_cast<int>(std::min<int64_t>(kTapGroup, e1 - g));
        for (int j = 0; j < n; ++j) rows[j] = slab_ + (p_.colH.src[g + j] - ohFirst_) * srcRowElems_;
        CombineRows(hRow, rows, p_.colH.w.data() + g, n, srcRowElems_, g > e0);
      }
      prefetch_.IssueDose();
    }
    if (t_.layout == RowLayout::kWInner) {
      // A short last batch repeats its first row: four rows cost little more than one, and the
      // extra results land in unused W-pass rows.
      for (int k = count; k < kRowBatch; ++k) {
        hRows[k] = hRows[0];
        wRows[k] = wRows_ + k * dstRowStride_;
      }
      GatherFourRows(p_.rowW, hRows, wRows);
    } else {
      for (int k = 0; k < count; ++k) GatherChannels(p_.rowW, hRows[k], wRows[k], t_.c);
    }
    for (int k = 0; k < count; ++k) {
      WriteRow<T>(wRows[k], dstBase_ + id * dst_.strides[2] + (ih + k) * dst_.strides[3], dst_, t_.layout,
                  t_.w.inSize, t_.c, t_.streamStores);
    }
  }

  const TilingData &t_;
  const PlanTables<A> &p_;
  const TensorView5d &src_;
  const TensorView5d &dst_;
  int64_t srcRowElems_ = 0, srcRowStride_ = 0, dstRowStride_ = 0;
  A *slab_ = nullptr, *hRows_ = nullptr, *wRows_ = nullptr, *tapRows_ = nullptr;
  const T *srcBase_ = nullptr;
  T *dstBase_ = nullptr;
  int64_t h0_ = 0, h1_ = 0, ohFirst_ = 0, slabRowCount_ = 0;
  bool unitRows_ = false, denseSlab_ = false;
  PrefetchQueue prefetch_;
};

}  // namespace

void RunBackwardWidthLast(const KernelArgs &args, int blockIdx) {
  RunItemsForDataType<BackwardWidthLastRunner>(args, blockIdx);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA
