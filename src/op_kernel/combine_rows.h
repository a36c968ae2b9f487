// CombineRows: the vertical passes' one primitive (the width-last backward's D and H steps).
//   dst[x] = (accumulate ? dst[x] : 0) + w[0] * src[0][x] + ... + w[k-1] * src[k-1][x],  x < n,
// summed left to right (on a tier whose Fma is a multiply and an add, an even number of symmetric weights
// pairs its terms: CombineSymmetricK), the same operations for every x whatever its position in a vector, so
// a result never depends on where a row starts or how an item was cut. Sources are the dtype (converted on
// load, no staging copy) or the accumulation type. Compiled once per ISA (included only from
// src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_H_
#define TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "op_kernel/convert_rows.h"
#include "op_kernel/element_types.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

#if defined(TRILINEAR3D_HAVE_AVX512)
namespace combine_detail {

// One vector of results at x (Ms: no mask, or the tail's mask); sources are converted as they are
// loaded (Avx512Lanes).
template <int K, typename A, typename S, typename Vec, typename... Ms>
inline Vec CombineLanes(const A *dst, const S *const *src, const Vec *w, int64_t x, bool accumulate,
                        Ms... mask) {
  using L = Avx512Lanes<A>;
  Vec acc = accumulate ? L::Fma(w[0], L::Load(src[0] + x, mask...), L::Load(dst + x, mask...))
                       : L::Mul(w[0], L::Load(src[0] + x, mask...));
#pragma GCC unroll 8
  for (int j = 1; j < K; ++j) acc = L::Fma(w[j], L::Load(src[j] + x, mask...), acc);
  return acc;
}

template <int K, typename A, typename S>
inline void CombineK(A *__restrict dst, const S *const *src, const A *weights, int64_t n, bool accumulate) {
  using L = Avx512Lanes<A>;
  using Vec = typename L::Vec;
  using Mask = typename L::Mask;
  constexpr int64_t kLanes = L::kLanes;
  Vec w[K];
  const S *s[K];
  for (int j = 0; j < K; ++j) {
    w[j] = L::Broadcast(weights[j]);
    s[j] = src[j];
  }
  int64_t x = 0;
  for (; x + 2 * kLanes <= n; x += 2 * kLanes) {  // two independent chains per iteration
    const Vec a = CombineLanes<K>(dst, s, w, x, accumulate);
    const Vec b = CombineLanes<K>(dst, s, w, x + kLanes, accumulate);
    L::Store(dst + x, a);
    L::Store(dst + x + kLanes, b);
  }
  for (; x < n; x += kLanes) {
    const Mask m = L::FirstLanes(n - x);
    L::Store(dst + x, CombineLanes<K>(dst, s, w, x, accumulate, m), m);
  }
}

}  // namespace combine_detail
#elif defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
namespace combine_detail {

// CombineK for AVX2 (8 fp32 or 4 fp64 lanes; Avx2Lanes) and the baseline tier's 128-bit vectors
// (Vec128Lanes): the accumulator stays in a register across the k sources (one store per vector,
// instead of one sweep over dst per source); fp16 / bf16 sources are converted as they are loaded
// (exactly, as LoadRow does), and the tail runs the lanes' operations one element at a time.
#if defined(TRILINEAR3D_HAVE_VEC128)
// CombineK of an even K without accumulation where the tier's Fma is a multiply and an add
// (kFmaIsMulAdd) and the weights are symmetric (an exact 2x axis: linear's four taps, cubic's eight):
// w[0] (s0 + s(K-1)) + w[1] (s1 + s(K-2)) + ... in that order, for every element (CubicHalvingLines'
// sums): K / 2 multiplies where CombineK takes K.
template <int K, typename A, typename S>
inline void CombineSymmetricK(A *__restrict dst, const S *const *s, const A *weights, int64_t n) {
  static_assert(K % 2 == 0, "pairs of taps");
  using L = TierLanes<A>;
  using Vec = typename L::Vec;
  Vec w[K / 2];
  for (int t = 0; t < K / 2; ++t) w[t] = L::Broadcast(weights[t]);
  auto lanes = [&](int64_t at) {
    Vec acc = L::Mul(w[0], L::Add(L::Load(s[0] + at), L::Load(s[K - 1] + at)));
#pragma GCC unroll 4
    for (int t = 1; t < K / 2; ++t) {
      acc = L::Fma(w[t], L::Add(L::Load(s[t] + at), L::Load(s[K - 1 - t] + at)), acc);
    }
    return acc;
  };
  int64_t x = 0;
  for (; x + 2 * L::kLanes <= n; x += 2 * L::kLanes) {
    const Vec a = lanes(x), b = lanes(x + L::kLanes);
    L::Store(dst + x, a);
    L::Store(dst + x + L::kLanes, b);
  }
  for (; x + L::kLanes <= n; x += L::kLanes) L::Store(dst + x, lanes(x));
  for (; x < n; ++x) {
    A acc = weights[0] * (ToAcc(s[0][x]) + ToAcc(s[K - 1][x]));
    for (int t = 1; t < K / 2; ++t) acc = L::Fma(weights[t], ToAcc(s[t][x]) + ToAcc(s[K - 1 - t][x]), acc);
    dst[x] = acc;
  }
}
#endif

template <int K, typename A, typename S>
inline void CombineK(A *__restrict dst, const S *const *src, const A *weights, int64_t n, bool accumulate) {
  using L = TierLanes<A>;
#if defined(TRILINEAR3D_HAVE_VEC128)
  if constexpr (K % 2 == 0 && kFmaIsMulAdd) {
    if (!accumulate && SymmetricWeights<K>(weights)) {
      CombineSymmetricK<K>(dst, src, weights, n);
      return;
    }
  }
#endif
  typename L::Vec w[K];
  const S *s[K];
  for (int j = 0; j < K; ++j) {
    w[j] = L::Broadcast(weights[j]);
    s[j] = src[j];
  }
  int64_t x = 0;
#if defined(TRILINEAR3D_HAVE_VEC128)
  // Two vectors per iteration on the 128-bit tier, the accumulate test outside the loop: the loop's
  // own instructions are a sixth of a short vector's work there.
  auto pairs = [&](auto accumulating) {
    auto lanes = [&](int64_t at) {
      typename L::Vec acc = decltype(accumulating)::value
                                ? L::Fma(w[0], L::Load(s[0] + at), L::Load(dst + at))
                                : L::Mul(w[0], L::Load(s[0] + at));
#pragma GCC unroll 8
      for (int j = 1; j < K; ++j) acc = L::Fma(w[j], L::Load(s[j] + at), acc);
      return acc;
    };
    for (; x + 2 * L::kLanes <= n; x += 2 * L::kLanes) {
      const typename L::Vec a = lanes(x), b = lanes(x + L::kLanes);
      L::Store(dst + x, a);
      L::Store(dst + x + L::kLanes, b);
    }
  };
  if (accumulate) {
    pairs(std::true_type{});
  } else {
    pairs(std::false_type{});
  }
#endif
  for (; x + L::kLanes <= n; x += L::kLanes) {
    typename L::Vec acc =
        accumulate ? L::Fma(w[0], L::Load(s[0] + x), L::Load(dst + x)) : L::Mul(w[0], L::Load(s[0] + x));
#pragma GCC unroll 8
    for (int j = 1; j < K; ++j) acc = L::Fma(w[j], L::Load(s[j] + x), acc);
    L::Store(dst + x, acc);
  }
  for (; x < n; ++x) {
    A acc = accumulate ? L::Fma(weights[0], ToAcc(s[0][x]), dst[x]) : weights[0] * ToAcc(s[0][x]);
    for (int j = 1; j < K; ++j) acc = L::Fma(weights[j], ToAcc(s[j][x]), acc);
    dst[x] = acc;
  }
}

}  // namespace combine_detail
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
namespace combine_detail {

// This ISA's CombineK as a type, so that WithTapCount can pick its tap count.
struct VectorCombine {
  template <int K, typename A, typename S>
  static void Run(A *dst, const S *const *src, const A *w, int64_t n, bool accumulate) {
    CombineK<K>(dst, src, w, n, accumulate);
  }
};

// Kernel::Run<K>(args...) with K = part (1 to kMaxTaps): the tap count as a template argument, so
// that a group's sources and weights stay in registers.
template <typename Kernel, int kMaxTaps = 4, typename... Args>
inline void WithTapCount(int part, Args... args) {
  static_assert(kMaxTaps == 4 || kMaxTaps == 8, "groups of up to 4 or 8 taps");
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
    case 4:
      Kernel::template Run<4>(args...);
      break;
    default:
      if constexpr (kMaxTaps == 8) {
        switch (part) {
          case 5:
            Kernel::template Run<5>(args...);
            break;
          case 6:
            Kernel::template Run<6>(args...);
            break;
          case 7:
            Kernel::template Run<7>(args...);
            break;
          default:
            Kernel::template Run<8>(args...);
            break;
        }
      }
      break;
  }
}

}  // namespace combine_detail
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
namespace combine_detail {

// CombineK of bf16 sources into split rows (CombineRowsSplit): each pair of source elements widened
// by one shift and one mask (TierLanes::LoadSplit), the even results stored in the first half of a row,
// the odd ones in the second; every element takes the same operations as in CombineK. `rows` rows, n
// elements apart in every source and in dst. kPair: a second destination dstB sums the same loads with
// its own weights (weightsB), so that two sums over the same sources widen each source once. Each chain
// starts from zero or, kAccumulate (kAccumulateB), from what dst (dstB) holds: template arguments, which
// keep the tests out of the loop.
//
// The sources are gradOut rows on their one way from memory (a D step's planes, an H step's rows read
// in place), a few streams at once between stores of the accumulators, which the hardware prefetcher
// alone leaves waiting on DRAM: each source is requested kSplitAheadElems elements ahead of its loads,
// once per 64-byte line, into L1. Past a row's end that is the source's next rows, which the next call
// reads, or after a slab's last row up to 4 KB read for nothing; a request never faults.
constexpr int64_t kSplitAheadElems = 2048;  // 4 KB of bf16
constexpr int64_t kPairsPerLine = PrefetchQueue::kLineBytes / (2 * sizeof(Bf16));
static_assert(kPairsPerLine % TierLanes<float>::kLanes == 0, "a line holds whole vectors of pairs");

template <int K, bool kPair, bool kAccumulate, bool kAccumulateB>
inline void CombineSplitK(float *__restrict dst, float *__restrict dstB, const Bf16 *const *src,
                          const float *weights, const float *weightsB, int64_t n, int64_t rows) {
  using L = TierLanes<float>;
  using Vec = typename L::Vec;
  const int64_t half = n / 2;
  Vec w[K], v[kPair ? K : 1];
  for (int j = 0; j < K; ++j) {
    w[j] = L::Broadcast(weights[j]);
    if constexpr (kPair) v[j] = L::Broadcast(weightsB[j]);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t at = r * n;
    float *__restrict even = dst + at;
    float *__restrict odd = even + half;
    float *__restrict evenB = kPair ? dstB + at : nullptr;
    float *__restrict oddB = kPair ? evenB + half : nullptr;
    // One vector of pairs from pair k on.
    const auto pairs = [&](int64_t k) {
      Vec e, o, accEB, accOB;
      L::LoadSplit(src[0] + at + 2 * k, &e, &o);
      Vec accE = kAccumulate ? L::Fma(w[0], e, L::Load(even + k)) : L::Mul(w[0], e);
      Vec accO = kAccumulate ? L::Fma(w[0], o, L::Load(odd + k)) : L::Mul(w[0], o);
      if constexpr (kPair) {
        accEB = kAccumulateB ? L::Fma(v[0], e, L::Load(evenB + k)) : L::Mul(v[0], e);
        accOB = kAccumulateB ? L::Fma(v[0], o, L::Load(oddB + k)) : L::Mul(v[0], o);
      }
#pragma GCC unroll 8
      for (int j = 1; j < K; ++j) {
        L::LoadSplit(src[j] + at + 2 * k, &e, &o);
        accE = L::Fma(w[j], e, accE);
        accO = L::Fma(w[j], o, accO);
        if constexpr (kPair) {
          accEB = L::Fma(v[j], e, accEB);
          accOB = L::Fma(v[j], o, accOB);
        }
      }
      L::Store(even + k, accE);
      L::Store(odd + k, accO);
      if constexpr (kPair) {
        L::Store(evenB + k, accEB);
        L::Store(oddB + k, accOB);
      }
    };
    const auto request = [&](int64_t k) {
      for (int j = 0; j < K; ++j) __builtin_prefetch(src[j] + at + 2 * k + kSplitAheadElems, 0, 3);
    };
    // A line of pairs per iteration, its vectors unrolled, so that the requests need no test of k.
    int64_t k = 0;  // pairs
    for (; k + kPairsPerLine <= half; k += kPairsPerLine) {
      request(k);
#pragma GCC unroll 4
      for (int64_t u = 0; u < kPairsPerLine; u += L::kLanes) pairs(k + u);
    }
    if (k + L::kLanes <= half) request(k);
    for (; k + L::kLanes <= half; k += L::kLanes) pairs(k);
    for (; k < half; ++k) {
      for (int parity = 0; parity < 2; ++parity) {
        const int64_t x = at + 2 * k + parity, y = (parity == 0 ? 0 : half) + k;
        const float x0 = ToAcc(src[0][x]);
        float acc = kAccumulate ? L::Fma(weights[0], x0, even[y]) : weights[0] * x0;
        float accB = 0.0f;
        if constexpr (kPair) accB = kAccumulateB ? L::Fma(weightsB[0], x0, evenB[y]) : weightsB[0] * x0;
        for (int j = 1; j < K; ++j) {
          acc = L::Fma(weights[j], ToAcc(src[j][x]), acc);
          if constexpr (kPair) accB = L::Fma(weightsB[j], ToAcc(src[j][x]), accB);
        }
        even[y] = acc;
        if constexpr (kPair) evenB[y] = accB;
      }
    }
  }
}

// The next source row: the pointer is made opaque to the compiler, which otherwise keeps each
// row's pointer in its own register (more rows than registers: spills in the loop).
template <typename S>
inline const S *NextRow(const S *row, int64_t stride) {
  row += stride;
  __asm__("" : "+r"(row));
  return row;
}

// CombineSplitK (K = 4, accumulate false) of kRows rows of a halving run at once: dst row m (at
// dst + m * dstStride) combines source rows 2m .. 2m + 3 (row q at first + q * stride) with w[0..3].
// Each source row is loaded and widened once for the two dst rows it feeds, where kRows CombineSplitK
// calls widen the rows between them twice; every element takes CombineSplitK's operations in its
// order. The rows are addressed from two pointers five rows apart and the stride times 1 to 4; the
// stride passes through an empty asm, without which the compiler keeps each row's pointer in its own
// register (more rows than registers: spills in the loop). ahead (or null): 16 n bytes (eight rows of
// n bf16) that a later call reads, requested over the loop, 32 bytes per pair: kLanes / 2 lines per
// vector of pairs (CombineHalvingRowsSplit).
template <int kRows>
inline void CombineHalvingSplitK(float *dst, int64_t dstStride, const Bf16 *first, int64_t stride,
                                 const float *weights, int64_t n, const Bf16 *ahead) {
  using L = TierLanes<float>;
  using Vec = typename L::Vec;
  const int64_t half = n / 2;
  constexpr int64_t kAheadBytesPerPair = 32;  // 16 n bytes over n / 2 pairs
  const Vec w0 = L::Broadcast(weights[0]), w1 = L::Broadcast(weights[1]);
  const Vec w2 = L::Broadcast(weights[2]), w3 = L::Broadcast(weights[3]);
  int64_t k = 0;  // pairs
  for (; k + L::kLanes <= half; k += L::kLanes) {
    if (ahead != nullptr) {
      const char *line = reinterpret_cast<const char *>(ahead) + k * kAheadBytesPerPair;
#pragma GCC unroll 8
      for (int64_t q = 0; q < L::kLanes * kAheadBytesPerPair; q += 64) __builtin_prefetch(line + q, 0, 1);
    }
    int64_t s = stride;
    __asm__("" : "+r"(s));
    const Bf16 *low = first + 2 * k;
    const Bf16 *high = low + 5 * s;
    auto rowAt = [&](int q) { return q < 5 ? low + q * s : high + (q - 5) * s; };
    float *out = dst + k;
    Vec e, o;
    L::LoadSplit(rowAt(0), &e, &o);
    Vec accE = L::Mul(w0, e), accO = L::Mul(w0, o);  // dst row 0's first two taps
    L::LoadSplit(rowAt(1), &e, &o);
    accE = L::Fma(w1, e, accE);
    accO = L::Fma(w1, o, accO);
#pragma GCC unroll 4
    for (int m = 0; m < kRows; ++m) {  // source rows 2m + 2 and 2m + 3: taps 2, 3 of row m, 0, 1 of m + 1
      Vec nextE = accE, nextO = accO;
      L::LoadSplit(rowAt(2 * m + 2), &e, &o);
      accE = L::Fma(w2, e, accE);
      accO = L::Fma(w2, o, accO);
      if (m + 1 < kRows) {
        nextE = L::Mul(w0, e);
        nextO = L::Mul(w0, o);
      }
      L::LoadSplit(rowAt(2 * m + 3), &e, &o);
      accE = L::Fma(w3, e, accE);
      accO = L::Fma(w3, o, accO);
      L::Store(out, accE);
      L::Store(out + half, accO);
      out += dstStride;
      if (m + 1 < kRows) {
        accE = L::Fma(w1, e, nextE);
        accO = L::Fma(w1, o, nextO);
      }
    }
  }
  for (; k < half; ++k) {
    for (int m = 0; m < kRows; ++m) {
      const Bf16 *s = first + 2 * m * stride;
      for (int parity = 0; parity < 2; ++parity) {
        const int64_t x = 2 * k + parity;
        float acc = weights[0] * ToAcc(s[x]);
        for (int j = 1; j < 4; ++j) acc = L::Fma(weights[j], ToAcc(s[j * stride + x]), acc);
        dst[m * dstStride + parity * half + k] = acc;
      }
    }
  }
}

// kRows dst rows of a cubic halving run at once: dst row m (at dst + m * dstStride) combines the eight
// source rows 2m .. 2m + 7 (row q at first + q * stride) with w[0..7], each sum CombineRows's chain (w[0]
// times the first row, then an FMA per row, in order). Each source vector is loaded once for the (up to
// four) dst rows it feeds, where a CombineRows per dst row loads it four times and stores and reloads
// the partial sums between its tap groups; the rows are reached by adding the stride to one pointer
// (NextRow).
template <int kRows, typename A, typename S>
inline void CubicHalvingK(A *dst, int64_t dstStride, const S *first, int64_t stride, const A *weights,
                          int64_t n) {
  using L = TierLanes<A>;
  using Vec = typename L::Vec;
  constexpr int kTaps = 8;
  constexpr int kSources = 2 * (kRows - 1) + kTaps;
  Vec w[kTaps];
  for (int t = 0; t < kTaps; ++t) w[t] = L::Broadcast(weights[t]);
  int64_t x = 0;
  for (; x + L::kLanes <= n; x += L::kLanes) {
    const S *row = first + x;
    Vec acc[kRows];
#pragma GCC unroll 16
    for (int q = 0; q < kSources; ++q) {
      const Vec v = L::Load(row);
#pragma GCC unroll 4
      for (int m = 0; m < kRows; ++m) {
        const int t = q - 2 * m;  // the tap of dst row m that source row q is
        if (t == 0) {
          acc[m] = L::Mul(w[0], v);
        } else if (t > 0 && t < kTaps) {
          acc[m] = L::Fma(w[t], v, acc[m]);
        }
        if (t == kTaps - 1) L::Store(dst + m * dstStride + x, acc[m]);
      }
      if (q + 1 < kSources) row = NextRow(row, stride);
    }
  }
  for (; x < n; ++x) {
    for (int m = 0; m < kRows; ++m) {
      const S *s = first + 2 * m * stride + x;
      A acc = weights[0] * ToAcc(s[0]);
      for (int t = 1; t < kTaps; ++t) acc = L::Fma(weights[t], ToAcc(s[t * stride]), acc);
      dst[m * dstStride + x] = acc;
    }
  }
}

// kRows dst rows of a linear halving run at once: dst row m (at dst + m * dstStride) combines the four
// source rows 2m .. 2m + 3 (row q at first + q * stride) with w[0..3], each sum CombineK's for that list
// (w[0] times the first row, then an FMA per row) or, kSymmetric, CombineSymmetricK's (w[0] (r0 + r3) +
// w[1] (r1 + r2)). Each source vector is loaded once for the (up to two) dst rows it feeds, where a
// CombineRows per dst row loads it twice and pays a call and its pointer set-up per row. ahead (or null):
// eight rows of n elements, one block, that a later call reads, requested over the loop (eight times the
// bytes each step combines).
template <int kRows, bool kSymmetric, typename A, typename S>
inline void LinearHalvingK(A *dst, int64_t dstStride, const S *first, int64_t stride, const A *weights,
                           int64_t n, const S *ahead) {
  using L = TierLanes<A>;
  using Vec = typename L::Vec;
  constexpr int kTaps = 4;
  constexpr int kSources = 2 * (kRows - 1) + kTaps;
  Vec w[kTaps];
  for (int t = 0; t < kTaps; ++t) w[t] = L::Broadcast(weights[t]);
  // kV vectors of each row per step, loaded back to back.
  auto step = [&](auto vectors, int64_t x) {
    constexpr int kV = decltype(vectors)::value;
    if (ahead != nullptr) {
      constexpr int64_t kBytes = 8 * kV * L::kLanes * static_cast<int64_t>(sizeof(S));
      const char *line = reinterpret_cast<const char *>(ahead + 8 * x);
#pragma GCC unroll 16
      for (int64_t b = 0; b < kBytes; b += 64) __builtin_prefetch(line + b, 0, 1);
    }
    const S *row = first + x;
    Vec acc[kRows][kV], outer[kRows][kV], inner[kRows][kV];
#pragma GCC unroll 16
    for (int q = 0; q < kSources; ++q) {
      Vec v[kV];
#pragma GCC unroll 4
      for (int j = 0; j < kV; ++j) v[j] = L::Load(row + j * L::kLanes);
#pragma GCC unroll 4
      for (int m = 0; m < kRows; ++m) {
        const int t = q - 2 * m;  // the tap of dst row m that source row q is
#pragma GCC unroll 4
        for (int j = 0; j < kV; ++j) {
          if constexpr (kSymmetric) {
            if (t == 0) outer[m][j] = v[j];
            if (t == 1) inner[m][j] = v[j];
            if (t == 2) inner[m][j] = L::Add(inner[m][j], v[j]);
            if (t == 3) acc[m][j] = L::Fma(w[1], inner[m][j], L::Mul(w[0], L::Add(outer[m][j], v[j])));
          } else if (t == 0) {
            acc[m][j] = L::Mul(w[0], v[j]);
          } else if (t > 0 && t < kTaps) {
            acc[m][j] = L::Fma(w[t], v[j], acc[m][j]);
          }
          if (t == kTaps - 1) L::Store(dst + m * dstStride + x + j * L::kLanes, acc[m][j]);
        }
      }
      if (q + 1 < kSources) row = NextRow(row, stride);
    }
  };
  int64_t x = 0;
  for (; x + 2 * L::kLanes <= n; x += 2 * L::kLanes) step(std::integral_constant<int, 2>{}, x);
  for (; x + L::kLanes <= n; x += L::kLanes) step(std::integral_constant<int, 1>{}, x);
  for (; x < n; ++x) {
    for (int m = 0; m < kRows; ++m) {
      const S *s = first + 2 * m * stride + x;
      A acc;
      if constexpr (kSymmetric) {
        acc = weights[0] * (ToAcc(s[0]) + ToAcc(s[3 * stride]));
        acc = L::Fma(weights[1], ToAcc(s[stride]) + ToAcc(s[2 * stride]), acc);
      } else {
        acc = weights[0] * ToAcc(s[0]);
        for (int t = 1; t < kTaps; ++t) acc = L::Fma(weights[t], ToAcc(s[t * stride]), acc);
      }
      dst[m * dstStride + x] = acc;
    }
  }
}

#if defined(TRILINEAR3D_HAVE_VEC128)
// CubicHalvingK for the 128-bit tier from sources of the accumulation type, a whole 64-byte line (four
// vectors) at a time: for each line position, dst row 0's line from its eight source lines, then row
// 1's, and so on, each source line's four vectors loaded back to back. Source rows a power of two apart
// (a 64 KB NHWC row) share an L1 set: CubicHalvingK's fourteen row streams and four dst rows, one vector
// a step, evict each line before its next vector is loaded (every load came from L2); here a line is
// loaded whole, and the next dst row finds six of its eight source lines just loaded. Each dst row's
// four accumulators stay in registers (the 128-bit tier has 16 of them on x86-64: one dst row at a
// time). CubicHalvingK's sums in its order; where the tier's Fma is a multiply and an add (kFmaIsMulAdd)
// and the weights are symmetric (an exact 2x), w[0] (r0 + r7) + w[1] (r1 + r6) + w[2] (r2 + r5) + w[3]
// (r3 + r4) instead, in that order, for every element of the row.
template <typename A>
inline void CubicHalvingLines(A *dst, int64_t dstStride, int rows, const A *first, int64_t stride,
                              const A *weights, int64_t n) {
  using L = TierLanes<A>;
  using Vec = typename L::Vec;
  constexpr int kTaps = 8;
  constexpr int kV = 4;
  constexpr int64_t kStep = kV * L::kLanes;
  Vec w[kTaps];
  for (int t = 0; t < kTaps; ++t) w[t] = L::Broadcast(weights[t]);
  int64_t x = 0;
  if (kFmaIsMulAdd && SymmetricWeights<kTaps>(weights)) {
    // Rows t and 7 - t added first, then one multiply: w[0] (r0 + r7), then + w[t] (rt + r(7-t)).
    for (; x + kStep <= n; x += kStep) {
      for (int m = 0; m < rows; ++m) {
        const A *lo = first + 2 * m * stride + x;
        const A *hi = lo + (kTaps - 1) * stride;
        Vec acc[kV];
#pragma GCC unroll 4
        for (int v = 0; v < kV; ++v) {
          acc[v] = L::Mul(w[0], L::Add(L::Load(lo + v * L::kLanes), L::Load(hi + v * L::kLanes)));
        }
#pragma GCC unroll 4
        for (int t = 1; t < kTaps / 2; ++t) {
          lo = NextRow(lo, stride);
          hi = NextRow(hi, -stride);
#pragma GCC unroll 4
          for (int v = 0; v < kV; ++v) {
            acc[v] = L::Fma(w[t], L::Add(L::Load(lo + v * L::kLanes), L::Load(hi + v * L::kLanes)), acc[v]);
          }
        }
#pragma GCC unroll 4
        for (int v = 0; v < kV; ++v) L::Store(dst + m * dstStride + x + v * L::kLanes, acc[v]);
      }
    }
    // The row's last elements, vector by vector, then one by one, in the same operations.
    for (int m = 0; m < rows; ++m) {
      const A *src = first + 2 * m * stride;
      A *out = dst + m * dstStride;
      int64_t i = x;
      for (; i + L::kLanes <= n; i += L::kLanes) {
        Vec acc = L::Mul(w[0], L::Add(L::Load(src + i), L::Load(src + (kTaps - 1) * stride + i)));
        for (int t = 1; t < kTaps / 2; ++t) {
          const Vec pair = L::Add(L::Load(src + t * stride + i), L::Load(src + (kTaps - 1 - t) * stride + i));
          acc = L::Fma(w[t], pair, acc);
        }
        L::Store(out + i, acc);
      }
      for (; i < n; ++i) {
        A acc = weights[0] * (src[i] + src[(kTaps - 1) * stride + i]);
        for (int t = 1; t < kTaps / 2; ++t) {
          acc = L::Fma(weights[t], src[t * stride + i] + src[(kTaps - 1 - t) * stride + i], acc);
        }
        out[i] = acc;
      }
    }
    return;
  }
  for (; x + kStep <= n; x += kStep) {
    for (int m = 0; m < rows; ++m) {
      const A *row = first + 2 * m * stride + x;
      Vec acc[kV];
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) acc[v] = L::Mul(w[0], L::Load(row + v * L::kLanes));
#pragma GCC unroll 8
      for (int t = 1; t < kTaps; ++t) {
        row = NextRow(row, stride);
#pragma GCC unroll 4
        for (int v = 0; v < kV; ++v) acc[v] = L::Fma(w[t], L::Load(row + v * L::kLanes), acc[v]);
      }
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) L::Store(dst + m * dstStride + x + v * L::kLanes, acc[v]);
    }
  }
  if (x == n) return;
  for (int m = 0; m < rows; ++m) {
    CubicHalvingK<1>(dst + m * dstStride + x, dstStride, first + 2 * m * stride + x, stride, weights, n - x);
  }
}
#endif

// f(accumulate, accumulateB) with the two flags as std::bool_constant arguments, so that a kernel takes them
// as template arguments (accumulateB only where kPair: else false). Always inlined: out of line, the
// kernels compiled into its copies took more instructions.
template <bool kPair, typename F>
__attribute__((always_inline)) inline auto WithAccumulation(bool accumulate, bool accumulateB, F &&f) {
  if constexpr (kPair) {
    if (accumulateB)
      return accumulate ? f(std::true_type{}, std::true_type{}) : f(std::false_type{}, std::true_type{});
  }
  return accumulate ? f(std::true_type{}, std::false_type{}) : f(std::false_type{}, std::false_type{});
}

template <bool kPair>
struct SplitCombine {
  template <int K>
  static void Run(float *dst, float *dstB, const Bf16 *const *src, const float *w, const float *wB, int64_t n,
                  int64_t rows, bool accumulate, bool accumulateB) {
    WithAccumulation<kPair>(accumulate, accumulateB, [&](auto a, auto b) {
      CombineSplitK<K, kPair, decltype(a)::value, decltype(b)::value>(dst, dstB, src, w, wB, n, rows);
    });
  }
};

// CombineSplitK over k taps, four at a time, or eight for a pair (its two chains' stores and reloads
// then come half as often), the later parts accumulating.
template <bool kPair>
inline void CombineSplitParts(float *dst, float *dstB, const Bf16 *const *src, const float *w,
                              const float *wB, int k, int64_t n, int64_t rows, bool accumulate,
                              bool accumulateB) {
  while (k > 0) {
    constexpr int kMaxPart = kPair ? 8 : 4;
    const int part = std::min(k, kMaxPart);
    WithTapCount<SplitCombine<kPair>, kMaxPart>(part, dst, dstB, src, w, wB, n, rows, accumulate,
                                                accumulateB);
    src += part;
    w += part;
    if constexpr (kPair) wB += part;
    k -= part;
    accumulate = accumulateB = true;
  }
}

}  // namespace combine_detail

// Whether this tier has CombineRowsSplit.
constexpr bool kHaveSplitRows = true;

// CombineRows of bf16 sources (n even) into split rows: dst[m] is element 2m of the combination and
// dst[n / 2 + m] element 2m + 1, each summed exactly as CombineRows sums it; `rows` rows, n elements
// apart in each source and in dst. A split row is what the halving W pass reads fastest
// (HalvingRowsSplit: its operands are plain loads), and the widening takes one shift or one mask per
// vector of results. CombineRows keeps a split row split (it works element by element), so the D step
// may split and the H step combine the split slab rows.
inline void CombineRowsSplit(float *dst, const Bf16 *const *src, const float *w, int k, int64_t n,
                             int64_t rows, bool accumulate) {
  combine_detail::CombineSplitParts<false>(dst, nullptr, src, w, nullptr, k, n, rows, accumulate, false);
}

// CombineRowsSplit into dst with weights w and into dstB with weights wB from the same k sources, each
// source loaded and widened once for both: the same sums as two CombineRowsSplit calls.
inline void CombineRowsSplitPair(float *dst, float *dstB, const Bf16 *const *src, const float *w,
                                 const float *wB, int k, int64_t n, int64_t rows, bool accumulate,
                                 bool accumulateB) {
  combine_detail::CombineSplitParts<true>(dst, dstB, src, w, wB, k, n, rows, accumulate, accumulateB);
}

// CombineRowsSplit of `rows` (1 to 4) dst rows of a halving run at once: dst row m (at dst + m *
// dstStride) is the split row of w[0] * row(2m) + w[1] * row(2m + 1) + w[2] * row(2m + 2) + w[3] *
// row(2m + 3), row(q) = first + q * stride (n even), summed exactly as CombineRowsSplit sums that 4-tap
// list. Consecutive dst rows of an exact 2x backward share two source rows, which this widens once
// instead of once per dst row. Not inlined: inside a kernel's item loop the compiler keeps the rows'
// pointers on the stack. ahead: null, or (rows 4) the 16 n bytes a later call will read first (eight
// rows of n bf16, contiguous), requested as the rows are combined (software prefetch: a hint only).
__attribute__((noinline)) inline void CombineHalvingRowsSplit(float *dst, int64_t dstStride, int rows,
                                                              const Bf16 *first, int64_t stride,
                                                              const float *w, int64_t n, const Bf16 *ahead) {
  switch (rows) {
    case 1:
      combine_detail::CombineHalvingSplitK<1>(dst, dstStride, first, stride, w, n, nullptr);
      break;
    case 2:
      combine_detail::CombineHalvingSplitK<2>(dst, dstStride, first, stride, w, n, nullptr);
      break;
    case 3:
      combine_detail::CombineHalvingSplitK<3>(dst, dstStride, first, stride, w, n, nullptr);
      break;
    default:
      combine_detail::CombineHalvingSplitK<4>(dst, dstStride, first, stride, w, n, ahead);
      break;
  }
}
#else
constexpr bool kHaveSplitRows = false;

inline void CombineRowsSplit(float *, const Bf16 *const *, const float *, int, int64_t, int64_t, bool) {}
inline void CombineRowsSplitPair(float *, float *, const Bf16 *const *, const float *, const float *, int,
                                 int64_t, int64_t, bool, bool) {}
inline void CombineHalvingRowsSplit(float *, int64_t, int, const Bf16 *, int64_t, const float *, int64_t,
                                    const Bf16 *) {}
#endif

// The most sources CombineRows sums in one sweep over dst (its accumulator in a register). A caller
// that has more taps may pass them all: more sweeps, the same sums. AVX-512 keeps 4: its two chains
// of 8-tap sweeps made B7 slower (wall clock), where AVX2 and the baseline gain.
#if defined(TRILINEAR3D_HAVE_AVX512)
constexpr int kCombineSweepTaps = 4;
#else
constexpr int kCombineSweepTaps = 8;
#endif

// Sources per CombineRowsSplit / CombineRowsSplitPair call of a split D step, on every tier: a pair's
// eight planes then sum in one part (CombineSplitParts; others in parts of four). AVX-512 included: its
// kCombineSweepTaps (4) would store and reload a pair's two slabs twice as often, which a D index of many
// planes (a large downscale: B4's 64) pays on every plane.
constexpr int kCombineSplitSweepTaps = 8;

// k >= 1 source rows; dst must not overlap a source. See the top of the file. The sources are summed
// kCombineSweepTaps at a time (a sweep over dst each), which gives every element the same operations
// in the same order as any other grouping: the chain w[0] * src[0], then one FMA (baseline: a
// multiply and an add) per source, from dst when accumulating.
template <typename A, typename S>
inline void CombineRows(A *__restrict dst, const S *const *src, const A *w, int k, int64_t n,
                        bool accumulate) {
  static_assert(std::is_same_v<A, Acc<S>>, "sources are the dtype or its accumulation type");
  while (k > 0) {
    const int part = std::min(k, kCombineSweepTaps);
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
    combine_detail::WithTapCount<combine_detail::VectorCombine, kCombineSweepTaps>(part, dst, src, w, n,
                                                                                   accumulate);
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

// CombineRows of `rows` (1 to 4) dst rows of a cubic halving run at once (its lists are eight
// consecutive source rows, two further on per dst row, with the same weights): dst row m (at dst + m *
// dstStride) is w[0] * row(2m) + ... + w[7] * row(2m + 7), row(q) = first + q * stride, summed exactly as
// CombineRows sums that 8-tap list. Consecutive dst rows share six source rows, which this loads once.
template <typename A, typename S>
inline void CombineCubicHalvingRows(A *dst, int64_t dstStride, int rows, const S *first, int64_t stride,
                                    const A *w, int64_t n) {
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
#if defined(TRILINEAR3D_HAVE_VEC128)
  if constexpr (std::is_same_v<S, A>) {
    combine_detail::CubicHalvingLines(dst, dstStride, rows, first, stride, w, n);
    return;
  }
#endif
  switch (rows) {
    case 1:
      combine_detail::CubicHalvingK<1>(dst, dstStride, first, stride, w, n);
      break;
    case 2:
      combine_detail::CubicHalvingK<2>(dst, dstStride, first, stride, w, n);
      break;
    case 3:
      combine_detail::CubicHalvingK<3>(dst, dstStride, first, stride, w, n);
      break;
    default:
      combine_detail::CubicHalvingK<4>(dst, dstStride, first, stride, w, n);
      break;
  }
#else
  for (int m = 0; m < rows; ++m) {
    const S *src[8];
    for (int t = 0; t < 8; ++t) src[t] = first + (2 * m + t) * stride;
    CombineRows(dst + m * dstStride, src, w, 8, n, false);
  }
#endif
}

// CombineRows of `rows` (1 to 4) dst rows of a linear halving run at once (its lists are four
// consecutive source rows, two further on per dst row, with the same weights): dst row m (at dst + m *
// dstStride) is w[0] * row(2m) + ... + w[3] * row(2m + 3), row(q) = first + q * stride, summed exactly as
// CombineRows sums that 4-tap list (on the 128-bit tier of x86-64, symmetric weights in pairs, as
// CombineK does). Consecutive dst rows share two source rows, which this loads once. ahead (or null):
// LinearHalvingK's, eight rows of n elements requested for a later call.
template <typename A, typename S>
inline void CombineLinearHalvingRows(A *dst, int64_t dstStride, int rows, const S *first, int64_t stride,
                                     const A *w, int64_t n, const S *ahead) {
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
  bool symmetric = false;
#if defined(TRILINEAR3D_HAVE_VEC128)
  symmetric = kFmaIsMulAdd && SymmetricWeights<4>(w);
#endif
  auto run = [&](auto pairs) {
    constexpr bool kPairs = decltype(pairs)::value;
    switch (rows) {
      case 1:
        combine_detail::LinearHalvingK<1, kPairs>(dst, dstStride, first, stride, w, n, ahead);
        break;
      case 2:
        combine_detail::LinearHalvingK<2, kPairs>(dst, dstStride, first, stride, w, n, ahead);
        break;
      case 3:
        combine_detail::LinearHalvingK<3, kPairs>(dst, dstStride, first, stride, w, n, ahead);
        break;
      default:
        combine_detail::LinearHalvingK<4, kPairs>(dst, dstStride, first, stride, w, n, ahead);
        break;
    }
  };
  if (symmetric) {
    run(std::true_type{});
  } else {
    run(std::false_type{});
  }
#else
  for (int m = 0; m < rows; ++m) {
    const S *src[4];
    for (int t = 0; t < 4; ++t) src[t] = first + (2 * m + t) * stride;
    CombineRows(dst + m * dstStride, src, w, 4, n, false);
  }
#endif
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_COMBINE_ROWS_H_
