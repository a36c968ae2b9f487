// UpsampleTrilinear3dBackward kernel, width-first order (W -> H -> D, the seed's; Kernel::
// kBackwardWidthFirst), for gradients that grow: fused per item so that gradOut is read once and gradInput
// written once, with per-core scratch only.
//
// An item is (plane, D chunk, H chunk) of gradInput. For every gradOut D index od that reaches
// the chunk, each gradOut row (od, oh) is W-resampled (banded gather, vector steps), scattered
// into the H-pass rows of its two taps, and the finished H-pass plane is scattered into the
// D-pass accumulators of od's two taps. An accumulator is complete after its last od and is
// stored (converted to the dtype) straight into gradInput through its strides.
// Summation order per element: increasing od, then increasing oh, then the W list order; it does
// not depend on the item split, so every core count gives the same bits.
#include <algorithm>
#include <cstring>

#include "op_kernel/kernel_args.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/item_loop.h"
#include "op_kernel/resample_row_c_inner.h"
#include "op_kernel/resample_rows_w_inner.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/stream_stores.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::RowLayout;
using tiling::TilingData;

// How far ahead (in row batches) gradOut rows are requested. One batch takes a few hundred
// nanoseconds to compute, about DRAM latency, so two batches keep the stream ahead.
constexpr int64_t kPrefetchBatches = 2;

template <typename T>
class BackwardWidthFirstRunner : RunnerLaunch {
 public:
  using A = Acc<T>;

  BackwardWidthFirstRunner(const KernelArgs &args, A *scratch) : RunnerLaunch(args), p_(TablesOf<A>(args)) {
    srcRowElems_ = t_.w.outSize * rowWidth_;
    const int64_t bytes = static_cast<int64_t>(sizeof(A));
    srcRowStride_ = Align64(srcRowElems_, bytes);
    wRowStride_ = Align64(t_.rowElems, bytes);
    srcRow_ = scratch;
    wRow_ = srcRow_ + tiling::kRowBatch * srcRowStride_;
    hPlane_ = wRow_ + tiling::kRowBatch * wRowStride_;
    chunkElems_ = Align64(t_.hChunk * t_.rowElems, bytes);
    ring_ = hPlane_ + chunkElems_;
    denseRows_ = t_.layout == RowLayout::kWInner && src_.strides[4] == 1;
    // A chunk's gradInput rows of one D index are one contiguous run (unit-stride rows that follow
    // each other whole): stored by one call, so that a streamed destination is written in whole
    // lines (a row that is not a multiple of 64 bytes would leave part-written lines at its ends).
    chunkRuns_ = t_.streamStores && ContiguousRows(dst_, t_.layout, t_.c, t_.rowElems);
  }

  void Run(int64_t item, int64_t /*nextItem: no look-ahead here*/) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize, t_.w.inSize);
    d0_ = b.d0;
    d1_ = b.d1;
    h0_ = b.h0;
    h1_ = b.h1;
    const int64_t rows = h1_ - h0_;
    srcBase_ = PlaneBase<const T>(src_, t_, b.plane);
    dstBase_ = PlaneBase<T>(dst_, t_, b.plane);

    // Destinations no tap reaches are zero (a forward that skips input points). Every other H-pass row
    // is assigned by its first gradOut row, so the zeros are written only where some plane or row of
    // the chunk has no tap.
    bool untapped = false;
    for (int64_t id = d0_; id < d1_; ++id) untapped = untapped || p_.d.firstO[id] < 0;
    for (int64_t ih = h0_; ih < h1_; ++ih) untapped = untapped || p_.h.firstO[ih] < 0;
    if (untapped) std::fill(hPlane_, hPlane_ + rows * t_.rowElems, A(0));
    bool anyD = false;
    int64_t odFirst = t_.d.outSize, odLast = -1;
    for (int64_t id = d0_; id < d1_; ++id) {
      if (p_.d.firstO[id] < 0) {
        StorePlane(id, hPlane_);  // zeros
        continue;
      }
      anyD = true;
      odFirst = std::min(odFirst, p_.d.firstO[id]);
      odLast = std::max(odLast, p_.d.lastO[id]);
    }
    if (!anyD) return;
    ohFirst_ = t_.h.outSize;
    ohLast_ = -1;
    for (int64_t ih = h0_; ih < h1_; ++ih) {
      if (p_.h.firstO[ih] < 0) continue;
      ohFirst_ = std::min(ohFirst_, p_.h.firstO[ih]);
      ohLast_ = std::max(ohLast_, p_.h.lastO[ih]);
    }

    const int64_t planeElems = rows * t_.rowElems;
    for (int64_t od = odFirst; od <= odLast; ++od) {
      ResampleWH(od);
      const int64_t i0 = p_.d.i0[od], i1 = p_.d.i1[od];
      const bool in0 = i0 >= d0_ && i0 < d1_, in1 = i1 >= d0_ && i1 < d1_;
      // A destination plane whose only term is this od is stored straight from the H-pass plane
      // (w * plane, the ring's value exactly) without a round trip through the ring.
      const bool direct0 = in0 && i1 != i0 && p_.d.firstO[i0] == od && p_.d.lastO[i0] == od;
      const bool direct1 = in1 && i1 != i0 && p_.d.firstO[i1] == od && p_.d.lastO[i1] == od;
      if (in0 && !direct0) AxpyRow(RingPlane(i0), hPlane_, p_.d.l0[od], planeElems, p_.d.firstO[i0] == od);
      if (in1 && !direct1) {
        AxpyRow(RingPlane(i1), hPlane_, p_.d.l1[od], planeElems, i1 != i0 && p_.d.firstO[i1] == od);
      }
      if (direct0) {
        StorePlaneScaled(i0, hPlane_, p_.d.l0[od]);
      } else if (in0 && p_.d.lastO[i0] == od) {
        StorePlane(i0, RingPlane(i0));
      }
      if (direct1) {
        StorePlaneScaled(i1, hPlane_, p_.d.l1[od]);
      } else if (i1 != i0 && in1 && p_.d.lastO[i1] == od) {
        StorePlane(i1, RingPlane(i1));
      }
    }
  }

 private:
  A *RingPlane(int64_t id) { return ring_ + (id % t_.ringPlanes) * chunkElems_; }

  // W then H pass of gradOut plane od into hPlane_ (rows h0_..h1_ of the chunk), kRowBatch
  // gradOut rows at a time; the H scatter still visits oh in increasing order.
  void ResampleWH(int64_t od) {
    constexpr int kBatch = static_cast<int>(tiling::kRowBatch);
    for (int64_t oh = ohFirst_; oh <= ohLast_; oh += kBatch) {
      const int count = static_cast<int>(std::min<int64_t>(kBatch, ohLast_ - oh + 1));
      // Rows kPrefetchBatches batches ahead (same od) are requested while this batch computes.
      const int64_t aheadOh = oh + kPrefetchBatches * kBatch;
      const bool prefetch = denseRows_ && aheadOh + kBatch - 1 <= ohLast_;
      const char *ahead[kBatch];
      for (int k = 0; prefetch && k < kBatch; ++k) {
        ahead[k] =
            reinterpret_cast<const char *>(srcBase_ + od * src_.strides[2] + (aheadOh + k) * src_.strides[3]);
      }
      const A *rows[kBatch];
      A *wRows[kBatch];
      for (int k = 0; k < count; ++k) {
        rows[k] = SourceRow(od, oh + k, srcRow_ + k * srcRowStride_);
        wRows[k] = wRow_ + k * wRowStride_;
      }
      if (t_.layout == RowLayout::kWInner && count == kBatch) {
        // W pass with the H scatter fused into its epilogue.
        RowTargets<A> targets[kBatch];
        for (int k = 0; k < kBatch; ++k) targets[k] = HTargets(oh + k);
        ResampleRowsWInner<kBatch>(p_.rowW, rows, wRows, prefetch ? ahead : nullptr,
                                   static_cast<int64_t>(sizeof(T)), targets);
      } else {
        for (int k = 0; k < count; ++k) {
          const RowTargets<A> targets = HTargets(oh + k);
          if (t_.layout == RowLayout::kCInner) {
            ResampleRowCInner(p_.rowW, rows[k], wRows[k], t_.c, &targets);  // H scatter fused
            continue;
          }
          ResampleRowsWInner(p_.rowW, rows[k], wRows[k]);
          ApplyTargets(targets, wRows[k], t_.rowElems);
        }
      }
    }
  }

  // The H-pass rows gradOut row oh feeds, within this chunk: (i0, l0) then (i1, l1). A row is
  // assigned by its first contribution (its first oh; the second of two coinciding taps adds).
  RowTargets<A> HTargets(int64_t oh) const {
    RowTargets<A> t{};
    const int64_t i0 = p_.h.i0[oh], i1 = p_.h.i1[oh];
    if (i0 >= h0_ && i0 < h1_) {
      t.row[t.count] = hPlane_ + (i0 - h0_) * t_.rowElems;
      t.w[t.count] = p_.h.l0[oh];
      t.assign[t.count++] = p_.h.firstO[i0] == oh;
    }
    if (i1 >= h0_ && i1 < h1_) {
      t.row[t.count] = hPlane_ + (i1 - h0_) * t_.rowElems;
      t.w[t.count] = p_.h.l1[oh];
      t.assign[t.count++] = i1 != i0 && p_.h.firstO[i1] == oh;
    }
    return t;
  }

  // gradOut row (od, oh) as contiguous accumulation-type elements: in place when it already is.
  const A *SourceRow(int64_t od, int64_t oh, A *buffer) {
    return ReadRow(srcBase_ + od * src_.strides[2] + oh * src_.strides[3], src_, t_.layout, t_.w.outSize,
                   t_.c, buffer);
  }

  // Stores chunk rows of accumulator plane `acc` as gradInput[plane, id, h0_..h1_).
  void StorePlane(int64_t id, const A *acc) {
    if (chunkRuns_) {  // the accumulator rows are contiguous too (rowElems apart)
      WriteRow<T>(acc, dstBase_ + id * dst_.strides[2] + h0_ * dst_.strides[3], dst_, t_.layout,
                  t_.w.inSize * (h1_ - h0_), t_.c, true);
      return;
    }
    for (int64_t ih = h0_; ih < h1_; ++ih) {
      WriteRow<T>(acc + (ih - h0_) * t_.rowElems, dstBase_ + id * dst_.strides[2] + ih * dst_.strides[3],
                  dst_, t_.layout, t_.w.inSize, t_.c, t_.streamStores);
    }
  }

  // StorePlane of w * plane; the W-pass rows (free outside ResampleWH) serve as scratch.
  void StorePlaneScaled(int64_t id, const A *plane, A w) {
    if constexpr (std::is_same_v<T, float>) {
      if (chunkRuns_) {  // scaled as it is streamed, so no row of scratch is needed
        StoreRowStreamingScaled(plane, w, dstBase_ + id * dst_.strides[2] + h0_ * dst_.strides[3],
                                (h1_ - h0_) * t_.rowElems);
        return;
      }
    }
    for (int64_t ih = h0_; ih < h1_; ++ih) {
      WriteRowScaled<T>(plane + (ih - h0_) * t_.rowElems, w, wRow_,
                        dstBase_ + id * dst_.strides[2] + ih * dst_.strides[3], dst_, t_.layout, t_.w.inSize,
                        t_.c, t_.streamStores);
    }
  }

  const PlanTables<A> &p_;
  int64_t srcRowElems_ = 0, srcRowStride_ = 0, wRowStride_ = 0, chunkElems_ = 0;
  A *srcRow_ = nullptr, *wRow_ = nullptr, *hPlane_ = nullptr, *ring_ = nullptr;
  bool chunkRuns_ = false;
  const T *srcBase_ = nullptr;
  T *dstBase_ = nullptr;
  int64_t d0_ = 0, d1_ = 0, h0_ = 0, h1_ = 0, ohFirst_ = 0, ohLast_ = -1;
  bool denseRows_ = false;  // W-inner gradOut rows are contiguous: prefetch them ahead
};

}  // namespace

void RunBackwardWidthFirst(const KernelArgs &args, int blockIdx) {
  RunItemsForDataType<BackwardWidthFirstRunner>(args, blockIdx);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
