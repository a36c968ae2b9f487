// The forward's cubic exact-2x W pass written straight into line-aligned destination rows with
// non-temporal stores (CubicDoublingRowsStreamed), in place of CubicDoublingRow into a scratch row and a
// streamed copy of it: the cubic counterpart of DoublingRowStreamed. For rows whose cubic doubling run
// is the whole interior (k = 2 .. in - 3) of an exact 2x whose source row is whole vectors and whose
// destination row whole 64-byte lines (StreamsCubicDoublingRows), every group of 2V outputs comes from
// one CubicDoublingVector's operations: the first and the last group read their missing neighbours
// (src[-2], src[-1], src[in], src[in + 1]) as lanes of the same vector, and their outputs outside the
// run (0 .. 3 and 2 in - 4 .. 2 in - 1) are set from the gather's lists. The lists of a batch of rows
// are walked once for all its rows (their index and weight loads shared), each row's sum as ListOutput
// sums it (FMAs from zero in list order; a multiply and an add on SSE2), so every output keeps the bits
// of CubicDoublingRow. Compiled once per ISA (included only from src/op_kernel/isa/*.cpp), after
// resample_rows_w_inner.h.
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_CUBIC2X_STREAMED_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_CUBIC2X_STREAMED_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/resample_rows_w_inner.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace w_inner {

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)

// Whether CubicDoublingRowsStreamed can write g's rows (see the top of the file).
template <typename A>
inline bool StreamsCubicDoublingRows(const RowGather<A> &g) {
  if constexpr (std::is_same_v<A, float>) {
    const CubicDoublingRun<float> &run = g.cubicDoubling;
    const int64_t in = g.srcLen;
    return CubicDoublingApplies(g) && run.begin == 2 && run.end == in - 2 && g.dstLen == 2 * in &&
           in % kDoublingLanes == 0 && in % 8 == 0 && in >= 2 * kDoublingLanes;
  }
  return false;
}

namespace cubic_streamed {

// The outputs per row set from the lists: four at each end.
constexpr int kEnds = 8;

// Output j of each of kRows rows: ends[r * kEnds] = its list's sum (ListOutput's). Inlined into its callers
// (its eight calls per batch cost twice as much as calls: the rows' pointers and sums go through memory).
template <int kRows>
__attribute__((always_inline)) inline void ListOutputs(const RowGather<float> &g, const float *const *src,
                                                       int64_t j, float *ends) {
  float acc[kRows];
  const float *row[kRows];
  for (int r = 0; r < kRows; ++r) {
    acc[r] = 0.0f;
    row[r] = src[r];
  }
  const int64_t e1 = g.begin[static_cast<size_t>(j) + 1];
  for (int64_t e = g.begin[static_cast<size_t>(j)]; e < e1; ++e) {
    const int64_t s = g.src[static_cast<size_t>(e)];
    const float w = g.w[static_cast<size_t>(e)];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) acc[r] = LaneFma(row[r][s], w, acc[r]);
  }
  for (int r = 0; r < kRows; ++r) ends[r * kEnds] = acc[r];
}

// The end outputs of kRows rows: ends[r][0 .. 3] outputs 0 .. 3, ends[r][4 .. 7] the last four.
template <int kRows>
inline void EndsOfRows(const RowGather<float> &g, const float *const *src, float (*ends)[kEnds]) {
  for (int j = 0; j < 4; ++j) {
    ListOutputs<kRows>(g, src, j, &ends[0][j]);
    ListOutputs<kRows>(g, src, g.dstLen - 4 + j, &ends[0][4 + j]);
  }
}

// The run's pair expressions (CubicDoublingVector's) on the five shifted vectors of k .. k + V - 1.
inline void CubicPairs(DoublingVec m2, DoublingVec m1, DoublingVec at, DoublingVec p1, DoublingVec p2,
                       const DoublingVec even[4], const DoublingVec odd[4], DoublingVec *first,
                       DoublingVec *second) {
  using L = DoublingLanes;
  const DoublingVec zero = L::Zero();
  const DoublingVec e =
      L::Fma(p1, even[3], L::Fma(at, even[2], L::Fma(m1, even[1], L::Fma(m2, even[0], zero))));
  const DoublingVec o = L::Fma(p2, odd[3], L::Fma(p1, odd[2], L::Fma(at, odd[1], L::Fma(m1, odd[0], zero))));
  Interleave(e, o, first, second);
}

// v with lanes kFirst .. kFirst + 3 set to x[0 .. 3].
template <int kFirst>
inline DoublingVec WithFourLanes(DoublingVec v, const float *x) {
  if constexpr (kDoublingLanes == 4) {
    return DoublingLanes::Load(x);
  } else {
    return WithLane<kFirst + 3>(
        WithLane<kFirst + 2>(WithLane<kFirst + 1>(WithLane<kFirst>(v, x[0]), x[1]), x[2]), x[3]);
  }
}

// One row: ends holds outputs 0 .. 3 and 2 in - 4 .. 2 in - 1.
inline void StreamedRow(const RowGather<float> &g, const float *src, float *out, const float *ends,
                        const DoublingVec even[4], const DoublingVec odd[4]) {
  using L = DoublingLanes;
  constexpr int64_t V = kDoublingLanes;
  const int64_t in = g.srcLen;
  DoublingVec first, second;
  const DoublingVec head = L::Load(src);
  const DoublingVec m1 = ShiftUpOne(head);
  CubicPairs(ShiftUpOne(m1), m1, head, L::Load(src + 1), L::Load(src + 2), even, odd, &first, &second);
  StreamVec(out, WithFourLanes<0>(first, ends));
  StreamVec(out + V, second);
  for (int64_t k = V; k < in - V; k += V) {
    CubicDoublingVector(src, k, even, odd, &first, &second);
    StreamVec(out + 2 * k, first);
    StreamVec(out + 2 * k + V, second);
  }
  const int64_t k = in - V;
  const DoublingVec tail = L::Load(src + k);
  const DoublingVec p1 = ShiftDownOne(tail);
  CubicPairs(L::Load(src + k - 2), L::Load(src + k - 1), tail, p1, ShiftDownOne(p1), even, odd, &first,
             &second);
  StreamVec(out + 2 * k, first);
  StreamVec(out + 2 * k + V, WithFourLanes<static_cast<int>(V) - 4>(second, ends + 4));
}

}  // namespace cubic_streamed

// The W pass of `rows` (at most 4) fp32 rows src[r] into the line-aligned destination rows out[r], for
// rows StreamsCubicDoublingRows takes.
inline void CubicDoublingRowsStreamed(const RowGather<float> &g, const float *const *src, float *const *out,
                                      int rows) {
  using cubic_streamed::kEnds;
  const CubicDoublingRun<float> &run = g.cubicDoubling;
  DoublingVec even[4], odd[4];
  for (int t = 0; t < 4; ++t) {
    even[t] = Broadcast(run.even[t]);
    odd[t] = Broadcast(run.odd[t]);
  }
  float ends[4][kEnds];
  if (rows == 4) {
    cubic_streamed::EndsOfRows<4>(g, src, ends);
  } else {
    for (int r = 0; r < rows; ++r) cubic_streamed::EndsOfRows<1>(g, src + r, ends + r);
  }
  for (int r = 0; r < rows; ++r) cubic_streamed::StreamedRow(g, src[r], out[r], ends[r], even, odd);
}

#else

template <typename A>
inline bool StreamsCubicDoublingRows(const RowGather<A> &) {
  return false;
}

// Declared only, for the kernels' `if constexpr (kDoublingVectors)` branches, which this tier discards.
void CubicDoublingRowsStreamed(const RowGather<float> &g, const float *const *src, float *const *out,
                               int rows);

#endif

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_CUBIC2X_STREAMED_H_
