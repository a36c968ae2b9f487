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
#include <initializer_list>
#include <type_traits>

#include "op_kernel/convert_rows.h"
#include "op_kernel/element_types.h"
#include "op_kernel/kernel_plan.h"
#include "op_kernel/resample_rows_w_doubling.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace w_inner {

// A halving gather's first or last V outputs (V = kDoublingLanes) as one vector over split rows: lane m
// sums output j0 + m's list (the run's four entries or an end's own) with FMAs from zero in list order, as
// the lists and the run's vectors sum it. Each lane's entry k is at gradOut 2 (j0 + m) + r, r a relative
// position; the slots are the lanes' relative positions merged in increasing order, one masked load of the
// split row each (r fixes the element's parity and its offset from j0 + m, so the lanes' elements are
// adjacent). A lane that takes no entry of a slot loads +0 (masked) against a weight of -0: a product of
// -0, which leaves any sum as it was (+0 + -0 is +0, -0 + -0 is -0), so its bits are its list's. Built
// once per launch. The AVX tiers' masked loads read nothing but the lanes' entries; the baseline tier loads
// each slot's whole window and clears the other lanes (EndVectorBaseline).
struct SplitEnd {
  static constexpr int kMaxSlots = 8;
  int slots = 0;
  int64_t at[kMaxSlots] = {};                    // the slot's lane 0 element in the split row
  float w[kMaxSlots][kDoublingLanes] = {};       // each lane's weight (-0: no entry)
  int32_t take[kMaxSlots][kDoublingLanes] = {};  // -1 where the lane takes an entry (AVX2's load mask)
  uint32_t takeBits[kMaxSlots] = {};             // the same as bits (AVX-512's)
};

// The slots of outputs [j0, j0 + V) of g (SplitEnd): slot(t, r, takes, w) for each, with the lanes that take
// an entry of it and their weights (-0 for the others); false when the lists need more than kMaxSlots.
template <typename Slot>
inline bool MergeEndSlots(const RowGather<float> &g, int64_t j0, Slot &&slot) {
  int64_t next[kDoublingLanes];  // each lane's next entry
  for (int m = 0; m < kDoublingLanes; ++m) next[m] = g.begin[static_cast<size_t>(j0 + m)];
  auto relative = [&](int m) { return g.src[static_cast<size_t>(next[m])] - 2 * (j0 + m); };
  auto left = [&](int m) { return next[m] < g.begin[static_cast<size_t>(j0 + m) + 1]; };
  for (int t = 0;; ++t) {
    bool any = false;
    int64_t r = 0;
    for (int m = 0; m < kDoublingLanes; ++m) {
      if (left(m) && (!any || relative(m) < r)) r = relative(m);
      any = any || left(m);
    }
    if (!any) return true;
    if (t == SplitEnd::kMaxSlots) return false;
    bool takes[kDoublingLanes];
    float w[kDoublingLanes];
    for (int m = 0; m < kDoublingLanes; ++m) {
      takes[m] = left(m) && relative(m) == r;
      w[m] = takes[m] ? g.w[static_cast<size_t>(next[m])] : -0.0f;
      if (takes[m]) ++next[m];
    }
    slot(t, r, takes, w);
  }
}

// Builds the vector of outputs [j0, j0 + V) of g over split rows.
inline bool BuildSplitEnd(const RowGather<float> &g, int64_t j0, SplitEnd *end) {
  const int64_t half = g.srcLen / 2;
  return MergeEndSlots(g, j0, [&](int t, int64_t r, const bool *takes, const float *w) {
    end->slots = t + 1;
    // gradOut 2 (j0 + m) + r is split element (r & 1) * half + j0 + m + floor(r / 2).
    end->at[t] = (r & 1) * half + j0 + (r >> 1);
    for (int m = 0; m < kDoublingLanes; ++m) {
      end->w[t][m] = w[m];
      end->take[t][m] = takes[m] ? -1 : 0;
      end->takeBits[t] |= takes[m] ? 1u << m : 0u;
    }
  });
}

// The ends of g's split rows as vectors (SplitEnd), where g's run covers every output but the first and
// last V and the row is at least three 16-output groups long; `vectors` false otherwise (the ends then go
// through their lists).
struct SplitEnds {
  static constexpr int64_t kMinOutputs = 48;
  bool vectors = false;
  SplitEnd first, last;
};

inline SplitEnds BuildSplitEnds(const RowGather<float> &g) {
  SplitEnds ends;
  const int64_t n = g.dstLen;
  if (g.srcLen % 2 != 0 || n < SplitEnds::kMinOutputs || g.halving.begin > kDoublingLanes ||
      g.halving.end < n - kDoublingLanes) {
    return ends;
  }
  ends.vectors = BuildSplitEnd(g, 0, &ends.first) && BuildSplitEnd(g, n - kDoublingLanes, &ends.last);
  // Every slot's window within one element of the split row (the baseline tier reads it whole).
  for (const SplitEnd *e : {&ends.first, &ends.last}) {
    for (int t = 0; t < e->slots; ++t) {
      ends.vectors = ends.vectors && e->at[t] >= -1 && e->at[t] + kDoublingLanes <= g.srcLen + 1;
    }
  }
  return ends;
}

#if defined(TRILINEAR3D_HAVE_AVX2)

// Lane m of a halving run's sum: w[0] * before + w[1] * at + w[2] * next + w[3] * after (gradOut 2i - 1,
// 2i, 2i + 1, 2i + 2 of its output i), FMAs from zero in that order: every vector of the run, however its
// operands were read, sums through this one chain, so all give the same bits.
__attribute__((always_inline)) inline DoublingVec HalvingSum(DoublingVec before, DoublingVec at,
                                                             DoublingVec next, DoublingVec after,
                                                             const DoublingVec w[4]) {
  using L = DoublingLanes;
  return L::Fma(after, w[3], L::Fma(next, w[2], L::Fma(at, w[1], L::Fma(before, w[0], L::Zero()))));
}

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
  return HalvingSum(before, at, next, after, w);
}

// HalvingVector for i, i + V, ... while two vectors of outputs are left before end (the vectors read
// gradOut up to 2 end - 1), each passed to sink(i, vector); returns the first i not done. Each group's
// gradOut elements are read once, by two loads at 2i (line-aligned where 2i is: no load that spans two
// cache lines, where HalvingVector's four loads at 2i -/+ 1 each span two), de-interleaved into the even
// elements (`at`) and the odd ones (`next`); `before` is the odd ones moved up one lane, the group
// before's last odd element entering (valignd), and `after` the even ones moved down one, the next
// group's first even element entering: the same operands and FMAs as HalvingVector, so the same bits.
template <typename Sink>
__attribute__((always_inline)) inline int64_t HalvingVectors(const float *src, int64_t i, int64_t end,
                                                             const DoublingVec w[4], Sink sink) {
  using L = DoublingLanes;
  if (i + 2 * kDoublingLanes > end) return i;
  DoublingVec at, next, nextAt, nextNext;
  DoublingVec last = _mm512_set1_ps(src[2 * i - 1]);  // lane 15: the odd element before the group
  Deinterleave(L::Load(src + 2 * i), L::Load(src + 2 * i + kDoublingLanes), &at, &next);
  for (; i + 2 * kDoublingLanes <= end; i += kDoublingLanes) {
    const float *ahead = src + 2 * (i + kDoublingLanes);
    Deinterleave(L::Load(ahead), L::Load(ahead + kDoublingLanes), &nextAt, &nextNext);
    const DoublingVec before =
        _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(next), _mm512_castps_si512(last), 15));
    const DoublingVec after =
        _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(nextAt), _mm512_castps_si512(at), 1));
    sink(i, HalvingSum(before, at, next, after, w));
    last = next;
    at = nextAt;
    next = nextNext;
  }
  return i;
}

// The first output from `begin` whose gradOut pair 2i starts a 64-byte line (HalvingVectors' loads
// then span none), at most V / 2 - 1 further on; begin where the row is not 8-byte aligned.
inline int64_t LineAlignedHalvingStart(const float *src, int64_t begin) {
  const auto at = reinterpret_cast<uintptr_t>(src + 2 * begin);
  if (at % 8 != 0) return begin;
  return begin + static_cast<int64_t>((64 - at % 64) % 64 / 8);
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
  return InLaneOrderToRow(HalvingSum(before, at, next, after, w));
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
#if defined(TRILINEAR3D_HAVE_AVX512)
  if (i + 2 * kDoublingLanes <= end) {  // the first V outputs, then on from a line-aligned pair
    StoreVec(dst + i, HalvingVector(src, i, w));
    i = HalvingVectors(src, LineAlignedHalvingStart(src, i), end, w,
                       [dst](int64_t at, DoublingVec v) { StoreVec(dst + at, v); });
  }
#endif
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
    *p = t.assign[k] ? t.w[k] * v : LaneFma(v, t.w[k], *p);
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
#if defined(TRILINEAR3D_HAVE_AVX512)
  if (i + 2 * kDoublingLanes <= end) {  // up to a line-aligned pair through the lists (once each)
    for (const int64_t aligned = LineAlignedHalvingStart(src, i); i < aligned; ++i) {
      ApplyTargetsAt(t, i, ListOutput(g, src, i));
    }
    i = HalvingVectors(src, i, end, w, [&t](int64_t at, DoublingVec v) { ApplyTargetsAt(t, at, v); });
  }
#endif
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
// SplitEnd over whole (not split) rows: slot t's operand is the even elements of the 2V-element window at
// gradOut 2 j0 + r, two masked loads (each lane's element where the lane takes an entry of the slot, no
// other) de-interleaved as HalvingVector de-interleaves; on AVX2 in DeinterleaveInLanes' lane order, so
// the weights are kept in that order and the sum put in row order once.
struct RowEnd {
  int slots = 0;
  int64_t at[SplitEnd::kMaxSlots] = {};                        // the window's first element
  float w[SplitEnd::kMaxSlots][kDoublingLanes] = {};           // each lane's weight, in the vector's order
  int32_t take[SplitEnd::kMaxSlots][2 * kDoublingLanes] = {};  // the window's element masks (AVX2)
  uint32_t takeBits[SplitEnd::kMaxSlots] = {};                 // the same as bits (AVX-512: 2 x 16)
};

inline bool BuildRowEnd(const RowGather<float> &g, int64_t j0, RowEnd *end) {
  return MergeEndSlots(g, j0, [&](int t, int64_t r, const bool *takes, const float *w) {
    end->slots = t + 1;
    end->at[t] = 2 * j0 + r;
    for (int m = 0; m < kDoublingLanes; ++m) {
#if defined(TRILINEAR3D_HAVE_AVX512)
      const int position = m;
#else
      const int position = (m & 1) | ((m & 2) << 1) | ((m & 4) >> 1);  // lanes 0 1 4 5 2 3 6 7
#endif
      end->w[t][position] = w[m];
      end->take[t][2 * m] = takes[m] ? -1 : 0;
      end->takeBits[t] |= takes[m] ? 1u << (2 * m) : 0u;
    }
  });
}

// The first and last V outputs of g's whole rows as vectors (RowEnd), under SplitEnds' conditions.
struct RowEnds {
  bool vectors = false;
  RowEnd first, last;
};

inline RowEnds BuildRowEnds(const RowGather<float> &g) {
  RowEnds ends;
  const int64_t n = g.dstLen;
  if (!HalvingApplies(g) || n < SplitEnds::kMinOutputs || g.halving.begin > kDoublingLanes ||
      g.halving.end < n - kDoublingLanes) {
    return ends;
  }
  ends.vectors = BuildRowEnd(g, 0, &ends.first) && BuildRowEnd(g, n - kDoublingLanes, &ends.last);
  return ends;
}

inline DoublingVec RowEndVector(const RowEnd &e, const float *src) {
  using L = DoublingLanes;
  DoublingVec acc = L::Zero();
  for (int t = 0; t < e.slots; ++t) {
    const float *p = src + e.at[t];
    DoublingVec x, odd;
#if defined(TRILINEAR3D_HAVE_AVX512)
    Deinterleave(_mm512_maskz_loadu_ps(static_cast<__mmask16>(e.takeBits[t]), p),
                 _mm512_maskz_loadu_ps(static_cast<__mmask16>(e.takeBits[t] >> 16), p + kDoublingLanes), &x,
                 &odd);
#else
    DeinterleaveInLanes(
        _mm256_maskload_ps(p, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(e.take[t]))),
        _mm256_maskload_ps(p + kDoublingLanes,
                           _mm256_loadu_si256(reinterpret_cast<const __m256i *>(e.take[t] + 8))),
        &x, &odd);
#endif
    acc = L::Fma(x, L::Load(e.w[t]), acc);
  }
#if defined(TRILINEAR3D_HAVE_AVX512)
  return acc;
#else
  return InLaneOrderToRow(acc);
#endif
}

// HalvingRow of kRows rows whose gather has vector ends (RowEnds): the first and last V outputs are the
// ends' vectors, the run's last partial group its last V outputs again (the same bits written twice).
template <int kRows>
inline void HalvingRowsWithEnds(const RowGather<float> &g, const RowEnds &ends, const float *const *src,
                                float *const *dst) {
  const HalvingRun<float> &run = g.halving;
  const DoublingVec w[4] = {Broadcast(run.w[0]), Broadcast(run.w[1]), Broadcast(run.w[2]),
                            Broadcast(run.w[3])};
  const int64_t last = g.dstLen - kDoublingLanes;
  for (int row = 0; row < kRows; ++row) {
    const float *in = src[row];
    float *out = dst[row];
    StoreVec(out, RowEndVector(ends.first, in));
    int64_t i = kDoublingLanes;
#if defined(TRILINEAR3D_HAVE_AVX512)
    i = HalvingVectors(in, i, last, w, [out](int64_t at, DoublingVec v) { StoreVec(out + at, v); });
#endif
    for (; i + kDoublingLanes <= last; i += kDoublingLanes) StoreVec(out + i, HalvingVector(in, i, w));
    if (i < last) StoreVec(out + last - kDoublingLanes, HalvingVector(in, last - kDoublingLanes, w));
    StoreVec(out + last, RowEndVector(ends.last, in));
  }
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
      acc = LaneFma(src[(at >> 1) + (at & 1) * half_], weight_[e], acc);
    }
    return acc;
  }

  // Outputs i .. i + V - 1 of the run from the split row src.
  DoublingVec Vector(const float *src, int64_t i) const {
    using L = DoublingLanes;
    const float *even = src, *odd = src + half_;
    return HalvingSum(L::Load(odd + i - 1), L::Load(even + i), L::Load(odd + i), L::Load(even + i + 1), w_);
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

// The vector of end e from the split row src.
inline DoublingVec EndVector(const SplitEnd &e, const float *src) {
  using L = DoublingLanes;
  DoublingVec acc = L::Zero();
  for (int t = 0; t < e.slots; ++t) {
#if defined(TRILINEAR3D_HAVE_AVX512)
    const DoublingVec x = _mm512_maskz_loadu_ps(static_cast<__mmask16>(e.takeBits[t]), src + e.at[t]);
#else
    const DoublingVec x =
        _mm256_maskload_ps(src + e.at[t], _mm256_loadu_si256(reinterpret_cast<const __m256i *>(e.take[t])));
#endif
    acc = L::Fma(x, L::Load(e.w[t]), acc);
  }
  return acc;
}

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
// narrowed. With vector ends (SplitEnds) a row is whole groups of 16 outputs: the first and the last
// hold the ends' vectors, the run's last partial group is its last 16 outputs again (the same bits
// written twice). Without them the ends go through their lists.
inline void HalvingRowsSplitNarrow(const RowGather<float> &g, const SplitEnds &ends, const float *const *src,
                                   Bf16 *const *dst, int count) {
  const SplitHalvingReader r(g);
  const int64_t begin = g.halving.begin, end = g.halving.end, dstLen = g.dstLen;
  constexpr int64_t kV = kDoublingLanes;
  for (int row = 0; row < count; ++row) {
    const float *in = src[row];
    Bf16 *out = dst[row];
#if defined(TRILINEAR3D_HAVE_AVX512)
    auto store = [&](int64_t at, __m512 v) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + at), FloatToBf16x16(v));
    };
    if (ends.vectors) {  // kV = 16: [0, 16) and [dstLen - 16, dstLen) are the ends
      const int64_t last = dstLen - kV;
      store(0, EndVector(ends.first, in));
      int64_t i = kV;
      for (; i + kV <= last; i += kV) store(i, r.Vector(in, i));
      if (i < last) store(last - kV, r.Vector(in, last - kV));
      store(last, EndVector(ends.last, in));
      continue;
    }
    for (int64_t j = 0; j < begin; ++j) out[j] = FromAcc<Bf16>(r.List(in, j));
    for (int64_t j = end; j < dstLen; ++j) out[j] = FromAcc<Bf16>(r.List(in, j));
    int64_t i = begin;
    for (; i + kV <= end; i += kV) store(i, r.Vector(in, i));
    if (i < end) store(end - kV, r.Vector(in, end - kV));
#else
    // Always inlined: called out of line (GCC's choice in a larger translation unit), it costs L5 4 %.
    auto store16 = [&](int64_t at, __m256 a, __m256 b) __attribute__((always_inline)) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + at), FloatToBf16x16(a, b));
    };
    if (ends.vectors) {  // kV = 8: [0, 8) and [dstLen - 8, dstLen) are the ends
      const int64_t last = dstLen - 2 * kV;
      store16(0, EndVector(ends.first, in), r.Vector(in, kV));
      int64_t i = 2 * kV;
      for (; i + 2 * kV <= last; i += 2 * kV) store16(i, r.Vector(in, i), r.Vector(in, i + kV));
      if (i < last) store16(last - 2 * kV, r.Vector(in, last - 2 * kV), r.Vector(in, last - kV));
      store16(last, r.Vector(in, last), EndVector(ends.last, in));
      continue;
    }
    for (int64_t j = 0; j < begin; ++j) out[j] = FromAcc<Bf16>(r.List(in, j));
    for (int64_t j = end; j < dstLen; ++j) out[j] = FromAcc<Bf16>(r.List(in, j));
    int64_t i = begin;
    for (; i + 2 * kV <= end; i += 2 * kV) store16(i, r.Vector(in, i), r.Vector(in, i + kV));
    if (i < end && end - 2 * kV >= begin) {
      store16(end - 2 * kV, r.Vector(in, end - 2 * kV), r.Vector(in, end - kV));
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
    acc = LaneFma(w0, src[2 * i - 1], acc);
    acc = LaneFma(w1, src[2 * i], acc);
    acc = LaneFma(w2, src[2 * i + 1], acc);
    acc = LaneFma(w3, src[2 * i + 2], acc);
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

// Output j of the split row src through g's list, as HalvingRowBaseline's ListSum sums it.
template <typename A>
inline A SplitListSum(const RowGather<A> &g, const A *src, int64_t half, int64_t j) {
  A acc = A(0);
  for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
    acc = LaneFma(g.w[static_cast<size_t>(e)], SplitAt(src, half, g.src[static_cast<size_t>(e)]), acc);
  }
  return acc;
}

// HalvingRowBaseline of a split row: the same expressions on the same elements.
template <typename A>
inline void HalvingRowSplitBaseline(const RowGather<A> &g, const A *__restrict src, A *__restrict dst) {
  const HalvingRun<A> &run = g.halving;
  const int64_t half = g.srcLen / 2;
  const A *__restrict even = src;
  const A *__restrict odd = src + half;
  const A w0 = run.w[0], w1 = run.w[1], w2 = run.w[2], w3 = run.w[3];
  for (int64_t j = 0; j < run.begin; ++j) dst[j] = SplitListSum(g, src, half, j);
  for (int64_t i = run.begin; i < run.end; ++i) {
    A acc = A(0);
    acc = LaneFma(w0, odd[i - 1], acc);
    acc = LaneFma(w1, even[i], acc);
    acc = LaneFma(w2, odd[i], acc);
    acc = LaneFma(w3, even[i + 1], acc);
    dst[i] = acc;
  }
  for (int64_t j = run.end; j < g.dstLen; ++j) dst[j] = SplitListSum(g, src, half, j);
}

template <int kRows, typename A>
inline void HalvingRowsSplit(const RowGather<A> &g, const A *const *src, A *const *dst) {
  for (int r = 0; r < kRows; ++r) HalvingRowSplitBaseline(g, src[r], dst[r]);
}

// The AVX tiers' vector row ends (none here: the ends go through the lists).
struct RowEnds {
  bool vectors = false;
};

inline RowEnds BuildRowEnds(const RowGather<float> &) { return {}; }

template <int kRows>
inline void HalvingRowsWithEnds(const RowGather<float> &, const RowEnds &, const float *const *,
                                float *const *) {}

// Whether this tier has HalvingRowsSplitNarrow.
constexpr bool kHaveHalvingSplitNarrow = true;

// The vector of end e from the split row src on this tier, which has no masked loads: each slot's whole
// window is loaded and the lanes that take no entry of it are cleared (HalvingRowsSplitNarrow's rows have
// readable memory around them).
inline Vec128Lanes<float>::Vec EndVectorBaseline(const SplitEnd &e, const float *src) {
  using L = Vec128Lanes<float>;
  L::Vec acc = L::Zero();
  for (int t = 0; t < e.slots; ++t) {
    const L::Vec window = L::Load(src + e.at[t]);
#if defined(__aarch64__)
    const L::Vec x = vreinterpretq_f32_u32(
        vandq_u32(vreinterpretq_u32_f32(window), vld1q_u32(reinterpret_cast<const uint32_t *>(e.take[t]))));
#else
    const L::Vec x = _mm_and_ps(window, _mm_loadu_ps(reinterpret_cast<const float *>(e.take[t])));
#endif
    acc = L::Fma(x, L::Load(e.w[t]), acc);
  }
  return acc;
}

// HalvingRowSplitBaseline of `count` split rows with the outputs narrowed to bf16 straight into the
// unit-stride rows dst[r] (StoreBf16x8, eight at a time, as StoreRow narrows them): no fp32 row is stored
// and read back. The run's four terms per output are the lanes of four vectors, each lane's sum the
// scalar expressions' (Vec128Lanes::Fma: a multiply and an add on SSE2, as the scalar += is); the run's
// last partial group is its last eight outputs again (the same bits written twice). With vector ends
// (SplitEnds) the first and last four outputs are the ends' vectors, whose windows reach at most one
// element before a row and one after it (the kernel's scratch rows have that room); otherwise the ends,
// and a run shorter than eight, go element by element.
inline void HalvingRowsSplitNarrow(const RowGather<float> &g, const SplitEnds &ends, const float *const *src,
                                   Bf16 *const *dst, int count) {
  using L = Vec128Lanes<float>;
  using Vec = L::Vec;
  const HalvingRun<float> &run = g.halving;
  const int64_t half = g.srcLen / 2, begin = run.begin, end = run.end, dstLen = g.dstLen;
  const Vec w0 = L::Broadcast(run.w[0]), w1 = L::Broadcast(run.w[1]);
  const Vec w2 = L::Broadcast(run.w[2]), w3 = L::Broadcast(run.w[3]);
  for (int row = 0; row < count; ++row) {
    const float *even = src[row];
    const float *odd = even + half;
    Bf16 *out = dst[row];
    auto vector = [&](int64_t i) {
      Vec acc = L::Fma(L::Load(odd + i - 1), w0, L::Zero());
      acc = L::Fma(L::Load(even + i), w1, acc);
      acc = L::Fma(L::Load(odd + i), w2, acc);
      return L::Fma(L::Load(even + i + 1), w3, acc);
    };
    if (ends.vectors) {  // [0, 4) and [dstLen - 4, dstLen) are the ends
      const int64_t last = dstLen - 8;
      StoreBf16x8(out, EndVectorBaseline(ends.first, even), vector(4));
      int64_t i = 8;
      for (; i + 8 <= last; i += 8) StoreBf16x8(out + i, vector(i), vector(i + 4));
      if (i < last) StoreBf16x8(out + last - 8, vector(last - 8), vector(last - 4));
      StoreBf16x8(out + last, vector(last), EndVectorBaseline(ends.last, even));
      continue;
    }
    for (int64_t j = 0; j < begin; ++j) out[j] = FromAcc<Bf16>(SplitListSum(g, even, half, j));
    int64_t i = begin;
    for (; i + 8 <= end; i += 8) StoreBf16x8(out + i, vector(i), vector(i + 4));
    if (i < end && end - 8 >= begin) {
      StoreBf16x8(out + end - 8, vector(end - 8), vector(end - 4));
    } else {
      for (; i < end; ++i) {
        float acc = 0.0f;
        acc = LaneFma(run.w[0], odd[i - 1], acc);
        acc = LaneFma(run.w[1], even[i], acc);
        acc = LaneFma(run.w[2], odd[i], acc);
        acc = LaneFma(run.w[3], even[i + 1], acc);
        out[i] = FromAcc<Bf16>(acc);
      }
    }
    for (int64_t j = end; j < dstLen; ++j) out[j] = FromAcc<Bf16>(SplitListSum(g, even, half, j));
  }
}

#endif

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_HALVING_H_
