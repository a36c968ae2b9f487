// The AVX2 variants of ResampleRowsWInner (resample_rows_w_inner.h, which includes this file in
// the avx2 tier): the vector steps of RowGather with 8 fp32 lanes, whose operands are picked by
// permutes from a 16-element window (windowed blocks) or gathered, and 4 fp64 lanes (gathers).
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_AVX2_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_AVX2_H_

#if !defined(TRILINEAR3D_ISA_REGION) || !defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_AVX512)
#error "the avx2 tier's W pass: include op_kernel/resample_rows_w_inner.h in an avx2 ISA region"
#endif

#include <cstdint>
#include <type_traits>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/resample_rows_w_half_pairs.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

// The vector width (elements of A) this ISA's W pass uses, which the plan builds the steps for
// (RowGather::lanes).
template <typename A>
constexpr int GatherLanes() {
  return 32 / sizeof(A);
}

namespace w_inner {

// Whether a vector of `lanes` stored at block b's start stays inside the destination row. Blocks
// partition the row in increasing order and are stored in that order (for each row), so the lanes
// past a partial block (windowed blocks of the ratio-2 backward hold 7 of 8) land on outputs that the
// next blocks store later: the whole-vector store leaves the same row as the masked one, without
// vmaskmovps (slow on AMD CPUs: the hottest instruction of the AVX2 W pass). Needs destination rows that
// overlap no source row: every caller's W pass writes rows of its own scratch.
template <typename A>
inline bool SpareLanesInRow(const RowGather<A> &g, int64_t b, int lanes) {
  return g.blockStart[b] + lanes <= g.dstLen;
}

// The 16 elements of row at [base, base + 16) as two vectors; lanes at or past the row's end
// (srcLen) are zero and not read.
inline void LoadWindow8(const float *row, int64_t base, int64_t srcLen, __m256 *lo, __m256 *hi) {
  const int64_t avail = srcLen - base;
  if (avail >= 16) {
    *lo = _mm256_loadu_ps(row + base);
    *hi = _mm256_loadu_ps(row + base + 8);
    return;
  }
  using L = Avx2Lanes<float>;
  const int64_t left = avail < 0 ? 0 : avail;
  *lo = L::Load(row + base, L::FirstLanes(left));
  *hi = L::Load(row + base + 8, L::FirstLanes(left - 8));
}

// VectorRows (below) for fp32. The kRows rows share each step's indices, weights and lane
// mask (loaded once per step) and keep independent accumulators. A windowed block's operands are
// picked by permutes from a 16-element window loaded once per row (hardware gathers are slow, on AMD
// especially); other blocks gather. Results are stored under the block's lane mask, or applied to
// the targets (w * v assigned, or added with one FMA: the fused H scatter, as on AVX-512).
template <int kRows>
inline void FloatRows(const RowGather<float> &g, const float *const *src, float *const *dst,
                      const char *const *prefetch, int64_t prefetchBytes, const RowTargets<float> *targets) {
  const __m256i bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
  const __m256i seven = _mm256_set1_epi32(7);
  const int64_t blocks = static_cast<int64_t>(g.blockStart.size());
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t s0 = g.blockStepBegin[b], s1 = g.blockStepBegin[b + 1];
    const bool windowed = g.blockWindowed[b] != 0 && s0 < s1;
    __m256 acc[kRows], lo[kRows], hi[kRows];
    for (int r = 0; r < kRows; ++r) {
      acc[r] = _mm256_setzero_ps();
      lo[r] = acc[r];
      hi[r] = acc[r];
      if (windowed) LoadWindow8(src[r], g.stepBase[s0], g.srcLen, &lo[r], &hi[r]);
    }
    if (prefetch != nullptr && s0 < s1) {  // a later batch's rows at this block's window (64 bytes)
      const int64_t first = g.stepBase[s0] * prefetchBytes;
      for (int r = 0; r < kRows; ++r) {
        for (int64_t line = 0; line < 16 * prefetchBytes; line += 64) {
          __builtin_prefetch(prefetch[r] + first + line, 0, 3);
        }
      }
    }
    for (int64_t s = s0; s < s1; ++s) {
      const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(g.stepIdx.data() + s * 8));
      const __m256 lanesOn = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
          _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(g.stepMask[s])), bits), bits));
      const __m256 w = _mm256_loadu_ps(g.stepW.data() + s * 8);
      const __m256 upper = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, seven));
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        // Masked-off lanes are not read, so a window past the row end is never touched.
        const __m256 x =
            windowed ? _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo[r], idx),
                                        _mm256_permutevar8x32_ps(hi[r], idx), upper)
                     : _mm256_mask_i32gather_ps(_mm256_setzero_ps(), src[r] + g.stepBase[s], idx, lanesOn, 4);
        acc[r] = _mm256_blendv_ps(acc[r], _mm256_fmadd_ps(x, w, acc[r]), lanesOn);
      }
    }
    const int64_t j0 = g.blockStart[b];
    const int left = g.blockLanes[b];
    const __m256i keep = Avx2Lanes<float>::FirstLanes(left);
    const bool masked = left < 8;
    for (int r = 0; r < kRows; ++r) {
      if (targets == nullptr) {
        StoreLanes(dst[r] + j0, acc[r], masked && !SpareLanesInRow(g, b, 8), keep);
        continue;
      }
      for (int t = 0; t < targets[r].count; ++t) {
        ApplyTargetLanes(targets[r].row[t] + j0, acc[r], targets[r].w[t], targets[r].assign[t], masked, keep);
      }
    }
  }
}

// ResampleRowsWInner through the vector steps, when they are built for this width (FloatRows for
// fp32; fp64 gathers its operands, one row at a time, its targets applied after the row). Returns
// false (nothing done) when they are not.
template <int kRows, typename A>
__attribute__((always_inline)) inline bool VectorRows(const RowGather<A> &g, const A *const *src,
                                                      A *const *dst, const char *const *prefetch,
                                                      int64_t prefetchBytes, const RowTargets<A> *targets) {
  if (g.lanes != GatherLanes<A>()) return false;
  if constexpr (std::is_same_v<A, float>) {
    FloatRows<kRows>(g, src, dst, prefetch, prefetchBytes, targets);
  } else {
    (void)prefetch;  // gathers: prefetching is left to the hardware
    (void)prefetchBytes;
    constexpr int kLanes = 4;
    const int64_t blocks = static_cast<int64_t>(g.blockStart.size());
    const __m256i bits = _mm256_set_epi64x(8, 4, 2, 1);
    for (int r = 0; r < kRows; ++r) {
      for (int64_t b = 0; b < blocks; ++b) {
        __m256d acc = _mm256_setzero_pd();
        for (int64_t s = g.blockStepBegin[b]; s < g.blockStepBegin[b + 1]; ++s) {
          const __m128i idx =
              _mm_loadu_si128(reinterpret_cast<const __m128i *>(g.stepIdx.data() + s * kLanes));
          const __m256i lanesOn = _mm256_cmpeq_epi64(
              _mm256_and_si256(_mm256_set1_epi64x(static_cast<int64_t>(g.stepMask[s])), bits), bits);
          const __m256d x = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), src[r] + g.stepBase[s], idx,
                                                     _mm256_castsi256_pd(lanesOn), 8);
          const __m256d prod = _mm256_fmadd_pd(x, _mm256_loadu_pd(g.stepW.data() + s * kLanes), acc);
          acc = _mm256_blendv_pd(acc, prod, _mm256_castsi256_pd(lanesOn));
        }
        const int left = g.blockLanes[b];
        StoreLanes(dst[r] + g.blockStart[b], acc, left < kLanes && !SpareLanesInRow(g, b, kLanes),
                   Avx2Lanes<double>::FirstLanes(left));
      }
      if (targets != nullptr) ApplyTargets(targets[r], dst[r], g.dstLen);
    }
  }
  return true;
}

// The steps of a block of RowGather::blockHalfWindow on four rows (row r at p + offset r, the first at
// offset 0): the rows' 8-element windows at p (their elements from `avail` on are zero, not read), then
// per step one permute and an FMA per row; a0 .. a3 start at zero. On the block's lanes these are the
// operations of FourWindowedRowsF32's other steps, so their bits; its lanes past the block take
// products of weight 0, which no store keeps (the next blocks store over them, or the store is masked).
__attribute__((always_inline)) inline void HalfWindowBlock(const int32_t *idx, const float *w, int64_t steps,
                                                           const float *p, uintptr_t s1, uintptr_t s2,
                                                           uintptr_t s3, int64_t avail, __m256 &a0,
                                                           __m256 &a1, __m256 &a2, __m256 &a3) {
  using L = Avx2Lanes<float>;
  auto at = [p](uintptr_t offset) {
    return reinterpret_cast<const float *>(reinterpret_cast<uintptr_t>(p) + offset);
  };
  __m256 x0, x1, x2, x3;
  if (avail >= 8) {
    x0 = _mm256_loadu_ps(p);
    x1 = _mm256_loadu_ps(at(s1));
    x2 = _mm256_loadu_ps(at(s2));
    x3 = _mm256_loadu_ps(at(s3));
  } else {  // near the row end: nothing past it is read
    const __m256i m = L::FirstLanes(avail);
    x0 = L::Load(p, m);
    x1 = L::Load(at(s1), m);
    x2 = L::Load(at(s2), m);
    x3 = L::Load(at(s3), m);
  }
  for (int64_t s = 0; s < steps; ++s) {
    const __m256i i = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(idx + s * 8));
    const __m256 ws = _mm256_loadu_ps(w + s * 8);
    a0 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(x0, i), ws, a0);
    a1 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(x1, i), ws, a1);
    a2 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(x2, i), ws, a2);
    a3 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(x3, i), ws, a3);
  }
}

// Stores four rows' sums of one block at q0 .. q3: whole vectors when `lanes` is 8, else the first
// `lanes` lanes only (nothing past the row end is written).
__attribute__((always_inline)) inline void StoreFourRows(float *q0, float *q1, float *q2, float *q3,
                                                         int64_t lanes, __m256 a0, __m256 a1, __m256 a2,
                                                         __m256 a3) {
  using L = Avx2Lanes<float>;
  if (lanes >= 8) {
    _mm256_storeu_ps(q0, a0);
    _mm256_storeu_ps(q1, a1);
    _mm256_storeu_ps(q2, a2);
    _mm256_storeu_ps(q3, a3);
    return;
  }
  const __m256i keep = L::FirstLanes(lanes);
  L::Store(q0, a0, keep);
  L::Store(q1, a1, keep);
  L::Store(q2, a2, keep);
  L::Store(q3, a3, keep);
}

// VectorRows of 4 fp32 rows when every block is windowed (RowGather::allWindowed), without
// prefetch or targets: the hot W pass of the forward and of the width-last backward. Named
// registers, so the four rows' windows and sums stay in registers across a block's steps (through
// FloatRows they went to the stack), and the rows addressed as the first one's address plus
// byte offsets (one register each: eight row pointers and their per-block addresses did not fit
// the general registers; an eighth fewer instructions on the forward's 2x W pass). A step whose
// lanes are all on and all read the window's first 8 elements (upsampling: every step of a whole
// block) takes one permute and an FMA per row instead of two permutes, a blend, an FMA and a
// blend: on those lanes the same operations, so the same bits as FloatRows.
// Not inlined: inside a kernel's item loop the compiler kept the block loop's pointers on the stack.
__attribute__((noinline)) inline void FourWindowedRowsF32(const RowGather<float> &g, const float *const *src,
                                                          float *const *dst) {
  using L = Avx2Lanes<float>;
  auto addr = [](const void *p) { return reinterpret_cast<uintptr_t>(p); };
  auto in = [](uintptr_t p) { return reinterpret_cast<const float *>(p); };
  auto out = [](uintptr_t p) { return reinterpret_cast<float *>(p); };
  const uintptr_t s0 = addr(src[0]), s1 = addr(src[1]) - s0, s2 = addr(src[2]) - s0, s3 = addr(src[3]) - s0;
  const uintptr_t d0 = addr(dst[0]), d1 = addr(dst[1]) - d0, d2 = addr(dst[2]) - d0, d3 = addr(dst[3]) - d0;
  const int64_t *__restrict stepBegin = g.blockStepBegin.data();
  const int64_t *__restrict stepBase = g.stepBase.data();
  const uint32_t *__restrict stepMask = g.stepMask.data();
  const int32_t *__restrict stepIdx = g.stepIdx.data();
  const float *__restrict stepW = g.stepW.data();
  const int64_t *__restrict blockStart = g.blockStart.data();
  const int32_t *__restrict blockLanes = g.blockLanes.data();
  const uint8_t *__restrict halfWindow = g.blockHalfWindow.data();
  const int64_t blocks = static_cast<int64_t>(g.blockStart.size()), srcLen = g.srcLen, dstLen = g.dstLen;
  const __m256i bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
  const __m256i seven = _mm256_set1_epi32(7);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = stepBegin[b], end = stepBegin[b + 1];
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    if (halfWindow[b] != 0) {
      HalfWindowBlock(stepIdx + first * 8, stepW + first * 8, end - first,
                      in(s0 + static_cast<uintptr_t>(stepBase[first]) * sizeof(float)), s1, s2, s3,
                      srcLen - stepBase[first], a0, a1, a2, a3);
    } else if (first < end) {
      const int64_t base = stepBase[first];
      const int64_t avail = srcLen - base;
      const uintptr_t p = s0 + static_cast<uintptr_t>(base) * sizeof(float);
      __m256 lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3;
      if (avail >= 16) {
        lo0 = _mm256_loadu_ps(in(p));
        hi0 = _mm256_loadu_ps(in(p + 32));
        lo1 = _mm256_loadu_ps(in(p + s1));
        hi1 = _mm256_loadu_ps(in(p + s1 + 32));
        lo2 = _mm256_loadu_ps(in(p + s2));
        hi2 = _mm256_loadu_ps(in(p + s2 + 32));
        lo3 = _mm256_loadu_ps(in(p + s3));
        hi3 = _mm256_loadu_ps(in(p + s3 + 32));
      } else {  // near the row end: nothing past it is read
        const int64_t left = avail < 0 ? 0 : avail;
        const __m256i mlo = L::FirstLanes(left), mhi = L::FirstLanes(left - 8);
        lo0 = L::Load(in(p), mlo);
        hi0 = L::Load(in(p + 32), mhi);
        lo1 = L::Load(in(p + s1), mlo);
        hi1 = L::Load(in(p + s1 + 32), mhi);
        lo2 = L::Load(in(p + s2), mlo);
        hi2 = L::Load(in(p + s2 + 32), mhi);
        lo3 = L::Load(in(p + s3), mlo);
        hi3 = L::Load(in(p + s3 + 32), mhi);
      }
      for (int64_t s = first; s < end; ++s) {
        const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(stepIdx + s * 8));
        const __m256 w = _mm256_loadu_ps(stepW + s * 8);
        const __m256i upper = _mm256_cmpgt_epi32(idx, seven);
        if (stepMask[s] == 0xffu && _mm256_testz_si256(upper, upper)) {
          a0 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(lo0, idx), w, a0);
          a1 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(lo1, idx), w, a1);
          a2 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(lo2, idx), w, a2);
          a3 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(lo3, idx), w, a3);
          continue;
        }
        const __m256 on = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
            _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(stepMask[s])), bits), bits));
        const __m256 up = _mm256_castsi256_ps(upper);
        auto pick = [&](__m256 lo, __m256 hi) {
          return _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, idx), _mm256_permutevar8x32_ps(hi, idx), up);
        };
        a0 = _mm256_blendv_ps(a0, _mm256_fmadd_ps(pick(lo0, hi0), w, a0), on);
        a1 = _mm256_blendv_ps(a1, _mm256_fmadd_ps(pick(lo1, hi1), w, a1), on);
        a2 = _mm256_blendv_ps(a2, _mm256_fmadd_ps(pick(lo2, hi2), w, a2), on);
        a3 = _mm256_blendv_ps(a3, _mm256_fmadd_ps(pick(lo3, hi3), w, a3), on);
      }
    }
    const int64_t j0 = blockStart[b];
    const int left = blockLanes[b];
    const uintptr_t q = d0 + static_cast<uintptr_t>(j0) * sizeof(float);
    // SpareLanesInRow: a short block inside the row stores whole vectors, the next blocks store over
    // its spare lanes later.
    StoreFourRows(out(q), out(q + d1), out(q + d2), out(q + d3), left == 8 || j0 + 8 <= dstLen ? 8 : left, a0,
                  a1, a2, a3);
  }
}

// Takes 4 rows (no prefetch, no targets) through FourWindowedRowsF32 when it applies; returns false
// (nothing done) when not.
template <typename A>
__attribute__((always_inline)) inline bool FourWindowedRows(const RowGather<A> &g, const A *const *src,
                                                            A *const *dst) {
  if constexpr (std::is_same_v<A, float>) {
    if (g.lanes == 8 && g.allHalfWindowPairs) {
      FourHalfWindowPairRowsF32<Avx2Lanes<float>>(g, src, dst);
      return true;
    }
    if (g.lanes == 8 && g.allWindowed) {
      FourWindowedRowsF32(g, src, dst);
      return true;
    }
  }
  return false;
}

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_AVX2_H_
