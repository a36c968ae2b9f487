// The W pass over the cubic runs of an exact 2x (RowGather::cubicDoubling, forward, and
// RowGather::cubicHalving, backward; align_corners false, away from the clamped borders), where every
// output's taps are consecutive source elements with fixed weights.
// Forward: out 2k and 2k + 1 for V consecutive k from five shifted vectors of the source row
// (k - 2 .. k + 2), four FMAs each, interleaved into two output vectors: per 2V outputs 5 loads,
// 8 FMAs, 2 to 4 shuffles and 2 stores, where the windowed steps take a window and, per step, an index,
// a weight and a mask load, a permute and an FMA (four steps per V outputs).
// Backward: gradInput i for V consecutive i from the gradOut row read as four pairs of vectors at
// 2i - 3, 2i - 1, 2i + 1 and 2i + 3, each de-interleaved into its even and odd lanes, which are the
// gradOut elements 2i - 3 .. 2i + 4 of every lane; eight FMAs per V outputs (AVX2 keeps the shuffles'
// lane order through the sum and restores it once). AVX2 and the 128-bit tier only (CubicHalvingApplies).
// The outputs outside the runs (the row's ends) go through the gather's lists (AVX-512: their blocks'
// vector steps, EndOutputs). Every output sums its
// list in list order with FMAs from zero, as the vector steps do (resample_rows_w_inner_avx2.h,
// _avx512.h), so the bits are the steps' bits; the baseline tier's 128-bit vectors (Vec128Lanes: SSE2,
// NEON) sum as its scalar lists do (ListSum: a multiply and an add on SSE2, one FMA on NEON), so the
// bits are the lists', except SSE2's halving run, whose symmetric weights sum in pairs (CubicHalvingSum:
// half the multiplies; which outputs the run holds is the plan's, the same for every call). A baseline
// tier without vectors uses the lists. Included by
// resample_rows_w_inner.h after resample_rows_w_halving.h, whose lanes and helpers it shares.
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_CUBIC2X_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_CUBIC2X_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/resample_rows_w_doubling.h"
#include "op_kernel/resample_rows_w_halving.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace w_inner {

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)

#if !defined(TRILINEAR3D_HAVE_AVX2)
// The even and odd elements of the 2V elements a, b (a first) as two vectors (the 128-bit tier's;
// the AVX tiers' are resample_rows_w_halving.h's).
#if defined(__aarch64__)
inline void Deinterleave(float32x4_t a, float32x4_t b, float32x4_t *even, float32x4_t *odd) {
  *even = vuzp1q_f32(a, b);
  *odd = vuzp2q_f32(a, b);
}
#else
inline void Deinterleave(__m128 a, __m128 b, __m128 *even, __m128 *odd) {
  *even = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  *odd = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
}
#endif
#endif

#if defined(TRILINEAR3D_HAVE_AVX512)
// Output block b of g for one row through its vector steps (a windowed block: RowGather), stored under
// the block's lanes: the operations FourWindowedRowsF32 applies to each of its rows, so the steps' bits.
inline void WindowedBlock(const RowGather<float> &g, int64_t b, const float *src, float *dst) {
  const int64_t s0 = g.blockStepBegin[b], s1 = g.blockStepBegin[b + 1];
  __m512 acc = _mm512_setzero_ps();
  if (s0 < s1) {
    const int64_t base = g.stepBase[s0];
    const int64_t avail = g.srcLen - base;  // nothing past the row end is read
    const __mmask16 mlo = Avx512Lanes<float>::FirstLanes(avail);
    const __mmask16 mhi = Avx512Lanes<float>::FirstLanes(avail - 16);
    const __m512 lo = _mm512_maskz_loadu_ps(mlo, src + base),
                 hi = _mm512_maskz_loadu_ps(mhi, src + base + 16);
    for (int64_t s = s0; s < s1; ++s) {
      const __m512i idx = _mm512_loadu_si512(g.stepIdx.data() + s * 16);
      const __m512 w = _mm512_loadu_ps(g.stepW.data() + s * 16);
      acc = _mm512_mask3_fmadd_ps(_mm512_permutex2var_ps(lo, idx, hi), w, acc,
                                  static_cast<__mmask16>(g.stepMask[s]));
    }
  }
  const int left = g.blockLanes[b];
  _mm512_mask_storeu_ps(dst + g.blockStart[b], Avx512Lanes<float>::FirstLanes(left), acc);
}

// Outputs [j0, j1) of a row of g (the ends of a run): the windowed blocks that hold them through their
// steps, whole (their lanes inside the run get the bits the run's vectors give them), the others'
// outputs through the lists. On AVX-512 a handful of steps cost less than a list walk per output and
// term, which would cost more than the run saves; on AVX2 the lists cost less than the steps' blends.
inline void EndOutputs(const RowGather<float> &g, const float *src, float *dst, int64_t j0, int64_t j1) {
  if (j0 >= j1) return;
  int64_t b = 0, last = static_cast<int64_t>(g.blockStart.size()) - 1;
  while (b < last) {  // the block holding j0: the last one that starts at or before it
    const int64_t mid = (b + last + 1) / 2;
    if (g.blockStart[static_cast<size_t>(mid)] <= j0) {
      b = mid;
    } else {
      last = mid - 1;
    }
  }
  for (int64_t j = j0; j < j1; ++b) {
    const size_t k = static_cast<size_t>(b);
    const int64_t end = g.blockStart[k] + g.blockLanes[k];
    if (g.blockWindowed[k] != 0) {
      WindowedBlock(g, b, src, dst);
      j = end;
      continue;
    }
    for (; j < end && j < j1; ++j) dst[j] = ListOutput(g, src, j);
  }
}
#else
inline void EndOutputs(const RowGather<float> &g, const float *src, float *dst, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) dst[j] = ListOutput(g, src, j);
}
#endif

// Outputs 2k .. 2k + 2V - 1 of the cubic doubling run: *first holds 2k .. 2k + V - 1, *second the
// next V.
inline void CubicDoublingVector(const float *src, int64_t k, const DoublingVec even[4],
                                const DoublingVec odd[4], DoublingVec *first, DoublingVec *second) {
  using L = DoublingLanes;
  const DoublingVec zero = L::Zero();
  const DoublingVec m2 = L::Load(src + k - 2), m1 = L::Load(src + k - 1), at = L::Load(src + k);
  const DoublingVec p1 = L::Load(src + k + 1), p2 = L::Load(src + k + 2);
  const DoublingVec e =
      L::Fma(p1, even[3], L::Fma(at, even[2], L::Fma(m1, even[1], L::Fma(m2, even[0], zero))));
  const DoublingVec o = L::Fma(p2, odd[3], L::Fma(p1, odd[2], L::Fma(at, odd[1], L::Fma(m1, odd[0], zero))));
  Interleave(e, o, first, second);
}

// Whether the cubic doubling vectors serve g's rows: fp32, a run of at least V pairs, and the plan
// built for this tier (whose steps' or lists' bits they give).
template <typename A>
inline bool CubicDoublingApplies(const RowGather<A> &g) {
  if constexpr (std::is_same_v<A, float>) {
    return g.lanes == GatherLanes<float>() && g.cubicDoubling.end - g.cubicDoubling.begin >= kDoublingLanes;
  }
  return false;
}

// The W pass of one fp32 row whose cubic doubling run CubicDoublingApplies to. The vectors read source
// elements [begin - 2, end + 1]: the run's own entries.
inline void CubicDoublingRow(const RowGather<float> &g, const float *src, float *dst) {
  const CubicDoublingRun<float> &run = g.cubicDoubling;
  DoublingVec even[4], odd[4];
  for (int t = 0; t < 4; ++t) {
    even[t] = Broadcast(run.even[t]);
    odd[t] = Broadcast(run.odd[t]);
  }
  EndOutputs(g, src, dst, 0, 2 * run.begin);
  EndOutputs(g, src, dst, 2 * run.end, g.dstLen);  // before the run, whose vectors it may overlap
  DoublingVec first, second;
  int64_t k = run.begin;
  for (; k + kDoublingLanes <= run.end; k += kDoublingLanes) {
    CubicDoublingVector(src, k, even, odd, &first, &second);
    StoreVec(dst + 2 * k, first);
    StoreVec(dst + 2 * k + kDoublingLanes, second);
  }
  if (k < run.end) {  // the rest as the run's last V pairs: pairs computed twice get the same bits
    k = run.end - kDoublingLanes;
    CubicDoublingVector(src, k, even, odd, &first, &second);
    StoreVec(dst + 2 * k, first);
    StoreVec(dst + 2 * k + kDoublingLanes, second);
  }
}

// The tier's sum of the eight operands x[t] with the run's weights: the Fma from zero in tap order, or,
// where the Fma is a multiply and an add (kFmaIsMulAdd) and the weights are symmetric (an exact 2x run's
// always are), w[0] (x0 + x7) + w[1] (x1 + x6) + w[2] (x2 + x5) + w[3] (x3 + x4) in that order, as
// CombineSymmetricK sums the H step's rows.
template <bool kPaired>
inline DoublingVec CubicHalvingSum(const DoublingVec x[8], const DoublingVec w[8]) {
  using L = DoublingLanes;
  if constexpr (kPaired) {
    DoublingVec acc = L::Mul(w[0], L::Add(x[0], x[7]));
    for (int t = 1; t < 4; ++t) acc = L::Fma(w[t], L::Add(x[t], x[7 - t]), acc);
    return acc;
  } else {
    DoublingVec acc = L::Fma(x[0], w[0], L::Zero());
    for (int t = 1; t < 8; ++t) acc = L::Fma(x[t], w[t], acc);
    return acc;
  }
}

// Calls f(std::true_type{}) where the tier sums the run's operands in pairs (CubicHalvingSum<true>: a
// multiply and an add per term, symmetric weights), else f(std::false_type{}).
template <typename F>
inline void WithCubicHalvingPairing(const CubicHalvingRun<float> &run, F &&f) {
  if constexpr (kFmaIsMulAdd) {
    if (SymmetricWeights<8>(run.w)) {
      f(std::true_type{});
      return;
    }
  }
  f(std::false_type{});
}

// gradInput i .. i + V - 1 of the cubic halving run: lane m sums gradOut 2(i + m) - 3 .. 2(i + m) + 4
// with w[0..7].
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
// AVX2: each pair's even and odd elements by in-lane shuffles only, which leave the lanes in the
// order 0 1 4 5 | 2 3 6 7 of the outputs; that order is the same for all eight operands, so the
// lane-wise FMAs sum in it and one permute of the sum restores it (where Deinterleave permutes every
// operand).
template <bool kPaired = false>
inline __m256 CubicHalvingVector(const float *src, int64_t i, const __m256 w[8]) {
  static_assert(!kPaired, "AVX2's Fma is fused: no paired sums");
  __m256 acc = _mm256_setzero_ps();
  for (int q = 0; q < 4; ++q) {
    const float *p = src + 2 * i - 3 + 2 * q;
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    acc = _mm256_fmadd_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)), w[2 * q], acc);
    acc = _mm256_fmadd_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)), w[2 * q + 1], acc);
  }
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(acc), _MM_SHUFFLE(3, 1, 2, 0)));
}
#else
template <bool kPaired = false>
inline DoublingVec CubicHalvingVector(const float *src, int64_t i, const DoublingVec w[8]) {
  using L = DoublingLanes;
  DoublingVec x[8];
  for (int q = 0; q < 4; ++q) {
    const float *p = src + 2 * i - 3 + 2 * q;
    Deinterleave(L::Load(p), L::Load(p + kDoublingLanes), &x[2 * q], &x[2 * q + 1]);
  }
  return CubicHalvingSum<kPaired>(x, w);
}
#endif

// Whether the cubic halving vectors serve g's rows: fp32, a run of at least V outputs, and the plan
// built for this tier. Not on AVX-512, whose vector steps take one two-source permute and one FMA per
// term as the de-interleaves do, with the index and weight loads shared by four rows, and whose run
// would add the lists' walk at the row ends.
template <typename A>
inline bool CubicHalvingApplies(const RowGather<A> &g) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  if (g.lanes != 0) return false;
#endif
  if constexpr (std::is_same_v<A, float>) {
    return g.lanes == GatherLanes<float>() && g.cubicHalving.end - g.cubicHalving.begin >= kDoublingLanes;
  }
  return false;
}

// The W pass of one fp32 row whose cubic halving run CubicHalvingApplies to. The vectors read gradOut
// elements [2 begin - 3, 2 end + 2]: the run's own entries.
inline void CubicHalvingRow(const RowGather<float> &g, const float *src, float *dst) {
  const CubicHalvingRun<float> &run = g.cubicHalving;
  DoublingVec w[8];
  for (int t = 0; t < 8; ++t) w[t] = Broadcast(run.w[t]);
  for (int64_t j = 0; j < run.begin; ++j) dst[j] = ListOutput(g, src, j);
  auto vectors = [&](auto paired) {
    int64_t i = run.begin;
    for (; i + kDoublingLanes <= run.end; i += kDoublingLanes) {
      StoreVec(dst + i, CubicHalvingVector<decltype(paired)::value>(src, i, w));
    }
    if (i < run.end) {  // the rest as the run's last V outputs: outputs computed twice get the same bits
      i = run.end - kDoublingLanes;
      StoreVec(dst + i, CubicHalvingVector<decltype(paired)::value>(src, i, w));
    }
  };
  WithCubicHalvingPairing(run, vectors);
  for (int64_t j = run.end; j < g.dstLen; ++j) dst[j] = ListOutput(g, src, j);
}

#if (defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)) || defined(TRILINEAR3D_HAVE_VEC128)
namespace cubic_split {

// The most pairs a row's split copy holds (two stack arrays of this many floats).
constexpr int64_t kMaxPairs = 1024;

// even[k] = src[2 (m0 + k)], odd[k] = src[2 (m0 + k) + 1] for pairs m0 + k < m1 (odd: 0 past the row's
// srcLen elements), in row order: per 2V elements two loads, the de-interleave (AVX2: two in-lane
// shuffles and two lane permutes; 128-bit: two shuffles) and two stores.
inline void SplitPairs(const float *src, int64_t srcLen, int64_t m0, int64_t m1, float *even, float *odd) {
  constexpr int64_t kV = kDoublingLanes;
  // pairs m < vectorEnd: all 2V elements in the row
  const int64_t vectorEnd = std::min(m1, srcLen / 2) - (kV - 1);
  int64_t m = m0;
  for (; m < vectorEnd; m += kV) {
#if defined(TRILINEAR3D_HAVE_AVX2)
    const __m256 a = _mm256_loadu_ps(src + 2 * m), b = _mm256_loadu_ps(src + 2 * m + 8);
    _mm256_store_ps(even + (m - m0), InLaneOrderToRow(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))));
    _mm256_store_ps(odd + (m - m0), InLaneOrderToRow(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))));
#else
    DoublingVec e, o;
    Deinterleave(DoublingLanes::Load(src + 2 * m), DoublingLanes::Load(src + 2 * m + kV), &e, &o);
    DoublingLanes::Store(even + (m - m0), e);
    DoublingLanes::Store(odd + (m - m0), o);
#endif
  }
  for (; m < m1; ++m) {
    even[m - m0] = src[2 * m];
    odd[m - m0] = 2 * m + 1 < srcLen ? src[2 * m + 1] : 0.0f;
  }
}

// Outputs [j0, j1) of kRows rows through their lists, each row's sum as ListOutput sums it (FMAs from
// zero in list order: a fused multiply-add rounds once however it is issued), the list's index and
// weight loads shared by the rows.
template <int kRows>
inline void ListOutputsOfRows(const RowGather<float> &g, const float *const *src, float *const *dst,
                              int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) {
    float acc[kRows];
    for (int r = 0; r < kRows; ++r) acc[r] = 0.0f;
    const int64_t e1 = g.begin[static_cast<size_t>(j) + 1];
    for (int64_t e = g.begin[static_cast<size_t>(j)]; e < e1; ++e) {
      const int64_t at = g.src[static_cast<size_t>(e)];
      const float w = g.w[static_cast<size_t>(e)];
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) acc[r] = LaneFma(src[r][at], w, acc[r]);
    }
    for (int r = 0; r < kRows; ++r) dst[r][j] = acc[r];
  }
}

}  // namespace cubic_split

// CubicHalvingRow of kRows rows on AVX2 and the 128-bit tier through a split copy of each row (its even
// elements, then its odd ones: cubic_split::SplitPairs): the eight operands of V outputs are then plain
// loads at consecutive offsets of the two halves (tap 2q the odd elements from i - 2 + q, tap 2q + 1 the
// even from i - 1 + q), summed as CubicHalvingVector sums its lanes (the tier's Fma from zero, taps in
// order, or CubicHalvingSum's pairs), where CubicHalvingVector shuffles every operand; the ends' lists are
// walked once for all the rows. Returns false (nothing done) for runs of more than cubic_split::kMaxPairs
// pairs.
template <int kRows>
inline bool CubicHalvingRowsSplit(const RowGather<float> &g, const float *const *src, float *const *dst) {
  using cubic_split::kMaxPairs;
  const CubicHalvingRun<float> &run = g.cubicHalving;
  // The pairs the run's vectors read: gradOut elements [2 begin - 4, 2 end + 4) (the run's entries, and
  // one element on either side that no sum takes).
  const int64_t m0 = run.begin - 2, m1 = run.end + 2;
  if (m1 - m0 > kMaxPairs) return false;
  alignas(32) float even[kMaxPairs];
  alignas(32) float odd[kMaxPairs];
  DoublingVec w[8];
  for (int t = 0; t < 8; ++t) w[t] = Broadcast(run.w[t]);
  cubic_split::ListOutputsOfRows<kRows>(g, src, dst, 0, run.begin);
  cubic_split::ListOutputsOfRows<kRows>(g, src, dst, run.end, g.dstLen);
  const int64_t count = run.end - run.begin;
  for (int r = 0; r < kRows; ++r) {
    cubic_split::SplitPairs(src[r], g.srcLen, m0, m1, even, odd);
    float *out = dst[r] + run.begin;
    // Outputs run.begin + k .. + V - 1: tap 2q at odd[k + q], tap 2q + 1 at even[k + 1 + q], summed as
    // CubicHalvingRow sums them.
    auto vectors = [&](auto paired) {
      auto vector = [&](int64_t k) {
        using L = DoublingLanes;
        const float *o = odd + k, *e = even + k + 1;
        DoublingVec x[8];
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
          x[2 * q] = L::Load(o + q);
          x[2 * q + 1] = L::Load(e + q);
        }
        L::Store(out + k, CubicHalvingSum<decltype(paired)::value>(x, w));
      };
      int64_t k = 0;
      for (; k + kDoublingLanes <= count; k += kDoublingLanes) vector(k);
      if (k < count) vector(count - kDoublingLanes);  // as CubicHalvingRow: the same bits written twice
    };
    WithCubicHalvingPairing(run, vectors);
  }
  return true;
}
#endif

#if defined(TRILINEAR3D_HAVE_AVX2)
// CubicHalvingRow with its results applied to the targets t instead of stored, as the vector steps'
// epilogue applies them (HalvingRowTargets). The run's last partial group goes through the lists: a
// group computed twice would add twice.
inline void CubicHalvingRowTargets(const RowGather<float> &g, const float *src, const RowTargets<float> &t) {
  const CubicHalvingRun<float> &run = g.cubicHalving;
  DoublingVec w[8];
  for (int k = 0; k < 8; ++k) w[k] = Broadcast(run.w[k]);
  for (int64_t j = 0; j < run.begin; ++j) ApplyTargetsAt(t, j, ListOutput(g, src, j));
  int64_t i = run.begin;
  for (; i + kDoublingLanes <= run.end; i += kDoublingLanes) {
    ApplyTargetsAt(t, i, CubicHalvingVector(src, i, w));
  }
  for (int64_t j = i; j < g.dstLen; ++j) ApplyTargetsAt(t, j, ListOutput(g, src, j));
}
#endif

// The W pass of kRows rows through CubicDoublingRow when CubicDoublingApplies; returns false (nothing
// done) otherwise.
template <int kRows, typename A>
inline bool CubicDoublingRows(const RowGather<A> &g, const A *const *src, A *const *dst) {
  if constexpr (std::is_same_v<A, float>) {
    if (!CubicDoublingApplies(g)) return false;
    for (int r = 0; r < kRows; ++r) CubicDoublingRow(g, src[r], dst[r]);
    return true;
  }
  return false;
}

// The W pass of kRows rows through CubicHalvingRow when CubicHalvingApplies (on AVX2 and the 128-bit tier
// without targets: CubicHalvingRowsSplit, the same bits), with the targets (one per row, optional) applied as
// the tier's other W-pass paths apply them: fused on the AVX tiers (CubicHalvingRowTargets), from the rows on
// the baseline tier (as its scalar lists' path does); returns false (nothing done) otherwise.
template <int kRows, typename A>
inline bool CubicHalvingRows(const RowGather<A> &g, const A *const *src, A *const *dst,
                             const RowTargets<A> *targets = nullptr) {
  if constexpr (std::is_same_v<A, float>) {
    if (!CubicHalvingApplies(g)) return false;
#if (defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)) || defined(TRILINEAR3D_HAVE_VEC128)
    if (targets == nullptr && CubicHalvingRowsSplit<kRows>(g, src, dst)) return true;
#endif
    for (int r = 0; r < kRows; ++r) {
#if defined(TRILINEAR3D_HAVE_AVX2)
      if (targets != nullptr) {
        CubicHalvingRowTargets(g, src[r], targets[r]);
        continue;
      }
#endif
      CubicHalvingRow(g, src[r], dst[r]);
    }
#if !defined(TRILINEAR3D_HAVE_AVX2)
    if (targets != nullptr) {
      for (int r = 0; r < kRows; ++r) ApplyTargets(targets[r], dst[r], g.dstLen);
    }
#endif
    return true;
  }
  return false;
}

#else

// A baseline tier without vectors: the cubic runs go through the gather's lists.
template <int kRows, typename A>
inline bool CubicDoublingRows(const RowGather<A> &, const A *const *, A *const *) {
  return false;
}
template <int kRows, typename A>
inline bool CubicHalvingRows(const RowGather<A> &, const A *const *, A *const *,
                             const RowTargets<A> * = nullptr) {
  return false;
}

#endif

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_CUBIC2X_H_
