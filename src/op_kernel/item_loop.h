// What every kernel does around its items (the width-first, width-last and doubling-stencil
// backward kernels and the forward kernel), compiled once per ISA (included only from isa/*.cpp):
// a core's scratch slice of the workspace, the loop over the shared item counter, and reading and
// writing a row of a 5-D view in either row layout.
#ifndef TRILINEAR3D_OP_KERNEL_ITEM_LOOP_H_
#define TRILINEAR3D_OP_KERNEL_ITEM_LOOP_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>
#include <type_traits>

#include "op_kernel/convert_rows.h"
#include "op_kernel/kernel_args.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/stream_stores.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

// Elements of a buffer of `elems` elements rounded up to 64 bytes: the scratch layout tiling counts.
inline int64_t Align64(int64_t elems, int64_t elemBytes) {
  return (elems * elemBytes + 63) / 64 * 64 / elemBytes;
}

// What every runner reads of its launch: the tiling, the source and destination views, and the
// elements per W position of a row (C when channels are innermost, else 1). Runners derive from it,
// so the launch's names mean the same in every kernel; each keeps its typed tables (TablesOf) itself.
struct RunnerLaunch {
  explicit RunnerLaunch(const KernelArgs &args)
      : t_(*args.tiling),
        src_(args.src),
        dst_(args.dst),
        rowWidth_(t_.layout == tiling::RowLayout::kCInner ? t_.c : 1) {}

  const tiling::TilingData &t_;
  const TensorView5d &src_;
  const TensorView5d &dst_;
  const int64_t rowWidth_;
};

// The launch's index and weight tables, in the accumulation type A of its dtype.
template <typename A>
const PlanTables<A> &TablesOf(const KernelArgs &args) {
  return *static_cast<const PlanTables<A> *>(args.tables);
}

// Core blockIdx: builds a Runner on its slice of the workspace, then runs items taken from the shared
// counter until none are left. Which core runs an item does not change its result.
template <typename Runner>
void RunItems(const KernelArgs &args, int blockIdx) {
  using A = typename Runner::A;
  const tiling::TilingData &t = *args.tiling;
  auto *scratch = reinterpret_cast<A *>(static_cast<char *>(args.workspace) +
                                        static_cast<int64_t>(blockIdx) * t.scratchElemsPerCore *
                                            static_cast<int64_t>(sizeof(A)));
  Runner runner(args, scratch);
  // The core's next item is taken before the current one runs, so that the runner can request the
  // next item's first data while it computes (Run's second argument; >= itemCount: none).
  int64_t item = args.nextItem->fetch_add(1);
  while (item < t.itemCount) {
    const int64_t next = args.nextItem->fetch_add(1);
    runner.Run(item, next);
    item = next;
  }
  StreamFence();  // non-temporal stores are visible before the launch reports completion
}

// RunItems with Runner<T> for the launch's dtype T (fp32, fp64, fp16 or bf16 storage).
template <template <typename> class Runner>
void RunItemsForDataType(const KernelArgs &args, int blockIdx) {
  switch (args.tiling->dataType) {
    case DataType::kFloat32:
      RunItems<Runner<float>>(args, blockIdx);
      break;
    case DataType::kFloat64:
      RunItems<Runner<double>>(args, blockIdx);
      break;
    case DataType::kFloat16:
      RunItems<Runner<Fp16>>(args, blockIdx);
      break;
    case DataType::kBFloat16:
      RunItems<Runner<Bf16>>(args, blockIdx);
      break;
    case DataType::kUInt8:  // the nearest kernels' forward only (kernel_registry.cpp)
      break;
  }
}

// The destination block an item covers: plane, D indices [d0, d1), H indices [h0, h1) and W indices
// [w0, w1) of the destination (gradInput backward, out forward; dstD / dstH / dstW its sizes).
// Items run W chunk fastest, then H chunk, D chunk, plane. Only the width-last backward cuts W
// (TilingData::wChunkCount > 1); the other kernels' items span all of W.
struct ItemBounds {
  int64_t plane, d0, d1, h0, h1, w0, w1;
};

inline ItemBounds DecodeItem(const tiling::TilingData &t, int64_t item, int64_t dstD, int64_t dstH,
                             int64_t dstW) {
  const int64_t wc = item % t.wChunkCount;
  const int64_t hc = (item / t.wChunkCount) % t.hChunkCount;
  const int64_t dc = (item / (t.wChunkCount * t.hChunkCount)) % t.dChunkCount;
  auto end = [](int64_t start, int64_t chunk, int64_t size) {
    return start + chunk < size ? start + chunk : size;
  };
  ItemBounds b;
  b.plane = item / (t.wChunkCount * t.hChunkCount * t.dChunkCount);
  b.d0 = dc * t.dChunk;
  b.d1 = end(b.d0, t.dChunk, dstD);
  b.h0 = hc * t.hChunk;
  b.h1 = end(b.h0, t.hChunk, dstH);
  b.w0 = wc * t.wChunk;
  b.w1 = end(b.w0, t.wChunk, dstW);
  return b;
}

// Element (plane, 0, 0, 0) of a view: a plane is (n, c) with W inner, or n with C inner.
template <typename T>
T *PlaneBase(const TensorView5d &view, const tiling::TilingData &t, int64_t plane) {
  T *data = static_cast<T *>(view.data);
  if (t.layout == tiling::RowLayout::kCInner) return data + plane * view.strides[0];
  return data + (plane / t.c) * view.strides[0] + (plane % t.c) * view.strides[1];
}

// A row of a 5-D view starting at `row`, `width` W positions long (times c channels in the
// channels-inner layout), as contiguous accumulation-type elements: the row itself when it already
// is, else converted and packed into buffer.
template <typename T>
const Acc<T> *ReadRow(const T *row, const TensorView5d &view, tiling::RowLayout layout, int64_t width,
                      int64_t c, Acc<T> *buffer) {
  const int64_t sW = view.strides[4];
  if (layout == tiling::RowLayout::kWInner) {
    if constexpr (std::is_same_v<T, Acc<T>>) {
      if (sW == 1) return row;
    }
    LoadRow(row, sW, buffer, width);
    return buffer;
  }
  // C inner: element (w, k) at w * sW + k * sC.
  const int64_t sC = view.strides[1];
  if constexpr (std::is_same_v<T, Acc<T>>) {
    if (sC == 1 && sW == c) return row;
  }
  for (int64_t w = 0; w < width; ++w) LoadRow(row + w * sW, sC, buffer + w * c, c);
  return buffer;
}

// Stores a contiguous accumulation-type row (the layout of ReadRow's result) into the view's row at
// `out`, converting to T; contiguous rows of large destinations bypass the caches (stream).
template <typename T>
void WriteRow(const Acc<T> *row, T *out, const TensorView5d &view, tiling::RowLayout layout, int64_t width,
              int64_t c, bool stream) {
  const int64_t sW = view.strides[4], sC = view.strides[1];
  if (layout == tiling::RowLayout::kWInner) {
    if (sW == 1 && stream) {
      StoreRowStreaming<T>(row, out, width);
    } else {
      StoreRow<T>(row, out, sW, width);
    }
  } else if (sC == 1 && sW == c) {
    if (stream) {
      StoreRowStreaming<T>(row, out, width * c);
    } else {
      StoreRow<T>(row, out, 1, width * c);
    }
  } else {
    for (int64_t w = 0; w < width; ++w) StoreRow<T>(row + w * c, out + w * sW, sC, c);
  }
}

// Whether the view's rows are unit-stride runs of rowElems elements (W, or W x C channels inner) that
// follow each other whole: then consecutive H rows of one D index are one contiguous span.
inline bool ContiguousRows(const TensorView5d &view, tiling::RowLayout layout, int64_t c, int64_t rowElems) {
  const int64_t *s = view.strides;
  const bool unitRows = layout == tiling::RowLayout::kCInner ? (s[1] == 1 && s[4] == c) : s[4] == 1;
  return unitRows && s[3] == rowElems;
}

// Whether every position of a channels-inner fp32 view starts a 64-byte line and holds whole lines
// (c a multiple of 16, every stride too, the data line-aligned): a W pass may then write such a view's
// rows itself with non-temporal stores of whole lines, instead of a scratch row that DstRowWriter copies.
inline bool LineAlignedPositions(const TensorView5d &view, tiling::RowLayout layout, int64_t c) {
  constexpr int64_t kLineFloats = 16;
  const int64_t *s = view.strides;
  bool aligned = layout == tiling::RowLayout::kCInner && reinterpret_cast<uintptr_t>(view.data) % 64 == 0 &&
                 s[1] == 1 && s[4] == c && c % kLineFloats == 0;
  return aligned && s[0] % kLineFloats == 0 && s[2] % kLineFloats == 0 && s[3] % kLineFloats == 0;
}

// Stores the destination rows of one D index, in increasing H order between Begin and Finish. A
// streamed destination with contiguous rows (fp32 / fp64) gets them joined into one span written in
// whole lines (LineStreamer); otherwise each row goes through WriteRow.
template <typename T>
class DstRowWriter {
 public:
  // joinable: the kernel hands over whole rows (no W chunks), so its rows may be joined.
  DstRowWriter(const TensorView5d &view, const tiling::TilingData &t, bool joinable)
      : view_(view), t_(t), rowWidth_(t.layout == tiling::RowLayout::kCInner ? t.c : 1) {
    if constexpr (std::is_same_v<T, Acc<T>>) {
      spans_ = joinable && t.streamStores && ContiguousRows(view, t.layout, t.c, t.rowElems);
    }
  }

  void Begin(T *firstRow) {
    if constexpr (std::is_same_v<T, Acc<T>>) {
      if (spans_) lines_.Begin(firstRow);
    }
  }

  // row: `width` positions in the row layout; out: where the row starts in the destination.
  void Put(const Acc<T> *row, T *out, int64_t width) {
    if constexpr (std::is_same_v<T, Acc<T>>) {
      if (spans_) {
        lines_.Put(row, width * rowWidth_);
        return;
      }
    }
    WriteRow<T>(row, out, view_, t_.layout, width, t_.c, t_.streamStores);
  }

  void Finish() {
    if constexpr (std::is_same_v<T, Acc<T>>) {
      if (spans_) lines_.Finish();
    }
  }

 private:
  const TensorView5d &view_;
  const tiling::TilingData &t_;
  int64_t rowWidth_;
  bool spans_ = false;
  LineStreamer<Acc<T>> lines_;
};

// WriteRow of w * row. scratch (one row of the layout) holds the scaled row unless the store can
// scale on the fly (contiguous fp32 streamed). Each element is w * row rounded once either way.
template <typename T>
void WriteRowScaled(const Acc<T> *row, Acc<T> w, Acc<T> *scratch, T *out, const TensorView5d &view,
                    tiling::RowLayout layout, int64_t width, int64_t c, bool stream) {
  const bool wInner = layout == tiling::RowLayout::kWInner;
  const int64_t n = wInner ? width : width * c;
  if constexpr (std::is_same_v<T, float>) {
    const bool contiguous = wInner ? view.strides[4] == 1 : (view.strides[1] == 1 && view.strides[4] == c);
    if (contiguous && stream) {
      StoreRowStreamingScaled(row, w, out, n);
      return;
    }
  }
  AxpyRow(scratch, row, w, n, true);
  WriteRow<T>(scratch, out, view, layout, width, c, stream);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_ITEM_LOOP_H_
