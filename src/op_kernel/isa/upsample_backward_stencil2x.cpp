// UpsampleTrilinear3dBackward kernel for an exact doubling on every axis (TilingData::stencil2x):
// each axis is the fixed stencil of stencil2x_steps.h, applied W -> H -> D.
//
// An item is (plane, D chunk, H chunk) of gradInput. For each gradOut plane od the D chunk reads
// (increasing), the H chunk's gradOut rows are read in order, each W-reduced (2 -> 1, lane
// permutes) and added into the two open H sums; a finished H row goes into the two open D sums
// (two accumulator planes of scratch, chosen by parity), and a finished D index is stored into
// gradInput. So gradOut is read once, in order, plane after plane (or four planes at a time, below):
// on B1 (fp32, 64 x 16 x 256 x 256 -> 8 x 128 x 128; medians of 7, processes alternated, 3 rounds)
// plane by plane took 8.4-8.9 ms on 2 cores against 10.4-11.4 for the width-last kernel, 14.6-15.3
// against 18.1-18.5 on one (ace1bc3).
// With AVX-512 the W and H steps run on strips of up to 128 gradInput columns with the H sums in
// registers, so each gradOut row is loaded once and only finished H rows touch memory, and a D
// index finished in a single-strip plane is streamed to gradInput as its rows finish; the other
// ISAs run the same steps (StencilSteps' list) on whole rows of scratch. Rows of 128 (B1) or 64 go four
// planes at a time where their D steps allow, row by row (Quad): the D sums then stay in L1 and in
// registers instead of L2, and gradOut streams faster (B1 via the C API, medians of 5-7, processes
// alternated, 3 rounds, 2026-12-01: one core 11.7-12.1 ms against 14.0-14.7 plane by plane; two
// cores 6.3-6.5 against 7.6-7.8, and 7.9 against 8.4 in a slower minute).
// Every element sums its terms in StencilSteps' order whatever the item split: the same bits for
// every core count. The AVX-512 code spells that order out as fixed code (see Strip): written as a
// walk over the list it ran at 60 % of this speed with gradOut in memory (the loop's loads of the
// list and of spilled pointers delayed the gradOut loads), though as fast in cache.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "op_kernel/kernel_args.h"
#include "op_kernel/stencil2x_steps.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/item_loop.h"
#include "op_kernel/simd_row_ops.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::TilingData;

// Where a W strip ends (AVX-512 kernel): inside the row, or at its end. The row's last vector is
// loaded with masks (nothing past the row read; all lanes when it is whole) and its last output's
// g[2k + 2], the row's last element, blended in (on a whole vector that lane holds it already).
enum class RowEnd { kNo, kEnd };

#if defined(TRILINEAR3D_HAVE_AVX512)
// The W step leaves out its factor 1/4: 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]) is two adds
// and an FMA, on both of Zen 4's FP pipe pairs (its adds and its FMAs), where 1/4, 3/4, 3/4, 1/4
// took a multiply and three FMAs on one (a prototype of B1 with gradOut in L2: 22 % less time; in
// memory no change by itself). The H step puts the 1/4 back: its weights are 1/16 and 3/16 (exact:
// powers of two apart from 1/4 and 3/4). A W result is then at most 8 times the largest |gradOut|
// instead of 2 times: its sums overflow above about 4e37 instead of 1.7e38.
constexpr float kHFar = 1.0f / 16, kHNear = 3.0f / 16;

// Lanes kShift .. kShift + 15 of the 32 lanes (b, then a): valignd. The all-lanes masked form: the
// plain intrinsic starts from _mm512_undefined_epi32(), which GCC 12's -Wuninitialized reports.
template <int kShift>
inline __m512 ShiftIn(__m512i a, __m512i b) {
  return _mm512_castsi512_ps(_mm512_mask_alignr_epi32(a, __mmask16(0xffff), a, b, kShift));
}

// The W step's pieces, shared by Stencil2xRunner::WStep and WStepWholeRow so that both give the
// same bits (which of them runs for a plane follows the D chunks, i.e. the core count). EvenOdd:
// the even and odd elements of 32 consecutive gradOut elements (lo, hi). WRight: g[2k + 2] per
// output lane (nextEven's lane 0 shifted in; WStep blends the row's last element into a partial
// last vector). WOutput: lane k = 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]), g[2k - 1] from
// odd shifted by one lane with prevOdd's lane 15.
__attribute__((always_inline)) inline void EvenOdd(__m512 lo, __m512 hi, __m512 *even, __m512 *odd) {
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odds = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  *even = _mm512_permutex2var_ps(lo, evens, hi);
  *odd = _mm512_permutex2var_ps(lo, odds, hi);
}

__attribute__((always_inline)) inline __m512 WRight(__m512 even, __m512 nextEven) {
  return ShiftIn<1>(_mm512_castps_si512(nextEven), _mm512_castps_si512(even));
}

__attribute__((always_inline)) inline __m512 WOutput(__m512 even, __m512 odd, __m512 prevOdd, __m512 right) {
  const __m512 left = ShiftIn<15>(_mm512_castps_si512(odd), _mm512_castps_si512(prevOdd));
  return _mm512_fmadd_ps(_mm512_set1_ps(3.0f), _mm512_add_ps(even, odd), _mm512_add_ps(left, right));
}
#endif

class Stencil2xRunner {
 public:
  using A = float;

  Stencil2xRunner(const KernelArgs &args, float *scratch)
      : t_(*args.tiling), src_(args.src), dst_(args.dst), out_(dst_, t_, true) {
    stride_ = t_.stencilRowStride;
    planeElems_ = t_.hChunk * stride_;
    slots_[0] = scratch;
    slots_[1] = scratch + planeElems_;
    rowW_ = slots_[1] + planeElems_;
    rowH_[0] = rowW_ + stride_;
    rowH_[1] = rowH_[0] + stride_;
#if defined(TRILINEAR3D_HAVE_AVX512)
    // One strip per row (1, 2, 4 or 8 vectors): a finished row is whole at once.
    const int64_t vectors = (t_.w.inSize + 15) / 16;
    directRows_ = vectors == 1 || vectors == 2 || vectors == 4 || vectors == 8;
    // Every gradInput row starts a 64-byte line and spans whole lines: streamed without the
    // line joiner (DstRowWriter), straight from the registers.
    const int64_t *ds = dst_.strides;
    alignedRows_ = directRows_ && t_.streamStores && ds[4] == 1 && t_.w.inSize % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(dst_.data) % 64 == 0 && ds[0] % 16 == 0 && ds[1] % 16 == 0 &&
                   ds[2] % 16 == 0 && ds[3] % 16 == 0;
    // The row's last vector: its gradOut elements (masks of its two loads) and its last output.
    const int64_t left = 2 * t_.w.inSize - 32 * ((t_.w.inSize - 1) / 16);  // 1 .. 32
    lastLo_ = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
    lastHi_ =
        left >= 32 ? __mmask16(0xffff) : (left > 16 ? __mmask16((1u << (left - 16)) - 1) : __mmask16(0));
    lastLane_ = __mmask16(1u << ((t_.w.inSize - 1) % 16));
    partialEnd_ = t_.w.inSize % 16 != 0;
    zeroTapLane_ = __mmask16(t_.w.inSize > 1 ? 2 : 1);
#endif
  }

  void Run(int64_t item, int64_t /*nextItem*/) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize, t_.w.inSize);
    h0_ = b.h0;
    h1_ = b.h1;
    srcBase_ = PlaneBase<const float>(src_, t_, b.plane);
    dstBase_ = PlaneBase<float>(dst_, t_, b.plane);
    StencilSteps(b.d0, b.d1, t_.d.inSize, &dSteps_);
#if !defined(TRILINEAR3D_HAVE_AVX512)
    StencilSteps(b.h0, b.h1, t_.h.inSize, &hSteps_);  // the AVX-512 code spells the H steps out
#endif
#if defined(TRILINEAR3D_HAVE_AVX512)
    // Rows of one strip of 8 or 4 whole vectors (128 or 64 gradInput columns).
    const int quadV = !alignedRows_ ? 0 : t_.w.inSize == 128 ? 8 : t_.w.inSize == 64 ? 4 : 0;
    const bool quads = quadV != 0;
#endif
    for (size_t i = 0; i < dSteps_.size(); ++i) {
#if defined(TRILINEAR3D_HAVE_AVX512)
      if (quads && i + 4 <= dSteps_.size() && (quadV == 8 ? Quad<8>(&dSteps_[i]) : Quad<4>(&dSteps_[i]))) {
        i += 3;
        continue;
      }
#endif
      const StencilStep &plane = dSteps_[i];
      const float *planeBase = srcBase_ + plane.src * src_.strides[2];
      if (plane.finish >= 0 && directRows_) {
        out_.Begin(DstRow(plane.finish, h0_));
        WAndHSteps(plane, planeBase);
        out_.Finish();
        continue;
      }
      WAndHSteps(plane, planeBase);
      if (plane.finish >= 0) StorePlane(plane.finish);
    }
  }

 private:
  float *Slot(int64_t id) const { return slots_[id & 1]; }

  // gradInput[plane, id, h0_ .. h1_) = the accumulator plane of id.
  void StorePlane(int64_t id) {
    const float *acc = Slot(id);
    out_.Begin(DstRow(id, h0_));
    for (int64_t ih = h0_; ih < h1_; ++ih) out_.Put(acc + (ih - h0_) * stride_, DstRow(id, ih), t_.w.inSize);
    out_.Finish();
  }

  float *DstRow(int64_t id, int64_t ih) const {
    return dstBase_ + id * dst_.strides[2] + ih * dst_.strides[3];
  }
  const float *SrcRow(const float *planeBase, int64_t oh) const { return planeBase + oh * src_.strides[3]; }

#if defined(TRILINEAR3D_HAVE_AVX512)
  // W then H steps of one gradOut plane on strips of 8, 4, 2 or 1 vectors of gradInput columns (the
  // last strip ends the row). Four strip widths and two strip kinds keep the instantiations few: all
  // of 1 to 8 times three row ends made the file take minutes and gigabytes under clang's sanitizers.
  void WAndHSteps(const StencilStep &plane, const float *planeBase) {
    const int64_t vectors = (t_.w.inSize + 15) / 16;
    for (int64_t j0 = 0; j0 < vectors;) {
      const int64_t left = vectors - j0;
      const int v = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
      const bool end = j0 + v == vectors;
      switch (v) {
        case 8:
          end ? Strip<8, RowEnd::kEnd>(plane, planeBase, j0) : Strip<8, RowEnd::kNo>(plane, planeBase, j0);
          break;
        case 4:
          end ? Strip<4, RowEnd::kEnd>(plane, planeBase, j0) : Strip<4, RowEnd::kNo>(plane, planeBase, j0);
          break;
        case 2:
          end ? Strip<2, RowEnd::kEnd>(plane, planeBase, j0) : Strip<2, RowEnd::kNo>(plane, planeBase, j0);
          break;
        default:
          end ? Strip<1, RowEnd::kEnd>(plane, planeBase, j0) : Strip<1, RowEnd::kNo>(plane, planeBase, j0);
          break;
      }
      j0 += v;
    }
  }

  // A strip's source elements outside its vectors, relative to its first (g[32 j0] of the row):
  // g[32 j0 - 1] (g[0] at the row start) and g[32 (j0 + V)] (g[outW - 1] at the row end). The
  // caller keeps the strip's address as its only pointer: derived per vector from the row and j0,
  // the offsets ended up on the stack and every gradOut load waited for a stack load (in memory:
  // 5.3 instead of 3.3 ms).
  struct StripEdges {
    int64_t before, after;
    bool first;  // the strip starts the row
  };

  // r = the W step of gradOut row `row` for gradInput columns 16 * j0 .. 16 * (j0 + V): output
  // lane k of vector j sums 1/4 g[2k - 1], 3/4 g[2k], 3/4 g[2k + 1], 1/4 g[2k + 2] (clamped),
  // from the row's even and odd elements shifted by one lane across vector boundaries. kRowEnd:
  // the strip ends the row (its last vector may be partial: loaded with masks, nothing past the
  // row read, and its last output's g[2k + 2] is the row's last element).
  template <int V, RowEnd kEnd>
  __attribute__((always_inline)) void WStep(const float *strip, const StripEdges &edges,
                                            __m512 (&r)[V]) const {
    constexpr bool kRowEnd = kEnd == RowEnd::kEnd;
    __m512 even[V], odd[V];
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      const float *at = strip + 32 * j;
      const bool masked = kRowEnd && j + 1 == V && partialEnd_;  // a whole last vector: plain loads
      const __m512 lo = masked ? _mm512_maskz_loadu_ps(lastLo_, at) : _mm512_loadu_ps(at);
      const __m512 hi = masked ? _mm512_maskz_loadu_ps(lastHi_, at + 16) : _mm512_loadu_ps(at + 16);
      EvenOdd(lo, hi, &even[j], &odd[j]);
    }
    // g[2k - 1] before the strip (g[0] at the row start) and g[2k + 2] after it (g[outW - 1] at the end).
    const __m512 oddBefore = _mm512_set1_ps(strip[edges.before]);
    const __m512 evenAfter = _mm512_set1_ps(strip[edges.after]);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      __m512 right = WRight(even[j], j + 1 == V ? evenAfter : even[j + 1]);
      if (kRowEnd && j + 1 == V && partialEnd_) right = _mm512_mask_blend_ps(lastLane_, right, evenAfter);
      r[j] = WOutput(even[j], odd[j], j == 0 ? oddBefore : odd[j - 1], right);
    }
    if (edges.first) {  // 0 * g[0] into output min(1, inW - 1): the zero-weight tap (stencil2x_steps.h)
      r[0] = _mm512_mask3_fmadd_ps(_mm512_setzero_ps(), _mm512_set1_ps(strip[0]), r[0], zeroTapLane_);
    }
  }

  // WStep for a whole row of 16 V gradInput columns (V whole vectors: no masks, edges at the row's
  // ends, the zero-weight tap on lane 1): the same operations, with nothing left to decide at run
  // time. In Quad's row loop WStep itself (its checks of partialEnd_ and of the edges) made B1 take
  // 14.2-15.0 ms on one core instead of 11.8-11.9.
  template <int V>
  __attribute__((always_inline)) static void WStepWholeRow(const float *row, __m512 (&r)[V]) {
    __m512 even[V], odd[V];
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j)
      EvenOdd(_mm512_loadu_ps(row + 32 * j), _mm512_loadu_ps(row + 32 * j + 16), &even[j], &odd[j]);
    const __m512 first = _mm512_set1_ps(row[0]), last = _mm512_set1_ps(row[32 * V - 1]);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      r[j] = WOutput(even[j], odd[j], j == 0 ? first : odd[j - 1],
                     WRight(even[j], j == V - 1 ? last : even[j + 1]));
    }
    r[0] = _mm512_mask3_fmadd_ps(_mm512_setzero_ps(), first, r[0], __mmask16(2));  // 0 * g[0] into output 1
  }

  // What one gradOut plane's D step does with a finished H row, worked out once per plane and strip
  // (the row loop then reads nothing else): up to two gradInput indices, each taking its terms of
  // this plane in order (the first assigning or adding), into its accumulator row, or, its last,
  // into gradInput.
  struct DTargetPlan {
    float *slot = nullptr;  // the accumulator's row h0, at the strip's first column
    float *out = nullptr;   // gradInput's row h0 of the index, at the strip's first column (direct)
    float w[3] = {0, 0, 0};
    int terms = 0;
    bool assign = false;
    bool direct = false;  // the index is finished here and its rows go straight to gradInput
  };
  struct DPlan {
    DTargetPlan target[2];
    int count = 0;
  };

  DPlan PlanD(const StencilStep &plane, int64_t j0) const {
    DPlan d;
    for (int e = 0; e < plane.count; ++e) {
      const StencilEntry &en = plane.e[e];
      if (e == 0 || plane.e[e - 1].dst != en.dst) {  // a plane's entries on one index are adjacent
        DTargetPlan &t = d.target[d.count++];
        t.slot = Slot(en.dst) + 16 * j0;
        t.assign = en.assign;
        t.direct = directRows_ && en.dst == plane.finish;
        t.out = DstRow(en.dst, h0_) + 16 * j0;
      }
      DTargetPlan &t = d.target[d.count - 1];
      t.w[t.terms++] = en.w;
    }
    return d;
  }

  // The D step of the finished H row ih held in registers (scratch rows are padded to whole vectors).
  template <int V>
  __attribute__((always_inline)) void DStepVectors(const DPlan &d, int64_t ih, const __m512 (&h)[V]) {
    const int64_t row = ih - h0_;
    for (int k = 0; k < d.count; ++k) {
      const DTargetPlan &t = d.target[k];
      float *acc = t.slot + row * stride_;
      const __m512 w0 = _mm512_set1_ps(t.w[0]);
      __m512 v[V];
      if (t.assign) {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) v[j] = _mm512_mul_ps(w0, h[j]);
      } else {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) v[j] = _mm512_fmadd_ps(w0, h[j], _mm512_load_ps(acc + 16 * j));
      }
      for (int m = 1; m < t.terms; ++m) {
        const __m512 w = _mm512_set1_ps(t.w[m]);
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) v[j] = _mm512_fmadd_ps(w, h[j], v[j]);
      }
      if (!t.direct) {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) _mm512_store_ps(acc + 16 * j, v[j]);
        continue;
      }
      float *out = t.out + row * dst_.strides[3];
      if (alignedRows_) {  // whole lines of gradInput: streamed from the registers
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) _mm512_stream_ps(out + 16 * j, v[j]);
        continue;
      }
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) _mm512_store_ps(rowW_ + 16 * j, v[j]);
      out_.Put(rowW_, out, t_.w.inSize);  // direct rows are whole rows (one strip): j0 = 0
    }
  }

  // The W and H steps of one gradOut plane for gradInput columns 16 * j0 .. 16 * (j0 + V), in the
  // order of StencilSteps (stencil2x_steps.h) spelled out as fixed code: entering index k, `cur`
  // holds k's sum from row 2k - 1 and `prev` k - 1's, which row 2k finishes. (The step list itself,
  // walked in this loop, ran at 60 % of this speed with gradOut in memory, as fast in cache.)
  template <int V, RowEnd kRowEnd>
  __attribute__((noinline)) void Strip(const StencilStep &plane, const float *planeBase, int64_t j0) {
    const int64_t h0 = h0_, h1 = h1_, outW = 2 * t_.w.inSize;
    const float *strips = planeBase + 32 * j0;  // the strip of the plane's row 0
    const DPlan d = PlanD(plane, j0);
    const StripEdges edges{j0 == 0 ? 0 : -1, kRowEnd != RowEnd::kNo ? outW - 1 - 32 * j0 : 32 * V, j0 == 0};
    __m512 cur[V] = {}, prev[V] = {};
    OpenFirst<V, kRowEnd>(strips, edges, cur);
    // The first index (k = h0: no open sum below it, or k = 0), then the rows between the chunk's
    // ends as a loop without branches (SteadyRows, for the plane's kind of D step), then the last
    // index. The two sums alternate roles instead of being swapped (a swap of the arrays compiled to
    // memmove calls through the stack): `sumIsPrev` says which array holds the open index k.
    int64_t k = h0;
    if (RowPair<V, kRowEnd>(d, strips, edges, k++, cur, prev)) return;
    bool sumIsPrev = true;
    const int64_t steadyEnd = std::min(h1, t_.h.inSize - 1);
    bool odd = false;
    // The fixed D shapes for full strips only (narrow strips, where the W step is a small part of the
    // work, take the general D step: fewer instantiations).
    const DKind kind = V == 8 ? KindOf(d) : DKind::kGeneric;
    if constexpr (V == 8) {
      if (kind == DKind::kAddAssign) {
        k = SteadyRows<V, kRowEnd, DKind::kAddAssign>(d, strips, edges, k, steadyEnd, prev, cur, &odd);
      } else if (kind == DKind::kStreamAdd) {
        k = SteadyRows<V, kRowEnd, DKind::kStreamAdd>(d, strips, edges, k, steadyEnd, prev, cur, &odd);
      }
    }
    if (kind == DKind::kGeneric) {
      k = SteadyRows<V, kRowEnd, DKind::kGeneric>(d, strips, edges, k, steadyEnd, prev, cur, &odd);
    }
    if (odd) sumIsPrev = false;
    for (;; ++k, sumIsPrev = !sumIsPrev) {
      if (k >= h1) {  // the last index is the other array's
        return sumIsPrev ? LastTerm<V, kRowEnd>(d, strips, edges, cur)
                         : LastTerm<V, kRowEnd>(d, strips, edges, prev);
      }
      const bool done = sumIsPrev ? RowPair<V, kRowEnd>(d, strips, edges, k, prev, cur)
                                  : RowPair<V, kRowEnd>(d, strips, edges, k, cur, prev);
      if (done) return;
    }
  }

  // cur = the terms of index h0_ from the rows before 2 h0_ (none for index 0).
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) void OpenFirst(const float *strips, const StripEdges &edges,
                                                __m512 (&cur)[V]) {
    const int64_t h0 = h0_, rowStride = src_.strides[3];
    const __m512 hFar = _mm512_set1_ps(kHFar), zero = _mm512_setzero_ps();
    __m512 r[V];
    if (h0 == 1) {  // index 1's first terms: the zero-weight tap of row 0, then row 1
      WStep<V, kRowEnd>(strips, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = _mm512_mul_ps(zero, r[j]);
      WStep<V, kRowEnd>(strips + rowStride, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = _mm512_fmadd_ps(hFar, r[j], cur[j]);
    } else if (h0 > 1) {
      WStep<V, kRowEnd>(strips + (2 * h0 - 1) * rowStride, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = _mm512_mul_ps(hFar, r[j]);
    }
  }

  // Four gradOut planes 2m .. 2m + 3 whose D steps are the common ones (an even plane finishing
  // m - 1 and adding to m, an odd one adding to m and starting m + 1, and again for m + 1), rows of
  // 128 or 64 gradInput columns streamed from the registers (alignedRows_): row k of all four, then row
  // k + 1 of all four. The D sums of m and m + 1 stay in registers across the four planes, so a row
  // of the accumulator planes is read and written once per four planes instead of about three
  // times per plane. Plane by plane (Strip), those rows (two planes of 64 KB on B1) have left L1
  // before the next plane comes back to them, and their L2 loads and stores among gradOut's stream
  // keep fewer gradOut lines in flight: in a prototype, B1 on one core took 13.7-14.5 ms plane by
  // plane, 10.8-11.3 ms four planes at a time, 9.8-10.0 ms for a plain sum of gradOut (and 10.2
  // ms plane by plane with the accumulator rows made to alias within 4 KB, i.e. in L1: wrong
  // results, the same memory traffic otherwise). Each plane's two open H sums wait in lockState_
  // (L1) between its rows. The bits are Strip's: every element takes the same terms in the same
  // order, whatever the grouping. Rows of 64 (gradOut 64 x 16 x 128 x 128, the C API, medians of 9,
  // processes alternated, 2026-12-01): one core 3.34-3.47 ms against 5.11-5.35 plane by plane, two
  // cores 1.76-1.85 against 2.56-2.67. Returns false (nothing done) where the four planes' D steps are
  // not of that shape (at the D axis's ends, at D chunk ends).
  template <int V>
  bool Quad(const StencilStep *planes) {
    DPlan d[4];
    for (int p = 0; p < 4; ++p) d[p] = PlanD(planes[p], 0);
    const bool shape =
        KindOf(d[0]) == DKind::kStreamAdd && KindOf(d[1]) == DKind::kAddAssign &&
        KindOf(d[2]) == DKind::kStreamAdd && KindOf(d[3]) == DKind::kAddAssign &&
        d[1].target[0].slot == d[0].target[1].slot && d[2].target[0].slot == d[1].target[0].slot &&
        d[2].target[1].slot == d[1].target[1].slot && d[3].target[0].slot == d[2].target[1].slot;
    if (!shape) return false;
    constexpr RowEnd kEnd = RowEnd::kEnd;
    const int64_t h0 = h0_, h1 = h1_;
    const StripEdges edges{0, 2 * t_.w.inSize - 1, true};
    const float *strips[4];
    for (int p = 0; p < 4; ++p) {
      strips[p] = srcBase_ + planes[p].src * src_.strides[2];
      __m512 cur[V] = {};
      OpenFirst<V, kEnd>(strips[p], edges, cur);
      StoreSums<V>(OpenSum(p), cur);
      StoreSums<V>(FinishingSum(p), cur);  // not read before RowPair sets it
    }
    const int64_t steadyEnd = std::min(h1, t_.h.inSize - 1);
    for (int64_t k = h0;; ++k) {
      if (k >= h1) {  // the chunk ends inside the axis
        for (int p = 0; p < 4; ++p) {
          __m512 last[V];
          LoadSums<V>(FinishingSum(p), last);
          LastTerm<V, kEnd>(d[p], strips[p], edges, last);
        }
        return true;
      }
      if (k > h0 && k < steadyEnd) {
        QuadSteadyRows<V>(d, strips, k, steadyEnd);
        k = steadyEnd - 1;
        continue;
      }
      bool done = false;
      for (int p = 0; p < 4; ++p) {
        __m512 sum[V], last[V];
        LoadSums<V>(OpenSum(p), sum);
        LoadSums<V>(FinishingSum(p), last);
        done = RowPair<V, kEnd>(d[p], strips[p], edges, k, sum, last);  // the same for every plane
        StoreSums<V>(FinishingSum(p), sum);
        StoreSums<V>(OpenSum(p), last);
      }
      if (done) return true;
    }
  }

  // Rows k0 .. k1 - 1 of the four planes: SteadyRow's W and H steps, and DStepFixed's kStreamAdd,
  // kAddAssign, kStreamAdd, kAddAssign with the sums of m and m + 1 in registers between the planes.
  template <int V>
  __attribute__((noinline)) void QuadSteadyRows(const DPlan (&d)[4], const float *const (&strips)[4],
                                                int64_t k0, int64_t k1) {
    const __m512 hFar = _mm512_set1_ps(kHFar), hNear = _mm512_set1_ps(kHNear);
    const int64_t rowStride = src_.strides[3], outStride = dst_.strides[3];
    const float w[4][2] = {{d[0].target[0].w[0], d[0].target[1].w[0]},
                           {d[1].target[0].w[0], d[1].target[1].w[0]},
                           {d[2].target[0].w[0], d[2].target[1].w[0]},
                           {d[3].target[0].w[0], d[3].target[1].w[0]}};
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t row = k - 1 - h0_;  // the finished H index k - 1, as a row of the chunk
      __m512 a[V], b[V];                // the sums of m and m + 1
      for (int p = 0; p < 4; ++p) {
        const float *src = strips[p] + 2 * k * rowStride;
        float *finishing = FinishingSum(p), *open = OpenSum(p);
        const __m512 w0 = _mm512_set1_ps(w[p][0]), w1 = _mm512_set1_ps(w[p][1]);
        __m512 r0[V], r1[V], h[V];
        WStepWholeRow<V>(src, r0);
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) h[j] = _mm512_fmadd_ps(hFar, r0[j], _mm512_load_ps(finishing + 16 * j));
        WStepWholeRow<V>(src + rowStride, r1);
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) {
          const __m512 sum = _mm512_fmadd_ps(hNear, r0[j], _mm512_load_ps(open + 16 * j));
          _mm512_store_ps(finishing + 16 * j, _mm512_fmadd_ps(hNear, r1[j], sum));  // k, finished next
          _mm512_store_ps(open + 16 * j, _mm512_mul_ps(hFar, r1[j]));               // k + 1
        }
        if (p == 0) {  // finishes m - 1 (streamed), adds to m
          const float *before = d[0].target[0].slot + row * stride_,
                      *slotM = d[0].target[1].slot + row * stride_;
          float *out = d[0].target[0].out + row * outStride;
#pragma GCC unroll 8
          for (int j = 0; j < V; ++j) {
            _mm512_stream_ps(out + 16 * j, _mm512_fmadd_ps(w0, h[j], _mm512_load_ps(before + 16 * j)));
            a[j] = _mm512_fmadd_ps(w1, h[j], _mm512_load_ps(slotM + 16 * j));
          }
        } else if (p == 1) {  // adds to m, starts m + 1
#pragma GCC unroll 8
          for (int j = 0; j < V; ++j) {
            a[j] = _mm512_fmadd_ps(w0, h[j], a[j]);
            b[j] = _mm512_mul_ps(w1, h[j]);
          }
        } else if (p == 2) {  // finishes m (streamed), adds to m + 1
          float *out = d[2].target[0].out + row * outStride;
#pragma GCC unroll 8
          for (int j = 0; j < V; ++j) {
            _mm512_stream_ps(out + 16 * j, _mm512_fmadd_ps(w0, h[j], a[j]));
            b[j] = _mm512_fmadd_ps(w1, h[j], b[j]);
          }
        } else {  // adds to m + 1, starts m + 2 (the slots of m - 1 and m)
          float *next = d[3].target[0].slot + row * stride_, *after = d[3].target[1].slot + row * stride_;
#pragma GCC unroll 8
          for (int j = 0; j < V; ++j) {
            _mm512_store_ps(next + 16 * j, _mm512_fmadd_ps(w0, h[j], b[j]));
            _mm512_store_ps(after + 16 * j, _mm512_mul_ps(w1, h[j]));
          }
        }
      }
    }
  }

  // Quad's open H sums of plane p: the one row 2k finishes (index k - 1) and the one it continues (k).
  float *FinishingSum(int p) { return lockState_[p][0]; }
  float *OpenSum(int p) { return lockState_[p][1]; }

  template <int V>
  __attribute__((always_inline)) static void LoadSums(const float *at, __m512 (&v)[V]) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) v[j] = _mm512_load_ps(at + 16 * j);
  }
  template <int V>
  __attribute__((always_inline)) static void StoreSums(float *at, const __m512 (&v)[V]) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) _mm512_store_ps(at + 16 * j, v[j]);
  }

  // The common shapes of a plane's D step (PlanD) in the row loop: two indices, one term each, the
  // first adding; the second assigning (an odd plane), or adding while the first is finished and
  // streamed (an even plane); anything else (the axis ends, rows not streamed straight) goes through
  // DStepVectors.
  enum class DKind { kGeneric, kAddAssign, kStreamAdd };

  DKind KindOf(const DPlan &d) const {
    const DTargetPlan &a = d.target[0], &b = d.target[1];
    if (d.count != 2 || a.terms != 1 || b.terms != 1 || a.assign || b.direct) return DKind::kGeneric;
    if (!a.direct) return b.assign ? DKind::kAddAssign : DKind::kGeneric;
    return !b.assign && alignedRows_ ? DKind::kStreamAdd : DKind::kGeneric;
  }

  template <int V, DKind kKind>
  __attribute__((always_inline)) void DStepFixed(const DPlan &d, int64_t ih, const __m512 (&h)[V]) {
    if constexpr (kKind == DKind::kGeneric) {
      DStepVectors<V>(d, ih, h);
    } else {
      const int64_t row = ih - h0_;
      float *a = d.target[0].slot + row * stride_, *b = d.target[1].slot + row * stride_;
      const __m512 wa = _mm512_set1_ps(d.target[0].w[0]), wb = _mm512_set1_ps(d.target[1].w[0]);
      float *out = kKind == DKind::kStreamAdd ? d.target[0].out + row * dst_.strides[3] : nullptr;
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) {
        const __m512 va = _mm512_fmadd_ps(wa, h[j], _mm512_load_ps(a + 16 * j));
        if constexpr (kKind == DKind::kStreamAdd) {
          _mm512_stream_ps(out + 16 * j, va);
        } else {
          _mm512_store_ps(a + 16 * j, va);
        }
        const __m512 vb = kKind == DKind::kAddAssign ? _mm512_mul_ps(wb, h[j])
                                                     : _mm512_fmadd_ps(wb, h[j], _mm512_load_ps(b + 16 * j));
        _mm512_store_ps(b + 16 * j, vb);
      }
    }
  }

  // Indices k .. end - 1, each past the chunk's first and before the axis's last (so row 2k
  // finishes k - 1 and row 2k + 1 starts k + 1), two per iteration with the sums' roles exchanged.
  // Returns the next k; *odd: an odd count was done (the roles end exchanged).
  template <int V, RowEnd kRowEnd, DKind kKind>
  __attribute__((always_inline)) int64_t SteadyRows(const DPlan &d, const float *strips,
                                                    const StripEdges &edges, int64_t k, int64_t end,
                                                    __m512 (&sum)[V], __m512 (&last)[V], bool *odd) {
    for (; k + 2 <= end; k += 2) {
      SteadyRow<V, kRowEnd, kKind>(d, strips, edges, k, sum, last);
      SteadyRow<V, kRowEnd, kKind>(d, strips, edges, k + 1, last, sum);
    }
    if (k < end) {
      SteadyRow<V, kRowEnd, kKind>(d, strips, edges, k, sum, last);
      *odd = true;
      return k + 1;
    }
    return k;
  }

  template <int V, RowEnd kRowEnd, DKind kKind>
  __attribute__((always_inline)) void SteadyRow(const DPlan &d, const float *strips, const StripEdges &edges,
                                                int64_t k, __m512 (&sum)[V], __m512 (&last)[V]) {
    const __m512 hFar = _mm512_set1_ps(kHFar), hNear = _mm512_set1_ps(kHNear);
    const int64_t rowStride = src_.strides[3];
    const float *row = strips + 2 * k * rowStride;
    __m512 r[V];
    WStep<V, kRowEnd>(row, edges, r);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) last[j] = _mm512_fmadd_ps(hFar, r[j], last[j]);
    DStepFixed<V, kKind>(d, k - 1, last);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) sum[j] = _mm512_fmadd_ps(hNear, r[j], sum[j]);
    WStep<V, kRowEnd>(row + rowStride, edges, r);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      sum[j] = _mm512_fmadd_ps(hNear, r[j], sum[j]);
      last[j] = _mm512_mul_ps(hFar, r[j]);
    }
  }

  // Rows 2k and 2k + 1: row 2k finishes k - 1 (`last`) and continues k (`sum`); row 2k + 1 continues
  // k and starts k + 1 in `last` (or, at the axis end, finishes k: returns true).
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) bool RowPair(const DPlan &d, const float *strips, const StripEdges &edges,
                                              int64_t k, __m512 (&sum)[V], __m512 (&last)[V]) {
    const int64_t inH = t_.h.inSize, rowStride = src_.strides[3];
    const __m512 hFar = _mm512_set1_ps(kHFar), hNear = _mm512_set1_ps(kHNear);
    const __m512 zero = _mm512_setzero_ps();
    const float *row = strips + 2 * k * rowStride;
    __m512 r[V];
    WStep<V, kRowEnd>(row, edges, r);  // row 2k
    if (k == 0) {
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) {
        sum[j] = _mm512_fmadd_ps(hNear, r[j], _mm512_mul_ps(hFar, r[j]));  // 2k - 1 clamped
        if (inH == 1) {
          sum[j] = _mm512_fmadd_ps(zero, r[j], sum[j]);  // the zero-weight tap, on index 0 itself
        } else {
          last[j] = _mm512_mul_ps(zero, r[j]);  // index 1's zero-weight tap
        }
      }
    } else {
      if (k > h0_) {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) last[j] = _mm512_fmadd_ps(hFar, r[j], last[j]);
        DStepVectors<V>(d, k - 1, last);
      }
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) sum[j] = _mm512_fmadd_ps(hNear, r[j], sum[j]);
    }
    WStep<V, kRowEnd>(row + rowStride, edges, r);  // row 2k + 1
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      sum[j] = _mm512_fmadd_ps(hNear, r[j], sum[j]);
      last[j] = k == 0 ? _mm512_fmadd_ps(hFar, r[j], last[j]) : _mm512_mul_ps(hFar, r[j]);  // k + 1
    }
    if (k + 1 < inH) return false;  // else the axis end: row 2k + 2 is row 2k + 1
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) sum[j] = _mm512_fmadd_ps(hFar, r[j], sum[j]);
    DStepVectors<V>(d, k, sum);
    return true;
  }

  // The chunk ends inside the axis: index h1 - 1 (`last`) takes its last term, row 2 h1.
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) void LastTerm(const DPlan &d, const float *strips, const StripEdges &edges,
                                               __m512 (&last)[V]) {
    __m512 r[V];
    WStep<V, kRowEnd>(strips + 2 * h1_ * src_.strides[3], edges, r);
    const __m512 hFar = _mm512_set1_ps(kHFar);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) last[j] = _mm512_fmadd_ps(hFar, r[j], last[j]);
    DStepVectors<V>(d, h1_ - 1, last);
  }
#else
  // W then H steps of one gradOut plane on whole rows of scratch.
  void WAndHSteps(const StencilStep &plane, const float *planeBase) {
    const int64_t inW = t_.w.inSize;
    for (const StencilStep &step : hSteps_) {
      WStep(SrcRow(planeBase, step.src), inW, rowW_);
      for (int e = 0; e < step.count; ++e) {
        const StencilEntry &en = step.e[e];
        AxpyRow(rowH_[en.dst & 1], rowW_, en.w, inW, en.assign);
      }
      if (step.finish >= 0) DStepRow(plane, step.finish, rowH_[step.finish & 1]);
    }
  }

  // The D step of the finished H row ih (a whole row, `values`) for gradOut plane `plane`.
  void DStepRow(const StencilStep &plane, int64_t ih, const float *values) {
    for (int e = 0; e < plane.count; ++e) {
      const StencilEntry &en = plane.e[e];
      AxpyRow(Slot(en.dst) + (ih - h0_) * stride_, values, en.w, t_.w.inSize, en.assign);
    }
  }

  // r[k] = 1/4 g[2k - 1] + 3/4 g[2k] + 3/4 g[2k + 1] + 1/4 g[2k + 2] (clamped), and r[min(1, inW - 1)]
  // += 0 * g[0] (the zero-weight tap).
  static void WStep(const float *g, int64_t inW, float *r) {
    const int64_t last = 2 * inW - 1;
    for (int64_t k = 0; k < inW; ++k) {
      const float before = g[k == 0 ? 0 : 2 * k - 1];
      const float after = g[2 * k + 2 <= last ? 2 * k + 2 : last];
      r[k] = 0.25f * before + 0.75f * g[2 * k] + 0.75f * g[2 * k + 1] + 0.25f * after;
    }
    r[inW > 1 ? 1 : 0] += 0.0f * g[0];
  }
#endif

  const TilingData &t_;
  const TensorView5d &src_;
  const TensorView5d &dst_;
  DstRowWriter<float> out_;
  int64_t stride_ = 0, planeElems_ = 0, h0_ = 0, h1_ = 0;
  bool directRows_ = false;   // finished rows go straight to gradInput (DStepVectors)
  bool alignedRows_ = false;  // ... as whole lines, streamed from the registers
#if defined(TRILINEAR3D_HAVE_AVX512)
  alignas(64) float lockState_[4][2][8 * 16];  // Quad's open H sums, per plane
  __mmask16 lastLo_ = 0, lastHi_ = 0, lastLane_ = 0, zeroTapLane_ = 0;
  bool partialEnd_ = false;  // the row's last vector is partial (masks and blend needed)
#endif
  float *slots_[2] = {nullptr, nullptr};
  float *rowW_ = nullptr, *rowH_[2] = {nullptr, nullptr};
  const float *srcBase_ = nullptr;
  float *dstBase_ = nullptr;
  std::vector<StencilStep> dSteps_, hSteps_;  // hSteps_: the portable path only
};

}  // namespace

void RunBackwardStencil2x(const KernelArgs &args, int blockIdx) { RunItems<Stencil2xRunner>(args, blockIdx); }

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
