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
// Every element's sum runs over the same terms in the same order whatever the item split, so every
// core count gives the same bits. Scratch: the slab and a few rows (TilingData::slabRows).
#include <algorithm>
#include <cstring>

#include "op_kernel/combine_rows.h"
#include "op_kernel/item_loop.h"
#include "op_kernel/kernel_args.h"
#include "op_kernel/simd_row_ops.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::kRowBatch;
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

  void Run(int64_t item) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize);
    h0_ = b.h0;
    h1_ = b.h1;
    srcBase_ = PlaneBase<const T>(src_, t_, b.plane);
    dstBase_ = PlaneBase<T>(dst_, t_, b.plane);
    // The gradOut rows the chunk's H taps span (lists are in increasing oh, and monotone in ih).
    ohFirst_ = t_.h.outSize;
    int64_t ohLast = -1;
    for (int64_t ih = h0_; ih < h1_; ++ih) {
      const int64_t e0 = p_.colH.begin[ih], e1 = p_.colH.begin[ih + 1];
      if (e0 == e1) continue;
      ohFirst_ = std::min<int64_t>(ohFirst_, p_.colH.src[e0]);
      ohLast = std::max<int64_t>(ohLast, p_.colH.src[e1 - 1]);
    }
    slabRowCount_ = ohLast - ohFirst_ + 1;
    for (int64_t id = b.d0; id < b.d1; ++id) {
      const bool reached = p_.colD.begin[id] < p_.colD.begin[id + 1] && slabRowCount_ > 0;
      if (reached) DStep(id);
      for (int64_t ih = h0_; ih < h1_; ih += kRowBatch) {
        const int count = static_cast<int>(std::min<int64_t>(kRowBatch, h1_ - ih));
        HAndWSteps(id, ih, count, reached);
      }
    }
  }

 private:
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
        CombineRows(slab_, planes, w, k, slabRowCount_ * srcRowElems_, accumulate);
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
    }
    if (t_.layout == RowLayout::kWInner && count == kRowBatch) {
      GatherRows<kRowBatch>(p_.rowW, hRows, wRows);
    } else {
      for (int k = 0; k < count; ++k) {
        if (t_.layout == RowLayout::kWInner) {
          GatherRow(p_.rowW, hRows[k], wRows[k]);
        } else {
          GatherChannels(p_.rowW, hRows[k], wRows[k], t_.c);
        }
      }
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
};

}  // namespace

void RunBackwardWidthLast(const KernelArgs &args, int blockIdx) {
  switch (args.tiling->dataType) {
    case DataType::kFloat32:
      RunItems<BackwardWidthLastRunner<float>>(args, blockIdx);
      break;
    case DataType::kFloat64:
      RunItems<BackwardWidthLastRunner<double>>(args, blockIdx);
      break;
    case DataType::kFloat16:
      RunItems<BackwardWidthLastRunner<Fp16>>(args, blockIdx);
      break;
    case DataType::kBFloat16:
      RunItems<BackwardWidthLastRunner<Bf16>>(args, blockIdx);
      break;
  }
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA
