// The doubling stencil's W and H steps of one gradOut plane at a time (op_kernel/isa/
// upsample_backward_stencil2x.cpp), compiled once per ISA: with the vector ISAs on strips of up to
// L::kMaxStrip vectors of gradInput columns, each strip down all the chunk's rows with its two open
// H sums in registers (Strip, and the row steps the lockstep shares: OpenFirst, RowPair,
// SteadyRows, LastTerm); with the portable ISA on whole rows of scratch.
#ifndef TRILINEAR3D_OP_KERNEL_STENCIL2X_STRIPS_H_
#define TRILINEAR3D_OP_KERNEL_STENCIL2X_STRIPS_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cstdint>

#include "op_kernel/stencil2x_d_step.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x {
namespace {

// A plane's W and H steps, strip by strip (WAndHSteps), and the row steps of one strip.
class Stencil2xStrips : public Stencil2xDStep {
 protected:
  using Stencil2xDStep::Stencil2xDStep;

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
  // W then H steps of one gradOut plane on strips of 8, 4, 2 or 1 vectors of gradInput columns (AVX2:
  // 4, 2 or 1; the last strip ends the row). Four strip widths and two strip kinds keep the
  // instantiations few: all of 1 to 8 times three row ends made the file take minutes and gigabytes
  // under clang's sanitizers.
  void WAndHSteps(const StencilStep &plane, const float *planeBase) {
    const int64_t vectors = (t_.w.inSize + kL - 1) / kL;
    for (int64_t j0 = 0; j0 < vectors;) {
      const int64_t left = vectors - j0;
      const int v = left >= L::kMaxStrip ? L::kMaxStrip : left >= 4 ? 4 : left >= 2 ? 2 : 1;
      const bool end = j0 + v == vectors;
      switch (v) {
        case 8:
          if constexpr (L::kMaxStrip >= 8) {
            end ? Strip<8, RowEnd::kEnd>(plane, planeBase, j0) : Strip<8, RowEnd::kNo>(plane, planeBase, j0);
          }
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

  // The W and H steps of one gradOut plane for gradInput columns kL * j0 .. kL * (j0 + V), in the
  // order of StencilSteps (stencil2x_steps.h) spelled out as fixed code: entering index k, `cur`
  // holds k's sum from row 2k - 1 and `prev` k - 1's, which row 2k finishes (the step list itself,
  // walked in this loop, is slower with gradOut in memory: see the file comment).
  template <int V, RowEnd kRowEnd>
  __attribute__((noinline)) void Strip(const StencilStep &plane, const float *planeBase, int64_t j0) {
    const int64_t h0 = h0_, h1 = h1_, outW = 2 * t_.w.inSize;
    const float *strips = planeBase + 2 * kL * j0;  // the strip of the plane's row 0
    const DPlan d = PlanD(plane, j0, directRows_);
    const StripEdges edges{j0 == 0 ? 0 : -1, kRowEnd != RowEnd::kNo ? outW - 1 - 2 * kL * j0 : 2 * kL * V,
                           j0 == 0};
    Vec cur[V] = {}, prev[V] = {};
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
    const DKind kind = V == L::kMaxStrip ? KindOf(d) : DKind::kGeneric;
    if constexpr (V == L::kMaxStrip) {
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
  __attribute__((always_inline)) void OpenFirst(const float *strips, const StripEdges &edges, Vec (&cur)[V]) {
    const int64_t h0 = h0_, rowStride = src_.strides[3];
    const Vec hFar = L::Set1(kHFar), zero = L::Zero();
    Vec r[V];
    if (h0 == 1) {  // index 1's first terms: the zero-weight tap of row 0, then row 1
      WStep<V, kRowEnd>(strips, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = L::Mul(zero, r[j]);
      WStep<V, kRowEnd>(strips + rowStride, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = L::Fma(hFar, r[j], cur[j]);
    } else if (h0 > 1) {
      WStep<V, kRowEnd>(strips + (2 * h0 - 1) * rowStride, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = L::Mul(hFar, r[j]);
    }
  }

  // Indices k .. end - 1, each past the chunk's first and before the axis's last (so row 2k
  // finishes k - 1 and row 2k + 1 starts k + 1), two per iteration with the sums' roles exchanged.
  // Returns the next k; *odd: an odd count was done (the roles end exchanged).
  template <int V, RowEnd kRowEnd, DKind kKind>
  __attribute__((always_inline)) int64_t SteadyRows(const DPlan &d, const float *strips,
                                                    const StripEdges &edges, int64_t k, int64_t end,
                                                    Vec (&sum)[V], Vec (&last)[V], bool *odd) {
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
                                                int64_t k, Vec (&sum)[V], Vec (&last)[V]) {
    const Vec hFar = L::Set1(kHFar), hNear = L::Set1(kHNear);
    const int64_t rowStride = src_.strides[3];
    const float *row = strips + 2 * k * rowStride;
    Vec r[V];
    WStep<V, kRowEnd>(row, edges, r);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) last[j] = L::Fma(hFar, r[j], last[j]);
    DStepFixed<V, kKind>(d, k - 1, last);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) sum[j] = L::Fma(hNear, r[j], sum[j]);
    WStep<V, kRowEnd>(row + rowStride, edges, r);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      sum[j] = L::Fma(hNear, r[j], sum[j]);
      last[j] = L::Mul(hFar, r[j]);
    }
  }

  // Rows 2k and 2k + 1: row 2k finishes k - 1 (`last`) and continues k (`sum`); row 2k + 1 continues
  // k and starts k + 1 in `last` (or, at the axis end, finishes k: returns true).
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) bool RowPair(const DPlan &d, const float *strips, const StripEdges &edges,
                                              int64_t k, Vec (&sum)[V], Vec (&last)[V]) {
    const int64_t inH = t_.h.inSize, rowStride = src_.strides[3];
    const Vec hFar = L::Set1(kHFar), hNear = L::Set1(kHNear);
    const Vec zero = L::Zero();
    const float *row = strips + 2 * k * rowStride;
    Vec r[V];
    WStep<V, kRowEnd>(row, edges, r);  // row 2k
    if (k == 0) {
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) {
        sum[j] = L::Fma(hNear, r[j], L::Mul(hFar, r[j]));  // 2k - 1 clamped
        if (inH == 1) {
          sum[j] = L::Fma(zero, r[j], sum[j]);  // the zero-weight tap, on index 0 itself
        } else {
          last[j] = L::Mul(zero, r[j]);  // index 1's zero-weight tap
        }
      }
    } else {
      if (k > h0_) {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) last[j] = L::Fma(hFar, r[j], last[j]);
        DStepVectors<V>(d, k - 1, last);
      }
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) sum[j] = L::Fma(hNear, r[j], sum[j]);
    }
    WStep<V, kRowEnd>(row + rowStride, edges, r);  // row 2k + 1
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      sum[j] = L::Fma(hNear, r[j], sum[j]);
      last[j] = k == 0 ? L::Fma(hFar, r[j], last[j]) : L::Mul(hFar, r[j]);  // k + 1
    }
    if (k + 1 < inH) return false;  // else the axis end: row 2k + 2 is row 2k + 1
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) sum[j] = L::Fma(hFar, r[j], sum[j]);
    DStepVectors<V>(d, k, sum);
    return true;
  }

  // The chunk ends inside the axis: index h1 - 1 (`last`) takes its last term, row 2 h1.
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) void LastTerm(const DPlan &d, const float *strips, const StripEdges &edges,
                                               Vec (&last)[V]) {
    Vec r[V];
    WStep<V, kRowEnd>(strips + 2 * h1_ * src_.strides[3], edges, r);
    const Vec hFar = L::Set1(kHFar);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) last[j] = L::Fma(hFar, r[j], last[j]);
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

#endif
};

}  // namespace
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x

#endif  // TRILINEAR3D_OP_KERNEL_STENCIL2X_STRIPS_H_
