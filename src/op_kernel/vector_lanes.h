// This ISA's vectors of the accumulation type A (Avx512Lanes: 16 fp32 or 8 fp64 lanes; Avx2Lanes:
// 8 fp32 or 4 fp64): loads (fp16 / bf16 widened exactly to fp32), masked loads and stores (nothing
// outside the mask read or written) and the arithmetic, one overload set per ISA, so that the row
// code is written once per ISA for both accumulation types. Compiled once per ISA (included only
// from src/op_kernel/isa/*.cpp); the baseline tier has no vectors here.
#ifndef TRILINEAR3D_OP_KERNEL_VECTOR_LANES_H_
#define TRILINEAR3D_OP_KERNEL_VECTOR_LANES_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>

#include "op_kernel/element_types.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

#if defined(TRILINEAR3D_HAVE_AVX512)
// 16 bf16 values as fp32 lanes (exact: the bits shifted up). The all-lanes masked forms of the
// widening and the shift: the plain intrinsics start from _mm512_undefined_epi32(), which GCC 12's
// -Wuninitialized reports in some inlining contexts (a false positive that -Werror turns fatal).
inline __m512 Bf16BitsToFloat(__m256i h) {
  const __mmask16 all = 0xFFFF;
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(all, _mm512_maskz_cvtepu16_epi32(all, h), 16));
}

template <typename A>
struct Avx512Lanes;
template <>
struct Avx512Lanes<float> {
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr int64_t kLanes = 16;
  static Vec Zero() { return _mm512_setzero_ps(); }
  static Vec Load(const float *p) { return _mm512_loadu_ps(p); }
  static Vec Load(const Bf16 *p) {
    return Bf16BitsToFloat(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
  }
  static Vec Load(const Fp16 *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
  }
  static Vec Load(const float *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static Vec Load(const Bf16 *p, Mask m) { return Bf16BitsToFloat(_mm256_maskz_loadu_epi16(m, p)); }
  static Vec Load(const Fp16 *p, Mask m) { return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p)); }
  static void Store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
  static void Store(float *p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  static Vec Broadcast(float w) { return _mm512_set1_ps(w); }
  static Vec Mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
};
template <>
struct Avx512Lanes<double> {
  using Vec = __m512d;
  using Mask = __mmask8;
  static constexpr int64_t kLanes = 8;
  static Vec Zero() { return _mm512_setzero_pd(); }
  static Vec Load(const double *p) { return _mm512_loadu_pd(p); }
  static Vec Load(const double *p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
  static void Store(double *p, Vec v) { _mm512_storeu_pd(p, v); }
  static void Store(double *p, Vec v, Mask m) { _mm512_mask_storeu_pd(p, m, v); }
  static Vec Broadcast(double w) { return _mm512_set1_pd(w); }
  static Vec Mul(Vec a, Vec b) { return _mm512_mul_pd(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_pd(a, b, c); }
};
#elif defined(TRILINEAR3D_HAVE_AVX2)
template <typename A>
struct Avx2Lanes;
template <>
struct Avx2Lanes<float> {
  using Vec = __m256;
  using Mask = __m256i;
  static constexpr int64_t kLanes = 8;
  static Vec Zero() { return _mm256_setzero_ps(); }
  static Vec Load(const float *p) { return _mm256_loadu_ps(p); }
  static Vec Load(const Bf16 *p) {  // bf16 is the high half of an fp32
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  static Vec Load(const Fp16 *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
  }
  // The first n lanes (n <= 0: none, n >= 8: all).
  static Mask FirstLanes(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Vec Load(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void Store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  static void Store(float *p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  static Vec Broadcast(float w) { return _mm256_set1_ps(w); }
  static Vec Mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
};
template <>
struct Avx2Lanes<double> {
  using Vec = __m256d;
  using Mask = __m256i;
  static constexpr int64_t kLanes = 4;
  static Vec Zero() { return _mm256_setzero_pd(); }
  static Vec Load(const double *p) { return _mm256_loadu_pd(p); }
  static Mask FirstLanes(int64_t n) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static Vec Load(const double *p, Mask m) { return _mm256_maskload_pd(p, m); }
  static void Store(double *p, Vec v) { _mm256_storeu_pd(p, v); }
  static void Store(double *p, Vec v, Mask m) { _mm256_maskstore_pd(p, m, v); }
  static Vec Broadcast(double w) { return _mm256_set1_pd(w); }
  static Vec Mul(Vec a, Vec b) { return _mm256_mul_pd(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_pd(a, b, c); }
};
#endif

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_VECTOR_LANES_H_
