// CombineRows: the vertical passes' one primitive (the width-last backward's D and H steps).
//   dst[x] = (accumulate ? dst[x] : 0) + w[0] * src[0][x] + ... + w[k-1] * src[k-1][x],  x < n,
// summed left to right, the same operations for every x whatever its position in a vector, so a
// result never depends on where a row starts or how an item was cut. Sources are the dtype
// (converted on load, no staging copy) or the accumulation type. Compiled once per ISA (included
// only from src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_H_
#define TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "op_kernel/simd_row_ops.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

#if defined(TRILINEAR3D_HAVE_AVX512)
namespace combine_detail {

// 16 source elements as fp32 lanes (simd_row_ops.h's LoadFloatLanes); the masked form reads
// nothing outside the mask.
template <typename S>
inline __m512 LoadLanes(const S *p, __mmask16 m) {
  return LoadFloatLanes(p, m);
}

template <typename S>
inline __m512 LoadLanes(const S *p) {
  return LoadFloatLanes(p);
}

inline __m512d LoadLanes(const double *p, __mmask8 m) { return _mm512_maskz_loadu_pd(m, p); }
inline __m512d LoadLanes(const double *p) { return _mm512_loadu_pd(p); }
inline __m512 Broadcast(float w) { return _mm512_set1_ps(w); }
inline __m512d Broadcast(double w) { return _mm512_set1_pd(w); }
inline __m512 Mul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
inline __m512d Mul(__m512d a, __m512d b) { return _mm512_mul_pd(a, b); }
inline __m512 Fma(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
inline __m512d Fma(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
inline __m512 LoadAcc(const float *p) { return _mm512_loadu_ps(p); }
inline __m512d LoadAcc(const double *p) { return _mm512_loadu_pd(p); }
inline __m512 LoadAcc(const float *p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
inline __m512d LoadAcc(const double *p, __mmask8 m) { return _mm512_maskz_loadu_pd(m, p); }
inline void StoreAcc(float *p, __m512 v) { _mm512_storeu_ps(p, v); }
inline void StoreAcc(double *p, __m512d v) { _mm512_storeu_pd(p, v); }
inline void StoreAcc(float *p, __m512 v, __mmask16 m) { _mm512_mask_storeu_ps(p, m, v); }
inline void StoreAcc(double *p, __m512d v, __mmask8 m) { _mm512_mask_storeu_pd(p, m, v); }

// One vector of results at x (Ms: no mask, or the tail's mask).
template <int K, typename A, typename S, typename Vec, typename... Ms>
inline Vec CombineLanes(const A *dst, const S *const *src, const Vec *w, int64_t x, bool accumulate,
                        Ms... mask) {
  Vec acc = accumulate ? Fma(w[0], LoadLanes(src[0] + x, mask...), LoadAcc(dst + x, mask...))
                       : Mul(w[0], LoadLanes(src[0] + x, mask...));
#pragma GCC unroll 8
  for (int j = 1; j < K; ++j) acc = Fma(w[j], LoadLanes(src[j] + x, mask...), acc);
  return acc;
}

template <int K, typename A, typename S>
inline void CombineK(A *__restrict dst, const S *const *src, const A *weights, int64_t n, bool accumulate) {
  using Vec = typename Avx512Types<A>::Vec;
  using Mask = typename Avx512Types<A>::Mask;
  constexpr int64_t kLanes = 64 / sizeof(A);
  Vec w[K];
  const S *s[K];
  for (int j = 0; j < K; ++j) {
    w[j] = Broadcast(weights[j]);
    s[j] = src[j];
  }
  int64_t x = 0;
  for (; x + 2 * kLanes <= n; x += 2 * kLanes) {  // two independent chains per iteration
    const Vec a = CombineLanes<K>(dst, s, w, x, accumulate);
    const Vec b = CombineLanes<K>(dst, s, w, x + kLanes, accumulate);
    StoreAcc(dst + x, a);
    StoreAcc(dst + x + kLanes, b);
  }
  for (; x < n; x += kLanes) {
    const Mask m = n - x >= kLanes ? Mask(~Mask(0)) : static_cast<Mask>((1u << (n - x)) - 1);
    StoreAcc(dst + x, CombineLanes<K>(dst, s, w, x, accumulate, m), m);
  }
}

}  // namespace combine_detail
#elif defined(TRILINEAR3D_HAVE_AVX2)
namespace combine_detail {

// CombineK for AVX2 (8 fp32 or 4 fp64 lanes; Avx2Lanes of simd_row_ops.h): the accumulator stays in
// a register across the k sources (one store per vector, instead of one sweep over dst per source);
// fp16 / bf16 sources are converted as they are loaded (exactly, as LoadRow does), and the tail runs
// the same fused operations one element at a time.
template <int K, typename A, typename S>
inline void CombineK(A *__restrict dst, const S *const *src, const A *weights, int64_t n, bool accumulate) {
  using L = Avx2Lanes<A>;
  typename L::Vec w[K];
  const S *s[K];
  for (int j = 0; j < K; ++j) {
    w[j] = L::Broadcast(weights[j]);
    s[j] = src[j];
  }
  int64_t x = 0;
  for (; x + L::kLanes <= n; x += L::kLanes) {
    typename L::Vec acc =
        accumulate ? L::Fma(w[0], L::Load(s[0] + x), L::Load(dst + x)) : L::Mul(w[0], L::Load(s[0] + x));
#pragma GCC unroll 8
    for (int j = 1; j < K; ++j) acc = L::Fma(w[j], L::Load(s[j] + x), acc);
    L::Store(dst + x, acc);
  }
  for (; x < n; ++x) {
    A acc = accumulate ? std::fma(weights[0], ToAcc(s[0][x]), dst[x]) : weights[0] * ToAcc(s[0][x]);
    for (int j = 1; j < K; ++j) acc = std::fma(weights[j], ToAcc(s[j][x]), acc);
    dst[x] = acc;
  }
}

}  // namespace combine_detail
#endif

#if defined(TRILINEAR3D_HAVE_AVX2)
namespace combine_detail {

// This ISA's CombineK as a type, so that WithTapCount can pick its tap count.
struct VectorCombine {
  template <int K, typename A, typename S>
  static void Run(A *dst, const S *const *src, const A *w, int64_t n, bool accumulate) {
    CombineK<K>(dst, src, w, n, accumulate);
  }
};

// Kernel::Run<K>(args...) with K = part (1 to 4): the tap count as a template argument, so that a
// group's sources and weights stay in registers.
template <typename Kernel, typename... Args>
inline void WithTapCount(int part, Args... args) {
  switch (part) {
    case 1:
      Kernel::template Run<1>(args...);
      break;
    case 2:
      Kernel::template Run<2>(args...);
      break;
    case 3:
      Kernel::template Run<3>(args...);
      break;
    default:
      Kernel::template Run<4>(args...);
      break;
  }
}

}  // namespace combine_detail
#endif

// k >= 1 source rows; dst must not overlap a source. See the top of the file.
template <typename A, typename S>
inline void CombineRows(A *__restrict dst, const S *const *src, const A *w, int k, int64_t n,
                        bool accumulate) {
  static_assert(std::is_same_v<A, Acc<S>>, "sources are the dtype or its accumulation type");
  while (k > 0) {
    const int part = std::min(k, 4);
#if defined(TRILINEAR3D_HAVE_AVX2)  // AVX-512 builds too
    combine_detail::WithTapCount<combine_detail::VectorCombine>(part, dst, src, w, n, accumulate);
#else
    // One sweep per source, in order: the same sum as the vector path's chain, and loops the
    // compiler vectorises. Narrow dtypes are converted a block at a time (LoadRow).
    constexpr int64_t kBlock = 256;
    A converted[kBlock];
    for (int64_t x0 = 0; x0 < n; x0 += kBlock) {
      const int64_t m = std::min(kBlock, n - x0);
      A *__restrict out = dst + x0;
      for (int j = 0; j < part; ++j) {
        const A *row;
        if constexpr (std::is_same_v<S, A>) {
          row = src[j] + x0;
        } else {
          LoadRow(src[j] + x0, 1, converted, m);
          row = converted;
        }
        const A wj = w[j];
        if (j == 0 && !accumulate) {
          for (int64_t x = 0; x < m; ++x) out[x] = wj * row[x];
        } else {
          for (int64_t x = 0; x < m; ++x) out[x] += wj * row[x];
        }
      }
    }
#endif
    src += part;
    w += part;
    k -= part;
    accumulate = true;
  }
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_H_
