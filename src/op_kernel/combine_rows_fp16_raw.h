// CombineRows of fp16 sources widened raw as they are loaded (RawFp16Lanes: 2^-112 times their values,
// the 2^112 in the caller's weights), on the SSE2 tier, which has no fp16 conversion instruction: one
// widening per source element where a scratch copy of it costs a store and, per D index reading it, a
// reload. A pair (dstB, weights wB) sums the same loads a second time, as the bf16 split D step does for
// the planes two D indices share. Compiled once per ISA (included only from src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_FP16_RAW_H_
#define TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_FP16_RAW_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cstdint>

#include "op_kernel/combine_rows.h"
#include "op_kernel/convert_rows.h"
#include "op_kernel/element_types.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

#if defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__)
// Whether this tier has CombineRowsFp16Raw.
constexpr bool kHaveFp16RawRows = true;

namespace combine_detail {

// dst = the chain w[0] * x[0] (+ dst, kAccumulate), then + w[j] * x[j] for each further source (a
// multiply and an add each, as CombineK sums widened rows), x the raw sources; with kPair, dstB the same
// with wB (kAccumulateB). Eight elements a step, the tail one at a time. Returns false when a source
// element was an inf or a NaN (what was written then is to be overwritten by the caller's exact path).
template <int K, bool kPair, bool kAccumulate, bool kAccumulateB>
inline bool CombineFp16RawK(float *__restrict dst, float *__restrict dstB, const Fp16 *const *src,
                            const float *w, const float *wB, int64_t n) {
  using L = Vec128Lanes<float>;
  using Vec = L::Vec;
  const __m128i magnitude = _mm_set1_epi16(0x7fff);
  __m128i largest = _mm_setzero_si128();  // magnitudes fit int16: a signed maximum
  Vec wv[K], vv[kPair ? K : 1];
  for (int j = 0; j < K; ++j) {
    wv[j] = L::Broadcast(w[j]);
    if constexpr (kPair) vv[j] = L::Broadcast(wB[j]);
  }
  int64_t x = 0;
  for (; x + 8 <= n; x += 8) {
    Vec lo, hi, accLo, accHi, accLoB, accHiB;
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src[0] + x));
    largest = _mm_max_epi16(largest, _mm_and_si128(h, magnitude));
    RawFp16Lanes(h, &lo, &hi);
    accLo = kAccumulate ? L::Fma(wv[0], lo, L::Load(dst + x)) : L::Mul(wv[0], lo);
    accHi = kAccumulate ? L::Fma(wv[0], hi, L::Load(dst + x + 4)) : L::Mul(wv[0], hi);
    if constexpr (kPair) {
      accLoB = kAccumulateB ? L::Fma(vv[0], lo, L::Load(dstB + x)) : L::Mul(vv[0], lo);
      accHiB = kAccumulateB ? L::Fma(vv[0], hi, L::Load(dstB + x + 4)) : L::Mul(vv[0], hi);
    }
#pragma GCC unroll 8
    for (int j = 1; j < K; ++j) {
      h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src[j] + x));
      largest = _mm_max_epi16(largest, _mm_and_si128(h, magnitude));
      RawFp16Lanes(h, &lo, &hi);
      accLo = L::Fma(wv[j], lo, accLo);
      accHi = L::Fma(wv[j], hi, accHi);
      if constexpr (kPair) {
        accLoB = L::Fma(vv[j], lo, accLoB);
        accHiB = L::Fma(vv[j], hi, accHiB);
      }
    }
    L::Store(dst + x, accLo);
    L::Store(dst + x + 4, accHi);
    if constexpr (kPair) {
      L::Store(dstB + x, accLoB);
      L::Store(dstB + x + 4, accHiB);
    }
  }
  bool finite = !HasInfOrNan(largest);
  for (; x < n; ++x) {
    float acc = 0.0f, accB = 0.0f;
    for (int j = 0; j < K; ++j) {
      const uint32_t bits = src[j][x].bits;
      finite = finite && (bits & 0x7fffu) <= 0x7bffu;
      const float r = RawFp16(bits);
      if (j == 0) {
        acc = kAccumulate ? L::Fma(w[0], r, dst[x]) : w[0] * r;
        if constexpr (kPair) accB = kAccumulateB ? L::Fma(wB[0], r, dstB[x]) : wB[0] * r;
      } else {
        acc = L::Fma(w[j], r, acc);
        if constexpr (kPair) accB = L::Fma(wB[j], r, accB);
      }
    }
    dst[x] = acc;
    if constexpr (kPair) dstB[x] = accB;
  }
  return finite;
}

// CombineFp16RawK with the tap count and the accumulation as template arguments (WithTapCount).
template <bool kPair>
struct Fp16RawCombine {
  template <int K>
  static void Run(float *dst, float *dstB, const Fp16 *const *src, const float *w, const float *wB, int64_t n,
                  bool accumulate, bool accumulateB, bool *finite) {
    const bool ok = WithAccumulation<kPair>(accumulate, accumulateB, [&](auto a, auto b) {
      return CombineFp16RawK<K, kPair, decltype(a)::value, decltype(b)::value>(dst, dstB, src, w, wB, n);
    });
    *finite = *finite && ok;
  }
};

}  // namespace combine_detail

// CombineRows of k raw fp16 rows (n elements) into dst with weights w (2^112 times the values'), and,
// where dstB is not null, into dstB with weights wB from the same loads: each element's operations those
// of CombineRows over the rows widened exactly with the unscaled weights (a product raw * (w * 2^112),
// w * 2^112 exact, is x * w rounded once), so the same bits, eight taps a sweep over dst. Returns false
// when a source element was an inf or a NaN, or MXCSR reads or writes denormals as zero (then dst and dstB
// hold garbage, and the caller sums them again exactly).
inline bool CombineRowsFp16Raw(float *dst, float *dstB, const Fp16 *const *src, const float *w,
                               const float *wB, int k, int64_t n, bool accumulate, bool accumulateB) {
  if ((_mm_getcsr() & (kDenormalsAreZero | kFlushToZero)) != 0) return false;
  constexpr int kMaxPart = 8;
  bool finite = true;
  while (k > 0) {
    const int part = std::min(k, kMaxPart);
    if (dstB != nullptr) {
      combine_detail::WithTapCount<combine_detail::Fp16RawCombine<true>, kMaxPart>(
          part, dst, dstB, src, w, wB, n, accumulate, accumulateB, &finite);
      wB += part;
    } else {
      combine_detail::WithTapCount<combine_detail::Fp16RawCombine<false>, kMaxPart>(
          part, dst, dstB, src, w, wB, n, accumulate, accumulateB, &finite);
    }
    src += part;
    w += part;
    k -= part;
    accumulate = accumulateB = true;
  }
  return finite;
}
#else
constexpr bool kHaveFp16RawRows = false;

inline bool CombineRowsFp16Raw(float *, float *, const Fp16 *const *, const float *, const float *, int,
                               int64_t, bool, bool) {
  return false;
}
#endif

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_FP16_RAW_H_
