// Row arithmetic of the kernels: dst = w * src or dst += w * src (AxpyRow), the forward's two-tap
// blend (BlendRows), and RowTargets, the rows a W-pass result row is scattered into (the backward's
// H scatter), applied a row at a time (ApplyTargets) or one vector at a time inside a W pass
// (EmitLanes, ApplyTargetLanes). Compiled once per ISA (included only from src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_ROW_ARITH_H_
#define TRILINEAR3D_OP_KERNEL_ROW_ARITH_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>
#include <type_traits>

#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

// dst = w * src (assign) or dst += w * src, n elements.
template <typename A>
inline void AxpyRow(A *__restrict dst, const A *__restrict src, A w, int64_t n, bool assign) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  // Explicit vectors with a masked tail: these rows are short (a few hundred elements) and called
  // often, so the compiler's peeled prologue and scalar epilogue would cost as much as the body.
  if constexpr (std::is_same_v<A, float>) {
    const __m512 wv = _mm512_set1_ps(w);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m512 x = _mm512_loadu_ps(src + i);
      _mm512_storeu_ps(dst + i,
                       assign ? _mm512_mul_ps(wv, x) : _mm512_fmadd_ps(wv, x, _mm512_loadu_ps(dst + i)));
    }
    if (i < n) {
      const __mmask16 m = Avx512Lanes<float>::FirstLanes(n - i);
      const __m512 x = _mm512_maskz_loadu_ps(m, src + i);
      _mm512_mask_storeu_ps(
          dst + i, m,
          assign ? _mm512_mul_ps(wv, x) : _mm512_fmadd_ps(wv, x, _mm512_maskz_loadu_ps(m, dst + i)));
    }
    return;
  }
#elif defined(TRILINEAR3D_HAVE_VEC128)
  // The baseline tier's vectors, two per iteration, then the lanes' operations one element at a time.
  using L = Vec128Lanes<A>;
  constexpr int64_t kL = L::kLanes;
  const typename L::Vec wv = L::Broadcast(w);
  int64_t i = 0;
  if (assign) {
    for (; i + 2 * kL <= n; i += 2 * kL) {
      L::Store(dst + i, L::Mul(wv, L::Load(src + i)));
      L::Store(dst + i + kL, L::Mul(wv, L::Load(src + i + kL)));
    }
    for (; i < n; ++i) dst[i] = w * src[i];
  } else {
    for (; i + 2 * kL <= n; i += 2 * kL) {
      L::Store(dst + i, L::Fma(wv, L::Load(src + i), L::Load(dst + i)));
      L::Store(dst + i + kL, L::Fma(wv, L::Load(src + i + kL), L::Load(dst + i + kL)));
    }
    for (; i < n; ++i) dst[i] = L::Fma(w, src[i], dst[i]);
  }
  return;
#endif
  if (assign) {
    for (int64_t i = 0; i < n; ++i) dst[i] = w * src[i];
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = LaneFma(w, src[i], dst[i]);
  }
}

// dst = w0 * a + w1 * b: the forward's two-tap blend of rows.
template <typename A>
inline void BlendRows(A *__restrict dst, const A *__restrict a, A w0, const A *__restrict b, A w1,
                      int64_t n) {
  if (b == nullptr) {  // one tap (a unit axis): no zero-weight term, so an inf stays an inf
#if defined(TRILINEAR3D_HAVE_VEC128)
    AxpyRow(dst, a, w0, n, true);
#else
    for (int64_t i = 0; i < n; ++i) dst[i] = w0 * a[i];
#endif
    return;
  }
#if defined(TRILINEAR3D_HAVE_VEC128)
  // The baseline tier's vectors: w1 * b added to w0 * a (one FMA on NEON), the tail as a lane.
  using L = Vec128Lanes<A>;
  constexpr int64_t kL = L::kLanes;
  const typename L::Vec v0 = L::Broadcast(w0), v1 = L::Broadcast(w1);
  int64_t i = 0;
  for (; i + 2 * kL <= n; i += 2 * kL) {
    L::Store(dst + i, L::Fma(v1, L::Load(b + i), L::Mul(v0, L::Load(a + i))));
    L::Store(dst + i + kL, L::Fma(v1, L::Load(b + i + kL), L::Mul(v0, L::Load(a + i + kL))));
  }
  for (; i < n; ++i) dst[i] = L::Fma(w1, b[i], w0 * a[i]);
#else
  for (int64_t i = 0; i < n; ++i) dst[i] = w0 * a[i] + w1 * b[i];
#endif
}

// Where a W-pass output row goes next (the backward's H scatter): up to two rows, each
// target = w * row (assign) or target += w * row, applied in order.
template <typename A>
struct RowTargets {
  A *row[2];
  A w[2];
  bool assign[2];
  int count;
};

// Applies a row's targets to its n elements held in `values` (the paths without fused epilogue).
template <typename A>
inline void ApplyTargets(const RowTargets<A> &t, const A *values, int64_t n) {
  for (int k = 0; k < t.count; ++k) AxpyRow(t.row[k], values, t.w[k], n, t.assign[k]);
}

#if defined(TRILINEAR3D_HAVE_AVX512)
// One vector of W-pass results: stored at out (the lanes of m), or, with targets, applied to each
// target row at element offset `at` (w * v assigned, or added with one FMA): the fused H scatter.
template <typename A>
inline void EmitLanes(typename Avx512Lanes<A>::Vec v, A *out, typename Avx512Lanes<A>::Mask m,
                      const RowTargets<A> *targets, int64_t at) {
  using L = Avx512Lanes<A>;
  if (targets == nullptr) {
    L::Store(out, v, m);
    return;
  }
  for (int t = 0; t < targets->count; ++t) {
    A *p = targets->row[t] + at;
    const typename L::Vec w = L::Broadcast(targets->w[t]);
    L::Store(p, targets->assign[t] ? L::Mul(w, v) : L::Fma(w, v, L::Load(p, m)), m);
  }
}
#elif defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
// v stored at p: every lane, or (masked) only the lanes of m; AVX2's masked stores are slow (on AMD
// especially), and the baseline tier's go through a buffer, so they serve partial vectors only.
template <typename A>
inline void StoreLanes(A *p, typename TierLanes<A>::Vec v, bool masked, typename TierLanes<A>::Mask m) {
  if (masked) {
    TierLanes<A>::Store(p, v, m);
  } else {
    TierLanes<A>::Store(p, v);
  }
}

// The W pass's fused H scatter on one vector: the target at p becomes w * v (assign) or p + w * v
// (the lanes' Fma); masked: only the lanes of m are read and written.
template <typename A>
inline void ApplyTargetLanes(A *p, typename TierLanes<A>::Vec v, A w, bool assign, bool masked,
                             typename TierLanes<A>::Mask m) {
  using L = TierLanes<A>;
  const typename L::Vec wv = L::Broadcast(w);
  StoreLanes(p, assign ? L::Mul(wv, v) : L::Fma(wv, v, masked ? L::Load(p, m) : L::Load(p)), masked, m);
}
#endif

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_ROW_ARITH_H_
