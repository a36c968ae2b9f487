// BlendTapRows: the forward's blend of one row from all of its taps' rows in one pass, the accumulator
// in a register across the taps (one store per vector), where BlendRows followed by one AxpyRow per
// further tap sweeps the destination row once per tap. Every element takes the
// operations those take, in the same order, so the bits are theirs on every tier:
//   one tap:   w0 * r0 (BlendRows' unit-axis product);
//   two taps:  w0 * r0 + w1 * r1 as BlendRows computes it (the AVX tiers: GCC contracts its loop's
//              expression into fma(w0, r0, w1 * r1); the 128-bit tier: w1 * r1 added to w0 * r0 by
//              Vec128Lanes::Fma);
//   each further tap t, in order: acc + w_t * r_t as AxpyRow adds it (an FMA on the AVX tiers and
//   NEON, a multiply and an add on SSE2).
// accumulate: the blend continues one already stored in dst (a tap list longer than one call's arrays):
// every tap is added to it as a further tap. Compiled once per ISA (included only from
// src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_BLEND_TAP_ROWS_H_
#define TRILINEAR3D_OP_KERNEL_BLEND_TAP_ROWS_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cmath>
#include <cstdint>

#include "op_kernel/row_arith.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
namespace blend_detail {

// The first two taps' sum, as a vector and as one element (the tails).
template <typename L>
inline typename L::Vec FirstTwo(typename L::Vec w0, typename L::Vec a, typename L::Vec w1,
                                typename L::Vec b) {
#if defined(TRILINEAR3D_HAVE_AVX2)
  return L::Fma(w0, a, L::Mul(w1, b));
#else
  return L::Fma(w1, b, L::Mul(w0, a));
#endif
}

template <typename A>
inline A FirstTwoLane(A w0, A a, A w1, A b) {
#if defined(TRILINEAR3D_HAVE_AVX2)
  return TierLanes<A>::Fma(w0, a, w1 * b);
#else
  return TierLanes<A>::Fma(w1, b, w0 * a);
#endif
}

// kU vectors of the blend from element x on, into acc (L's lanes: the operations are lane-wise, so any
// width gives the same bits); accumulate: acc holds a blend to continue, and every tap is a further one.
template <typename L, int kU, typename A>
inline void BlendInto(typename L::Vec *acc, const A *const *rows, const A *w, int count, bool accumulate,
                      int64_t x) {
  using Vec = typename L::Vec;
  constexpr int64_t V = L::kLanes;
  int t = 0;
  if (!accumulate && count == 1) {
    const Vec w0 = L::Broadcast(w[0]);
    for (int u = 0; u < kU; ++u) acc[u] = L::Mul(w0, L::Load(rows[0] + x + u * V));
    t = 1;
  } else if (!accumulate) {
    const Vec w0 = L::Broadcast(w[0]), w1 = L::Broadcast(w[1]);
    for (int u = 0; u < kU; ++u)
      acc[u] = FirstTwo<L>(w0, L::Load(rows[0] + x + u * V), w1, L::Load(rows[1] + x + u * V));
    t = 2;
  }
  for (; t < count; ++t) {
    const Vec wt = L::Broadcast(w[t]);
    const A *p = rows[t] + x;
    for (int u = 0; u < kU; ++u) acc[u] = L::Fma(wt, L::Load(p + u * V), acc[u]);
  }
}

// Element x of the blend: BlendInto's operations on one lane; accumulate: continuing acc.
template <typename A>
inline A BlendElement(const A *const *rows, const A *w, int count, int64_t x, bool accumulate, A acc) {
  int t = 0;
  if (!accumulate && count == 1) {
    acc = w[0] * rows[0][x];
    t = 1;
  } else if (!accumulate) {
    acc = FirstTwoLane(w[0], rows[0][x], w[1], rows[1][x]);
    t = 2;
  }
  for (; t < count; ++t) acc = TierLanes<A>::Fma(w[t], rows[t][x], acc);
  return acc;
}

// kU vectors of results from x on (kU * kLanes elements), stored at dst + x.
template <typename L, int kU, typename A>
inline void BlendVectors(A *__restrict dst, const A *const *rows, const A *w, int count, bool accumulate,
                         int64_t x) {
  constexpr int64_t V = L::kLanes;
  typename L::Vec acc[kU];
  if (accumulate) {
    for (int u = 0; u < kU; ++u) acc[u] = L::Load(dst + x + u * V);
  }
  BlendInto<L, kU>(acc, rows, w, count, accumulate, x);
  for (int u = 0; u < kU; ++u) L::Store(dst + x + u * V, acc[u]);
}

// The vectors of BlendTapRows for a blend of exactly K taps from nothing (K = 2 to 4: the bilinear and
// bicubic rows), its weights and rows held in registers across the row: the same operations as
// BlendVectors.
template <int K, typename A>
inline int64_t BlendFixedTaps(A *__restrict dst, const A *const *rows, const A *w, int64_t n) {
  using L = TierLanes<A>;
  using Vec = typename L::Vec;
  constexpr int64_t V = L::kLanes;
  Vec wv[K];
  const A *r[K];
  for (int t = 0; t < K; ++t) {
    wv[t] = L::Broadcast(w[t]);
    r[t] = rows[t];
  }
  int64_t x = 0;
  for (; x + 2 * V <= n; x += 2 * V) {
    Vec acc0 = FirstTwo<L>(wv[0], L::Load(r[0] + x), wv[1], L::Load(r[1] + x));
    Vec acc1 = FirstTwo<L>(wv[0], L::Load(r[0] + x + V), wv[1], L::Load(r[1] + x + V));
#pragma GCC unroll 4
    for (int t = 2; t < K; ++t) {
      acc0 = L::Fma(wv[t], L::Load(r[t] + x), acc0);
      acc1 = L::Fma(wv[t], L::Load(r[t] + x + V), acc1);
    }
    L::Store(dst + x, acc0);
    L::Store(dst + x + V, acc1);
  }
  return x;
}

}  // namespace blend_detail

// dst[x] = the blend of rows[0 .. count)[x] with weights w (see the top of the file), x < n; count >= 1.
// dst must not overlap a source row.
template <typename A>
inline void BlendTapRows(A *__restrict dst, const A *const *rows, const A *w, int count, int64_t n,
                         bool accumulate) {
  using L = TierLanes<A>;
  constexpr int64_t V = L::kLanes;
  int64_t x = 0;
  if (!accumulate && count == 2) {
    x = blend_detail::BlendFixedTaps<2>(dst, rows, w, n);
  } else if (!accumulate && count == 3) {
    x = blend_detail::BlendFixedTaps<3>(dst, rows, w, n);
  } else if (!accumulate && count == 4) {
    x = blend_detail::BlendFixedTaps<4>(dst, rows, w, n);
  } else {
    for (; x + 4 * V <= n; x += 4 * V) blend_detail::BlendVectors<L, 4>(dst, rows, w, count, accumulate, x);
  }
  for (; x + V <= n; x += V) blend_detail::BlendVectors<L, 1>(dst, rows, w, count, accumulate, x);
  for (; x < n; ++x)
    dst[x] = blend_detail::BlendElement(rows, w, count, x, accumulate, accumulate ? dst[x] : A(0));
}
#else
// A baseline tier without vectors: BlendRows and AxpyRow themselves.
template <typename A>
inline void BlendTapRows(A *dst, const A *const *rows, const A *w, int count, int64_t n, bool accumulate) {
  int t = 0;
  if (!accumulate) {
    BlendRows(dst, rows[0], w[0], count > 1 ? rows[1] : nullptr, count > 1 ? w[1] : A(0), n);
    t = count > 1 ? 2 : 1;
  }
  for (; t < count; ++t) AxpyRow(dst, rows[t], w[t], n, false);
}
#endif

// Calls f(row, weight) for each tap of output o of the tap table `taps` (TapTable: i0 / l0, i1 / l1
// when i1 >= 0, then the further taps' lists), in that order (the blends' order), tap i's row at
// rows + (i - first) * stride.
template <typename A, typename Table, typename F>
inline void ForEachTapRow(const Table &taps, int64_t o, const A *rows, int64_t first, int64_t stride, F &&f) {
  const size_t k = static_cast<size_t>(o);
  f(rows + (taps.i0[k] - first) * stride, taps.l0[k]);
  if (taps.i1[k] >= 0) f(rows + (taps.i1[k] - first) * stride, taps.l1[k]);
  if (taps.moreBegin.empty()) return;
  for (int64_t e = taps.moreBegin[k]; e < taps.moreBegin[k + 1]; ++e) {
    const size_t ke = static_cast<size_t>(e);
    f(rows + (taps.moreI[ke] - first) * stride, taps.moreL[ke]);
  }
}

// dst = output o of the tap table `taps` over rows of n elements (ForEachTapRow): the forward's
// BlendRows and one AxpyRow per further tap, in one pass (per group of kGroup taps). A table of one or
// two taps per output (no lists: the linear filters) goes through BlendRows itself.
template <typename A, typename Table>
inline void BlendOutputTaps(A *dst, const Table &taps, int64_t o, const A *rows, int64_t first,
                            int64_t stride, int64_t n) {
  const size_t k = static_cast<size_t>(o);
  if (taps.moreBegin.empty()) {
    BlendRows(dst, rows + (taps.i0[k] - first) * stride, taps.l0[k],
              taps.i1[k] < 0 ? nullptr : rows + (taps.i1[k] - first) * stride, taps.l1[k], n);
    return;
  }
  constexpr int kGroup = 32;
  const A *src[kGroup];
  A w[kGroup];
  int count = 0;
  bool accumulate = false;
  ForEachTapRow(taps, o, rows, first, stride, [&](const A *row, A weight) {
    if (count == kGroup) {
      BlendTapRows(dst, src, w, count, n, accumulate);
      accumulate = true;
      count = 0;
    }
    src[count] = row;
    w[count++] = weight;
  });
  BlendTapRows(dst, src, w, count, n, accumulate);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_BLEND_TAP_ROWS_H_
