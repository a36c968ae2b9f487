// Row primitives of the kernels, compiled once per ISA (included only from src/op_kernel/isa/*.cpp,
// which are built with that ISA's flags). Stateless; plain loops the compiler vectorises, plus
// intrinsics where it cannot (the W pass's lane permutes, fp16 / bf16 conversion).
#ifndef TRILINEAR3D_OP_KERNEL_SIMD_ROW_OPS_H_
#define TRILINEAR3D_OP_KERNEL_SIMD_ROW_OPS_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "op_kernel/element_types.h"
#include "op_kernel/kernel_plan.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

// dst = w * src (assign) or dst += w * src, n elements.
template <typename A>
inline void AxpyRow(A *__restrict dst, const A *__restrict src, A w, int64_t n, bool assign) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  // Explicit vectors with a masked tail: these rows are short (a few hundred elements) and called
  // often, so the compiler's peeled prologue and scalar epilogue would cost as much as the body.
  if constexpr (std::is_same_v<A, float>) {
    const __m512 wv = _mm512_set1_ps(w);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m512 x = _mm512_loadu_ps(src + i);
      _mm512_storeu_ps(dst + i,
                       assign ? _mm512_mul_ps(wv, x) : _mm512_fmadd_ps(wv, x, _mm512_loadu_ps(dst + i)));
    }
    if (i < n) {
      const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
      const __m512 x = _mm512_maskz_loadu_ps(m, src + i);
      _mm512_mask_storeu_ps(
          dst + i, m,
          assign ? _mm512_mul_ps(wv, x) : _mm512_fmadd_ps(wv, x, _mm512_maskz_loadu_ps(m, dst + i)));
    }
    return;
  }
#endif
  if (assign) {
    for (int64_t i = 0; i < n; ++i) dst[i] = w * src[i];
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] += w * src[i];
  }
}

// dst = w0 * a + w1 * b: the forward's two-tap blend of rows.
template <typename A>
inline void BlendRows(A *__restrict dst, const A *__restrict a, A w0, const A *__restrict b, A w1,
                      int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = w0 * a[i] + w1 * b[i];
}

#if defined(TRILINEAR3D_HAVE_AVX512)
// 16 bf16 values as fp32 lanes (exact: the bits shifted up). The all-lanes masked forms of the
// widening and the shift: the plain intrinsics start from _mm512_undefined_epi32(), which GCC 12's
// -Wuninitialized reports in some inlining contexts (a false positive that -Werror turns fatal).
inline __m512 Bf16BitsToFloat(__m256i h) {
  const __mmask16 all = 0xFFFF;
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(all, _mm512_maskz_cvtepu16_epi32(all, h), 16));
}

// 16 elements of T (fp32, bf16 or fp16) at p as fp32 lanes, converted exactly; the masked form reads
// nothing outside the mask.
template <typename T>
inline __m512 LoadFloatLanes(const T *p) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_loadu_ps(p);
  } else {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
    if constexpr (std::is_same_v<T, Bf16>) {
      return Bf16BitsToFloat(h);
    } else {
      return _mm512_cvtph_ps(h);
    }
  }
}

template <typename T>
inline __m512 LoadFloatLanes(const T *p, __mmask16 m) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_maskz_loadu_ps(m, p);
  } else {
    const __m256i h = _mm256_maskz_loadu_epi16(m, p);
    if constexpr (std::is_same_v<T, Bf16>) {
      return Bf16BitsToFloat(h);
    } else {
      return _mm512_cvtph_ps(h);
    }
  }
}
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
// The AVX2 kernels' vectors of the accumulation type A (8 fp32 or 4 fp64 lanes): loads (fp16 / bf16
// converted exactly; LoadRow converts with them too), masked loads and stores of the first n lanes
// (nothing outside them read or written), and the arithmetic.
template <typename A>
struct Avx2Lanes;
template <>
struct Avx2Lanes<float> {
  using Vec = __m256;
  using Mask = __m256i;
  static constexpr int64_t kLanes = 8;
  static Vec Zero() { return _mm256_setzero_ps(); }
  static Vec Load(const float *p) { return _mm256_loadu_ps(p); }
  static Vec Load(const Bf16 *p) {  // bf16 is the high half of an fp32
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  static Vec Load(const Fp16 *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
  }
  static Mask FirstLanes(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Vec Load(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void Store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  static void Store(float *p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  static Vec Broadcast(float w) { return _mm256_set1_ps(w); }
  static Vec Mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
};
template <>
struct Avx2Lanes<double> {
  using Vec = __m256d;
  using Mask = __m256i;
  static constexpr int64_t kLanes = 4;
  static Vec Zero() { return _mm256_setzero_pd(); }
  static Vec Load(const double *p) { return _mm256_loadu_pd(p); }
  static Mask FirstLanes(int64_t n) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static Vec Load(const double *p, Mask m) { return _mm256_maskload_pd(p, m); }
  static void Store(double *p, Vec v) { _mm256_storeu_pd(p, v); }
  static void Store(double *p, Vec v, Mask m) { _mm256_maskstore_pd(p, m, v); }
  static Vec Broadcast(double w) { return _mm256_set1_pd(w); }
  static Vec Mul(Vec a, Vec b) { return _mm256_mul_pd(a, b); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_pd(a, b, c); }
};
#endif

// Converts n elements at src (stride in elements) to the accumulation type.
template <typename T>
inline void LoadRow(const T *src, int64_t stride, Acc<T> *__restrict dst, int64_t n) {
  int64_t i = 0;
  if (stride == 1) {
#if defined(TRILINEAR3D_HAVE_AVX512)
    if constexpr (std::is_same_v<T, Bf16> || std::is_same_v<T, Fp16>) {
      for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, LoadFloatLanes(src + i));
      if (i < n) {  // the tail with masks: nothing past the row is read
        const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(dst + i, m, LoadFloatLanes(src + i, m));
        return;
      }
    }
#elif defined(TRILINEAR3D_HAVE_AVX2)
    if constexpr (std::is_same_v<T, Bf16> || std::is_same_v<T, Fp16>) {
      using L = Avx2Lanes<float>;
      for (; i + L::kLanes <= n; i += L::kLanes) L::Store(dst + i, L::Load(src + i));
    }
#endif
  }
  for (; i < n; ++i) dst[i] = ToAcc(src[i * stride]);
}

#if defined(TRILINEAR3D_HAVE_AVX512)
// Round-to-nearest-even fp32 -> bf16 of 16 lanes, NaN kept quiet (as FloatToBf16).
inline __m256i FloatToBf16x16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(u, _mm512_set1_epi32(0x400000)));
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

// 16 fp32 lanes as bf16 or fp16 (round to nearest even).
template <typename T>
inline __m256i FloatToHalfLanes(__m512 v) {
  if constexpr (std::is_same_v<T, Bf16>) {
    return FloatToBf16x16(v);
  } else {
    return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
}
#endif

// Converts n accumulation-type elements to T at dst (stride in elements).
template <typename T>
inline void StoreRow(const Acc<T> *__restrict src, T *dst, int64_t stride, int64_t n) {
  int64_t i = 0;
  if (stride == 1) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
      return;
    }
#if defined(TRILINEAR3D_HAVE_AVX512)
    if constexpr (std::is_same_v<T, Bf16> || std::is_same_v<T, Fp16>) {
      for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                            FloatToHalfLanes<T>(_mm512_loadu_ps(src + i)));
      }
      if (i < n) {  // the tail with masks: short rows (a few elements) would go scalar
        const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
        _mm256_mask_storeu_epi16(dst + i, m, FloatToHalfLanes<T>(_mm512_maskz_loadu_ps(m, src + i)));
        return;
      }
    }
#elif defined(TRILINEAR3D_HAVE_AVX2)
    if constexpr (std::is_same_v<T, Fp16>) {
      for (; i + 8 <= n; i += 8) {
        _mm_storeu_si128(
            reinterpret_cast<__m128i *>(dst + i),
            _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
      }
    }
#endif
  }
  for (; i < n; ++i) dst[i * stride] = FromAcc<T>(src[i]);
}

#if defined(TRILINEAR3D_HAVE_AVX2)  // AVX-512 builds too
// The 64-byte line at dst (64-byte aligned) copied from src (any alignment, bits unchanged) with
// non-temporal stores: one 64-byte store, or two 32-byte ones back to back, which fill the same
// write-combining buffer (16-byte ones did not, on this project's bench machine: far slower).
inline void StreamLine(void *dst, const void *src) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  _mm512_stream_si512(static_cast<__m512i *>(dst), _mm512_loadu_si512(src));
#else
  __m256i *d = static_cast<__m256i *>(dst);
  const __m256i *s = static_cast<const __m256i *>(src);
  _mm256_stream_si256(d, _mm256_loadu_si256(s));
  _mm256_stream_si256(d + 1, _mm256_loadu_si256(s + 1));
#endif
}

// StreamLine of w * src (each element w * src[i], rounded once).
inline void StreamLineScaled(float *dst, const float *src, float w) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  _mm512_stream_ps(dst, _mm512_mul_ps(_mm512_set1_ps(w), _mm512_loadu_ps(src)));
#else
  const __m256 wv = _mm256_set1_ps(w);
  _mm256_stream_ps(dst, _mm256_mul_ps(wv, _mm256_loadu_ps(src)));
  _mm256_stream_ps(dst + 8, _mm256_mul_ps(wv, _mm256_loadu_ps(src + 8)));
#endif
}
#endif

// StoreRow for a contiguous destination that is written once and not read again soon (the
// forward's output): non-temporal stores skip the read-for-ownership of every destination line.
// The caller issues StreamFence() before the data is handed to another thread.
template <typename T>
inline void StoreRowStreaming(const Acc<T> *__restrict src, T *dst, int64_t n) {
#if defined(TRILINEAR3D_HAVE_AVX2)
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    constexpr int64_t kLineElems = 64 / sizeof(T);
    int64_t i = 0;
    while (i < n && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0) {
      dst[i] = src[i];
      ++i;
    }
    for (; i + kLineElems <= n; i += kLineElems) StreamLine(dst + i, src + i);
    for (; i < n; ++i) dst[i] = src[i];
    return;
  }
#endif
  StoreRow<T>(src, dst, 1, n);
}

// dst = w * src for a contiguous fp32 destination written once (StoreRowStreaming with the scale
// fused in: one pass instead of scaling into a buffer first).
inline void StoreRowStreamingScaled(const float *__restrict src, float w, float *dst, int64_t n) {
  int64_t i = 0;
#if defined(TRILINEAR3D_HAVE_AVX2)
  while (i < n && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0) {
    dst[i] = w * src[i];
    ++i;
  }
  for (; i + 16 <= n; i += 16) StreamLineScaled(dst + i, src + i, w);
#endif
  for (; i < n; ++i) dst[i] = w * src[i];
}

inline void StreamFence() {
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_AVX512)
  _mm_sfence();
#endif
}

// Scalar W pass over the CSR lists: dst[j] = sum of w * src[s] in list order.
template <typename A>
inline void GatherRowScalar(const RowGather<A> &g, const A *__restrict src, A *__restrict dst) {
  for (int64_t j = 0; j < g.dstLen; ++j) {
    A acc = A(0);
    for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
      acc += g.w[static_cast<size_t>(e)] * src[g.src[static_cast<size_t>(e)]];
    }
    dst[j] = acc;
  }
}

#if defined(TRILINEAR3D_HAVE_AVX512)
template <typename A>
struct Avx512Types;
template <>
struct Avx512Types<float> {
  using Vec = __m512;
  using Mask = __mmask16;
};
template <>
struct Avx512Types<double> {
  using Vec = __m512d;
  using Mask = __mmask8;
};
#endif

// W pass of kRows rows at once through the vector steps (RowGather::lanes must match this
// ISA's width, else the scalar lists are used). The rows share every step's indices, weights and
// masks, and their independent accumulators hide the FMA latency.
// Where a W-pass output row goes next (the backward's H scatter): up to two rows, each
// target = w * row (assign) or target += w * row, applied in order.
template <typename A>
struct RowTargets {
  A *row[2];
  A w[2];
  bool assign[2];
  int count;
};

// Applies a row's targets to its n elements held in `values` (the paths without fused epilogue).
template <typename A>
inline void ApplyTargets(const RowTargets<A> &t, const A *values, int64_t n);

#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
// v stored at p: every lane, or (masked) only the lanes of m; AVX2's masked stores are slow (on AMD
// especially), so they serve partial vectors only.
template <typename A>
inline void StoreLanes(A *p, typename Avx2Lanes<A>::Vec v, bool masked, typename Avx2Lanes<A>::Mask m) {
  if (masked) {
    Avx2Lanes<A>::Store(p, v, m);
  } else {
    Avx2Lanes<A>::Store(p, v);
  }
}

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

// The W pass's fused H scatter on one vector: the target at p becomes w * v (assign) or p + w * v
// (one FMA); masked: only the lanes of m are read and written.
template <typename A>
inline void ApplyTargetLanes(A *p, typename Avx2Lanes<A>::Vec v, A w, bool assign, bool masked,
                             typename Avx2Lanes<A>::Mask m) {
  using L = Avx2Lanes<A>;
  const typename L::Vec wv = L::Broadcast(w);
  StoreLanes(p, assign ? L::Mul(wv, v) : L::Fma(wv, v, masked ? L::Load(p, m) : L::Load(p)), masked, m);
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

// GatherRows (below) for AVX2 and fp32. The kRows rows share each step's indices, weights and lane
// mask (loaded once per step) and keep independent accumulators. A windowed block's operands are
// picked by permutes from a 16-element window loaded once per row (hardware gathers are slow, on AMD
// especially); other blocks gather. Results are stored under the block's lane mask, or applied to
// the targets (w * v assigned, or added with one FMA: the fused H scatter, as on AVX-512).
template <int kRows>
inline void GatherRowsAvx2(const RowGather<float> &g, const float *const *src, float *const *dst,
                           const char *const *prefetch, int64_t prefetchBytes,
                           const RowTargets<float> *targets) {
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
#endif

// prefetch: optional rows of a later batch (kRows byte pointers, elements of prefetchBytes each)
// to request from memory as this batch is computed.
// targets: optional, one per row: the results go to the targets (fused with the W pass: no
// round trip through dst on the vector path) after being written to dst on the other paths.
template <int kRows, typename A>
inline void GatherRows(const RowGather<A> &g, const A *const *src, A *const *dst,
                       const char *const *prefetch = nullptr, int64_t prefetchBytes = 0,
                       const RowTargets<A> *targets = nullptr) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  if (g.lanes == 64 / static_cast<int>(sizeof(A))) {
    constexpr int kLanes = 64 / sizeof(A);
    using Vec = typename Avx512Types<A>::Vec;
    using Mask = typename Avx512Types<A>::Mask;
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
      const Mask mlo = full || avail >= kLanes ? Mask(~Mask(0)) : Mask((1u << avail) - 1);
      const Mask mhi =
          full ? Mask(~Mask(0)) : (avail > kLanes ? Mask((1u << (avail - kLanes)) - 1) : Mask(0));
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        if constexpr (std::is_same_v<A, float>) {
          lo[r] = full ? _mm512_loadu_ps(rows[r] + base) : _mm512_maskz_loadu_ps(mlo, rows[r] + base);
          hi[r] = full ? _mm512_loadu_ps(rows[r] + base + kLanes)
                       : _mm512_maskz_loadu_ps(mhi, rows[r] + base + kLanes);
        } else {
          lo[r] = full ? _mm512_loadu_pd(rows[r] + base) : _mm512_maskz_loadu_pd(mlo, rows[r] + base);
          hi[r] = full ? _mm512_loadu_pd(rows[r] + base + kLanes)
                       : _mm512_maskz_loadu_pd(mhi, rows[r] + base + kLanes);
        }
      }
    };
    for (int64_t b = 0; b < blocks; ++b) {
      Vec acc[kRows];
      for (int r = 0; r < kRows; ++r) {
        if constexpr (std::is_same_v<A, float>) {
          acc[r] = _mm512_setzero_ps();
        } else {
          acc[r] = _mm512_setzero_pd();
        }
      }
      const int64_t sBegin = stepBegin[b], sEnd = stepBegin[b + 1];
      const bool windowed = g.blockWindowed[b] != 0;
      if (prefetch != nullptr && sBegin < sEnd) {
        // The rows of a later batch, at this block's window: the stream is requested at the
        // pace it is consumed, a batch ahead.
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
      const Mask keep = left >= kLanes ? Mask(~Mask(0)) : Mask((1u << left) - 1);
      for (int r = 0; r < kRows; ++r) {
        if (targets == nullptr) {
          if constexpr (std::is_same_v<A, float>) {
            _mm512_mask_storeu_ps(dst[r] + j0, keep, acc[r]);
          } else {
            _mm512_mask_storeu_pd(dst[r] + j0, keep, acc[r]);
          }
          continue;
        }
        for (int t = 0; t < targets[r].count; ++t) {
          A *out = targets[r].row[t] + j0;
          if constexpr (std::is_same_v<A, float>) {
            const __m512 w = _mm512_set1_ps(targets[r].w[t]);
            _mm512_mask_storeu_ps(out, keep,
                                  targets[r].assign[t]
                                      ? _mm512_mul_ps(w, acc[r])
                                      : _mm512_fmadd_ps(w, acc[r], _mm512_maskz_loadu_ps(keep, out)));
          } else {
            const __m512d w = _mm512_set1_pd(targets[r].w[t]);
            _mm512_mask_storeu_pd(out, keep,
                                  targets[r].assign[t]
                                      ? _mm512_mul_pd(w, acc[r])
                                      : _mm512_fmadd_pd(w, acc[r], _mm512_maskz_loadu_pd(keep, out)));
          }
        }
      }
    }
    return;
  }
#elif defined(TRILINEAR3D_HAVE_AVX2)
  if (g.lanes == 32 / static_cast<int>(sizeof(A))) {
    if constexpr (std::is_same_v<A, float>) {
      GatherRowsAvx2<kRows>(g, src, dst, prefetch, prefetchBytes, targets);
      return;
    } else {
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
      return;
    }
  }
#endif
  (void)prefetch;  // the gather-based and scalar paths leave prefetching to the hardware
  (void)prefetchBytes;
  for (int r = 0; r < kRows; ++r) {
    GatherRowScalar(g, src[r], dst[r]);
    if (targets != nullptr) ApplyTargets(targets[r], dst[r], g.dstLen);
  }
}

#if defined(TRILINEAR3D_HAVE_AVX512)
// GatherRows<4> for fp32 when every block is windowed (RowGather::allWindowed; lanes 16), without
// prefetch or targets: the hot W pass of the width-last backward. Named registers, so the four
// rows' windows and accumulators stay in registers across a block's steps.
inline void GatherRows4Windowed(const RowGather<float> &g, const float *const *src, float *const *dst) {
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
        const __mmask16 mlo = avail >= 16 ? __mmask16(0xffff) : __mmask16((1u << avail) - 1);
        const __mmask16 mhi = avail > 16 ? __mmask16((1u << (avail - 16)) - 1) : __mmask16(0);
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
    const int left = g.blockLanes[b];
    const __mmask16 keep = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
    _mm512_mask_storeu_ps(dst[0] + j0, keep, a0);
    _mm512_mask_storeu_ps(dst[1] + j0, keep, a1);
    _mm512_mask_storeu_ps(dst[2] + j0, keep, a2);
    _mm512_mask_storeu_ps(dst[3] + j0, keep, a3);
  }
}
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
// GatherRows<4> for fp32 when every block is windowed (RowGather::allWindowed; lanes 8), without
// prefetch or targets: the hot W pass of the forward and of the width-last backward. Named
// registers, so the four rows' windows and sums stay in registers across a block's steps (through
// GatherRowsAvx2 they went to the stack), and the rows addressed as the first one's address plus
// byte offsets (one register each: eight row pointers and their per-block addresses did not fit
// the general registers; an eighth fewer instructions on the forward's 2x W pass). A step whose
// lanes are all on and all read the window's first 8 elements (upsampling: every step of a whole
// block) takes one permute and an FMA per row instead of two permutes, a blend, an FMA and a
// blend: on those lanes the same operations, so the same bits as GatherRowsAvx2.
// Not inlined: inside a kernel's item loop the compiler kept the block loop's pointers on the stack.
__attribute__((noinline)) inline void GatherRows4WindowedAvx2(const RowGather<float> &g,
                                                              const float *const *src, float *const *dst) {
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
  const int64_t blocks = static_cast<int64_t>(g.blockStart.size()), srcLen = g.srcLen, dstLen = g.dstLen;
  const __m256i bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
  const __m256i seven = _mm256_set1_epi32(7);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = stepBegin[b], end = stepBegin[b + 1];
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    if (first < end) {
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
    if (left == 8 || j0 + 8 <= dstLen) {  // SpareLanesInRow: the next blocks store the spare lanes later
      _mm256_storeu_ps(out(q), a0);
      _mm256_storeu_ps(out(q + d1), a1);
      _mm256_storeu_ps(out(q + d2), a2);
      _mm256_storeu_ps(out(q + d3), a3);
      continue;
    }
    const __m256i keep = L::FirstLanes(left);
    L::Store(out(q), a0, keep);
    L::Store(out(q + d1), a1, keep);
    L::Store(out(q + d2), a2, keep);
    L::Store(out(q + d3), a3, keep);
  }
}
#endif

// GatherRows of 4 rows without prefetch or targets, through the fastest path that applies.
template <typename A>
inline void GatherFourRows(const RowGather<A> &g, const A *const *src, A *const *dst) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  if constexpr (std::is_same_v<A, float>) {
    if (g.lanes == 16 && g.allWindowed) {
      GatherRows4Windowed(g, src, dst);
      return;
    }
  }
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
  if constexpr (std::is_same_v<A, float>) {
    if (g.lanes == 8 && g.allWindowed) {
      GatherRows4WindowedAvx2(g, src, dst);
      return;
    }
  }
#endif
  GatherRows<4>(g, src, dst);
}

template <typename A>
inline void ApplyTargets(const RowTargets<A> &t, const A *values, int64_t n) {
  for (int k = 0; k < t.count; ++k) AxpyRow(t.row[k], values, t.w[k], n, t.assign[k]);
}

#if defined(TRILINEAR3D_HAVE_AVX512)
// Stores one vector of W-pass results at out, or, with targets, applies it to each target row at
// element offset `at` (w * v assigned, or added with one FMA): the fused H scatter.
template <typename A, typename Vec, typename Mask>
inline void EmitChannels(Vec v, A *out, Mask m, const RowTargets<A> *targets, int64_t at) {
  if (targets == nullptr) {
    if constexpr (std::is_same_v<A, float>) {
      _mm512_mask_storeu_ps(out, m, v);
    } else {
      _mm512_mask_storeu_pd(out, m, v);
    }
    return;
  }
  for (int t = 0; t < targets->count; ++t) {
    A *p = targets->row[t] + at;
    if constexpr (std::is_same_v<A, float>) {
      const __m512 w = _mm512_set1_ps(targets->w[t]);
      _mm512_mask_storeu_ps(
          p, m,
          targets->assign[t] ? _mm512_mul_ps(w, v) : _mm512_fmadd_ps(w, v, _mm512_maskz_loadu_ps(m, p)));
    } else {
      const __m512d w = _mm512_set1_pd(targets->w[t]);
      _mm512_mask_storeu_pd(
          p, m,
          targets->assign[t] ? _mm512_mul_pd(w, v) : _mm512_fmadd_pd(w, v, _mm512_maskz_loadu_pd(m, p)));
    }
  }
}

// One chunk of up to 4 vectors of channels for GatherChannels: the accumulators stay in registers
// across the entry list; a partial last vector is loaded and stored with a mask. The results go to
// out, or to the targets at element offset `at` (see EmitChannels).
template <typename A>
inline void GatherChannelChunk(const A *__restrict src, int64_t srcFirst, const int32_t *__restrict srcIdx,
                               const A *__restrict weights, int64_t e0, int64_t e1, int64_t c, int64_t k0,
                               int64_t width, A *__restrict out, const RowTargets<A> *targets, int64_t at) {
  constexpr int kLanes = 64 / static_cast<int>(sizeof(A));
  using Vec = typename Avx512Types<A>::Vec;
  using Mask = typename Avx512Types<A>::Mask;
  Vec acc[4];
  Mask mask[4];
  for (int v = 0; v < 4; ++v) {
    const int64_t left = width - v * kLanes;
    mask[v] = left >= kLanes ? Mask(~Mask(0)) : (left > 0 ? Mask((1u << left) - 1) : Mask(0));
    if constexpr (std::is_same_v<A, float>) {
      acc[v] = _mm512_setzero_ps();
    } else {
      acc[v] = _mm512_setzero_pd();
    }
  }
  const int vectors = static_cast<int>((width + kLanes - 1) / kLanes);
  if (width == 4 * kLanes) {
    // Full chunk: four named accumulators, so they stay in registers across the list.
    Vec a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (int64_t e = e0; e < e1; ++e) {
      const A *x = src + (static_cast<int64_t>(srcIdx[e]) - srcFirst) * c + k0;
      if constexpr (std::is_same_v<A, float>) {
        const __m512 w = _mm512_set1_ps(weights[e]);
        a0 = _mm512_fmadd_ps(w, _mm512_loadu_ps(x), a0);
        a1 = _mm512_fmadd_ps(w, _mm512_loadu_ps(x + kLanes), a1);
        a2 = _mm512_fmadd_ps(w, _mm512_loadu_ps(x + 2 * kLanes), a2);
        a3 = _mm512_fmadd_ps(w, _mm512_loadu_ps(x + 3 * kLanes), a3);
      } else {
        const __m512d w = _mm512_set1_pd(weights[e]);
        a0 = _mm512_fmadd_pd(w, _mm512_loadu_pd(x), a0);
        a1 = _mm512_fmadd_pd(w, _mm512_loadu_pd(x + kLanes), a1);
        a2 = _mm512_fmadd_pd(w, _mm512_loadu_pd(x + 2 * kLanes), a2);
        a3 = _mm512_fmadd_pd(w, _mm512_loadu_pd(x + 3 * kLanes), a3);
      }
    }
    const Mask all = Mask(~Mask(0));
    EmitChannels(a0, out, all, targets, at);
    EmitChannels(a1, out + kLanes, all, targets, at + kLanes);
    EmitChannels(a2, out + 2 * kLanes, all, targets, at + 2 * kLanes);
    EmitChannels(a3, out + 3 * kLanes, all, targets, at + 3 * kLanes);
    return;
  }
  for (int64_t e = e0; e < e1; ++e) {
    const A *x = src + (static_cast<int64_t>(srcIdx[e]) - srcFirst) * c + k0;
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      if (v >= vectors) break;
      if constexpr (std::is_same_v<A, float>) {
        acc[v] = _mm512_fmadd_ps(_mm512_set1_ps(weights[e]), _mm512_maskz_loadu_ps(mask[v], x + v * kLanes),
                                 acc[v]);
      } else {
        acc[v] = _mm512_fmadd_pd(_mm512_set1_pd(weights[e]), _mm512_maskz_loadu_pd(mask[v], x + v * kLanes),
                                 acc[v]);
      }
    }
  }
  for (int v = 0; v < vectors; ++v) EmitChannels(acc[v], out + v * kLanes, mask[v], targets, at + v * kLanes);
}
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
// GatherChannelChunk (below) for AVX2: up to 8 vectors of channels, the accumulators in registers
// across the entry list, a partial last vector loaded and stored with a mask; the results go to out,
// or to the targets at element offset `at` (w * v assigned, or added with one FMA).
template <typename A>
inline void GatherChannelChunkAvx2(const A *__restrict src, int64_t srcFirst,
                                   const int32_t *__restrict srcIdx, const A *__restrict weights, int64_t e0,
                                   int64_t e1, int64_t c, int64_t k0, int64_t width, A *__restrict out,
                                   const RowTargets<A> *targets, int64_t at) {
  using L = Avx2Lanes<A>;
  constexpr int kMaxVectors = 8;
  const int vectors = static_cast<int>((width + L::kLanes - 1) / L::kLanes);
  const typename L::Mask tail = L::FirstLanes(width - (vectors - 1) * L::kLanes);
  typename L::Vec acc[kMaxVectors];
  for (int v = 0; v < kMaxVectors; ++v) acc[v] = L::Zero();
  const bool full = width == kMaxVectors * L::kLanes;
  const bool partial = width % L::kLanes != 0;  // the last vector is masked (tail)
  for (int64_t e = e0; e < e1; ++e) {
    const A *x = src + (static_cast<int64_t>(srcIdx[e]) - srcFirst) * c + k0;
    const typename L::Vec w = L::Broadcast(weights[e]);
    if (full) {
#pragma GCC unroll 8
      for (int v = 0; v < kMaxVectors; ++v) acc[v] = L::Fma(w, L::Load(x + v * L::kLanes), acc[v]);
      continue;
    }
#pragma GCC unroll 8
    for (int v = 0; v < kMaxVectors; ++v) {
      if (v >= vectors) break;
      const A *p = x + v * L::kLanes;
      acc[v] = L::Fma(w, partial && v + 1 == vectors ? L::Load(p, tail) : L::Load(p), acc[v]);
    }
  }
#pragma GCC unroll 8
  for (int v = 0; v < kMaxVectors; ++v) {  // unrolled like the sums, so that acc stays in registers
    if (v >= vectors) break;
    const bool masked = partial && v + 1 == vectors;
    if (targets == nullptr) {
      StoreLanes(out + v * L::kLanes, acc[v], masked, tail);
      continue;
    }
    for (int t = 0; t < targets->count; ++t) {
      ApplyTargetLanes(targets->row[t] + at + v * L::kLanes, acc[v], targets->w[t], targets->assign[t],
                       masked, tail);
    }
  }
}
#endif

// The outputs [j0, j1) of a RowGather, from a source row whose first element is source position
// srcFirst (a W chunk of the width-last backward); the whole row is {0, dstLen, 0}.
struct GatherSpan {
  int64_t j0, j1, srcFirst;
};

// Where GatherChannels' source row lives. A row read from memory has the positions of a later output
// requested ahead; a row the kernel has just computed (in cache) does not: there the requests only take
// load slots (a 64 KB row in L2: 53 -> 33 cycles per output position without them).
enum class SourceIn { kMemory, kCache };

// W pass of a channels-inner row: dst[(j - j0) * c + k] = sum over j's list of
// w * src[(s - srcFirst) * c + k] for j in span. The channel vectors of one j are accumulated in
// registers across its list, then stored once, or, with targets (the backward's H scatter), applied
// to the target rows instead of dst (not written then).
template <typename A>
inline void GatherChannels(const RowGather<A> &g, GatherSpan span, const A *__restrict src, A *__restrict dst,
                           int64_t c, SourceIn sourceIn, const RowTargets<A> *targets = nullptr) {
  constexpr int kLanes = 64 / static_cast<int>(sizeof(A));  // one 64-byte vector of A
  constexpr int kChunk = 4 * kLanes;                        // channels accumulated at once
  const int64_t *__restrict begin = g.begin.data();
  const int32_t *__restrict srcIdx = g.src.data();
  const A *__restrict weights = g.w.data();
  const int64_t srcFirst = span.srcFirst;
  // The source is streamed once per row; ask for the entries of output j + kAhead while j is summed.
  constexpr int64_t kAhead = 4;
  const int64_t lineElems = 64 / static_cast<int64_t>(sizeof(A));
  for (int64_t j = span.j0; j < span.j1; ++j) {
    const int64_t at = (j - span.j0) * c;
    A *out = dst + at;
    const int64_t e0 = begin[j], e1 = begin[j + 1];
    if (sourceIn == SourceIn::kMemory && j + kAhead < span.j1) {
      const int64_t a0 = begin[j + kAhead], a1 = begin[j + kAhead + 1];
      if (a0 < a1) {
        const A *first = src + (static_cast<int64_t>(srcIdx[a0]) - srcFirst) * c;
        const A *last = src + (static_cast<int64_t>(srcIdx[a1 - 1]) - srcFirst) * c + c;
        for (const A *p = first; p < last; p += lineElems) __builtin_prefetch(p, 0, 3);
      }
    }
    for (int64_t k0 = 0; k0 < c; k0 += kChunk) {
      const int64_t width = c - k0 < kChunk ? c - k0 : kChunk;
#if defined(TRILINEAR3D_HAVE_AVX512)
      GatherChannelChunk(src, srcFirst, srcIdx, weights, e0, e1, c, k0, width, out + k0, targets, at + k0);
      continue;
#elif defined(TRILINEAR3D_HAVE_AVX2)
      GatherChannelChunkAvx2(src, srcFirst, srcIdx, weights, e0, e1, c, k0, width, out + k0, targets,
                             at + k0);
      continue;
#endif
      A acc[kChunk] = {};
      for (int64_t e = e0; e < e1; ++e) {
        const A w = weights[e];
        const A *x = src + (static_cast<int64_t>(srcIdx[e]) - srcFirst) * c + k0;
        for (int64_t k = 0; k < width; ++k) acc[k] += w * x[k];
      }
      if (targets == nullptr) {
        for (int64_t k = 0; k < width; ++k) out[k0 + k] = acc[k];
        continue;
      }
      for (int t = 0; t < targets->count; ++t) {
        AxpyRow(targets->row[t] + at + k0, acc, targets->w[t], width, targets->assign[t]);
      }
    }
  }
}

// GatherChannels over a whole row read from memory.
template <typename A>
inline void GatherChannels(const RowGather<A> &g, const A *__restrict src, A *__restrict dst, int64_t c,
                           const RowTargets<A> *targets = nullptr) {
  GatherChannels(g, GatherSpan{0, g.dstLen, 0}, src, dst, c, SourceIn::kMemory, targets);
}

template <typename A>
inline void GatherRow(const RowGather<A> &g, const A *src, A *dst) {
  GatherRows<1>(g, &src, &dst);
}

// The vector width (elements of A) this ISA's GatherRow uses; 0 means scalar lists.
template <typename A>
constexpr int GatherLanes() {
#if defined(TRILINEAR3D_HAVE_AVX512)
  return 64 / sizeof(A);
#elif defined(TRILINEAR3D_HAVE_AVX2)
  return 32 / sizeof(A);
#else
  return 0;
#endif
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_SIMD_ROW_OPS_H_
