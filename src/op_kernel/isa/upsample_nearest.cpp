// The nearest operators' kernels (Kernel::kNearestForward, kNearestBackward): every axis takes one tap
// of weight 1, so the forward is a gather that copies the picked elements' bits (an inf or a NaN
// stays what it was, uint8 included) and the backward the transposed gather: each gradInput element
// sums the gradOut elements that picked it, in increasing (D, H, W) output order, the order in which
// PyTorch's loop over the output adds them. Items are (plane, D chunk, H chunk) of whole destination
// rows; one core writes each destination element, so any core count gives the same bits.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "op_kernel/kernel_args.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/item_loop.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::RowLayout;

// The plan's index lists in whichever accumulation type the launch's tables have (the nearest
// kernels read the indices only).
struct NearestIndices {
  const int64_t *d = nullptr;  // forward: the source D index of each out D index
  const int64_t *h = nullptr;
  const int32_t *w = nullptr;  // forward: rowW's one entry per out W index
  // Backward: gradInput index i takes the gradOut indices src[begin[i] .. begin[i + 1]).
  const int64_t *dBegin = nullptr, *hBegin = nullptr, *wBegin = nullptr;
  const int32_t *dSrc = nullptr, *hSrc = nullptr, *wSrc = nullptr;
};

template <typename A>
NearestIndices IndicesOf(const PlanTables<A> &p) {
  NearestIndices x;
  x.d = p.d.i0.data();
  x.h = p.h.i0.data();
  x.w = p.rowW.src.data();
  x.dBegin = p.colD.begin.data();
  x.hBegin = p.colH.begin.data();
  x.wBegin = p.rowW.begin.data();
  x.dSrc = p.colD.src.data();
  x.hSrc = p.colH.src.data();
  x.wSrc = p.rowW.src.data();
  return x;
}

NearestIndices IndicesOf(const KernelArgs &args) {
  return args.tiling->dataType == DataType::kFloat64 ? IndicesOf(TablesOf<double>(args))
                                                     : IndicesOf(TablesOf<float>(args));
}

// n bytes from src to dst, the whole 64-byte lines of dst with non-temporal stores (bits unchanged):
// a large destination is written once, without reading each line for ownership first.
void StreamBytes(void *dst, const void *src, int64_t n) {
  auto *d = static_cast<uint8_t *>(dst);
  const auto *s = static_cast<const uint8_t *>(src);
  int64_t i = 0;
#if defined(TRILINEAR3D_HAVE_AVX2)
  const int64_t head =
      std::min<int64_t>(n, static_cast<int64_t>((64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63));
  std::memcpy(d, s, static_cast<size_t>(head));
  for (i = head; i + 64 <= n; i += 64) StreamLine(d + i, s + i);
#endif
  std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}

// Whether a destination row of the view is one unit-stride run (W, or W x C channels inner).
bool UnitRow(const TensorView5d &v, RowLayout layout, int64_t c) {
  return layout == RowLayout::kCInner ? (v.strides[1] == 1 && v.strides[4] == c) : v.strides[4] == 1;
}

// Forward over elements of Bits, an unsigned integer of the dtype's size: only bits move.
template <typename Bits>
class NearestForwardRunner : RunnerLaunch {
 public:
  // RunItems' scratch type: the size the tiling counts scratch in (the dtype's accumulation type), so
  // that each core's slice starts where the tiling put it; the forward keeps raw bytes there.
  using A = std::conditional_t<sizeof(Bits) == 8, double, float>;

  NearestForwardRunner(const KernelArgs &args, A *scratch)
      : RunnerLaunch(args), x_(IndicesOf(args)), row_(reinterpret_cast<Bits *>(scratch)) {
    const int64_t inW = t_.w.inSize, outW = t_.w.outSize;
    doubling_ = outW == 2 * inW;
    for (int64_t w = 0; doubling_ && w < outW; ++w) doubling_ = x_.w[w] == (w >> 1);
    unitDstRow_ = UnitRow(dst_, t_.layout, t_.c);
    rowBytes_ = outW * rowWidth_ * static_cast<int64_t>(sizeof(Bits));
    stream_ = t_.streamStores && unitDstRow_;
  }

  void Run(int64_t item, int64_t) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.outSize, t_.h.outSize, t_.w.outSize);
    const Bits *srcPlane = PlaneBase<const Bits>(src_, t_, b.plane);
    Bits *dstPlane = PlaneBase<Bits>(dst_, t_, b.plane);
    const int64_t *sS = src_.strides, *dS = dst_.strides;
    for (int64_t d = b.d0; d < b.d1; ++d) {
      const Bits *srcD = srcPlane + x_.d[d] * sS[2];
      const Bits *previous = nullptr;
      int64_t previousH = -1;
      for (int64_t h = b.h0; h < b.h1; ++h) {
        Bits *out = dstPlane + d * dS[2] + h * dS[3];
        const int64_t sh = x_.h[h];
        if (stream_) {
          // The row gathered once into the scratch row (kept for the rows that pick the same source
          // row), then streamed out.
          if (sh != previousH) CopyRow(srcD + sh * sS[3], row_);
          StreamBytes(out, row_, rowBytes_);
          previousH = sh;
          continue;
        }
        // A source row picked again (H grows): the destination row just written is that copy.
        if (sh == previousH && unitDstRow_) {
          std::memcpy(out, previous, static_cast<size_t>(rowBytes_));
        } else {
          CopyRow(srcD + sh * sS[3], out);
        }
        previous = out;
        previousH = sh;
      }
    }
  }

 private:
  void CopyRow(const Bits *src, Bits *out) const {
    const int64_t outW = t_.w.outSize, sW = src_.strides[4], dW = dst_.strides[4];
    if (t_.layout == RowLayout::kWInner) {
      if (sW == 1 && dW == 1) {
        if (doubling_) {
          for (int64_t k = 0; 2 * k < outW; ++k) {
            out[2 * k] = src[k];
            out[2 * k + 1] = src[k];
          }
        } else {
          for (int64_t w = 0; w < outW; ++w) out[w] = src[x_.w[w]];
        }
        return;
      }
      for (int64_t w = 0; w < outW; ++w) out[w * dW] = src[x_.w[w] * sW];
      return;
    }
    // Channels inner: each out position copies the c channels of its source position.
    const int64_t c = t_.c, sC = src_.strides[1], dC = dst_.strides[1];
    for (int64_t w = 0; w < outW; ++w) {
      const Bits *s = src + x_.w[w] * sW;
      Bits *o = out + w * dW;
      if (sC == 1 && dC == 1) {
        std::memcpy(o, s, static_cast<size_t>(c) * sizeof(Bits));
      } else {
        for (int64_t k = 0; k < c; ++k) o[k * dC] = s[k * sC];
      }
    }
  }

  const NearestIndices x_;
  Bits *row_ = nullptr;      // streamed destinations: one gathered row (TileNearestForward's scratch)
  bool stream_ = false;      // TilingData::streamStores on unit-stride destination rows
  bool doubling_ = false;    // out W index w takes source w / 2 (an exact 2x W)
  bool unitDstRow_ = false;  // destination rows are unit-stride runs (a row may be copied whole)
  int64_t rowBytes_ = 0;
};

template <typename T>
class NearestBackwardRunner : RunnerLaunch {
 public:
  using A = Acc<T>;

  NearestBackwardRunner(const KernelArgs &args, A *scratch)
      : RunnerLaunch(args), x_(IndicesOf(args)), out_(dst_, t_, true) {
    rowElems_ = t_.w.inSize * rowWidth_;
    acc_ = scratch;
    srcRow_ = scratch + Align64(rowElems_, static_cast<int64_t>(sizeof(A)));
    const int64_t inW = t_.w.inSize, outW = t_.w.outSize;
    doubling_ = outW == 2 * inW;
    for (int64_t w = 0; doubling_ && w < inW; ++w) {
      doubling_ = x_.wBegin[w + 1] - x_.wBegin[w] == 2 && x_.wSrc[x_.wBegin[w]] == 2 * w &&
                  x_.wSrc[x_.wBegin[w] + 1] == 2 * w + 1;
    }
    directDoubling_ = std::is_same_v<T, Bf16> && doubling_ && rowWidth_ == 1 && src_.strides[4] == 1;
    if (rowWidth_ == 1) FindPairRuns();
  }

  void Run(int64_t item, int64_t) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize, t_.w.inSize);
    const T *srcPlane = PlaneBase<const T>(src_, t_, b.plane);
    T *dstPlane = PlaneBase<T>(dst_, t_, b.plane);
    const int64_t *sS = src_.strides, *dS = dst_.strides;
    for (int64_t d = b.d0; d < b.d1; ++d) {
      out_.Begin(dstPlane + d * dS[2] + b.h0 * dS[3]);
      for (int64_t h = b.h0; h < b.h1; ++h) {
        // Every term in output order on a zero: PyTorch's zero-filled gradient and its additions. The
        // first row's terms add to a literal zero (0 + -0 is +0, as in PyTorch) instead of a zeroed
        // row, which saves a pass over the accumulator row.
        bool first = true;
        for (int64_t ed = x_.dBegin[d]; ed < x_.dBegin[d + 1]; ++ed) {
          for (int64_t eh = x_.hBegin[h]; eh < x_.hBegin[h + 1]; ++eh) {
            const T *row = srcPlane + x_.dSrc[ed] * sS[2] + x_.hSrc[eh] * sS[3];
            if (directDoubling_) {  // bf16 widened as it is added: no converted copy of the row
              if (first) {
                AddDoublingRow<true>(row);
              } else {
                AddDoublingRow<false>(row);
              }
              first = false;
              continue;
            }
            const A *s = ReadRow(row, src_, t_.layout, t_.w.outSize, t_.c, srcRow_);
            if (first) {
              AddRow<true>(s);
            } else {
              AddRow<false>(s);
            }
            first = false;
          }
        }
        if (first) std::fill(acc_, acc_ + rowElems_, A(0));  // no gradOut row picked this row
        out_.Put(acc_, dstPlane + d * dS[2] + h * dS[3], t_.w.inSize);
      }
      out_.Finish();
    }
  }

 private:
  // acc[i] += every gradOut element of the row that picked W index i, in increasing W order; kFirst:
  // onto a zero instead of acc[i].
  template <bool kFirst>
  void AddRow(const A *__restrict s) {
    A *__restrict acc = acc_;
    const int64_t inW = t_.w.inSize;
    if (rowWidth_ == 1) {
      int64_t w = 0;
      for (int r = 0; r < pairRunCount_; ++r) {
        AddRuns<kFirst>(s, w, pairRuns_[r].begin);
        AddPairs<kFirst>(s, pairRuns_[r]);
        w = pairRuns_[r].end;
      }
      AddRuns<kFirst>(s, w, t_.w.inSize);
      return;
    }
    // Channels inner: whole C-runs added (vectors along C; the accumulator row and the source row are
    // distinct buffers).
    const int64_t c = rowWidth_;
    if (doubling_) {  // both terms of a position in one pass over its accumulator run
      for (int64_t w = 0; w < inW; ++w) {
        A *__restrict a = acc + w * c;
        const A *__restrict v0 = s + 2 * w * c;
        const A *__restrict v1 = v0 + c;
        for (int64_t k = 0; k < c; ++k) {
          A x = kFirst ? A(0) : a[k];
          x += v0[k];
          x += v1[k];
          a[k] = x;
        }
      }
      return;
    }
    for (int64_t w = 0; w < inW; ++w) {
      A *__restrict a = acc + w * c;
      const int64_t e0 = x_.wBegin[w], e1 = x_.wBegin[w + 1];
      if (kFirst && e0 == e1) std::fill(a, a + c, A(0));
      for (int64_t e = e0; e < e1; ++e) {
        const A *__restrict v = s + static_cast<int64_t>(x_.wSrc[e]) * c;
        if (kFirst && e == e0) {
          for (int64_t k = 0; k < c; ++k) a[k] = A(0) + v[k];
        } else {
          for (int64_t k = 0; k < c; ++k) a[k] += v[k];
        }
      }
    }
  }

  // W indices [begin, end) each take exactly the two gradOut elements 2w + offset and 2w + offset + 1:
  // the interior of a ratio near 2 (an exact 2x: one run of offset 0 over the whole row). Their loop
  // is a strided gather every tier vectorises, like the doubling one.
  struct PairRun {
    int64_t begin = 0, end = 0, offset = 0;
  };
  // Runs shorter than this stay in the general loop (a vector loop's set-up outweighs them).
  static constexpr int64_t kMinPairRun = 8;
  static constexpr int kMaxPairRuns = 8;

  // The first kMaxPairRuns pair runs of at least kMinPairRun indices of the W lists, in increasing W.
  void FindPairRuns() {
    const int64_t inW = t_.w.inSize;
    auto offsetOf = [&](int64_t w, int64_t *offset) {
      const int64_t e0 = x_.wBegin[w];
      if (x_.wBegin[w + 1] - e0 != 2 || x_.wSrc[e0 + 1] != x_.wSrc[e0] + 1) return false;
      *offset = x_.wSrc[e0] - 2 * w;
      return true;
    };
    for (int64_t w = 0; w < inW && pairRunCount_ < kMaxPairRuns;) {
      int64_t offset = 0, next = 0;
      if (!offsetOf(w, &offset)) {
        ++w;
        continue;
      }
      int64_t end = w + 1;
      while (end < inW && offsetOf(end, &next) && next == offset) ++end;
      if (end - w >= kMinPairRun) pairRuns_[pairRunCount_++] = {w, end, offset};
      w = end;
    }
  }

  template <bool kFirst>
  void AddPairs(const A *__restrict s, const PairRun &run) {
    A *__restrict acc = acc_;
    const int64_t offset = run.offset;
    for (int64_t w = run.begin; w < run.end; ++w) {
      A a = kFirst ? A(0) : acc[w];
      a += s[2 * w + offset];
      a += s[2 * w + offset + 1];
      acc[w] = a;
    }
  }

  // The general W loop over [begin, end): the W indices that pick one input index are a run (the
  // source index grows with the output index), one to a few long. Written out for the short runs, so
  // that no tier vectorises the per-element loop (gathers and masks on a run of two).
  template <bool kFirst>
  void AddRuns(const A *__restrict s, int64_t begin, int64_t end) {
    A *__restrict acc = acc_;
    const int64_t *wBegin = x_.wBegin;
    const int32_t *src = x_.wSrc;
    for (int64_t w = begin; w < end; ++w) {
      A a = kFirst ? A(0) : acc[w];
      const int64_t e0 = wBegin[w], n = wBegin[w + 1] - e0;
      if (n == 2) {
        a += s[src[e0]];
        a += s[src[e0 + 1]];
      } else if (n == 1) {
        a += s[src[e0]];
      } else {
        AddTerms(a, s, src + e0, n);
      }
      acc[w] = a;
    }
  }

  // AddRow's W-inner 2x on a unit-stride bf16 gradOut row, each element widened where it is added (a
  // shift, which every tier vectorises, unlike fp16's conversion).
  template <bool kFirst>
  void AddDoublingRow(const T *__restrict s) {
    A *__restrict acc = acc_;
    const int64_t inW = t_.w.inSize;
    for (int64_t w = 0; w < inW; ++w) {
      A a = kFirst ? A(0) : acc[w];
      a += ToAcc(s[2 * w]);
      a += ToAcc(s[2 * w + 1]);
      acc[w] = a;
    }
  }

  // a += s[src[0]], ..., s[src[n - 1]] in that order (kept out of line: not vectorised or inlined
  // into the common short runs' loop).
  [[gnu::noinline]] static void AddTerms(A &a, const A *s, const int32_t *src, int64_t n) {
    for (int64_t e = 0; e < n; ++e) a += s[src[e]];
  }

  const NearestIndices x_;
  // The gradInput rows of one D index: joined into one span when streamed, so that short rows do not
  // each leave part-written lines at both ends.
  DstRowWriter<T> out_;
  int64_t rowElems_ = 0;
  A *acc_ = nullptr;     // the destination row's sums
  A *srcRow_ = nullptr;  // a gradOut row converted to A (when it is not already a unit-stride A row)
  bool doubling_ = false;
  bool directDoubling_ = false;     // bf16, W inner, unit-stride gradOut rows, an exact 2x W
  PairRun pairRuns_[kMaxPairRuns];  // W inner: AddPairs' runs, in increasing W
  int pairRunCount_ = 0;
};

}  // namespace

void RunNearestForward(const KernelArgs &args, int blockIdx) {
  switch (ElementSize(args.tiling->dataType)) {
    case 1:
      RunItems<NearestForwardRunner<uint8_t>>(args, blockIdx);
      break;
    case 2:
      RunItems<NearestForwardRunner<uint16_t>>(args, blockIdx);
      break;
    case 8:
      RunItems<NearestForwardRunner<uint64_t>>(args, blockIdx);
      break;
    default:
      RunItems<NearestForwardRunner<uint32_t>>(args, blockIdx);
      break;
  }
}

void RunNearestBackward(const KernelArgs &args, int blockIdx) {
  RunItemsForDataType<NearestBackwardRunner>(args, blockIdx);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
