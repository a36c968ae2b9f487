// The backward's W pass over a halving run (RowGather::halving, the interior of an exact 2x
// upsampling's backward): gradInput i for V consecutive i from the gradOut row read as two pairs of
// vectors at 2i - 1 and 2i + 1, each de-interleaved into its even and odd lanes, which are the
// gradOut elements 2i - 1, 2i, 2i + 1 and 2i + 2 of every lane; four FMAs. Per V outputs: 4 loads,
// 4 permutes (AVX2: 4 in-lane shuffles and one lane permute of the sum), 4 FMAs and a store, where the
// windowed steps take a window, and per step an index, a weight and a mask load, a permute and an FMA. The
// outputs outside the run (the row's ends) go through the gather's lists. Every output sums its list in list
// order with FMAs from zero, as the vector steps do (resample_rows_w_inner_avx2.h, _avx512.h), so the bits
// are the steps' bits. The baseline tier's loops sum as its scalar lists do (HalvingRowBaseline). Included by
// resample_rows_w_inner.h after resample_rows_w_doubling.h, whose lanes and list helpers it shares.
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_HALVING_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_HALVING_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "op_kernel/convert_rows.h"
#include "op_kernel/element_types.h"
#include "op_kernel/kernel_plan.h"
#include "op_kernel/resample_rows_w_doubling.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace w_inner {

// The lists of a halving gather's outputs outside its run (the row's ends), each source as its split-row
// position (s & 1) * (srcLen / 2) + s / 2: what a W pass over split rows reads for them, worked out once
// per launch instead of once per row. Fixed room: outputs < 0 when the ends do not fit (a run that
// covers little of the row), and then the reader works the positions out itself.
struct SplitEndLists {
  static constexpr int kMaxOutputs = 8;
  static constexpr int kMaxEntries = 40;
  int outputs = -1;
  int64_t j[kMaxOutputs] = {};      // the outputs, increasing
  int first[kMaxOutputs + 1] = {};  // output k's entries: [first[k], first[k + 1])
  int32_t at[kMaxEntries] = {};     // split-row positions, in list order
  float w[kMaxEntries] = {};        // their weights
};

inline SplitEndLists BuildSplitEndLists(const RowGather<float> &g) {
  SplitEndLists ends;
  const int64_t half = g.srcLen / 2;
  int outputs = 0, entries = 0;
  for (int64_t j = 0; j < g.dstLen; ++j) {
    if (j == g.halving.begin) j = g.halving.end;
    if (j >= g.dstLen) break;
    const int64_t e0 = g.begin[static_cast<size_t>(j)], e1 = g.begin[static_cast<size_t>(j) + 1];
    if (outputs == SplitEndLists::kMaxOutputs || entries + (e1 - e0) > SplitEndLists::kMaxEntries)
      return ends;
    ends.j[outputs] = j;
    ends.first[outputs] = entries;
    for (int64_t e = e0; e < e1; ++e, ++entries) {
      const int32_t s = g.src[static_cast<size_t>(e)];
      ends.at[entries] = static_cast<int32_t>((s & 1) * half + (s >> 1));
      ends.w[entries] = g.w[static_cast<size_t>(e)];
    }
    ++outputs;
  }
  ends.first[outputs] = entries;
  ends.outputs = outputs;
  return ends;
}

#if defined(TRILINEAR3D_HAVE_AVX2)

#if defined(TRILINEAR3D_HAVE_AVX512)
// The even and odd elements of the 2V elements a, b (a first) as two vectors.
inline void Deinterleave(__m512 a, __m512 b, __m512 *even, __m512 *odd) {
  const __m512i evens = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odds = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  *even = _mm512_permutex2var_ps(a, evens, b);
  *odd = _mm512_permutex2var_ps(a, odds, b);
}

// gradInput i .. i + V - 1 of the run: lane m sums gradOut 2(i + m) - 1 .. 2(i + m) + 2 with w[0..3].
__attribute__((always_inline)) inline DoublingVec HalvingVector(const float *src, int64_t i,
                                                                const DoublingVec w[4]) {
  using L = DoublingLanes;
  DoublingVec before, at, next, after;
  Deinterleave(L::Load(src + 2 * i - 1), L::Load(src + 2 * i - 1 + kDoublingLanes), &before, &at);
  Deinterleave(L::Load(src + 2 * i + 1), L::Load(src + 2 * i + 1 + kDoublingLanes), &next, &after);
  return L::Fma(after, w[3], L::Fma(next, w[2], L::Fma(at, w[1], L::Fma(before, w[0], L::Zero()))));
}
#else
// The even and odd elements of the 2V elements a, b (a first), both in the lane order
// a0 a2 b0 b2 | a4 a6 b4 b6 (shufps stays within each 128-bit half): the sums are lane-wise, so they
// run in that order and one permute of the result (InLaneOrderToRow) puts it in row order, instead of
// one per operand.
inline void DeinterleaveInLanes(__m256 a, __m256 b, __m256 *even, __m256 *odd) {
  *even = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  *odd = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
}

// A vector in DeinterleaveInLanes' lane order, in row order: its 64-bit lanes' order 0 2 1 3.
inline __m256 InLaneOrderToRow(__m256 v) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}

// gradInput i .. i + V - 1 of the run: lane m sums gradOut 2(i + m) - 1 .. 2(i + m) + 2 with w[0..3]
// (each lane the same FMAs as in row order).
__attribute__((always_inline)) inline DoublingVec HalvingVector(const float *src, int64_t i,
                                                                const DoublingVec w[4]) {
  using L = DoublingLanes;
  DoublingVec before, at, next, after;
  DeinterleaveInLanes(L::Load(src + 2 * i - 1), L::Load(src + 2 * i - 1 + kDoublingLanes), &before, &at);
  DeinterleaveInLanes(L::Load(src + 2 * i + 1), L::Load(src + 2 * i + 1 + kDoublingLanes), &next, &after);
  return InLaneOrderToRow(
      L::Fma(after, w[3], L::Fma(next, w[2], L::Fma(at, w[1], L::Fma(before, w[0], L::Zero())))));
}
#endif

// Whether the halving vectors serve g's rows: fp32, a run of at least V outputs, and the plan built for
// this tier (whose steps' bits they give).
template <typename A>
inline bool HalvingApplies(const RowGather<A> &g) {
  if constexpr (std::is_same_v<A, float>) {
    return g.lanes == GatherLanes<float>() && g.halving.end - g.halving.begin >= kDoublingLanes;
  }
  return false;
}

// The W pass of one fp32 row whose halving run HalvingApplies to. The vectors read gradOut elements
// [2 begin - 1, 2 end]: the run's own entries.
inline void HalvingRow(const RowGather<float> &g, const float *src, float *dst) {
  const HalvingRun<float> &run = g.halving;
  const DoublingVec w[4] = {Broadcast(run.w[0]), Broadcast(run.w[1]), Broadcast(run.w[2]),
                            Broadcast(run.w[3])};
  for (int64_t j = 0; j < run.begin; ++j) dst[j] = ListOutput(g, src, j);
  const int64_t end = run.end;  // a local: the stores to dst may alias the plan for all the compiler knows
  int64_t i = run.begin;
  for (; i + kDoublingLanes <= end; i += kDoublingLanes) StoreVec(dst + i, HalvingVector(src, i, w));
  if (i < end) {  // the rest as the run's last V outputs: outputs computed twice get the same bits
    i = end - kDoublingLanes;
    StoreVec(dst + i, HalvingVector(src, i, w));
  }
  for (int64_t j = run.end; j < g.dstLen; ++j) dst[j] = ListOutput(g, src, j);
}

// Output j's value v applied to the targets t (the fused H scatter): w * v assigned, or added with one
// FMA, as the vector steps' epilogue applies it (row_arith.h).
inline void ApplyTargetsAt(const RowTargets<float> &t, int64_t j, float v) {
  for (int k = 0; k < t.count; ++k) {
    float *p = t.row[k] + j;
    *p = t.assign[k] ? t.w[k] * v : FmaLane(v, t.w[k], *p);
  }
}

inline void ApplyTargetsAt(const RowTargets<float> &t, int64_t j, DoublingVec v) {
  using L = DoublingLanes;
  for (int k = 0; k < t.count; ++k) {
    float *p = t.row[k] + j;
    const DoublingVec w = L::Broadcast(t.w[k]);
    L::Store(p, t.assign[k] ? L::Mul(w, v) : L::Fma(w, v, L::Load(p)));
  }
}

// HalvingRow with its results applied to the targets t instead of stored (no round trip through a
// W-pass row). The run's last partial group goes through the lists: a group computed twice would add
// twice.
inline void HalvingRowTargets(const RowGather<float> &g, const float *src, const RowTargets<float> &t) {
  const HalvingRun<float> &run = g.halving;
  const DoublingVec w[4] = {Broadcast(run.w[0]), Broadcast(run.w[1]), Broadcast(run.w[2]),
                            Broadcast(run.w[3])};
  for (int64_t j = 0; j < run.begin; ++j) ApplyTargetsAt(t, j, ListOutput(g, src, j));
  const int64_t end = run.end;
  int64_t i = run.begin;
  for (; i + kDoublingLanes <= end; i += kDoublingLanes) ApplyTargetsAt(t, i, HalvingVector(src, i, w));
  for (int64_t j = i; j < g.dstLen; ++j) ApplyTargetsAt(t, j, ListOutput(g, src, j));
}

// The W pass of kRows rows through HalvingRow when HalvingApplies, or with targets (one per row),
// through HalvingRowTargets; returns false (nothing done) otherwise.
template <int kRows, typename A>
inline bool HalvingRows(const RowGather<A> &g, const A *const *src, A *const *dst,
                        const RowTargets<A> *targets = nullptr) {
  if constexpr (std::is_same_v<A, float>) {
    if (!HalvingApplies(g)) return false;
    for (int r = 0; r < kRows; ++r) {
      if (targets != nullptr) {
        HalvingRowTargets(g, src[r], targets[r]);
      } else {
        HalvingRow(g, src[r], dst[r]);
      }
    }
    return true;
  }
  return false;
}

// Whether HalvingRowsSplit serves g's rows (those of HalvingRows, and rows of even length).
template <typename A>
inline bool HalvingSplitApplies(const RowGather<A> &g) {
  return HalvingApplies(g) && g.srcLen % 2 == 0;
}

// Split rows (CombineRowsSplit: the even elements, then the odd ones) read by the halving W pass of g:
// the run's four operands of V outputs are the odd elements from i - 1, the even from i, the odd from
// i and the even from i + 1, each one load (no de-interleaving), summed as HalvingVector sums them;
// the outputs outside the run through the lists, as ListOutput sums them.
class SplitHalvingReader {
 public:
  explicit SplitHalvingReader(const RowGather<float> &g)
      : half_(g.srcLen / 2), begin_(g.begin.data()), index_(g.src.data()), weight_(g.w.data()) {
    for (int k = 0; k < 4; ++k) w_[k] = Broadcast(g.halving.w[k]);
  }

  // Output j of the split row src through its list (gradOut element s is split element
  // (s & 1) * half + s / 2).
  float List(const float *src, int64_t j) const {
    float acc = 0.0f;
    for (int64_t e = begin_[j]; e < begin_[j + 1]; ++e) {
      const int32_t at = index_[e];
      acc = FmaLane(src[(at >> 1) + (at & 1) * half_], weight_[e], acc);
    }
    return acc;
  }

  // Outputs i .. i + V - 1 of the run from the split row src.
  DoublingVec Vector(const float *src, int64_t i) const {
    using L = DoublingLanes;
    const float *even = src, *odd = src + half_;
    return L::Fma(L::Load(even + i + 1), w_[3],
                  L::Fma(L::Load(odd + i), w_[2],
                         L::Fma(L::Load(even + i), w_[1], L::Fma(L::Load(odd + i - 1), w_[0], L::Zero()))));
  }

 private:
  // Locals of the reader, not the plan's vectors: the stores to dst may alias the plan for all the
  // compiler knows.
  int64_t half_;
  const int64_t *begin_;
  const int32_t *index_;
  const float *weight_;
  DoublingVec w_[4];
};

// HalvingRow of a split row (SplitHalvingReader).
inline void HalvingRowSplit(const RowGather<float> &g, const float *src, float *dst) {
  const SplitHalvingReader r(g);
  const int64_t begin = g.halving.begin, end = g.halving.end, dstLen = g.dstLen;
  for (int64_t j = 0; j < begin; ++j) dst[j] = r.List(src, j);
  int64_t i = begin;
  for (; i + kDoublingLanes <= end; i += kDoublingLanes) StoreVec(dst + i, r.Vector(src, i));
  if (i < end) StoreVec(dst + end - kDoublingLanes, r.Vector(src, end - kDoublingLanes));  // as HalvingRow
  for (int64_t j = end; j < dstLen; ++j) dst[j] = r.List(src, j);
}

// The W pass of kRows split rows (HalvingSplitApplies to g).
template <int kRows>
inline void HalvingRowsSplit(const RowGather<float> &g, const float *const *src, float *const *dst) {
  for (int r = 0; r < kRows; ++r) HalvingRowSplit(g, src[r], dst[r]);
}

// Whether this tier has HalvingRowsSplitNarrow.
constexpr bool kHaveHalvingSplitNarrow = true;

// HalvingRowSplit of `count` split rows (src[r]) with the outputs narrowed to bf16 straight into the
// unit-stride rows dst[r], rounded as StoreRow rounds them: no fp32 row is stored and read back to be
// narrowed. The run's last partial group is the run's last outputs again (the same bits written twice).
inline void HalvingRowsSplitNarrow(const RowGather<float> &g, const SplitEndLists &ends,
                                   const float *const *src, Bf16 *const *dst, int count) {
  const SplitHalvingReader r(g);
  const int64_t begin = g.halving.begin, end = g.halving.end, dstLen = g.dstLen;
  constexpr int64_t kV = kDoublingLanes;
  for (int row = 0; row < count; ++row) {
    const float *in = src[row];
    Bf16 *out = dst[row];
    if (ends.outputs >= 0) {  // the ends' lists, with their positions worked out (the same sums)
      for (int k = 0; k < ends.outputs; ++k) {
        float acc = 0.0f;
        for (int e = ends.first[k]; e < ends.first[k + 1]; ++e) {
          acc = std::fma(in[ends.at[e]], ends.w[e], acc);  // FmaLane's sum, one vfmadd (no inserts)
        }
        out[ends.j[k]] = FromAcc<Bf16>(acc);
      }
    } else {
      for (int64_t j = 0; j < begin; ++j) out[j] = FromAcc<Bf16>(r.List(in, j));
      for (int64_t j = end; j < dstLen; ++j) out[j] = FromAcc<Bf16>(r.List(in, j));
    }
    int64_t i = begin;
#if defined(TRILINEAR3D_HAVE_AVX512)
    for (; i + kV <= end; i += kV) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), FloatToBf16x16(r.Vector(in, i)));
    }
    if (i < end) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + end - kV),
                          FloatToBf16x16(r.Vector(in, end - kV)));
    }
#else
    auto store16 = [&](int64_t at) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + at),
                          FloatToBf16x16(r.Vector(in, at), r.Vector(in, at + kV)));
    };
    for (; i + 2 * kV <= end; i += 2 * kV) store16(i);
    if (i < end && end - 2 * kV >= begin) {
      store16(end - 2 * kV);
    } else if (i < end) {  // a run of V to 2V - 1 outputs
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), FloatToBf16x8(r.Vector(in, i)));
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + end - kV), FloatToBf16x8(r.Vector(in, end - kV)));
    }
#endif
  }
}

#else

// The baseline tier's halving run: plain loops the compiler vectorises (SSE2, NEON), every output
// summed as the scalar lists sum it (ListSum: from zero, in list order, the same expressions), so the
// bits are the lists' bits.
template <typename A>
inline void HalvingRowBaseline(const RowGather<A> &g, const A *__restrict src, A *__restrict dst) {
  const HalvingRun<A> &run = g.halving;
  const A w0 = run.w[0], w1 = run.w[1], w2 = run.w[2], w3 = run.w[3];
  for (int64_t j = 0; j < run.begin; ++j) dst[j] = ListSum(g, src, j);
  for (int64_t i = run.begin; i < run.end; ++i) {
    A acc = A(0);
    acc += w0 * src[2 * i - 1];
    acc += w1 * src[2 * i];
    acc += w2 * src[2 * i + 1];
    acc += w3 * src[2 * i + 2];
    dst[i] = acc;
  }
  for (int64_t j = run.end; j < g.dstLen; ++j) dst[j] = ListSum(g, src, j);
}

// The W pass of kRows rows through HalvingRowBaseline when the gather has a halving run of at least 4
// outputs and no vector steps, then the targets (one per row, optional) applied from the rows, as the
// scalar lists' path applies them; returns false (nothing done) otherwise.
template <int kRows, typename A>
inline bool HalvingRows(const RowGather<A> &g, const A *const *src, A *const *dst,
                        const RowTargets<A> *targets = nullptr) {
  if (g.lanes != GatherLanes<A>() || g.halving.end - g.halving.begin < 4) return false;
  for (int r = 0; r < kRows; ++r) HalvingRowBaseline(g, src[r], dst[r]);
  if (targets != nullptr) {
    for (int r = 0; r < kRows; ++r) ApplyTargets(targets[r], dst[r], g.dstLen);
  }
  return true;
}

// Element s of a split row (CombineRowsSplit: the even elements, then the odd ones; half each).
template <typename A>
inline A SplitAt(const A *row, int64_t half, int64_t s) {
  return row[(s & 1) * half + (s >> 1)];
}

// Whether HalvingRowsSplit serves g's rows (those of HalvingRows, and rows of even length).
template <typename A>
inline bool HalvingSplitApplies(const RowGather<A> &g) {
  return g.lanes == GatherLanes<A>() && g.halving.end - g.halving.begin >= 4 && g.srcLen % 2 == 0;
}

// HalvingRowBaseline of a split row: the same expressions on the same elements.
template <typename A>
inline void HalvingRowSplitBaseline(const RowGather<A> &g, const A *__restrict src, A *__restrict dst) {
  const HalvingRun<A> &run = g.halving;
  const int64_t half = g.srcLen / 2;
  const A *__restrict even = src;
  const A *__restrict odd = src + half;
  const A w0 = run.w[0], w1 = run.w[1], w2 = run.w[2], w3 = run.w[3];
  auto list = [&](int64_t j) {
    A acc = A(0);
    for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
      acc += g.w[static_cast<size_t>(e)] * SplitAt(src, half, g.src[static_cast<size_t>(e)]);
    }
    return acc;
  };
  for (int64_t j = 0; j < run.begin; ++j) dst[j] = list(j);
  for (int64_t i = run.begin; i < run.end; ++i) {
    A acc = A(0);
    acc += w0 * odd[i - 1];
    acc += w1 * even[i];
    acc += w2 * odd[i];
    acc += w3 * even[i + 1];
    dst[i] = acc;
  }
  for (int64_t j = run.end; j < g.dstLen; ++j) dst[j] = list(j);
}

template <int kRows, typename A>
inline void HalvingRowsSplit(const RowGather<A> &g, const A *const *src, A *const *dst) {
  for (int r = 0; r < kRows; ++r) HalvingRowSplitBaseline(g, src[r], dst[r]);
}

// The baseline tier narrows the W pass's rows as it stores them (StoreRow).
constexpr bool kHaveHalvingSplitNarrow = false;

inline void HalvingRowsSplitNarrow(const RowGather<float> &, const SplitEndLists &, const float *const *,
                                   Bf16 *const *, int) {}

#endif

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_HALVING_H_
