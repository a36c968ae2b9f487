// Element conversion of rows: the storage dtype (fp32, fp64, fp16, bf16) to its accumulation type
// and back (LoadRow, StoreRow), fp16 / bf16 widened exactly and narrowed with round to nearest even,
// with vectors where the compiler does not vectorise the conversion. Compiled once per ISA (included
// only from src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_CONVERT_ROWS_H_
#define TRILINEAR3D_OP_KERNEL_CONVERT_ROWS_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "op_kernel/element_types.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

#if defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__)
// MXCSR's denormal modes (both clear by default): DAZ reads a denormal operand as zero, FTZ flushes a
// denormal result to zero.
constexpr unsigned kDenormalsAreZero = 1u << 6, kFlushToZero = 1u << 15;

// fp16 widened by integer operations, eight lanes per operation ("raw"): each fp16's sign and magnitude
// bits moved into their fp32 places (the magnitude shifted up by 13) read as a float 2^-112 times the
// value (an fp16 subnormal reads as an fp32 denormal). The fp32 bits are built as their 16-bit halves (the
// high half: the sign and the magnitude's top twelve bits, from one arithmetic shift; the low half: the
// magnitude's last three bits), then interleaved; lanes 0-3 into *first, 4-7 into *second. An inf or a
// NaN (a magnitude over 0x7bff) would need the all-ones exponent: a caller keeps the largest magnitude
// it saw (HasInfOrNan).
inline void RawFp16Lanes(__m128i v, __m128 *first, __m128 *second) {
  const __m128i high = _mm_and_si128(_mm_srai_epi16(v, 3), _mm_set1_epi16(static_cast<int16_t>(0x8fff)));
  const __m128i low = _mm_slli_epi16(v, 13);
  *first = _mm_castsi128_ps(_mm_unpacklo_epi16(low, high));
  *second = _mm_castsi128_ps(_mm_unpackhi_epi16(low, high));
}

// One fp16 (bits h, not an inf or a NaN) so widened.
inline float RawFp16(uint32_t h) {
  const uint32_t bits = ((h & 0x8000u) << 16) | ((h & 0x7fffu) << 13);
  float f;
  std::memcpy(&f, &bits, sizeof bits);
  return f;
}

// Whether the largest magnitude of eight fp16 (largest, kept by _mm_max_epi16 over v & 0x7fff) is an inf's
// or a NaN's.
inline bool HasInfOrNan(__m128i largest) {
  return _mm_movemask_epi8(_mm_cmpgt_epi16(largest, _mm_set1_epi16(0x7bff))) != 0;
}

// n fp16 at src widened raw (RawFp16Lanes), kScaled: times 2^112 (exact), the value itself. Returns how
// many it widened (a multiple of 8), or -1 when an inf or a NaN was among them (what it wrote then to be
// overwritten).
template <bool kScaled>
inline int64_t WidenFp16Lanes(const Fp16 *src, float *__restrict dst, int64_t n) {
  const __m128i magnitude = _mm_set1_epi16(0x7fff);
  const __m128 scale = _mm_set1_ps(0x1p112f);
  __m128i largest = _mm_setzero_si128();  // magnitudes fit int16: a signed maximum
  const auto widen = [&](__m128i v, float *out) {
    __m128 first, second;
    RawFp16Lanes(v, &first, &second);
    if constexpr (kScaled) {
      first = _mm_mul_ps(first, scale);
      second = _mm_mul_ps(second, scale);
    }
    _mm_storeu_ps(out, first);
    _mm_storeu_ps(out + 4, second);
  };
  int64_t i = 0;
  // Sixteen a step: one maximum of the two vectors' magnitudes into the running one, and half the loop's
  // own instructions.
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 8));
    largest = _mm_max_epi16(_mm_max_epi16(_mm_and_si128(a, magnitude), _mm_and_si128(b, magnitude)), largest);
    widen(a, dst + i);
    widen(b, dst + i + 8);
  }
  for (; i + 8 <= n; i += 8) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    largest = _mm_max_epi16(largest, _mm_and_si128(v, magnitude));
    widen(v, dst + i);
  }
  return HasInfOrNan(largest) ? -1 : i;
}

// n fp16 at src widened to fp32 (WidenFp16Lanes, times 2^112) when DAZ is clear: the same bits as
// Vec128Lanes::Load (HalfToFloat) in about a third of its operations. Returns how many it widened (a
// multiple of 8), or 0, what it wrote to be overwritten by the caller's exact path, with DAZ set (the
// denormal would read as zero) or when an inf or a NaN was among them.
inline int64_t WidenFp16Fast(const Fp16 *src, float *__restrict dst, int64_t n) {
  if ((_mm_getcsr() & kDenormalsAreZero) != 0) return 0;
  return std::max<int64_t>(0, WidenFp16Lanes<true>(src, dst, n));
}

// All n fp16 at src as 2^-112 times their values (WidenFp16Lanes unscaled, the tail one at a time), for
// a caller that folds the 2^112 into its weights. A product raw * (w * 2^112), w * 2^112 exact (|w| at
// most 2^15), is the exact product x * w rounded once: the bits of ToAcc(x) * w; so is the sum of two
// raw values the sum of the values scaled (exact wherever it is denormal: a multiple of 2^-136), as
// CombineRows' symmetric pairs add them. False, what it wrote to be overwritten, with DAZ or FTZ set
// (a raw denormal read as zero or a raw sum flushed) or when an inf or a NaN was among them.
inline bool WidenFp16Raw(const Fp16 *src, float *__restrict dst, int64_t n) {
  if ((_mm_getcsr() & (kDenormalsAreZero | kFlushToZero)) != 0) return false;
  int64_t i = WidenFp16Lanes<false>(src, dst, n);
  if (i < 0) return false;
  for (; i < n; ++i) {
    const uint32_t h = src[i].bits;
    if ((h & 0x7fffu) > 0x7bffu) return false;
    dst[i] = RawFp16(h);
  }
  return true;
}
constexpr bool kWidensFp16Raw = true;
#else
inline bool WidenFp16Raw(const Fp16 *, float *, int64_t) { return false; }
constexpr bool kWidensFp16Raw = false;
#endif

// Converts n elements at src (stride in elements) to the accumulation type.
template <typename T>
inline void LoadRow(const T *src, int64_t stride, Acc<T> *__restrict dst, int64_t n) {
  int64_t i = 0;
  if (stride == 1) {
#if defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__)
    if constexpr (std::is_same_v<T, Fp16>) i = WidenFp16Fast(src, dst, n);
#endif
#if defined(TRILINEAR3D_HAVE_AVX512)
    if constexpr (std::is_same_v<T, Bf16> || std::is_same_v<T, Fp16>) {
      using L = Avx512Lanes<float>;
      for (; i + 16 <= n; i += 16) L::Store(dst + i, L::Load(src + i));
      if (i < n) {  // the tail with masks: nothing past the row is read
        const __mmask16 m = L::FirstLanes(n - i);
        L::Store(dst + i, L::Load(src + i, m), m);
        return;
      }
    }
#elif defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
    if constexpr (std::is_same_v<T, Bf16> || std::is_same_v<T, Fp16>) {
      using L = TierLanes<float>;
      for (; i + L::kLanes <= n; i += L::kLanes) L::Store(dst + i, L::Load(src + i));
    }
#endif
  }
  for (; i < n; ++i) dst[i] = ToAcc(src[i * stride]);
}

#if defined(TRILINEAR3D_HAVE_AVX512)
// Round-to-nearest-even fp32 -> bf16 of 16 lanes, NaN kept quiet (as FloatToBf16).
inline __m256i FloatToBf16x16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(u, _mm512_set1_epi32(0x400000)));
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

// 16 fp32 lanes as bf16 or fp16 (round to nearest even).
template <typename T>
inline __m256i FloatToHalfLanes(__m512 v) {
  if constexpr (std::is_same_v<T, Bf16>) {
    return FloatToBf16x16(v);
  } else {
    return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
}
#endif

#if defined(TRILINEAR3D_HAVE_AVX2)
// Round-to-nearest-even fp32 -> bf16 of 8 lanes, NaN kept quiet (as FloatToBf16): each 32-bit lane's
// result in its high half, sign-extended into the low one (it fits int16, so a saturating pack keeps it).
inline __m256i Bf16InHighHalves(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  const __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x400000));
  const __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  const __m256i r =
      _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(rounded), _mm256_castsi256_ps(quiet), nan));
  return _mm256_srai_epi32(r, 16);
}

// 8 lanes narrowed: the pack works within each 128-bit half, so quadwords 0 and 2 hold the results.
inline __m128i FloatToBf16x8(__m256 v) {
  const __m256i h = Bf16InHighHalves(v);
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packs_epi32(h, h), 0x08));
}

// Bf16InHighHalves of a vector without NaN lanes: the rounding alone.
inline __m256i Bf16InHighHalvesNoNaN(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  return _mm256_srai_epi32(_mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
}

// 16 lanes (a, then b) narrowed with one pack of two registers and one permute (quadwords 0 2 1 3). One
// compare finds a NaN in either vector; only then are the NaN lanes blended in. Always inlined: the hot
// narrowing loops (HalvingRowsSplitNarrow) lose their registers to a call.
__attribute__((always_inline)) inline __m256i FloatToBf16x16(__m256 a, __m256 b) {
  __m256i packed;
  if (_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q)) == 0) {
    packed = _mm256_packs_epi32(Bf16InHighHalvesNoNaN(a), Bf16InHighHalvesNoNaN(b));
  } else {
    packed = _mm256_packs_epi32(Bf16InHighHalves(a), Bf16InHighHalves(b));
  }
  return _mm256_permute4x64_epi64(packed, 0xd8);
}
#endif

#if defined(TRILINEAR3D_HAVE_VEC128)
// Round-to-nearest-even fp32 -> bf16 of 8 lanes (a, then b) stored at dst, NaN kept quiet (as
// FloatToBf16): both halves narrowed into one 128-bit store.
inline void StoreBf16x8(Bf16 *dst, Vec128Lanes<float>::Vec a, Vec128Lanes<float>::Vec b) {
#if defined(__aarch64__)
  auto high = [](float32x4_t v) {
    const uint32x4_t u = vreinterpretq_u32_f32(v);
    const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
    const uint32x4_t rounded = vaddq_u32(u, vaddq_u32(lsb, vdupq_n_u32(0x7fff)));
    return vshrn_n_u32(vbslq_u32(vceqq_f32(v, v), rounded, vorrq_u32(u, vdupq_n_u32(0x400000))), 16);
  };
  vst1q_u16(reinterpret_cast<uint16_t *>(dst), vcombine_u16(high(a), high(b)));
#else
  // Each lane's result in its high half, sign-extended (it fits int16: the saturating pack keeps it).
  // One compare finds a NaN in either vector; without one the rounding alone.
  auto rounded = [](__m128 v) {
    const __m128i u = _mm_castps_si128(v);
    const __m128i lsb = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1));
    return _mm_srai_epi32(_mm_add_epi32(u, _mm_add_epi32(lsb, _mm_set1_epi32(0x7fff))), 16);
  };
  if (_mm_movemask_ps(_mm_cmpunord_ps(a, b)) == 0) {
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), _mm_packs_epi32(rounded(a), rounded(b)));
    return;
  }
  auto high = [](__m128 v) {
    const __m128i u = _mm_castps_si128(v);
    const __m128i lsb = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1));
    const __m128i rounded = _mm_add_epi32(u, _mm_add_epi32(lsb, _mm_set1_epi32(0x7fff)));
    const __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(v, v));
    const __m128i r = _mm_or_si128(_mm_andnot_si128(nan, rounded),
                                   _mm_and_si128(nan, _mm_or_si128(u, _mm_set1_epi32(0x400000))));
    return _mm_srai_epi32(r, 16);
  };
  _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), _mm_packs_epi32(high(a), high(b)));
#endif
}
#endif

#if defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__)
// Whether MXCSR rounds to nearest even (its rounding-control bits clear, as by default), which
// StoreFp16x8Finite's subnormal rounding relies on.
inline bool RoundsToNearestEven() {
  constexpr unsigned kRoundingControl = 3u << 13;
  return (_mm_getcsr() & kRoundingControl) == 0;
}

// 8 fp32 (a, then b) narrowed to fp16 at dst with FloatToHalf's bits, when none rounds to an inf
// or is an inf or a NaN (magnitude bits from 0x477ff000 up); false, nothing stored, when one does.
// A normal half: the exponent rebiased and the mantissa rounded to nearest even at bit 13 with
// integer adds; a subnormal one (or zero): the magnitude plus 0.5, whose ulp is the subnormal unit
// 2^-24, so the float add rounds it to a whole number of units, to nearest even (MXCSR's default:
// RoundsToNearestEven), which the sum's low mantissa bits then hold. The sign, shifted down
// arithmetically, keeps each lane inside int16, so the saturating pack keeps every result.
inline bool StoreFp16x8Finite(Fp16 *dst, __m128 a, __m128 b) {
  const __m128i absMask = _mm_set1_epi32(0x7fffffff), one = _mm_set1_epi32(1);
  const __m128i rebiasAndHalf = _mm_set1_epi32(static_cast<int>(0xfffu - 0x38000000u));
  const __m128i smallestNormal = _mm_set1_epi32(0x38800000), largestFinite = _mm_set1_epi32(0x477fefff);
  const __m128 half = _mm_set1_ps(0.5f);
  const __m128i halfBits = _mm_castps_si128(half);
  __m128i special = _mm_setzero_si128();
  auto narrow = [&](__m128 v) {
    const __m128i u = _mm_castps_si128(v);
    const __m128i abs = _mm_and_si128(u, absMask);
    const __m128i sign = _mm_srai_epi32(_mm_xor_si128(u, abs), 16);
    const __m128i odd = _mm_and_si128(_mm_srli_epi32(abs, 13), one);
    const __m128i normal = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(abs, rebiasAndHalf), odd), 13);
    const __m128i sub = _mm_sub_epi32(_mm_castps_si128(_mm_add_ps(_mm_castsi128_ps(abs), half)), halfBits);
    const __m128i isSub = _mm_cmpgt_epi32(smallestNormal, abs);
    special = _mm_or_si128(special, _mm_cmpgt_epi32(abs, largestFinite));
    return _mm_or_si128(_mm_or_si128(_mm_and_si128(isSub, sub), _mm_andnot_si128(isSub, normal)), sign);
  };
  const __m128i packed = _mm_packs_epi32(narrow(a), narrow(b));
  if (_mm_movemask_epi8(special) != 0) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), packed);
  return true;
}
#endif

// Converts n accumulation-type elements to T at dst (stride in elements).
template <typename T>
inline void StoreRow(const Acc<T> *__restrict src, T *dst, int64_t stride, int64_t n) {
  int64_t i = 0;
  if (stride == 1) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
      return;
    }
#if defined(TRILINEAR3D_HAVE_AVX512)
    if constexpr (std::is_same_v<T, Bf16> || std::is_same_v<T, Fp16>) {
      for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                            FloatToHalfLanes<T>(_mm512_loadu_ps(src + i)));
      }
      if (i < n) {  // the tail with masks: short rows (a few elements) would go scalar
        const __mmask16 m = Avx512Lanes<float>::FirstLanes(n - i);
        _mm256_mask_storeu_epi16(dst + i, m, FloatToHalfLanes<T>(_mm512_maskz_loadu_ps(m, src + i)));
        return;
      }
    }
#elif defined(TRILINEAR3D_HAVE_AVX2)
    if constexpr (std::is_same_v<T, Bf16>) {
      for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                            FloatToBf16x16(_mm256_loadu_ps(src + i), _mm256_loadu_ps(src + i + 8)));
      }
      if (i + 8 <= n) {
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), FloatToBf16x8(_mm256_loadu_ps(src + i)));
        i += 8;
      }
    }
    if constexpr (std::is_same_v<T, Fp16>) {
      for (; i + 8 <= n; i += 8) {
        _mm_storeu_si128(
            reinterpret_cast<__m128i *>(dst + i),
            _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
      }
    }
#elif defined(TRILINEAR3D_HAVE_VEC128)
    if constexpr (std::is_same_v<T, Bf16>) {
      using L = Vec128Lanes<float>;
      for (; i + 8 <= n; i += 8) StoreBf16x8(dst + i, L::Load(src + i), L::Load(src + i + 4));
    }
#if defined(__SSE2__)
    // fp16 eight at a time until an inf, a NaN or an overflow (rare: FloatToHalf takes the rest).
    if constexpr (std::is_same_v<T, Fp16>) {
      if (n >= 8 && RoundsToNearestEven()) {
        for (; i + 8 <= n; i += 8) {
          if (!StoreFp16x8Finite(dst + i, _mm_loadu_ps(src + i), _mm_loadu_ps(src + i + 4))) break;
        }
      }
    }
#endif
#endif
  }
  for (; i < n; ++i) dst[i * stride] = FromAcc<T>(src[i]);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_CONVERT_ROWS_H_
