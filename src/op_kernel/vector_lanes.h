// This ISA's vectors of the accumulation type A (Avx512Lanes: 16 fp32 or 8 fp64 lanes; Avx2Lanes:
// 8 fp32 or 4 fp64; Vec128Lanes, the baseline tier's: 4 fp32 or 2 fp64 of SSE2 or NEON): loads
// (fp16 / bf16 widened exactly to fp32), masked loads and stores (nothing outside the mask read or
// written) and the arithmetic, one overload set per ISA, so that the row code is written once per
// ISA for both accumulation types. TierLanes<A> names the tier's set. Compiled once per ISA
// (included only from src/op_kernel/isa/*.cpp); a baseline tier of another architecture has no
// vectors here.
#ifndef TRILINEAR3D_OP_KERNEL_VECTOR_LANES_H_
#define TRILINEAR3D_OP_KERNEL_VECTOR_LANES_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cmath>
#include <cstdint>
#include <cstring>

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
  // The first n lanes (n <= 0: none, n >= 16: all).
  static Mask FirstLanes(int64_t n) {
    return n <= 0 ? Mask(0) : n >= kLanes ? Mask(0xFFFF) : static_cast<Mask>((1u << n) - 1);
  }
  static Vec Load(const float *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static Vec Load(const Bf16 *p, Mask m) { return Bf16BitsToFloat(_mm256_maskz_loadu_epi16(m, p)); }
  static Vec Load(const Fp16 *p, Mask m) { return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p)); }
  // 2 * kLanes bf16 at p widened as their even elements (p[0], p[2], ...) and odd ones: each 32-bit
  // lane holds an even element in its low half and the next odd one in its high half, so one shift
  // and one mask widen both exactly (no unpacking).
  static void LoadSplit(const Bf16 *p, Vec *even, Vec *odd) {
    const __m512i v = _mm512_loadu_si512(p);
    *even = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, v, 16));
    *odd = _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
  }
  static void Store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
  static void Store(float *p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  static void Stream(float *p, Vec v) { _mm512_stream_ps(p, v); }  // p 64-byte aligned
  // Lane i of the result is lane index[i] of x (a one-source permute). The all-lanes masked form: GCC 12's
  // plain one trips -Wuninitialized (its undefined pass-through operand).
  using Index = __m512i;
  static Index LoadIndex(const int32_t *p) { return _mm512_loadu_si512(p); }
  static Vec Permute(Vec x, Index index) { return _mm512_maskz_permutexvar_ps(Mask(0xFFFF), index, x); }
  static Vec Broadcast(float w) { return _mm512_set1_ps(w); }
  static Vec Add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  static Vec Mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static float Fma(float a, float b, float c) { return std::fma(a, b, c); }  // one lane's (tails)
};
template <>
struct Avx512Lanes<double> {
  using Vec = __m512d;
  using Mask = __mmask8;
  static constexpr int64_t kLanes = 8;
  // The first n lanes (n <= 0: none, n >= 8: all).
  static Mask FirstLanes(int64_t n) {
    return n <= 0 ? Mask(0) : n >= kLanes ? Mask(0xFF) : static_cast<Mask>((1u << n) - 1);
  }
  static Vec Zero() { return _mm512_setzero_pd(); }
  static Vec Load(const double *p) { return _mm512_loadu_pd(p); }
  static Vec Load(const double *p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
  static void Store(double *p, Vec v) { _mm512_storeu_pd(p, v); }
  static void Store(double *p, Vec v, Mask m) { _mm512_mask_storeu_pd(p, m, v); }
  static Vec Broadcast(double w) { return _mm512_set1_pd(w); }
  static Vec Add(Vec a, Vec b) { return _mm512_add_pd(a, b); }
  static Vec Mul(Vec a, Vec b) { return _mm512_mul_pd(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_pd(a, b, c); }
  static double Fma(double a, double b, double c) { return std::fma(a, b, c); }  // one lane's (tails)
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
  // 16 bf16 as their even and odd elements (Avx512Lanes::LoadSplit).
  static void LoadSplit(const Bf16 *p, Vec *even, Vec *odd) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
    *even = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
    *odd = _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
  }
  // The first n lanes (n <= 0: none, n >= 8: all).
  static Mask FirstLanes(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Vec Load(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void Store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  static void Store(float *p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  static void Stream(float *p, Vec v) { _mm256_stream_ps(p, v); }  // p 32-byte aligned
  // Lane i of the result is lane index[i] of x (a one-source permute).
  using Index = __m256i;
  static Index LoadIndex(const int32_t *p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
  }
  static Vec Permute(Vec x, Index index) { return _mm256_permutevar8x32_ps(x, index); }
  static Vec Broadcast(float w) { return _mm256_set1_ps(w); }
  static Vec Add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
  static Vec Mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static float Fma(float a, float b, float c) { return std::fma(a, b, c); }  // one lane's (tails)
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
  static Vec Add(Vec a, Vec b) { return _mm256_add_pd(a, b); }
  static Vec Mul(Vec a, Vec b) { return _mm256_mul_pd(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_pd(a, b, c); }
  static double Fma(double a, double b, double c) { return std::fma(a, b, c); }
};
#elif defined(TRILINEAR3D_HAVE_VEC128)
// The baseline tier's 128-bit vectors, one source for x86-64 (SSE2) and aarch64 (NEON). Mask is a
// lane count (the first n lanes): SSE2 has no masked loads or stores, so a partial vector goes
// through a small buffer, element by element, and nothing outside the n lanes is read or written.
// Fma is a fused multiply-add on NEON (vfmaq) and a multiply then an add on SSE2 (two roundings: no
// FMA in x86-64's baseline); the scalar Fma rounds as a vector lane does, for the tails.
template <typename A>
struct Vec128Lanes;
template <>
struct Vec128Lanes<float> {
#if defined(__aarch64__)
  using Vec = float32x4_t;
#else
  using Vec = __m128;
#endif
  using Mask = int64_t;
  static constexpr int64_t kLanes = 4;
  static Mask FirstLanes(int64_t n) { return n < 0 ? 0 : (n > kLanes ? kLanes : n); }
#if defined(__aarch64__)
  static Vec Zero() { return vdupq_n_f32(0.0f); }
  static Vec Load(const float *p) { return vld1q_f32(p); }
  static Vec Load(const Bf16 *p) {  // bf16 is the high half of an fp32
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(reinterpret_cast<const uint16_t *>(p)), 16));
  }
  static void LoadSplit(const Bf16 *p, Vec *even, Vec *odd) {  // 8 bf16 (Avx512Lanes::LoadSplit)
    const uint32x4_t v = vreinterpretq_u32_u16(vld1q_u16(reinterpret_cast<const uint16_t *>(p)));
    *even = vreinterpretq_f32_u32(vshlq_n_u32(v, 16));
    *odd = vreinterpretq_f32_u32(vandq_u32(v, vdupq_n_u32(0xFFFF0000u)));
  }
  static void Store(float *p, Vec v) { vst1q_f32(p, v); }
  static void Stream(float *p, Vec v) { vst1q_f32(p, v); }
  static Vec Broadcast(float w) { return vdupq_n_f32(w); }
  static Vec Add(Vec a, Vec b) { return vaddq_f32(a, b); }
  static Vec Mul(Vec a, Vec b) { return vmulq_f32(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }
  static float Fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
#else
  static Vec Zero() { return _mm_setzero_ps(); }
  static Vec Load(const float *p) { return _mm_loadu_ps(p); }
  static Vec Load(const Bf16 *p) {  // bf16 is the high half of an fp32: zeros below it
    const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p));
    return _mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), h));
  }
  static void LoadSplit(const Bf16 *p, Vec *even, Vec *odd) {  // 8 bf16 (Avx512Lanes::LoadSplit)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    *even = _mm_castsi128_ps(_mm_slli_epi32(v, 16));
    *odd = _mm_castsi128_ps(_mm_and_si128(v, _mm_set1_epi32(static_cast<int>(0xFFFF0000u))));
  }
  static void Store(float *p, Vec v) { _mm_storeu_ps(p, v); }
  static void Stream(float *p, Vec v) { _mm_stream_ps(p, v); }  // p 16-byte aligned
  static Vec Broadcast(float w) { return _mm_set1_ps(w); }
  static Vec Add(Vec a, Vec b) { return _mm_add_ps(a, b); }
  static Vec Mul(Vec a, Vec b) { return _mm_mul_ps(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static float Fma(float a, float b, float c) { return a * b + c; }
#endif
  // fp16, exactly as HalfToFloat (an inf or a NaN keeps its payload; no FP16 conversion in SSE2, and
  // NEON's would quiet a signalling NaN): a normal number's exponent rebiased (+112, inf and NaN +224),
  // a subnormal one's magnitude man * 2^-24 (exact), then the sign.
  static Vec Load(const Fp16 *p) {
#if defined(__aarch64__)
    const uint32x4_t h = vmovl_u16(vld1_u16(reinterpret_cast<const uint16_t *>(p)));
    const uint32x4_t em = vandq_u32(h, vdupq_n_u32(0x7fff));
    const uint32x4_t rebias = vdupq_n_u32(112u << 23);
    uint32x4_t bits = vaddq_u32(vshlq_n_u32(em, 13), rebias);
    bits = vaddq_u32(bits, vandq_u32(vcgtq_u32(em, vdupq_n_u32(0x7bff)), rebias));
    const float32x4_t sub = vmulq_n_f32(vcvtq_f32_u32(em), 5.9604644775390625e-8f);
    bits = vbslq_u32(vcltq_u32(em, vdupq_n_u32(0x400)), vreinterpretq_u32_f32(sub), bits);
    return vreinterpretq_f32_u32(vorrq_u32(bits, vshlq_n_u32(vandq_u32(h, vdupq_n_u32(0x8000)), 16)));
#else
    const __m128i h =
        _mm_unpacklo_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p)), _mm_setzero_si128());
    const __m128i em = _mm_and_si128(h, _mm_set1_epi32(0x7fff));
    const __m128i rebias = _mm_set1_epi32(112 << 23);
    __m128i bits = _mm_add_epi32(_mm_slli_epi32(em, 13), rebias);
    bits = _mm_add_epi32(bits, _mm_and_si128(_mm_cmpgt_epi32(em, _mm_set1_epi32(0x7bff)), rebias));
    const __m128i sub =
        _mm_castps_si128(_mm_mul_ps(_mm_cvtepi32_ps(em), _mm_set1_ps(5.9604644775390625e-8f)));
    const __m128i isSub = _mm_cmplt_epi32(em, _mm_set1_epi32(0x400));
    bits = _mm_or_si128(_mm_andnot_si128(isSub, bits), _mm_and_si128(isSub, sub));
    return _mm_castsi128_ps(_mm_or_si128(bits, _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16)));
#endif
  }
  template <typename S>
  static Vec Load(const S *p, Mask n) {
    alignas(16) float x[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t i = 0; i < n; ++i) x[i] = ToAcc(p[i]);
    return Load(static_cast<const float *>(x));
  }
  static void Store(float *p, Vec v, Mask n) {
    alignas(16) float x[4];
    Store(x, v);
    for (int64_t i = 0; i < n; ++i) p[i] = x[i];
  }
};
template <>
struct Vec128Lanes<double> {
#if defined(__aarch64__)
  using Vec = float64x2_t;
#else
  using Vec = __m128d;
#endif
  using Mask = int64_t;
  static constexpr int64_t kLanes = 2;
  static Mask FirstLanes(int64_t n) { return n < 0 ? 0 : (n > kLanes ? kLanes : n); }
#if defined(__aarch64__)
  static Vec Zero() { return vdupq_n_f64(0.0); }
  static Vec Load(const double *p) { return vld1q_f64(p); }
  static void Store(double *p, Vec v) { vst1q_f64(p, v); }
  static Vec Broadcast(double w) { return vdupq_n_f64(w); }
  static Vec Add(Vec a, Vec b) { return vaddq_f64(a, b); }
  static Vec Mul(Vec a, Vec b) { return vmulq_f64(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return vfmaq_f64(c, a, b); }
  static double Fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
#else
  static Vec Zero() { return _mm_setzero_pd(); }
  static Vec Load(const double *p) { return _mm_loadu_pd(p); }
  static void Store(double *p, Vec v) { _mm_storeu_pd(p, v); }
  static Vec Broadcast(double w) { return _mm_set1_pd(w); }
  static Vec Add(Vec a, Vec b) { return _mm_add_pd(a, b); }
  static Vec Mul(Vec a, Vec b) { return _mm_mul_pd(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm_add_pd(_mm_mul_pd(a, b), c); }
  static double Fma(double a, double b, double c) { return a * b + c; }
#endif
  static Vec Load(const double *p, Mask n) {
    alignas(16) double x[2] = {0.0, 0.0};
    for (int64_t i = 0; i < n; ++i) x[i] = p[i];
    return Load(static_cast<const double *>(x));
  }
  static void Store(double *p, Vec v, Mask n) {
    alignas(16) double x[2];
    Store(x, v);
    for (int64_t i = 0; i < n; ++i) p[i] = x[i];
  }
};
#endif

// The tier's lanes (a vector tier only).
#if defined(TRILINEAR3D_HAVE_AVX512)
template <typename A>
using TierLanes = Avx512Lanes<A>;
#elif defined(TRILINEAR3D_HAVE_AVX2)
template <typename A>
using TierLanes = Avx2Lanes<A>;
#elif defined(TRILINEAR3D_HAVE_VEC128)
template <typename A>
using TierLanes = Vec128Lanes<A>;
#endif

// c + a * b as one lane of the tier's Fma: fused where the tier's vectors fuse (AVX2, AVX-512, NEON), a
// multiply and then an add on SSE2; on a tier without vectors, a * b + c as the compiler makes it (every
// sum there is scalar, so all of them alike). The scalar sums that must give the
// vector steps' bits (the lists, the row ends, the plain loops) use it rather than a * b + c, which the
// compiler fuses or not by its optimisation level (GCC contracts it at -O2, not at -O1), so that the
// bits, and their independence of the core count, do not depend on how the library was compiled.
template <typename A>
inline A LaneFma(A a, A b, A c) {
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
  return TierLanes<A>::Fma(a, b, c);
#else
  return a * b + c;
#endif
}

// Whether this tier widens fp16 by a sequence of integer operations (Vec128Lanes::Load: about four per
// element) rather than one conversion instruction (F16C): a kernel that reads an fp16 element several
// times then widens it once into scratch and reads fp32.
#if defined(TRILINEAR3D_HAVE_AVX2)
constexpr bool kFp16WidensByIntegerOps = false;
#else
constexpr bool kFp16WidensByIntegerOps = true;
#endif

// Whether this tier's Fma is a multiply and then an add (x86-64's 128-bit tier: SSE2 has no FMA). A
// sum whose weights are symmetric (w[k] == w[K-1-k], bit for bit: an exact 2x cubic axis) then adds each
// pair of sources first and multiplies once, w[k] (a + b): half the multiplies, the same order of terms.
#if defined(TRILINEAR3D_HAVE_VEC128) && !defined(__aarch64__)
constexpr bool kFmaIsMulAdd = true;
#else
constexpr bool kFmaIsMulAdd = false;
#endif

// Whether the K weights at w are symmetric bit for bit (w[k] and w[K-1-k]: a -0 is not a 0).
template <int K, typename A>
inline bool SymmetricWeights(const A *w) {
  for (int k = 0; k < K / 2; ++k) {
    if (std::memcmp(&w[k], &w[K - 1 - k], sizeof(A)) != 0) return false;
  }
  return true;
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_VECTOR_LANES_H_
