// The doubling stencil's W step (op_kernel/isa/upsample_backward_stencil2x.cpp), compiled once per
// ISA: the vectors of the vector ISAs (Lanes), the W step of one vector (AVX-512: lane permutes of the
// even and odd elements; AVX2 and the baseline tier's 128-bit vectors: shuffles of loads), and
// Stencil2xWStep, the W step of a strip or a block of vectors of one gradOut row with the row end's
// masks worked out once per call (a baseline tier without vectors: of a whole row).
#ifndef TRILINEAR3D_OP_KERNEL_STENCIL2X_W_STEP_H_
#define TRILINEAR3D_OP_KERNEL_STENCIL2X_W_STEP_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>
#include <cstring>

#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x {
// Internal linkage, as in the one file that includes these headers
// (op_kernel/isa/upsample_backward_stencil2x.cpp): its noinline members are neither exported from the
// library nor called through the PLT.
namespace {

using tiling::TilingData;

// Where a W strip ends (vector kernels): inside the row, or at its end. The row's last vector is
// loaded with masks (AVX2: through a buffer; nothing past the row read; all lanes when it is whole)
// and its last output's g[2k + 2] is the row's last element.
enum class RowEnd { kNo, kEnd };

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
// The W step leaves out its factor 1/4: 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]) is two adds
// and an FMA, on both of Zen 4's FP pipe pairs (its adds and its FMAs), where 1/4, 3/4, 3/4, 1/4
// take a multiply and three FMAs on one (the difference shows with gradOut in L2, not by itself
// with gradOut in memory). The H step puts the 1/4 back: its weights are 1/16 and 3/16 (exact:
// powers of two apart from 1/4 and 3/4). A W result is then at most 8 times the largest |gradOut|
// instead of 2 times: its sums overflow above about 4e37 instead of 1.7e38.
constexpr float kHFar = 1.0f / 16, kHNear = 3.0f / 16;

// The vectors of the strip code: AVX-512's 16 lanes or AVX2's 8, and a strip's widest (the H sums of
// a strip, two per vector, stay in registers: 32 zmm or 16 ymm). Load and Store are aligned
// (accumulator rows and Quad's sums start 64-byte lines); Stream is a non-temporal store.
#if defined(TRILINEAR3D_HAVE_AVX512)
struct Lanes {
  using Vec = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kMaxStrip = 8;
  // Strips of whole rows (B1's): planes outside Quad's shape read gradOut in order plane by plane.
  static constexpr bool kLockstepAll = false;
  __attribute__((always_inline)) static Vec Zero() { return _mm512_setzero_ps(); }
  __attribute__((always_inline)) static Vec Set1(float x) { return _mm512_set1_ps(x); }
  __attribute__((always_inline)) static Vec Load(const float *p) { return _mm512_load_ps(p); }
  __attribute__((always_inline)) static void Store(float *p, Vec v) { _mm512_store_ps(p, v); }
  __attribute__((always_inline)) static void Stream(float *p, Vec v) { _mm512_stream_ps(p, v); }
  __attribute__((always_inline)) static Vec Mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  __attribute__((always_inline)) static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
};
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
struct Lanes {
  using Vec = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kMaxStrip = 4;
  static constexpr bool kLockstepAll = true;  // every plane of a lockstep row width (Lockstep)
  __attribute__((always_inline)) static Vec Zero() { return _mm256_setzero_ps(); }
  __attribute__((always_inline)) static Vec Set1(float x) { return _mm256_set1_ps(x); }
  __attribute__((always_inline)) static Vec Load(const float *p) { return _mm256_load_ps(p); }
  __attribute__((always_inline)) static void Store(float *p, Vec v) { _mm256_store_ps(p, v); }
  __attribute__((always_inline)) static void Stream(float *p, Vec v) { _mm256_stream_ps(p, v); }
  __attribute__((always_inline)) static Vec Mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  __attribute__((always_inline)) static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
};
#endif
#if defined(TRILINEAR3D_HAVE_VEC128)
// The baseline tier's 4 lanes (Vec128Lanes: SSE2 or NEON; Fma: mul + add on SSE2), strips of up to
// 4 vectors as AVX2's (16 xmm registers on SSE2). Select: a where the lanes of mask are set, else b.
struct Lanes {
  using V4 = Vec128Lanes<float>;
  using Vec = V4::Vec;
  static constexpr int kLanes = 4;
  static constexpr int kMaxStrip = 4;
  static constexpr bool kLockstepAll = true;
  __attribute__((always_inline)) static Vec Zero() { return V4::Zero(); }
  __attribute__((always_inline)) static Vec Set1(float x) { return V4::Broadcast(x); }
  __attribute__((always_inline)) static Vec Load(const float *p) { return V4::Load(p); }
  __attribute__((always_inline)) static void Store(float *p, Vec v) { V4::Store(p, v); }
  __attribute__((always_inline)) static void Stream(float *p, Vec v) { V4::Stream(p, v); }
  __attribute__((always_inline)) static Vec Mul(Vec a, Vec b) { return V4::Mul(a, b); }
  __attribute__((always_inline)) static Vec Fma(Vec a, Vec b, Vec c) { return V4::Fma(a, b, c); }
#if defined(__aarch64__)
  __attribute__((always_inline)) static Vec Select(Vec mask, Vec a, Vec b) {
    return vbslq_f32(vreinterpretq_u32_f32(mask), a, b);
  }
#else
  __attribute__((always_inline)) static Vec Select(Vec mask, Vec a, Vec b) {
    return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
  }
#endif
};
#endif
#endif

#if defined(TRILINEAR3D_HAVE_AVX512)
// Lanes kShift .. kShift + 15 of the 32 lanes (b, then a): valignd. The all-lanes masked form: the
// plain intrinsic starts from _mm512_undefined_epi32(), which GCC 12's -Wuninitialized reports.
template <int kShift>
inline __m512 ShiftIn(__m512i a, __m512i b) {
  return _mm512_castsi512_ps(_mm512_mask_alignr_epi32(a, __mmask16(0xffff), a, b, kShift));
}

// The W step's pieces, shared by Stencil2xRunner::WStep and WBlock so that both give the
// same bits (which of them runs for a plane follows the D chunks, i.e. the core count). EvenOdd:
// the even and odd elements of 32 consecutive gradOut elements (lo, hi). WRight: g[2k + 2] per
// output lane (nextEven's lane 0 shifted in; WStep blends the row's last element into a partial
// last vector). WOutput: lane k = 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]), g[2k - 1] from
// odd shifted by one lane with prevOdd's lane 15.
__attribute__((always_inline)) inline void EvenOdd(__m512 lo, __m512 hi, __m512 *even, __m512 *odd) {
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odds = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  *even = _mm512_permutex2var_ps(lo, evens, hi);
  *odd = _mm512_permutex2var_ps(lo, odds, hi);
}

__attribute__((always_inline)) inline __m512 WRight(__m512 even, __m512 nextEven) {
  return ShiftIn<1>(_mm512_castps_si512(nextEven), _mm512_castps_si512(even));
}

__attribute__((always_inline)) inline __m512 WOutput(__m512 even, __m512 odd, __m512 prevOdd, __m512 right) {
  const __m512 left = ShiftIn<15>(_mm512_castps_si512(odd), _mm512_castps_si512(prevOdd));
  return _mm512_fmadd_ps(_mm512_set1_ps(3.0f), _mm512_add_ps(even, odd), _mm512_add_ps(left, right));
}
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
// The AVX2 W step of one vector: outputs k = 0 .. 7 from the 16 gradOut elements g[0 .. 15] at its
// start, as AVX-512's WOutput: 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]). AVX2 has no
// two-source permute, but _mm256_shuffle_ps picks the even (or odd) elements of two vectors within
// each 128-bit half: from a = g[0 .. 7] and b = g[8 .. 15], lanes in the order of outputs
// 0 1 4 5 | 2 3 6 7. The same shuffle of the vectors at g - 1 and g + 7 gives g[2k - 1] in that
// order, and of those at g + 1 and g + 9 (odd elements) g[2k + 2]: six loads per vector (two of
// them across a 64-byte line where g starts one), where unaligned loads at offsets -1, 0, 1, 2 of
// both halves took eight (three across a line) and twice the adds; one permute puts the outputs in
// order. The same operands in the same order: the same bits as AVX-512's.
__attribute__((always_inline)) inline __m256 WCombine(__m256 a, __m256 b, __m256 before0, __m256 before8,
                                                      __m256 after1, __m256 after9) {
  const __m256 even = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));              // g[2k]
  const __m256 odd = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));               // g[2k + 1]
  const __m256 left = _mm256_shuffle_ps(before0, before8, _MM_SHUFFLE(2, 0, 2, 0));  // g[2k - 1]
  const __m256 right = _mm256_shuffle_ps(after1, after9, _MM_SHUFFLE(3, 1, 3, 1));   // g[2k + 2]
  const __m256 out =
      _mm256_fmadd_ps(_mm256_set1_ps(3.0f), _mm256_add_ps(even, odd), _mm256_add_ps(left, right));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(out), _MM_SHUFFLE(3, 1, 2, 0)));
}

// A whole vector at g. kFirst: g starts the row (g[-1] is g[0], clamped); kLast: g[15] ends it
// (g[16] is g[15]); those come from lane permutes (of the lanes the shuffles read), so nothing
// outside the row is read.
template <bool kFirst, bool kLast>
__attribute__((always_inline)) inline __m256 WVector(const float *g) {
  const __m256 a = _mm256_loadu_ps(g), b = _mm256_loadu_ps(g + 8);
  const __m256 before0 = kFirst ? _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6))
                                : _mm256_loadu_ps(g - 1);
  const __m256 after9 =
      kLast ? _mm256_permutevar8x32_ps(b, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7)) : _mm256_loadu_ps(g + 9);
  return WCombine(a, b, before0, _mm256_loadu_ps(g + 7), _mm256_loadu_ps(g + 1), after9);
}

// The row's partial last vector: its n gradOut elements at g (n even, below 16; masks lo and hi of
// the halves), copied into a buffer between g[-1] (g[0] where g starts the row) and copies of the
// row's last element, then WCombine from the buffer: the same values as WVector's, nothing past the
// row read. Lanes of outputs past the row hold what the copies give (stored into scratch padding).
__attribute__((always_inline)) inline __m256 WVectorPartial(const float *g, int64_t n, bool first, __m256i lo,
                                                            __m256i hi) {
  alignas(32) float buf[48];
  buf[0] = first ? g[0] : g[-1];
  _mm256_storeu_ps(buf + 1, _mm256_maskload_ps(g, lo));
  _mm256_storeu_ps(buf + 9, _mm256_maskload_ps(g + 8, hi));
  const __m256 last = _mm256_set1_ps(g[n - 1]);
  _mm256_storeu_ps(buf + 1 + n, last);
  _mm256_storeu_ps(buf + 9 + n, last);
  return WCombine(_mm256_loadu_ps(buf + 1), _mm256_loadu_ps(buf + 9), _mm256_loadu_ps(buf),
                  _mm256_loadu_ps(buf + 8), _mm256_loadu_ps(buf + 2), _mm256_loadu_ps(buf + 10));
}
#endif

#if defined(TRILINEAR3D_HAVE_VEC128)
// The baseline tier's W step of one vector: outputs k = 0 .. 3 from the 8 gradOut elements g[0 .. 7]
// at its start, as AVX2's WCombine: 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]). The even (odd)
// elements of two vectors (SSE2 shufps, NEON uzp1 / uzp2) come in output order: from a = g[0 .. 3]
// and b = g[4 .. 7] g[2k] and g[2k + 1], from the vectors at g - 1 and g + 3 g[2k - 1], from those
// at g + 1 and g + 5 g[2k + 2]. The same operands in the same order as AVX2's (Fma: one rounding on
// NEON, a multiply and an add on SSE2).
__attribute__((always_inline)) inline Lanes::Vec WCombine(Lanes::Vec a, Lanes::Vec b, Lanes::Vec before0,
                                                          Lanes::Vec before4, Lanes::Vec after1,
                                                          Lanes::Vec after5) {
#if defined(__aarch64__)
  const float32x4_t even = vuzp1q_f32(a, b), odd = vuzp2q_f32(a, b);
  const float32x4_t left = vuzp1q_f32(before0, before4), right = vuzp2q_f32(after1, after5);
  return vfmaq_f32(vaddq_f32(left, right), vdupq_n_f32(3.0f), vaddq_f32(even, odd));
#else
  const __m128 even = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));              // g[2k]
  const __m128 odd = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));               // g[2k + 1]
  const __m128 left = _mm_shuffle_ps(before0, before4, _MM_SHUFFLE(2, 0, 2, 0));  // g[2k - 1]
  const __m128 right = _mm_shuffle_ps(after1, after5, _MM_SHUFFLE(3, 1, 3, 1));   // g[2k + 2]
  return _mm_add_ps(_mm_mul_ps(_mm_set1_ps(3.0f), _mm_add_ps(even, odd)), _mm_add_ps(left, right));
#endif
}

// A whole vector at g. kFirst: g starts the row (g[-1] is g[0], clamped); kLast: g[7] ends it (g[8]
// is g[7]); those come from lane moves of the loaded vectors, so nothing outside the row is read.
template <bool kFirst, bool kLast>
__attribute__((always_inline)) inline Lanes::Vec WVector(const float *g) {
  using L = Lanes;
  const L::Vec a = L::Load(g), b = L::Load(g + 4);
#if defined(__aarch64__)
  const L::Vec before0 = kFirst ? vextq_f32(vdupq_laneq_f32(a, 0), a, 3) : L::Load(g - 1);
  const L::Vec after5 = kLast ? vextq_f32(b, vdupq_laneq_f32(b, 3), 1) : L::Load(g + 5);
#else
  const L::Vec before0 = kFirst ? _mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 1, 0, 0)) : _mm_loadu_ps(g - 1);
  const L::Vec after5 = kLast ? _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 3, 2, 1)) : _mm_loadu_ps(g + 5);
#endif
  return WCombine(a, b, before0, L::Load(g + 3), L::Load(g + 1), after5);
}

// The row's partial last vector: its n gradOut elements at g (n even, below 8), copied into a buffer
// between g[-1] (g[0] where g starts the row) and copies of the row's last element, then WCombine
// from the buffer: the same values as WVector's, nothing past the row read. Lanes of outputs past the
// row hold what the copies give (stored into scratch padding).
__attribute__((always_inline)) inline Lanes::Vec WVectorPartial(const float *g, int64_t n, bool first) {
  using L = Lanes;
  alignas(16) float buf[16];
  buf[0] = first ? g[0] : g[-1];
  for (int64_t i = 0; i < n; ++i) buf[1 + i] = g[i];
  for (int64_t i = 1 + n; i < 16; ++i) buf[i] = g[n - 1];
  return WCombine(L::Load(buf + 1), L::Load(buf + 5), L::Load(buf), L::Load(buf + 4), L::Load(buf + 2),
                  L::Load(buf + 6));
}
#endif

// The root of the kernel's layers (Stencil2xWStep -> Stencil2xDStep -> Stencil2xStrips ->
// Stencil2xLockstep -> the runner): the W step, with the row end's masks of the tiling's W axis.
class Stencil2xWStep {
 protected:
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
  using L = Lanes;
  using Vec = L::Vec;
  static constexpr int kL = L::kLanes;

  explicit Stencil2xWStep(const TilingData &t) {
#if defined(TRILINEAR3D_HAVE_AVX512)
    // The row's last vector: its gradOut elements (masks of its two loads) and its last output.
    const int64_t inW = t.w.inSize;
    const int64_t left = 2 * inW - 32 * ((inW - 1) / 16);  // 1 .. 32
    lastLo_ = Avx512Lanes<float>::FirstLanes(left);
    lastHi_ = Avx512Lanes<float>::FirstLanes(left - 16);
    lastLane_ = __mmask16(1u << ((inW - 1) % 16));
    partialEnd_ = inW % 16 != 0;
    zeroTapLane_ = __mmask16(inW > 1 ? 2 : 1);
#elif defined(TRILINEAR3D_HAVE_VEC128)
    // The row's last vector: its gradOut elements (2 .. 8).
    const int64_t inW = t.w.inSize;
    lastN_ = 2 * inW - 8 * ((inW - 1) / 4);
    partialEnd_ = inW % 4 != 0;
    alignas(16) float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const uint32_t on = 0xffffffffu;
    std::memcpy(&lane[inW > 1 ? 1 : 0], &on, sizeof(on));
    zeroTapLane_ = L::Load(lane);
#else
    // The row's last vector: its gradOut elements (2 .. 16) and the masks of its two halves.
    const int64_t inW = t.w.inSize;
    lastN_ = 2 * inW - 16 * ((inW - 1) / 8);
    lastLo_ = Avx2Lanes<float>::FirstLanes(lastN_);
    lastHi_ = Avx2Lanes<float>::FirstLanes(lastN_ - 8);
    partialEnd_ = inW % 8 != 0;
    zeroTapLane_ = _mm256_castsi256_ps(Avx2Lanes<float>::FirstLanes(inW > 1 ? 2 : 1) ^
                                       Avx2Lanes<float>::FirstLanes(inW > 1 ? 1 : 0));
#endif
  }

  // A strip's source elements outside its vectors, relative to its first (g[32 j0] of the row):
  // g[32 j0 - 1] (g[0] at the row start) and g[32 (j0 + V)] (g[outW - 1] at the row end). The
  // caller keeps the strip's address as its only pointer: derived per vector from the row and j0,
  // the offsets end up on the stack and every gradOut load waits for a stack load.
  struct StripEdges {
    int64_t before, after;
    bool first;  // the strip starts the row
  };

#if defined(TRILINEAR3D_HAVE_AVX512)
  // r = the W step of gradOut row `row` for gradInput columns kL * j0 .. kL * (j0 + V): output
  // lane k of vector j sums 1/4 g[2k - 1], 3/4 g[2k], 3/4 g[2k + 1], 1/4 g[2k + 2] (clamped),
  // from the row's even and odd elements shifted by one lane across vector boundaries. kRowEnd:
  // the strip ends the row (its last vector may be partial: loaded with masks, nothing past the
  // row read, and its last output's g[2k + 2] is the row's last element).
  template <int V, RowEnd kEnd>
  __attribute__((always_inline)) void WStep(const float *strip, const StripEdges &edges, Vec (&r)[V]) const {
    constexpr bool kRowEnd = kEnd == RowEnd::kEnd;
    Vec even[V], odd[V];
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      const float *at = strip + 32 * j;
      const bool masked = kRowEnd && j + 1 == V && partialEnd_;  // a whole last vector: plain loads
      const Vec lo = masked ? _mm512_maskz_loadu_ps(lastLo_, at) : _mm512_loadu_ps(at);
      const Vec hi = masked ? _mm512_maskz_loadu_ps(lastHi_, at + 16) : _mm512_loadu_ps(at + 16);
      EvenOdd(lo, hi, &even[j], &odd[j]);
    }
    // g[2k - 1] before the strip (g[0] at the row start) and g[2k + 2] after it (g[outW - 1] at the end).
    const Vec oddBefore = L::Set1(strip[edges.before]);
    const Vec evenAfter = L::Set1(strip[edges.after]);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      Vec right = WRight(even[j], j + 1 == V ? evenAfter : even[j + 1]);
      if (kRowEnd && j + 1 == V && partialEnd_) right = _mm512_mask_blend_ps(lastLane_, right, evenAfter);
      r[j] = WOutput(even[j], odd[j], j == 0 ? oddBefore : odd[j - 1], right);
    }
    if (edges.first) {  // 0 * g[0] into output min(1, inW - 1): the zero-weight tap (stencil2x_steps.h)
      r[0] = _mm512_mask3_fmadd_ps(L::Zero(), L::Set1(strip[0]), r[0], zeroTapLane_);
    }
  }

  // WStep for S whole vectors at `at` of a row of whole vectors (kFirst: at starts the row, whose
  // zero-weight tap is then on lane 1; kLast: the block ends it): the same operations, with nothing left
  // to decide at run time (in Quad's row loop, WStep's checks of partialEnd_ and of the edges cost a fifth
  // of B1's time). The elements beside the block, g[-1] and g[32 S], are the only lanes WOutput and WRight
  // take from the neighbouring vectors: broadcast, they give the bits of the whole row's step.
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) static void WBlock(const float *at, Vec (&r)[S]) {
    Vec even[S], odd[S];
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j)
      EvenOdd(_mm512_loadu_ps(at + 32 * j), _mm512_loadu_ps(at + 32 * j + 16), &even[j], &odd[j]);
    const Vec first = L::Set1(at[0]);
    const Vec before = kFirst ? first : L::Set1(at[-1]);
    const Vec after = L::Set1(kLast ? at[32 * S - 1] : at[32 * S]);
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) {
      r[j] = WOutput(even[j], odd[j], j == 0 ? before : odd[j - 1],
                     WRight(even[j], j == S - 1 ? after : even[j + 1]));
    }
    if constexpr (kFirst)
      r[0] = _mm512_mask3_fmadd_ps(L::Zero(), first, r[0], __mmask16(2));  // 0 * g[0] into output 1
  }
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
  // r = the W step of gradOut row `row` for gradInput columns 8 j0 .. 8 (j0 + V) (WVector per
  // vector, the same values whatever the strips): output lane k of vector j sums 1/4 g[2k - 1],
  // 3/4 g[2k], 3/4 g[2k + 1], 1/4 g[2k + 2] (clamped; the 1/4 left out, see kHFar). kRowEnd: the
  // strip ends the row (its last vector may be partial: WVectorPartial, nothing past the row read).
  template <int V, RowEnd kEnd>
  __attribute__((always_inline)) void WStep(const float *strip, const StripEdges &edges, Vec (&r)[V]) const {
    constexpr bool kRowEnd = kEnd == RowEnd::kEnd;
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      const float *at = strip + 16 * j;
      const bool first = j == 0 && edges.first;
      if (kRowEnd && j + 1 == V) {
        if (partialEnd_) {
          r[j] = WVectorPartial(at, lastN_, first, lastLo_, lastHi_);
        } else {
          r[j] = first ? WVector<true, true>(at) : WVector<false, true>(at);
        }
      } else {
        r[j] = first ? WVector<true, false>(at) : WVector<false, false>(at);
      }
    }
    if (edges.first) {  // 0 * g[0] into output min(1, inW - 1): the zero-weight tap (stencil2x_steps.h)
      r[0] = _mm256_blendv_ps(r[0], L::Fma(L::Zero(), L::Set1(strip[0]), r[0]), zeroTapLane_);
    }
  }

  // WStep for S whole vectors at `at` of a row of whole vectors (kFirst: at starts the row, whose
  // zero-weight tap is then on lane 1; kLast: the block ends it): the same operations, with nothing
  // left to decide at run time (Quad's row loop).
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) static void WBlock(const float *at, Vec (&r)[S]) {
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) {
      const float *g = at + 16 * j;
      if (kFirst && j == 0) {
        r[j] = kLast && j + 1 == S ? WVector<true, true>(g) : WVector<true, false>(g);
      } else {
        r[j] = kLast && j + 1 == S ? WVector<false, true>(g) : WVector<false, false>(g);
      }
    }
    if constexpr (kFirst) r[0] = _mm256_blend_ps(r[0], L::Fma(L::Zero(), L::Set1(at[0]), r[0]), 2);
  }
#endif
#if defined(TRILINEAR3D_HAVE_VEC128)
  // AVX2's WStep and WBlock on the baseline tier's vectors (4 gradInput columns of 8 gradOut elements
  // each): the same operations per output.
  template <int V, RowEnd kEnd>
  __attribute__((always_inline)) void WStep(const float *strip, const StripEdges &edges, Vec (&r)[V]) const {
    constexpr bool kRowEnd = kEnd == RowEnd::kEnd;
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      const float *at = strip + 2 * kL * j;
      const bool first = j == 0 && edges.first;
      if (kRowEnd && j + 1 == V) {
        if (partialEnd_) {
          r[j] = WVectorPartial(at, lastN_, first);
        } else {
          r[j] = first ? WVector<true, true>(at) : WVector<false, true>(at);
        }
      } else {
        r[j] = first ? WVector<true, false>(at) : WVector<false, false>(at);
      }
    }
    if (edges.first) {  // 0 * g[0] into output min(1, inW - 1): the zero-weight tap (stencil2x_steps.h)
      r[0] = L::Select(zeroTapLane_, L::Fma(L::Zero(), L::Set1(strip[0]), r[0]), r[0]);
    }
  }

  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) static void WBlock(const float *at, Vec (&r)[S]) {
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) {
      const float *g = at + 2 * kL * j;
      if (kFirst && j == 0) {
        r[j] = kLast && j + 1 == S ? WVector<true, true>(g) : WVector<true, false>(g);
      } else {
        r[j] = kLast && j + 1 == S ? WVector<false, true>(g) : WVector<false, false>(g);
      }
    }
    if constexpr (kFirst) {  // lane 1 (a row of whole vectors has inW >= 4)
      r[0] = L::Select(SecondLane(), L::Fma(L::Zero(), L::Set1(at[0]), r[0]), r[0]);
    }
  }

  // The mask of lane 1.
  __attribute__((always_inline)) static Vec SecondLane() {
    alignas(16) float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const uint32_t on = 0xffffffffu;
    std::memcpy(&lane[1], &on, sizeof(on));
    return L::Load(lane);
  }
#endif

  bool partialEnd_ = false;  // the row's last vector is partial (masks needed)
#if defined(TRILINEAR3D_HAVE_AVX512)
  __mmask16 lastLo_ = 0, lastHi_ = 0, lastLane_ = 0, zeroTapLane_ = 0;
#elif defined(TRILINEAR3D_HAVE_VEC128)
  Vec zeroTapLane_;    // lane min(1, inW - 1)
  int64_t lastN_ = 0;  // gradOut elements of the row's last vector
#else
  __m256i lastLo_, lastHi_;  // the masks of the last vector's halves (WVectorPartial)
  __m256 zeroTapLane_;       // lane min(1, inW - 1)
  int64_t lastN_ = 0;        // gradOut elements of the row's last vector
#endif
#else
  explicit Stencil2xWStep(const TilingData & /*t*/) {}

  // r[k] = 1/4 g[2k - 1] + 3/4 g[2k] + 3/4 g[2k + 1] + 1/4 g[2k + 2] (clamped), and r[min(1, inW - 1)]
  // += 0 * g[0] (the zero-weight tap).
  static void WStep(const float *g, int64_t inW, float *r) {
    const int64_t last = 2 * inW - 1;
    for (int64_t k = 0; k < inW; ++k) {
      const float before = g[k == 0 ? 0 : 2 * k - 1];
      const float after = g[2 * k + 2 <= last ? 2 * k + 2 : last];
      r[k] = 0.25f * before + 0.75f * g[2 * k] + 0.75f * g[2 * k + 1] + 0.25f * after;
    }
    r[inW > 1 ? 1 : 0] += 0.0f * g[0];
  }
#endif
};

}  // namespace
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x

#endif  // TRILINEAR3D_OP_KERNEL_STENCIL2X_W_STEP_H_
