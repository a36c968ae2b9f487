// The doubling stencil's lockstep of several gradOut planes (op_kernel/isa/
// upsample_backward_stencil2x.cpp), compiled once per vector ISA: rows of 128 or 64 gradInput columns
// streamed from the registers, row by row across up to four planes (Quad's four with their D sums in
// registers, the others with the general D step), each plane's open H sums waiting in L1.
#ifndef TRILINEAR3D_OP_KERNEL_STENCIL2X_LOCKSTEP_H_
#define TRILINEAR3D_OP_KERNEL_STENCIL2X_LOCKSTEP_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "op_kernel/stencil2x_strips.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x {
namespace {

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
// Several planes row by row (Lockstep), on the strips' row steps at the chunk's ends.
class Stencil2xLockstep : public Stencil2xStrips {
 protected:
  using Stencil2xStrips::Stencil2xStrips;

  // Quad: four gradOut planes 2m .. 2m + 3 whose D steps are the common ones (an even plane finishing
  // m - 1 and adding to m, an odd one adding to m and starting m + 1, and again for m + 1), rows of
  // 128 or 64 gradInput columns streamed from the registers (alignedRows_): row k of all four, then row
  // k + 1 of all four. The D sums of m and m + 1 stay in registers across the four planes, so a row
  // of the accumulator planes is read and written once per four planes instead of about three
  // times per plane. Plane by plane (Strip), those rows (two planes of 64 KB on B1) have left L1
  // before the next plane comes back to them, and their L2 loads and stores among gradOut's stream
  // keep fewer gradOut lines in flight; four planes at a time come close to a plain read of
  // gradOut. Each plane's two open H sums wait in lockState_ (L1) between its rows. The bits are
  // Strip's: every element takes the same terms in the same order, whatever the grouping. Other
  // planes (at the D axis's ends, at D chunk ends) take the general D step (Lockstep).
  //
  // QuadFits: whether planes[0 .. 4) have that shape; d: their D plans.
  bool QuadFits(const StencilStep *planes, DPlan (&d)[4]) const {
    for (int p = 0; p < 4; ++p) d[p] = PlanD(planes[p], 0, true);
    return KindOf(d[0]) == DKind::kStreamAdd && KindOf(d[1]) == DKind::kAddAssign &&
           KindOf(d[2]) == DKind::kStreamAdd && KindOf(d[3]) == DKind::kAddAssign &&
           d[1].target[0].slot == d[0].target[1].slot && d[2].target[0].slot == d[1].target[0].slot &&
           d[2].target[1].slot == d[1].target[1].slot && d[3].target[0].slot == d[2].target[1].slot;
  }

  // The planes from dSteps_[i] in lockstep: four through Quad where they fit it, else (where
  // L::kLockstepAll) the planes before the next four that fit (at most four) with their D steps
  // through DStepVectors: on B1 the D axis's first two planes and its last two, a quarter of its
  // gradOut. Row by row, they read gradOut in order with Quad's prefetch, and the accumulator rows
  // the planes share stay in L1 from one plane to the next; plane by plane (Strip), AVX2's strips of
  // a quarter row read each plane four times down its rows, 256 of every 1024 bytes. Returns how
  // many planes ran (0: none, plane i then goes through Strip).
  template <int V>
  size_t Lockstep(size_t i) {
    const size_t n = dSteps_.size();
    DPlan d[4];
    if (i + 4 <= n && QuadFits(&dSteps_[i], d)) {
      RunLockstep<V, true>(&dSteps_[i], 4, d);
      return 4;
    }
    if constexpr (!L::kLockstepAll) return 0;
    size_t count = 1;
    DPlan next[4];
    while (count < 4 && i + count < n && !(i + count + 4 <= n && QuadFits(&dSteps_[i + count], next)))
      ++count;
    for (size_t p = 0; p < count; ++p) d[p] = PlanD(dSteps_[i + p], 0, true);
    RunLockstep<V, false>(&dSteps_[i], static_cast<int>(count), d);
    return count;
  }

  // Planes planes[0 .. n) in lockstep (kQuad: Quad's four, n = 4), d: their D plans.
  template <int V, bool kQuad>
  void RunLockstep(const StencilStep *planes, int n, const DPlan (&d)[4]) {
    const int64_t h0 = h0_, h1 = h1_;
    const float *strips[4] = {};
    for (int p = 0; p < n; ++p) strips[p] = srcBase_ + planes[p].src * src_.strides[2];
    QuadRows<V>(QuadOp::kOpen, planes, n, strips, h0);
    const int64_t steadyEnd = std::min(h1, t_.h.inSize - 1);
    for (int64_t k = h0;; ++k) {
      if (k >= h1) {  // the chunk ends inside the axis
        QuadRows<V>(QuadOp::kLastTerm, planes, n, strips, k);
        return;
      }
      if (k > h0 && k < steadyEnd) {
        QuadSteadyRows<V, kQuad>(d, n, strips, k, steadyEnd);
        k = steadyEnd - 1;
        continue;
      }
      if (QuadRows<V>(QuadOp::kRowPair, planes, n, strips, k)) return;  // the same for every plane
    }
  }

  // The lockstep's rows outside QuadSteadyRows, plane by plane (planes[0 .. n)), on strips of at
  // most L::kMaxStrip vectors (AVX-512: the whole row; AVX2: 4 or 2 strips), each through Strip's
  // steps with its sums in lockState_: kOpen, OpenFirst (into both sums: the finishing one is not
  // read before RowPair sets it); kRowPair, RowPair of rows 2k and 2k + 1 (returns whether it
  // finished the axis); kLastTerm, LastTerm.
  enum class QuadOp { kOpen, kRowPair, kLastTerm };

  template <int V>
  bool QuadRows(QuadOp op, const StencilStep *planes, int n, const float *const (&strips)[4], int64_t k) {
    constexpr int kVs = V < L::kMaxStrip ? V : L::kMaxStrip, kStrips = V / kVs;
    bool done = false;
    for (int p = 0; p < n; ++p) {
      for (int s = 0; s < kStrips; ++s) {
        done = s + 1 == kStrips ? QuadStrip<kVs, RowEnd::kEnd>(op, planes[p], p, strips[p], s * kVs, k)
                                : QuadStrip<kVs, RowEnd::kNo>(op, planes[p], p, strips[p], s * kVs, k);
      }
    }
    return done;
  }

  template <int V, RowEnd kRowEnd>
  __attribute__((noinline)) bool QuadStrip(QuadOp op, const StencilStep &plane, int p, const float *rows,
                                           int64_t j0, int64_t k) {
    const float *strips = rows + 2 * kL * j0;
    const StripEdges edges{j0 == 0 ? 0 : -1,
                           kRowEnd != RowEnd::kNo ? 2 * t_.w.inSize - 1 - 2 * kL * j0 : 2 * kL * V, j0 == 0};
    float *finishing = FinishingSum(p) + kL * j0, *open = OpenSum(p) + kL * j0;
    Vec sum[V] = {}, last[V] = {};
    if (op == QuadOp::kOpen) {
      OpenFirst<V, kRowEnd>(strips, edges, sum);
      StoreSums<V>(open, sum);
      StoreSums<V>(finishing, sum);
      return false;
    }
    const DPlan d = PlanD(plane, j0, true);
    LoadSums<V>(finishing, last);
    if (op == QuadOp::kLastTerm) {
      LastTerm<V, kRowEnd>(d, strips, edges, last);
      return true;
    }
    LoadSums<V>(open, sum);
    const bool done = RowPair<V, kRowEnd>(d, strips, edges, k, sum, last);
    StoreSums<V>(finishing, sum);
    StoreSums<V>(open, last);
    return done;
  }

  // Rows k0 .. k1 - 1 of the planes: SteadyRow's W and H steps on blocks of kQuadBlock vectors, two
  // (the registers hold the sums of a block and its W and H results, not of a row: with a whole row of
  // eight zmm a block, AVX-512's sums went through the stack). kQuad: block after
  // block, each of the four planes, with DStepFixed's kStreamAdd, kAddAssign, kStreamAdd, kAddAssign and
  // the sums of m and m + 1 in registers between the planes; else plane after plane, each a whole row
  // (PlaneRow).
  template <int V>
  static constexpr int kQuadBlock = V < 2 ? V : 2;

  template <int V, bool kQuad>
  __attribute__((noinline)) void QuadSteadyRows(const DPlan (&d)[4], int n, const float *const (&strips)[4],
                                                int64_t k0, int64_t k1) {
    constexpr int S = kQuadBlock<V>, kBlocks = V / S;
    static_assert(V % S == 0, "whole blocks");
    const int64_t rowStride = src_.strides[3];
    // Each plane's two D weights (the targets it finishes or adds to, and the one it starts or adds to).
    Vec w[4][2];
    for (int p = 0; p < 4; ++p) {
      w[p][0] = L::Set1(d[p].target[0].w[0]);
      w[p][1] = L::Set1(d[p].target[1].w[0]);
    }
    for (int64_t k = k0; k < k1; ++k) {
      const float *src[4] = {};
      for (int p = 0; p < n; ++p) src[p] = strips[p] + 2 * k * rowStride;
      if constexpr (!kQuad) {
        for (int p = 0; p < n; ++p) PlaneRow<V>(d[p], p, src[p], k - 1);
        continue;
      }
      const int64_t row = k - 1 - h0_;  // the finished H index k - 1, as a row of the chunk
      if constexpr (kBlocks == 1) {
        QuadBlock<S, true, true>(d, w, src, row, 0);
      } else {
        QuadBlock<S, true, false>(d, w, src, row, 0);
        for (int c = 1; c + 1 < kBlocks; ++c) QuadBlock<S, false, false>(d, w, src, row, c);
        QuadBlock<S, false, true>(d, w, src, row, kBlocks - 1);
      }
    }
  }

  // One row step of plane p outside Quad (src: its row 2k): the W and H steps block by block into a
  // whole finished row ih = k - 1, then its D step once for the row (DStepVectors' choices are made
  // per row, not per block: per block they took as many instructions as the vector arithmetic).
  template <int V>
  __attribute__((always_inline)) void PlaneRow(const DPlan &d, int p, const float *src, int64_t ih) {
    constexpr int S = kQuadBlock<V>, kBlocks = V / S;
    Vec h[V];
    if constexpr (kBlocks == 1) {
      HBlockInto<S, true, true>(src, p, 0, h);
    } else {
      HBlockInto<S, true, false>(src, p, 0, h);
      for (int c = 1; c + 1 < kBlocks; ++c) HBlockInto<S, false, false>(src, p, c, h);
      HBlockInto<S, false, true>(src, p, kBlocks - 1, h);
    }
    DStepVectors<V>(d, ih, h);
  }

  template <int S, bool kFirst, bool kLast, int V>
  __attribute__((always_inline)) void HBlockInto(const float *src, int p, int c, Vec (&h)[V]) {
    Vec block[S];
    HStepBlock<S, kFirst, kLast>(src + 2 * kL * S * c, p, kL * S * c, block);
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) h[S * c + j] = block[j];
  }

  // The W and H steps of rows 2k and 2k + 1 of plane p for the S vectors at column col (gradOut at
  // `at`, row 2k): h = the finished sum of index k - 1; lockState_ then holds k's sum (finished by
  // row 2k + 2) and k + 1's.
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) void HStepBlock(const float *at, int p, int64_t col, Vec (&h)[S]) {
    const Vec hFar = L::Set1(kHFar), hNear = L::Set1(kHNear);
    const int64_t rowStride = src_.strides[3];
    PrefetchAhead<S>(at, rowStride);
    float *finishing = FinishingSum(p) + col, *open = OpenSum(p) + col;
    Vec r0[S], r1[S];
    WBlock<S, kFirst, kLast>(at, r0);
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) h[j] = L::Fma(hFar, r0[j], L::Load(finishing + kL * j));
    WBlock<S, kFirst, kLast>(at + rowStride, r1);
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) {
      const Vec sum = L::Fma(hNear, r0[j], L::Load(open + kL * j));
      L::Store(finishing + kL * j, L::Fma(hNear, r1[j], sum));  // k, finished next
      L::Store(open + kL * j, L::Mul(hFar, r1[j]));             // k + 1
    }
  }

  // Block c (vectors S c .. S c + S - 1) of one row step of QuadSteadyRows; src: row 2k of each plane.
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) void QuadBlock(const DPlan (&d)[4], const Vec (&w)[4][2],
                                                const float *const (&src)[4], int64_t row, int c) {
    const int64_t outStride = dst_.strides[3];
    const int64_t col = kL * S * c;  // the block's first gradInput column
    Vec a[S], b[S];                  // the sums of m and m + 1
    // Unrolled: each plane's branch below is then known where it is compiled, and its pointers and
    // weights need no reloading between the planes.
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      const Vec w0 = w[p][0], w1 = w[p][1];
      Vec h[S];
      HStepBlock<S, kFirst, kLast>(src[p] + 2 * col, p, col, h);
      if (p == 0) {  // finishes m - 1 (streamed), adds to m
        const float *before = d[0].target[0].slot + row * stride_ + col,
                    *slotM = d[0].target[1].slot + row * stride_ + col;
        float *out = d[0].target[0].out + row * outStride + col;
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          L::Stream(out + kL * j, L::Fma(w0, h[j], L::Load(before + kL * j)));
          a[j] = L::Fma(w1, h[j], L::Load(slotM + kL * j));
        }
      } else if (p == 1) {  // adds to m, starts m + 1
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          a[j] = L::Fma(w0, h[j], a[j]);
          b[j] = L::Mul(w1, h[j]);
        }
      } else if (p == 2) {  // finishes m (streamed), adds to m + 1
        float *out = d[2].target[0].out + row * outStride + col;
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          L::Stream(out + kL * j, L::Fma(w0, h[j], a[j]));
          b[j] = L::Fma(w1, h[j], b[j]);
        }
      } else {  // adds to m + 1, starts m + 2 (the slots of m - 1 and m)
        float *next = d[3].target[0].slot + row * stride_ + col,
              *after = d[3].target[1].slot + row * stride_ + col;
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          L::Store(next + kL * j, L::Fma(w0, h[j], b[j]));
          L::Store(after + kL * j, L::Mul(w1, h[j]));
        }
      }
    }
  }

  // Requests into L1 the gradOut of rows 2k + 8 and 2k + 9 under the S vectors of gradInput columns
  // at `at` (row 2k) in QuadSteadyRows, which reads rows 2k and 2k + 1 of four planes (with AVX2 a
  // block at a time): the hardware prefetchers alone do not keep enough of these rows in flight
  // (eight rows ahead is the best distance measured). Strip's rows gain nothing from it.
  template <int S>
  __attribute__((always_inline)) static void PrefetchAhead(const float *at, int64_t rowStride) {
#pragma GCC unroll 16
    for (int q = 0; q < 2 * S * kL; q += 16) {
      __builtin_prefetch(at + 8 * rowStride + q, 0, 3);  // prefetcht0 on x86-64
      __builtin_prefetch(at + 9 * rowStride + q, 0, 3);
    }
  }

  // Quad's open H sums of plane p: the one row 2k finishes (index k - 1) and the one it continues (k).
  float *FinishingSum(int p) { return lockState_[p][0]; }
  float *OpenSum(int p) { return lockState_[p][1]; }

  template <int V>
  __attribute__((always_inline)) static void LoadSums(const float *at, Vec (&v)[V]) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) v[j] = L::Load(at + kL * j);
  }
  template <int V>
  __attribute__((always_inline)) static void StoreSums(float *at, const Vec (&v)[V]) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) L::Store(at + kL * j, v[j]);
  }

  alignas(64) float lockState_[4][2][128];  // the lockstep's open H sums, per plane (rows of up to 128)
};
#endif

}  // namespace
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x

#endif  // TRILINEAR3D_OP_KERNEL_STENCIL2X_LOCKSTEP_H_
