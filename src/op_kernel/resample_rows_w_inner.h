// The W pass over W-innermost rows, ResampleRowsWInner: for each of kRows rows,
// dst[j] = sum over j's list of w * src[s] (RowGather), through the vector steps when the plan built
// them for this ISA's width (RowGather::lanes == GatherLanes<A>()), else through the scalar lists;
// both sum every element's list in the same order. The rows share every step's indices, weights and
// masks, and their independent accumulators hide the FMA latency. The vector variants are the
// tier's overload set in namespace w_inner (resample_rows_w_inner_avx512.h, _avx2.h); the baseline
// tier has none. Compiled once per ISA (included only from src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>
#include <type_traits>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/row_arith.h"

#if defined(TRILINEAR3D_HAVE_AVX512)
#include "op_kernel/resample_rows_w_inner_avx512.h"
#elif defined(TRILINEAR3D_HAVE_AVX2)
#include "op_kernel/resample_rows_w_inner_avx2.h"
#else
namespace trilinear3d::kernel::TRILINEAR3D_ISA {

// No vector steps in the baseline tier: the plan builds none (RowGather::lanes 0).
template <typename A>
constexpr int GatherLanes() {
  return 0;
}

namespace w_inner {

template <int kRows, typename A>
inline bool VectorRows(const RowGather<A> &, const A *const *, A *const *, const char *const *, int64_t,
                       const RowTargets<A> *) {
  return false;
}

template <typename A>
inline bool FourWindowedRows(const RowGather<A> &, const A *const *, A *const *) {
  return false;
}

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA
#endif

namespace trilinear3d::kernel::TRILINEAR3D_ISA::w_inner {

// Output j through its list: the sum of w * src[s] in list order, from zero (the scalar lists' sum).
template <typename A>
inline A ListSum(const RowGather<A> &g, const A *src, int64_t j) {
  A acc = A(0);
  for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
    acc = LaneFma(g.w[static_cast<size_t>(e)], src[g.src[static_cast<size_t>(e)]], acc);
  }
  return acc;
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA::w_inner

#include "op_kernel/resample_rows_w_cubic2x.h"
#include "op_kernel/resample_rows_w_doubling.h"
#include "op_kernel/resample_rows_w_halving.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

namespace w_inner {

// The scalar lists: dst[j] = sum of w * src[s] in list order.
template <typename A>
inline void ScalarRow(const RowGather<A> &g, const A *__restrict src, A *__restrict dst) {
  for (int64_t j = 0; j < g.dstLen; ++j) dst[j] = ListSum(g, src, j);
}

#if defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__)
// The scalar lists of four fp32 rows on the baseline tier's 128-bit lanes, one row per lane: the
// source rows interleaved position by position (a stack copy: rows of up to kMaxSrc positions), each
// list entry then one broadcast weight times one load of the four rows' values, added to the lanes'
// sums (a multiply and an add, from +0, in list order: ListSum's operations), and four outputs' sums
// transposed into the four rows. Returns false (nothing written) for longer source rows.
inline bool FourRowsOnLanes(const RowGather<float> &g, const float *const *src, float *const *dst) {
  using L = Vec128Lanes<float>;
  constexpr int64_t kMaxSrc = 1024;
  const int64_t n = g.srcLen, m = g.dstLen;
  if (n > kMaxSrc) return false;
  alignas(16) float x[4 * kMaxSrc];
  for (int64_t s = 0; s < n; ++s) {
    for (int r = 0; r < 4; ++r) x[4 * s + r] = src[r][s];
  }
  const int64_t *__restrict begin = g.begin.data();
  const int32_t *__restrict idx = g.src.data();
  const float *__restrict w = g.w.data();
  auto sum = [&](int64_t j) {
    L::Vec a = L::Zero();
    const auto entry = [&](int64_t e) {
      a = L::Add(a, L::Mul(L::Broadcast(w[e]), L::Load(x + 4 * static_cast<int64_t>(idx[e]))));
    };
    int64_t e = begin[j];
    const int64_t end = begin[j + 1];
    for (; e + 2 <= end; e += 2) {  // two entries per iteration: the loop's own instructions are a third
      entry(e);
      entry(e + 1);
    }
    if (e < end) entry(e);
    return a;
  };
  int64_t j = 0;
  for (; j + 4 <= m; j += 4) {
    __m128 a0 = sum(j), a1 = sum(j + 1), a2 = sum(j + 2), a3 = sum(j + 3);
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
    _mm_storeu_ps(dst[0] + j, a0);
    _mm_storeu_ps(dst[1] + j, a1);
    _mm_storeu_ps(dst[2] + j, a2);
    _mm_storeu_ps(dst[3] + j, a3);
  }
  for (; j < m; ++j) {
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, sum(j));
    for (int r = 0; r < 4; ++r) dst[r][j] = lanes[r];
  }
  return true;
}
#endif

// The scalar lists of kRows rows at once: each element summed as ListSum sums it (the same bits), the
// rows' independent sums interleaved so that one row's add latency does not serialise the pass.
template <int kRows, typename A>
inline void ScalarRows(const RowGather<A> &g, const A *const *src, A *const *dst) {
#if defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__)
  if constexpr (kRows == 4 && std::is_same_v<A, float>) {
    if (FourRowsOnLanes(g, src, dst)) return;
  }
#endif
  if constexpr (kRows == 1) {
    ScalarRow(g, src[0], dst[0]);
  } else {
    for (int64_t j = 0; j < g.dstLen; ++j) {
      A acc[kRows];
      for (int r = 0; r < kRows; ++r) acc[r] = A(0);
      for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
        const A w = g.w[static_cast<size_t>(e)];
        const int64_t s = g.src[static_cast<size_t>(e)];
        for (int r = 0; r < kRows; ++r) acc[r] = LaneFma(w, src[r][s], acc[r]);
      }
      for (int r = 0; r < kRows; ++r) dst[r][j] = acc[r];
    }
  }
}

}  // namespace w_inner

// The W pass of kRows rows src[r] -> dst[r].
// prefetch: optional rows of a later batch (kRows byte pointers, elements of prefetchBytes each)
// to request from memory as this batch is computed.
// targets: optional, one per row: the results go to the targets (fused with the W pass: no round
// trip through dst on the vector paths that fuse them) after being written to dst on the others.
// Destination rows overlap no source row (the AVX2 variants store whole vectors past a block).
template <int kRows, typename A>
inline void ResampleRowsWInner(const RowGather<A> &g, const A *const *src, A *const *dst,
                               const char *const *prefetch, int64_t prefetchBytes,
                               const RowTargets<A> *targets) {
  // The fixed-phase runs read their rows in order: no prefetch.
  if (w_inner::HalvingRows<kRows>(g, src, dst, targets)) return;
  if (w_inner::CubicHalvingRows<kRows>(g, src, dst, targets)) return;
  if (w_inner::VectorRows<kRows>(g, src, dst, prefetch, prefetchBytes, targets)) return;
  (void)prefetch;  // the scalar lists leave prefetching to the hardware
  (void)prefetchBytes;
  w_inner::ScalarRows<kRows>(g, src, dst);
  if (targets != nullptr) {
    for (int r = 0; r < kRows; ++r) ApplyTargets(targets[r], dst[r], g.dstLen);
  }
}

// The W pass of kRows rows without prefetch or targets, through the fastest variant that applies
// (rows of a doubling or a halving run, linear or cubic, and four rows of fp32 whose blocks are all
// windowed, have their own).
template <int kRows, typename A>
inline void ResampleRowsWInner(const RowGather<A> &g, const A *const *src, A *const *dst) {
  if (w_inner::DoublingRows<kRows>(g, src, dst)) return;
  if (w_inner::HalvingRows<kRows>(g, src, dst)) return;
  if (w_inner::CubicDoublingRows<kRows>(g, src, dst)) return;
  if (w_inner::CubicHalvingRows<kRows>(g, src, dst)) return;
  if constexpr (kRows == 4) {
    if (w_inner::FourWindowedRows(g, src, dst)) return;
  }
  ResampleRowsWInner<kRows, A>(g, src, dst, nullptr, 0, nullptr);
}

// The W pass of one row.
template <typename A>
inline void ResampleRowsWInner(const RowGather<A> &g, const A *src, A *dst) {
  ResampleRowsWInner<1>(g, &src, &dst);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_H_
