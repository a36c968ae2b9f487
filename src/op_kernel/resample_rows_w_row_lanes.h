// The W pass of a batch of four fp32 rows with the rows as the lanes of a 128-bit vector (RowLanesW), for
// gathers whose outputs have many taps spread wider than a vector step's window (the forward's shrinks:
// antialiased W passes, bicubic downsampling, RowLanesApplies; the backward of an enlargement by more than
// two, BackwardRowLanesApplies), where the vector steps gather every operand, or permute windows with
// most lanes idle, and the scalar lists walk each list once per row. The batch's H blend stores its four
// rows interleaved (element x of row r at 4 x + r: BlendFourRowsInterleaved, each element blended with
// BlendTapRows' operations), so that an output's list is walked once for the four rows: per entry one
// load of the four rows' operands, one broadcast weight and one FMA; every four outputs are transposed
// back into the rows (FourRowsOnLanesW, for the backward's W pass, interleaves separate rows itself).
// Each output sums its list in list order from zero, as the lists and the steps do (an FMA per entry on
// the AVX tiers; on SSE2 the product added to the sum, as ScalarRows adds it), so the bits are theirs.
// x86 tiers only (the aarch64 baseline keeps the lists). Compiled once per ISA (included only from
// src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_ROW_LANES_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_ROW_LANES_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "op_kernel/blend_tap_rows.h"
#include "op_kernel/kernel_plan.h"
#include "op_kernel/resample_rows_w_inner.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace w_inner {

// The most H taps an out row of BlendFourRowsInterleaved may have (longer lists take the other path).
constexpr int kRowLanesMaxTaps = 64;

// Whether g's lists have four entries an output or more on average: what makes walking a list once for
// four rows (and ConsecutiveSum's computed jump per output) pay.
template <typename A>
inline bool LongLists(const RowGather<A> &g) {
  return g.dstLen > 0 && static_cast<int64_t>(g.src.size()) >= 4 * g.dstLen;
}

// One row's H list as the gather holds it: its sources' indices and weights, count of them.
struct TapList {
  const int32_t *src;
  const float *w;
  int count;
};

// One out row's H taps: its source rows and weights, in BlendOutputTaps' order.
struct RowLanesTaps {
  const float *row[kRowLanesMaxTaps];
  float w[kRowLanesMaxTaps];
  int count;
};

#if defined(TRILINEAR3D_HAVE_AVX2) || (defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__))

constexpr bool kRowLanesW = true;

namespace row_lanes {

#if defined(TRILINEAR3D_HAVE_AVX2)
// Eight fp32 lanes on both AVX tiers (the blend's operations are lane-wise: its bits do not depend on
// the width).
struct Lanes {
  using Vec = __m256;
  static constexpr int64_t kLanes = 8;
  static Vec Load(const float *p) { return _mm256_loadu_ps(p); }
  static void Store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  static Vec Broadcast(float w) { return _mm256_set1_ps(w); }
  static Vec Mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
};

// Elements x .. x + 7 of the four rows r[0..3], stored interleaved at out (32 floats).
inline void StoreInterleaved(float *out, __m256 r0, __m256 r1, __m256 r2, __m256 r3) {
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);  // (0 1)(4 5) | (2 3)(6 7)
  const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  const __m256 u0 =
      _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));  // x0 | x4
  const __m256 u1 =
      _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));  // x1 | x5
  const __m256 u2 =
      _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));  // x2 | x6
  const __m256 u3 =
      _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));  // x3 | x7
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(u0, u1, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(u2, u3, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(u0, u1, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(u2, u3, 0x31));
}

// acc + x * w on the four rows' lanes (the steps' and lists' FMA).
inline __m128 AddProduct(__m128 acc, __m128 x, __m128 w) { return _mm_fmadd_ps(x, w, acc); }
#else
using Lanes = Vec128Lanes<float>;

inline void StoreInterleaved(float *out, __m128 r0, __m128 r1, __m128 r2, __m128 r3) {
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(out, r0);
  _mm_storeu_ps(out + 4, r1);
  _mm_storeu_ps(out + 8, r2);
  _mm_storeu_ps(out + 12, r3);
}

// acc += w * x, as ScalarRows adds it (a multiply, then an add).
inline __m128 AddProduct(__m128 acc, __m128 x, __m128 w) { return _mm_add_ps(acc, _mm_mul_ps(w, x)); }
#endif

// Elements x .. x + kU * kLanes - 1 of one out row as kU vectors: BlendTapRows' operations.
template <int kU>
inline void BlendAt(const RowLanesTaps &t, int64_t x, Lanes::Vec *acc) {
  blend_detail::BlendInto<Lanes, kU>(acc, t.row, t.w, t.count, false, x);
}

// Element x of one out row (the tails): BlendTapRows' element operations.
inline float BlendLane(const RowLanesTaps &t, int64_t x) {
  return blend_detail::BlendElement(t.row, t.w, t.count, x, false, 0.0f);
}

// An output's sum on the lanes of four interleaved rows: from zero, one AddProduct per entry in list order.
struct FourRowLanes {
  using Vec = __m128;
  static constexpr int64_t kRows = 4;
  static Vec Zero() { return _mm_setzero_ps(); }
  // acc plus the entry of weight w whose four operands are at x.
  static Vec Step(Vec acc, const float *x, float w) {
    return AddProduct(acc, _mm_loadu_ps(x), _mm_set1_ps(w));
  }
  // Outputs j .. j + 3 (o[k]: output j + k, a lane per row) transposed into the rows.
  static void StoreOutputs(Vec (&o)[4], float *const *dst, int64_t j) {
    _MM_TRANSPOSE4_PS(o[0], o[1], o[2], o[3]);
    for (int r = 0; r < 4; ++r) _mm_storeu_ps(dst[r] + j, o[r]);
  }
};

// The output of a list of n entries on consecutive sources (RowGather::consecutiveLists) from zero in
// list order, as FourRowLanes::Step sums a list: the entries' operands n interleaved positions from p on,
// their weights from w on. Up to 16 entries the switch enters a run of unrolled steps at the one that takes
// entry 0, each step falling through to the next (the steps take entries 0 .. n - 1 in order): no loop
// and no list walk, one load of the rows' operands and one broadcast weight per entry.
template <typename R>
__attribute__((always_inline)) inline typename R::Vec ConsecutiveSum(const float *p, const float *w,
                                                                     int64_t n) {
  typename R::Vec acc = R::Zero();
  // The step for `left` entries still to sum takes entry n - left: addressed from the list's end, so
  // that each step's operands are at constant offsets.
  const float *pEnd = p + R::kRows * n, *wEnd = w + n;
  const auto step = [&](int64_t left) { acc = R::Step(acc, pEnd - R::kRows * left, *(wEnd - left)); };
  switch (n) {
    // clang-format off
    case 16: step(16); [[fallthrough]];
    case 15: step(15); [[fallthrough]];
    case 14: step(14); [[fallthrough]];
    case 13: step(13); [[fallthrough]];
    case 12: step(12); [[fallthrough]];
    case 11: step(11); [[fallthrough]];
    case 10: step(10); [[fallthrough]];
    case 9: step(9); [[fallthrough]];
    case 8: step(8); [[fallthrough]];
    case 7: step(7); [[fallthrough]];
    case 6: step(6); [[fallthrough]];
    case 5: step(5); [[fallthrough]];
    case 4: step(4); [[fallthrough]];
    case 3: step(3); [[fallthrough]];
    case 2: step(2); [[fallthrough]];
    case 1: step(1); break;
    // clang-format on
    default:
      for (int64_t k = 0; k < n; ++k) acc = R::Step(acc, p + R::kRows * k, w[k]);
  }
  return acc;
}

// Outputs [from, to) of R::kRows rows into dst[0 .. R::kRows), output j's lanes from sum(j): R::kRows
// outputs at a time transposed into the rows, the rest one by one.
template <typename R, typename Sum>
__attribute__((always_inline)) inline void OutputsOnLanes(int64_t from, int64_t to, Sum sum,
                                                          float *const *dst) {
  constexpr int64_t kRows = R::kRows;
  int64_t j = from;
  for (; j + kRows <= to; j += kRows) {
    typename R::Vec o[kRows];
    for (int64_t k = 0; k < kRows; ++k) o[k] = sum(j + k);
    R::StoreOutputs(o, dst, j);
  }
  for (; j < to; ++j) {
    const typename R::Vec o = sum(j);
    float v[kRows];
    std::memcpy(v, &o, sizeof(v));
    for (int64_t r = 0; r < kRows; ++r) dst[r][j] = v[r];
  }
}

// The W pass of R::kRows rows interleaved at il into dst[0 .. R::kRows): each output's list summed from
// zero in list order, through ConsecutiveSum in the gather's run of consecutive lists when the lists are
// long (four entries an output on average: its computed jump per output is mispredicted where short lists
// of varying length alternate), and by walking the list (the same steps) elsewhere.
template <typename R>
inline void RowLanesWOf(const RowGather<float> &g, const float *il, float *const *dst) {
  constexpr int64_t kRows = R::kRows;
  const int64_t *__restrict begin = g.begin.data();
  const int32_t *__restrict src = g.src.data();
  const float *__restrict w = g.w.data();
  const auto walk = [&](int64_t j) __attribute__((always_inline)) {
    const int64_t e1 = begin[j + 1];
    typename R::Vec acc = R::Zero();
    int64_t e = begin[j];
    for (; e + 2 <= e1; e += 2) {  // two entries per iteration: the loop's own instructions are a third
      acc = R::Step(acc, il + kRows * static_cast<int64_t>(src[e]), w[e]);
      acc = R::Step(acc, il + kRows * static_cast<int64_t>(src[e + 1]), w[e + 1]);
    }
    if (e < e1) acc = R::Step(acc, il + kRows * static_cast<int64_t>(src[e]), w[e]);
    return acc;
  };
  if (!LongLists(g) || g.consecutiveBegin == g.consecutiveEnd) {
    OutputsOnLanes<R>(0, g.dstLen, walk, dst);
    return;
  }
  const auto consecutive = [&](int64_t j) __attribute__((always_inline)) {
    const int64_t e = begin[j];
    return ConsecutiveSum<R>(il + kRows * static_cast<int64_t>(src[e]), w + e, begin[j + 1] - e);
  };
  OutputsOnLanes<R>(0, g.consecutiveBegin, walk, dst);
  OutputsOnLanes<R>(g.consecutiveBegin, g.consecutiveEnd, consecutive, dst);
  OutputsOnLanes<R>(g.consecutiveEnd, g.dstLen, walk, dst);
}

}  // namespace row_lanes

#if !defined(TRILINEAR3D_HAVE_AVX2)
namespace row_lanes {

// BlendFourRowsInterleaved's vectors when every row has two taps (the linear filters' H), the weights
// broadcast and the rows read once: BlendTapRows' operations (blend_detail::FirstTwo). Returns the
// elements done (none for other rows).
inline int64_t BlendFourTwoTapRowsInterleaved(const RowLanesTaps *taps, int64_t n, float *il) {
  constexpr int64_t V = Lanes::kLanes;
  for (int q = 0; q < 4; ++q) {
    if (taps[q].count != 2) return 0;
  }
  const float *__restrict a0 = taps[0].row[0], *__restrict b0 = taps[0].row[1];
  const float *__restrict a1 = taps[1].row[0], *__restrict b1 = taps[1].row[1];
  const float *__restrict a2 = taps[2].row[0], *__restrict b2 = taps[2].row[1];
  const float *__restrict a3 = taps[3].row[0], *__restrict b3 = taps[3].row[1];
  const Lanes::Vec u0 = Lanes::Broadcast(taps[0].w[0]), v0 = Lanes::Broadcast(taps[0].w[1]);
  const Lanes::Vec u1 = Lanes::Broadcast(taps[1].w[0]), v1 = Lanes::Broadcast(taps[1].w[1]);
  const Lanes::Vec u2 = Lanes::Broadcast(taps[2].w[0]), v2 = Lanes::Broadcast(taps[2].w[1]);
  const Lanes::Vec u3 = Lanes::Broadcast(taps[3].w[0]), v3 = Lanes::Broadcast(taps[3].w[1]);
  using blend_detail::FirstTwo;
  int64_t x = 0;
  for (; x + V <= n; x += V) {
    StoreInterleaved(il + 4 * x, FirstTwo<Lanes>(u0, Lanes::Load(a0 + x), v0, Lanes::Load(b0 + x)),
                     FirstTwo<Lanes>(u1, Lanes::Load(a1 + x), v1, Lanes::Load(b1 + x)),
                     FirstTwo<Lanes>(u2, Lanes::Load(a2 + x), v2, Lanes::Load(b2 + x)),
                     FirstTwo<Lanes>(u3, Lanes::Load(a3 + x), v3, Lanes::Load(b3 + x)));
  }
  return x;
}

}  // namespace row_lanes
#endif

// The H blend of four out rows (taps[r]) of n elements, stored interleaved at il (4 n floats). Blocks
// of kBlockVectors vectors: each row's block blended with its accumulators in registers across all of
// its taps (a tap costs one broadcast weight and a load and an FMA per vector), stored to a small block
// in L1, then the four rows' blocks interleaved.
inline void BlendFourRowsInterleaved(const RowLanesTaps *taps, int64_t n, float *il) {
  using row_lanes::Lanes;
  constexpr int64_t V = Lanes::kLanes;
  constexpr int kBlockVectors = 8;
  constexpr int64_t kBlock = kBlockVectors * V;
  int64_t x = 0;
#if !defined(TRILINEAR3D_HAVE_AVX2)
  x = row_lanes::BlendFourTwoTapRowsInterleaved(taps, n, il);
#endif
  alignas(64) float block[4][kBlock];
  for (; x + kBlock <= n; x += kBlock) {
    for (int q = 0; q < 4; ++q) {
      Lanes::Vec acc[kBlockVectors];
      row_lanes::BlendAt<kBlockVectors>(taps[q], x, acc);
      for (int u = 0; u < kBlockVectors; ++u) Lanes::Store(block[q] + u * V, acc[u]);
    }
    for (int u = 0; u < kBlockVectors; ++u) {
      row_lanes::StoreInterleaved(il + 4 * (x + u * V), Lanes::Load(block[0] + u * V),
                                  Lanes::Load(block[1] + u * V), Lanes::Load(block[2] + u * V),
                                  Lanes::Load(block[3] + u * V));
    }
  }
  for (; x + 2 * V <= n; x += 2 * V) {
    Lanes::Vec r[4][2];
    for (int q = 0; q < 4; ++q) row_lanes::BlendAt<2>(taps[q], x, r[q]);
    row_lanes::StoreInterleaved(il + 4 * x, r[0][0], r[1][0], r[2][0], r[3][0]);
    row_lanes::StoreInterleaved(il + 4 * (x + V), r[0][1], r[1][1], r[2][1], r[3][1]);
  }
  for (; x + V <= n; x += V) {
    Lanes::Vec r[4][1];
    for (int q = 0; q < 4; ++q) row_lanes::BlendAt<1>(taps[q], x, r[q]);
    row_lanes::StoreInterleaved(il + 4 * x, r[0][0], r[1][0], r[2][0], r[3][0]);
  }
  for (; x < n; ++x) {
    for (int r = 0; r < 4; ++r) il[4 * x + r] = row_lanes::BlendLane(taps[r], x);
  }
}

// The W pass of the four rows interleaved at il into dst[0..3].
inline void RowLanesW(const RowGather<float> &g, const float *il, float *const *dst) {
  row_lanes::RowLanesWOf<row_lanes::FourRowLanes>(g, il, dst);
}

// The most sources a row of FourRowsOnLanesW may have: its four rows, interleaved, live on the core's stack.
constexpr int64_t kRowLanesMaxSrc = 1024;

// The W pass of four separate rows src[0..3] (g.srcLen <= kRowLanesMaxSrc elements each) through the rows'
// lanes (RowLanesW): the rows interleaved first, a vector of each row at a time.
inline void FourRowsOnLanesW(const RowGather<float> &g, const float *const *src, float *const *dst) {
  using row_lanes::Lanes;
  constexpr int64_t V = Lanes::kLanes;
  alignas(64) float il[4 * kRowLanesMaxSrc];
  const int64_t n = g.srcLen;
  int64_t x = 0;
  for (; x + V <= n; x += V) {
    row_lanes::StoreInterleaved(il + 4 * x, Lanes::Load(src[0] + x), Lanes::Load(src[1] + x),
                                Lanes::Load(src[2] + x), Lanes::Load(src[3] + x));
  }
  for (; x < n; ++x) {
    for (int r = 0; r < 4; ++r) il[4 * x + r] = src[r][x];
  }
  RowLanesW(g, il, dst);
}

#if defined(TRILINEAR3D_HAVE_AVX2)
// The backward's W pass on eight rows' lanes (AVX tiers: a 256-bit vector holds element x of eight rows):
// an output's list is walked once for eight rows, where FourRowLanes walks it once for four, and the
// H step writes its rows interleaved itself (CombineEightRowsInterleaved), where FourRowsOnLanesW
// interleaves four rows the H step stored. The sums are FourRowLanes' and CombineRows' (lane-wise
// operations), so the bits are theirs.
constexpr bool kEightRowLanes = true;

// The most sources and outputs of a row on eight lanes: the interleaved rows and the outputs live on the
// core's stack.
constexpr int64_t kEightRowsMaxSrc = 512;
constexpr int64_t kEightRowsMaxDst = 256;

namespace row_lanes {

// r[k] becomes the vector of element k of r[0..7] (an 8 x 8 transpose).
inline void Transpose8(__m256 (&r)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// FourRowLanes on eight rows: the same FMA per entry, in the same order.
struct EightRowLanes {
  using Vec = __m256;
  static constexpr int64_t kRows = 8;
  static Vec Zero() { return _mm256_setzero_ps(); }
  static Vec Step(Vec acc, const float *x, float w) {
    return _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_set1_ps(w), acc);
  }
  static void StoreOutputs(Vec (&o)[8], float *const *dst, int64_t j) {
    Transpose8(o);
    for (int r = 0; r < 8; ++r) _mm256_storeu_ps(dst[r] + j, o[r]);
  }
};

// kU vectors of one row's H step from element x on, into out: CombineRows' chain (w[0] times the first
// tap's row, then one FMA per further tap, in order); zeros for a row of no taps. Source row i is at
// rows + (i - first) * stride.
template <int kU>
inline void CombineVectors(const TapList &t, const float *rows, int64_t first, int64_t stride, int64_t x,
                           float *out) {
  constexpr int64_t V = 8;
  __m256 acc[kU];
  if (t.count == 0) {
    for (int u = 0; u < kU; ++u) acc[u] = _mm256_setzero_ps();
  } else {
    const __m256 w0 = _mm256_set1_ps(t.w[0]);
    const float *p0 = rows + (t.src[0] - first) * stride + x;
    for (int u = 0; u < kU; ++u) acc[u] = _mm256_mul_ps(w0, _mm256_loadu_ps(p0 + u * V));
    for (int k = 1; k < t.count; ++k) {
      const __m256 wk = _mm256_set1_ps(t.w[k]);
      const float *p = rows + (t.src[k] - first) * stride + x;
      for (int u = 0; u < kU; ++u) acc[u] = _mm256_fmadd_ps(wk, _mm256_loadu_ps(p + u * V), acc[u]);
    }
  }
  for (int u = 0; u < kU; ++u) _mm256_store_ps(out + u * V, acc[u]);
}

// CombineVectors of `vectors` (1 to 8) vectors.
inline void CombineBlock(const TapList &t, const float *rows, int64_t first, int64_t stride, int64_t x,
                         int vectors, float *out) {
  switch (vectors) {
    case 1:
      return CombineVectors<1>(t, rows, first, stride, x, out);
    case 2:
      return CombineVectors<2>(t, rows, first, stride, x, out);
    case 3:
      return CombineVectors<3>(t, rows, first, stride, x, out);
    case 4:
      return CombineVectors<4>(t, rows, first, stride, x, out);
    case 5:
      return CombineVectors<5>(t, rows, first, stride, x, out);
    case 6:
      return CombineVectors<6>(t, rows, first, stride, x, out);
    case 7:
      return CombineVectors<7>(t, rows, first, stride, x, out);
    default:
      return CombineVectors<8>(t, rows, first, stride, x, out);
  }
}

}  // namespace row_lanes

// The H step of eight rows (taps[r]: row r's list; source row i at rows + (i - first) * stride) stored
// interleaved at il (element x of row r at 8 x + r) for EightRowsOnLanesW: n elements a row, a multiple
// of 8 (the source rows are read that far). Blocks of up to eight vectors: each row's block summed with its
// accumulators in registers across its taps, stored to a small block in L1, then the eight rows' blocks
// transposed into il.
inline void CombineEightRowsInterleaved(const TapList *taps, const float *rows, int64_t first, int64_t stride,
                                        int64_t n, float *il) {
  constexpr int64_t V = 8;
  constexpr int kBlockVectors = 8;
  alignas(64) float block[8][kBlockVectors * V];
  for (int64_t x0 = 0; x0 < n; x0 += kBlockVectors * V) {
    const int vectors = static_cast<int>(std::min<int64_t>(kBlockVectors, (n - x0) / V));
    for (int q = 0; q < 8; ++q) row_lanes::CombineBlock(taps[q], rows, first, stride, x0, vectors, block[q]);
    for (int u = 0; u < vectors; ++u) {
      __m256 r[8];
      for (int q = 0; q < 8; ++q) r[q] = _mm256_load_ps(block[q] + u * V);
      row_lanes::Transpose8(r);
      float *out = il + 8 * (x0 + u * V);
      for (int k = 0; k < 8; ++k) _mm256_storeu_ps(out + 8 * k, r[k]);
    }
  }
}

// The W pass of the eight rows interleaved at il (g.srcLen <= kEightRowsMaxSrc) into dst[0..7].
inline void EightRowsOnLanesW(const RowGather<float> &g, const float *il, float *const *dst) {
  row_lanes::RowLanesWOf<row_lanes::EightRowLanes>(g, il, dst);
}
#endif

#if defined(TRILINEAR3D_HAVE_VEC128)
// The 128-bit tier's W pass of four interleaved rows (as RowLanesW) for a gather whose lists all have
// one or two entries (the linear filters' W, where the AVX tiers' vector steps permute a window and this
// tier has no permutes): a table built once per launch holds, per output, its entries' byte offsets into
// the interleaved rows and their weights already broadcast to the four lanes, so that an output costs
// two loads, two multiplies and two adds, and no list walk. Each output is summed as FourRowLanes sums a list
// (from +0, w * x added per entry in list order), so the bits are the lists'. Rows of at most
// kMaxOutputs outputs (the table lives in the runner, on the core's stack).
constexpr bool kPairListsW = true;

class PairListsW {
 public:
  static constexpr int64_t kMaxOutputs = 1024;

  // Fills the table for g; false (the table unusable) when a list has no entry or more than two, or g
  // is longer than the table.
  bool Build(const RowGather<float> &g) {
    n_ = 0;
    if (g.dstLen <= 0 || g.dstLen > kMaxOutputs || g.srcLen > (int64_t{1} << 26)) return false;
    for (int64_t j = 0; j < g.dstLen; ++j) {
      const int64_t e = g.begin[static_cast<size_t>(j)], k = g.begin[static_cast<size_t>(j) + 1] - e;
      if (k < 1 || k > 2) return false;
      const auto entry = [&](int64_t i) { return static_cast<size_t>(e + (k == 2 ? i : 0)); };
      for (int i = 0; i < 2; ++i) {
        off_[j][i] = 16 * g.src[entry(i)];  // 16 bytes per interleaved position
        for (int l = 0; l < 4; ++l) w_[j][i][l] = g.w[entry(i)];
      }
      two_[j] = k == 2;
    }
    // The run: outputs whose second entry is the position after the first (the linear filters' lists
    // away from an edge), so that one offset serves both.
    twoBegin_ = twoEnd_ = 0;
    for (int64_t j = 0; j < g.dstLen;) {
      int64_t e = j;
      while (e < g.dstLen && two_[e] && off_[e][1] == off_[e][0] + 16) ++e;
      if (e - j > twoEnd_ - twoBegin_) {
        twoBegin_ = j;
        twoEnd_ = e;
      }
      j = e + 1;
    }
    n_ = g.dstLen;
    return true;
  }

  // dst[0..3] = the W pass of the four rows interleaved at il (BlendFourRowsInterleaved's layout).
  void Run(const float *il, float *const *dst) const {
    const char *base = reinterpret_cast<const char *>(il);
    const auto product = [&](int64_t j, int i) {
      return _mm_mul_ps(_mm_load_ps(w_[j][i]),
                        _mm_load_ps(reinterpret_cast<const float *>(base + off_[j][i])));
    };
    const auto sum = [&](int64_t j) {
      const __m128 acc = _mm_add_ps(_mm_setzero_ps(), product(j, 0));
      return two_[j] ? _mm_add_ps(acc, product(j, 1)) : acc;
    };
    const auto sum2 = [&](int64_t j) {
      const float *x = reinterpret_cast<const float *>(base + off_[j][0]);
      return _mm_add_ps(_mm_add_ps(_mm_setzero_ps(), _mm_mul_ps(_mm_load_ps(w_[j][0]), _mm_load_ps(x))),
                        _mm_mul_ps(_mm_load_ps(w_[j][1]), _mm_load_ps(x + 4)));
    };
    float *__restrict d0 = dst[0], *__restrict d1 = dst[1], *__restrict d2 = dst[2], *__restrict d3 = dst[3];
    const int64_t n = n_, twoBegin = twoBegin_, twoEnd = twoEnd_;
    const auto store = [&](int64_t j, __m128 o0, __m128 o1, __m128 o2, __m128 o3) {
      _MM_TRANSPOSE4_PS(o0, o1, o2, o3);
      _mm_storeu_ps(d0 + j, o0);
      _mm_storeu_ps(d1 + j, o1);
      _mm_storeu_ps(d2 + j, o2);
      _mm_storeu_ps(d3 + j, o3);
    };
    // Groups of four outputs: those inside the run [runFirst, runEnd) (sum2, no test per output), the
    // others (sum) before and after it.
    const int64_t groupsEnd = n / 4 * 4;
    const int64_t runFirst = std::min((twoBegin + 3) / 4 * 4, groupsEnd);
    const int64_t runEnd = std::max(runFirst, std::min(twoEnd / 4 * 4, groupsEnd));
    int64_t j = 0;
    for (; j < runFirst; j += 4) store(j, sum(j), sum(j + 1), sum(j + 2), sum(j + 3));
    for (; j < runEnd; j += 4) store(j, sum2(j), sum2(j + 1), sum2(j + 2), sum2(j + 3));
    for (; j < groupsEnd; j += 4) store(j, sum(j), sum(j + 1), sum(j + 2), sum(j + 3));
    for (; j < n; ++j) {
      alignas(16) float v[4];
      _mm_store_ps(v, sum(j));
      d0[j] = v[0];
      d1[j] = v[1];
      d2[j] = v[2];
      d3[j] = v[3];
    }
  }

 private:
  alignas(16) float w_[kMaxOutputs][2][4];
  int32_t off_[kMaxOutputs][2];
  bool two_[kMaxOutputs];
  int64_t n_ = 0;
  int64_t twoBegin_ = 0, twoEnd_ = 0;  // the longest run of two-entry lists with adjacent entries
};
#endif

#else

constexpr bool kRowLanesW = false;

// Declared only, for the kernel's `if constexpr (kRowLanesW)` branches, which this tier discards.
void BlendFourRowsInterleaved(const RowLanesTaps *taps, int64_t n, float *il);
void RowLanesW(const RowGather<float> &g, const float *il, float *const *dst);
constexpr int64_t kRowLanesMaxSrc = 0;
void FourRowsOnLanesW(const RowGather<float> &g, const float *const *src, float *const *dst);

#endif

#if !defined(TRILINEAR3D_HAVE_AVX2)
constexpr bool kEightRowLanes = false;

// Declared only, for the kernel's `if constexpr (kEightRowLanes)` branches, which this tier discards.
constexpr int64_t kEightRowsMaxSrc = 0;
constexpr int64_t kEightRowsMaxDst = 0;
void CombineEightRowsInterleaved(const TapList *taps, const float *rows, int64_t first, int64_t stride,
                                 int64_t n, float *il);
void EightRowsOnLanesW(const RowGather<float> &g, const float *il, float *const *dst);
#endif

#if !(defined(TRILINEAR3D_HAVE_VEC128) && (defined(TRILINEAR3D_HAVE_AVX2) || defined(__SSE2__)))
// The AVX tiers' vector steps serve these gathers; a tier without vectors (or aarch64's baseline) keeps the
// lists.
constexpr bool kPairListsW = false;

class PairListsW {
 public:
  bool Build(const RowGather<float> &) { return false; }
  void Run(const float *, float *const *) const {}
};
#endif

// Whether RowLanesW serves g's rows: fp32 lists of four entries or more per output on average that are
// not all one vector step's window (where the steps permute a window loaded once per row), and whose
// bits are RowLanesW's: on the AVX tiers the vector steps' (FMAs; the plan builds them up to 2V entries
// per output), not the scalar lists' of a longer list (ScalarRows of four fp32 rows, which GCC
// vectorises across the rows with a separate multiply and add).
template <typename A>
inline bool RowLanesApplies(const RowGather<A> &g) {
  if constexpr (std::is_same_v<A, float>) {
#if defined(TRILINEAR3D_HAVE_AVX2)
    if (g.lanes == 0) return false;
#endif
    return kRowLanesW && g.lanes == GatherLanes<float>() && LongLists(g) && !g.allWindowed;
  }
  return false;
}

// Whether FourRowsOnLanesW serves the backward's W pass of g's rows: RowLanesApplies' lists (vector steps
// built: the AVX tiers, whose windowed blocks it replaces; the baseline's scalar lists have their own
// rows on lanes, ScalarRows), four entries or more per output on average, most of them on consecutive
// sources, rows of at most kRowLanesMaxSrc, and a halving run of under four outputs (B5's W, 131 -> 64
// with align_corners, has one output at a halving position). A longer run goes to the halving kernels
// when it has V outputs or more (HalvingApplies), else to the windowed vector steps: on rows as short as
// such a run makes them (a 2x W of 8 -> 16 has six) those take fewer instructions than the rows' lanes
// (AVX2, bilinear 8 <- 16: 39.6M against 55.2M).
template <typename A>
inline bool BackwardRowLanesApplies(const RowGather<A> &g) {
  if constexpr (std::is_same_v<A, float>) {
    return kRowLanesW && g.lanes != 0 && g.lanes == GatherLanes<float>() && LongLists(g) &&
           2 * (g.consecutiveEnd - g.consecutiveBegin) >= g.dstLen && g.srcLen <= kRowLanesMaxSrc &&
           g.halving.end - g.halving.begin < 4 && g.cubicHalving.begin == g.cubicHalving.end;
  }
  return false;
}

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_ROW_LANES_H_
