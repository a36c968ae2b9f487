// The AVX-512 variants of ResampleRowsWInner (resample_rows_w_inner.h, which includes this file in
// the avx512 tier): the vector steps of RowGather with 16 fp32 or 8 fp64 lanes, where each step's
// operands are picked from a 2V-element window by two-source permutes, or, for linear upsampling's
// pairs of half-window steps, from one V-element window by one-source permutes.
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_AVX512_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_AVX512_H_

#if !defined(TRILINEAR3D_ISA_REGION) || !defined(TRILINEAR3D_HAVE_AVX512)
#error "the avx512 tier's W pass: include op_kernel/resample_rows_w_inner.h in an avx512 ISA region"
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
  return 64 / sizeof(A);
}

namespace w_inner {

// ResampleRowsWInner through the vector steps, when they are built for this width: the kRows rows
// share each step's indices, weights and mask, and keep independent accumulators. Returns false
// (nothing done) when they are not.
template <int kRows, typename A>
__attribute__((always_inline)) inline bool VectorRows(const RowGather<A> &g, const A *const *src,
                                                      A *const *dst, const char *const *prefetch,
                                                      int64_t prefetchBytes, const RowTargets<A> *targets) {
  using L = Avx512Lanes<A>;
  constexpr int kLanes = static_cast<int>(L::kLanes);
  using Vec = typename L::Vec;
  using Mask = typename L::Mask;
  if (g.lanes != kLanes) return false;
  const int64_t *__restrict stepBegin = g.blockStepBegin.data();
  const int64_t *__restrict stepBase = g.stepBase.data();
  const uint32_t *__restrict stepMask = g.stepMask.data();
  const int32_t *__restrict stepIdx = g.stepIdx.data();
  const A *__restrict stepW = g.stepW.data();
  const int64_t blocks = static_cast<int64_t>(g.blockStart.size());
  const int64_t srcLen = g.srcLen;
  const A *rows[kRows];
  for (int r = 0; r < kRows; ++r) rows[r] = src[r];
  // Loads the 2V-element window at base of every row; near the row end with masks, so nothing
  // past the row is read.
  Vec lo[kRows], hi[kRows];
  auto loadWindows = [&](int64_t base) {
    const int64_t avail = srcLen - base;
    const bool full = avail >= 2 * kLanes;
    const Mask mlo = L::FirstLanes(avail), mhi = L::FirstLanes(avail - kLanes);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      lo[r] = full ? L::Load(rows[r] + base) : L::Load(rows[r] + base, mlo);
      hi[r] = full ? L::Load(rows[r] + base + kLanes) : L::Load(rows[r] + base + kLanes, mhi);
    }
  };
  for (int64_t b = 0; b < blocks; ++b) {
    Vec acc[kRows];
    for (int r = 0; r < kRows; ++r) acc[r] = L::Zero();
    const int64_t sBegin = stepBegin[b], sEnd = stepBegin[b + 1];
    const bool windowed = g.blockWindowed[b] != 0;
    if (prefetch != nullptr && sBegin < sEnd) {
      // The rows of a later batch, at this block's window: the stream is requested at the pace it
      // is consumed, a batch ahead.
      const int64_t first = stepBase[sBegin] * prefetchBytes;
      for (int r = 0; r < kRows; ++r) {
        for (int64_t line = 0; line < 2 * kLanes * prefetchBytes; line += 64) {
          __builtin_prefetch(prefetch[r] + first + line, 0, 3);
        }
      }
    }
    if (windowed && sBegin < sEnd) loadWindows(stepBase[sBegin]);
    for (int64_t s = sBegin; s < sEnd; ++s) {
      if (!windowed) loadWindows(stepBase[s]);
      const Mask m = static_cast<Mask>(stepMask[s]);
      if constexpr (std::is_same_v<A, float>) {
        const __m512i idx = _mm512_loadu_si512(stepIdx + s * kLanes);
        const __m512 w = _mm512_loadu_ps(stepW + s * kLanes);
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
          acc[r] = _mm512_mask3_fmadd_ps(_mm512_permutex2var_ps(lo[r], idx, hi[r]), w, acc[r], m);
        }
      } else {
        const __m512i idx = _mm512_cvtepi32_epi64(
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(stepIdx + s * kLanes)));
        const __m512d w = _mm512_loadu_pd(stepW + s * kLanes);
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
          acc[r] = _mm512_mask3_fmadd_pd(_mm512_permutex2var_pd(lo[r], idx, hi[r]), w, acc[r], m);
        }
      }
    }
    const int64_t j0 = g.blockStart[b];
    const int left = g.blockLanes[b];
    const Mask keep = L::FirstLanes(left);
    for (int r = 0; r < kRows; ++r) {
      EmitLanes(acc[r], dst[r] + j0, keep, targets == nullptr ? nullptr : targets + r, j0);
    }
  }
  return true;
}

// VectorRows of 4 fp32 rows when every block is windowed (RowGather::allWindowed), without
// prefetch or targets: the hot W pass of the width-last backward. Named registers, so the four
// rows' windows and accumulators stay in registers across a block's steps.
inline void FourWindowedRowsF32(const RowGather<float> &g, const float *const *src, float *const *dst) {
  const float *r0 = src[0], *r1 = src[1], *r2 = src[2], *r3 = src[3];
  const int64_t *__restrict stepBegin = g.blockStepBegin.data();
  const int64_t *__restrict stepBase = g.stepBase.data();
  const uint32_t *__restrict stepMask = g.stepMask.data();
  const int32_t *__restrict stepIdx = g.stepIdx.data();
  const float *__restrict stepW = g.stepW.data();
  const int64_t blocks = static_cast<int64_t>(g.blockStart.size());
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t s0 = stepBegin[b], s1 = stepBegin[b + 1];
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    if (s0 < s1) {
      const int64_t base = stepBase[s0];
      const int64_t avail = g.srcLen - base;
      __m512 lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3;
      if (avail >= 32) {
        lo0 = _mm512_loadu_ps(r0 + base);
        hi0 = _mm512_loadu_ps(r0 + base + 16);
        lo1 = _mm512_loadu_ps(r1 + base);
        hi1 = _mm512_loadu_ps(r1 + base + 16);
        lo2 = _mm512_loadu_ps(r2 + base);
        hi2 = _mm512_loadu_ps(r2 + base + 16);
        lo3 = _mm512_loadu_ps(r3 + base);
        hi3 = _mm512_loadu_ps(r3 + base + 16);
      } else {  // near the row end: nothing past it is read
        const __mmask16 mlo = Avx512Lanes<float>::FirstLanes(avail);
        const __mmask16 mhi = Avx512Lanes<float>::FirstLanes(avail - 16);
        lo0 = _mm512_maskz_loadu_ps(mlo, r0 + base);
        hi0 = _mm512_maskz_loadu_ps(mhi, r0 + base + 16);
        lo1 = _mm512_maskz_loadu_ps(mlo, r1 + base);
        hi1 = _mm512_maskz_loadu_ps(mhi, r1 + base + 16);
        lo2 = _mm512_maskz_loadu_ps(mlo, r2 + base);
        hi2 = _mm512_maskz_loadu_ps(mhi, r2 + base + 16);
        lo3 = _mm512_maskz_loadu_ps(mlo, r3 + base);
        hi3 = _mm512_maskz_loadu_ps(mhi, r3 + base + 16);
      }
      for (int64_t s = s0; s < s1; ++s) {
        const __m512i idx = _mm512_loadu_si512(stepIdx + s * 16);
        const __m512 w = _mm512_loadu_ps(stepW + s * 16);
        const __mmask16 m = static_cast<__mmask16>(stepMask[s]);
        a0 = _mm512_mask3_fmadd_ps(_mm512_permutex2var_ps(lo0, idx, hi0), w, a0, m);
        a1 = _mm512_mask3_fmadd_ps(_mm512_permutex2var_ps(lo1, idx, hi1), w, a1, m);
        a2 = _mm512_mask3_fmadd_ps(_mm512_permutex2var_ps(lo2, idx, hi2), w, a2, m);
        a3 = _mm512_mask3_fmadd_ps(_mm512_permutex2var_ps(lo3, idx, hi3), w, a3, m);
      }
    }
    const int64_t j0 = g.blockStart[b];
    const __mmask16 keep = Avx512Lanes<float>::FirstLanes(g.blockLanes[b]);
    _mm512_mask_storeu_ps(dst[0] + j0, keep, a0);
    _mm512_mask_storeu_ps(dst[1] + j0, keep, a1);
    _mm512_mask_storeu_ps(dst[2] + j0, keep, a2);
    _mm512_mask_storeu_ps(dst[3] + j0, keep, a3);
  }
}

// Takes 4 rows (no prefetch, no targets) through FourHalfWindowPairRowsF32 or FourWindowedRowsF32 when
// one applies; returns false (nothing done) when neither does.
template <typename A>
__attribute__((always_inline)) inline bool FourWindowedRows(const RowGather<A> &g, const A *const *src,
                                                            A *const *dst) {
  if constexpr (std::is_same_v<A, float>) {
    if (g.lanes == 16 && g.allHalfWindowPairs) {
      FourHalfWindowPairRowsF32<Avx512Lanes<float>>(g, src, dst);
      return true;
    }
    if (g.lanes == 16 && g.allWindowed) {
      FourWindowedRowsF32(g, src, dst);
      return true;
    }
  }
  return false;
}

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_INNER_AVX512_H_
