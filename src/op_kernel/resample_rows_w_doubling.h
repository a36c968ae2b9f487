// The forward's W pass over a doubling run (RowGather::doubling, the interior of an exact 2x
// upsampling): out 2k and 2k + 1 for V consecutive k from three shifted vectors of the source row
// (k - 1, k, k + 1), two FMAs each, interleaved into two output vectors. The outputs outside the run
// (the row's ends) go through the gather's lists. Per 2V outputs: 3 loads, 4 FMAs, 2 to 4 shuffles
// and 2 stores, where the windowed steps take a window, 2 permutes and 2 FMAs per V outputs and
// per-step index, weight and mask loads. DoublingRowStreamed stores a row straight into the
// destination with non-temporal stores, in place of a scratch row and a streamed copy of it.
// Every output sums its list in list order with FMAs from zero, as the vector steps do
// (resample_rows_w_inner_avx2.h, _avx512.h), so the bits are the steps' bits. The baseline tier's
// 128-bit vectors (Vec128Lanes: SSE2, NEON) run the same code; their lanes' Fma sums as its scalar
// lists do (ListSum: a multiply and an add on SSE2, one FMA on NEON), so the bits are the lists'.
// A baseline tier without vectors has its own loops (DoublingRowBaseline).
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_DOUBLING_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_DOUBLING_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>
#include <type_traits>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace w_inner {

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)

// This tier has the doubling vectors (DoublingRows, DoublingRowStreamed).
constexpr bool kDoublingVectors = true;

// Output j of g through its list: FMAs from zero in list order (the outputs outside the run). Always
// inlined: the W passes call it at every row's ends, and a kernel file with more code in it made the
// compiler stop inlining it.
__attribute__((always_inline)) inline float ListOutput(const RowGather<float> &g, const float *src,
                                                       int64_t j) {
  float acc = 0.0f;
  for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
    acc = LaneFma(src[g.src[static_cast<size_t>(e)]], g.w[static_cast<size_t>(e)], acc);
  }
  return acc;
}

#if defined(TRILINEAR3D_HAVE_AVX512)
using DoublingLanes = Avx512Lanes<float>;

// out[0, 2V) = even[0], odd[0], even[1], odd[1], ... as two vectors.
inline void Interleave(__m512 even, __m512 odd, __m512 *first, __m512 *second) {
  // Lane i takes even[i / 2] (i even) or odd[i / 2] (i odd): index 16 + n is odd[n].
  const __m512i low = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i high = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  *first = _mm512_permutex2var_ps(even, low, odd);
  *second = _mm512_permutex2var_ps(even, high, odd);
}

inline void StreamVec(float *p, __m512 v) { _mm512_stream_ps(p, v); }  // one whole line

// v moved up one lane (lane 0 keeps v[0]), and down one lane (the last lane keeps its value). Two-source
// permutes of v with itself: GCC 12's one-source _mm512_permutexvar_ps trips -Wuninitialized at -O2.
inline __m512 ShiftUpOne(__m512 v) {
  return _mm512_permutex2var_ps(v, _mm512_set_epi32(14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0), v);
}
inline __m512 ShiftDownOne(__m512 v) {
  return _mm512_permutex2var_ps(v, _mm512_set_epi32(15, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1),
                                v);
}

// v with lane kLane set to x.
template <int kLane>
inline __m512 WithLane(__m512 v, float x) {
  return _mm512_mask_mov_ps(v, static_cast<__mmask16>(1u << kLane), _mm512_set1_ps(x));
}
#elif defined(TRILINEAR3D_HAVE_AVX2)
using DoublingLanes = Avx2Lanes<float>;

inline void Interleave(__m256 even, __m256 odd, __m256 *first, __m256 *second) {
  // Per 128-bit half: low = e0 o0 e1 o1 | e4 o4 e5 o5, high = e2 o2 e3 o3 | e6 o6 e7 o7.
  const __m256 low = _mm256_unpacklo_ps(even, odd), high = _mm256_unpackhi_ps(even, odd);
  *first = _mm256_permute2f128_ps(low, high, 0x20);
  *second = _mm256_permute2f128_ps(low, high, 0x31);
}

inline void StreamVec(float *p, __m256 v) { _mm256_stream_ps(p, v); }  // half a line

inline __m256 ShiftUpOne(__m256 v) {
  return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
}
inline __m256 ShiftDownOne(__m256 v) {
  return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7));
}

template <int kLane>
inline __m256 WithLane(__m256 v, float x) {
  return _mm256_blend_ps(v, _mm256_set1_ps(x), 1 << kLane);
}
#elif defined(__aarch64__)
using DoublingLanes = Vec128Lanes<float>;

inline void Interleave(float32x4_t even, float32x4_t odd, float32x4_t *first, float32x4_t *second) {
  *first = vzip1q_f32(even, odd);   // e0 o0 e1 o1
  *second = vzip2q_f32(even, odd);  // e2 o2 e3 o3
}

inline void StreamVec(float *p, float32x4_t v) { vst1q_f32(p, v); }

inline float32x4_t ShiftUpOne(float32x4_t v) { return vextq_f32(vdupq_laneq_f32(v, 0), v, 3); }
inline float32x4_t ShiftDownOne(float32x4_t v) { return vextq_f32(v, vdupq_laneq_f32(v, 3), 1); }

template <int kLane>
inline float32x4_t WithLane(float32x4_t v, float x) {
  return vsetq_lane_f32(x, v, kLane);
}
#else
using DoublingLanes = Vec128Lanes<float>;

inline void Interleave(__m128 even, __m128 odd, __m128 *first, __m128 *second) {
  *first = _mm_unpacklo_ps(even, odd);   // e0 o0 e1 o1
  *second = _mm_unpackhi_ps(even, odd);  // e2 o2 e3 o3
}

// Four back-to-back 16-byte stores fill a 64-byte line (a group is two of them: 8 outputs).
inline void StreamVec(float *p, __m128 v) { _mm_stream_ps(p, v); }

inline __m128 ShiftUpOne(__m128 v) { return _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 1, 0, 0)); }
inline __m128 ShiftDownOne(__m128 v) { return _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 3, 2, 1)); }

// v with lane kLane set to x (SSE2 has no blend: the lane is stored and reloaded).
template <int kLane>
inline __m128 WithLane(__m128 v, float x) {
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, v);
  lanes[kLane] = x;
  return _mm_load_ps(lanes);
}
#endif

using DoublingVec = DoublingLanes::Vec;
constexpr int64_t kDoublingLanes = DoublingLanes::kLanes;

inline DoublingVec Broadcast(float w) { return DoublingLanes::Broadcast(w); }
inline void StoreVec(float *p, DoublingVec v) { DoublingLanes::Store(p, v); }

// The pairs of V consecutive k from src[k - 1], src[k] and src[k + 1] as vectors: *first holds
// outputs 2k .. 2k + V - 1, *second the next V.
inline void DoublingPairs(DoublingVec before, DoublingVec at, DoublingVec after, const DoublingVec w[4],
                          DoublingVec *first, DoublingVec *second) {
  using L = DoublingLanes;
  const DoublingVec zero = L::Zero();
  Interleave(L::Fma(at, w[1], L::Fma(before, w[0], zero)), L::Fma(after, w[3], L::Fma(at, w[2], zero)), first,
             second);
}

// Outputs 2k .. 2k + 2V - 1 of the run.
inline void DoublingVector(const float *src, int64_t k, const DoublingVec w[4], DoublingVec *first,
                           DoublingVec *second) {
  using L = DoublingLanes;
  DoublingPairs(L::Load(src + k - 1), L::Load(src + k), L::Load(src + k + 1), w, first, second);
}

// Outputs per DoublingVector: two vectors.
constexpr int64_t kDoublingGroup = 2 * kDoublingLanes;

// Whether the doubling vectors serve g's rows: fp32, a run of at least V pairs, and the plan built
// for this tier (whose steps' bits they give).
template <typename A>
inline bool DoublingApplies(const RowGather<A> &g) {
  if constexpr (std::is_same_v<A, float>) {
    return g.lanes == GatherLanes<float>() && g.doubling.end - g.doubling.begin >= kDoublingLanes;
  }
  return false;
}

// The W pass of one fp32 row whose doubling run DoublingApplies to.
inline void DoublingRow(const RowGather<float> &g, const float *src, float *dst) {
  const DoublingRun<float> &run = g.doubling;
  const DoublingVec w[4] = {Broadcast(run.w[0]), Broadcast(run.w[1]), Broadcast(run.w[2]),
                            Broadcast(run.w[3])};
  for (int64_t j = 0; j < 2 * run.begin; ++j) dst[j] = ListOutput(g, src, j);
  DoublingVec first, second;
  int64_t k = run.begin;
  for (; k + kDoublingLanes <= run.end; k += kDoublingLanes) {
    DoublingVector(src, k, w, &first, &second);
    StoreVec(dst + 2 * k, first);
    StoreVec(dst + 2 * k + kDoublingLanes, second);
  }
  if (k < run.end) {  // the rest as the run's last V pairs: pairs computed twice get the same bits
    k = run.end - kDoublingLanes;
    DoublingVector(src, k, w, &first, &second);
    StoreVec(dst + 2 * k, first);
    StoreVec(dst + 2 * k + kDoublingLanes, second);
  }
  for (int64_t j = 2 * run.end; j < g.dstLen; ++j) dst[j] = ListOutput(g, src, j);
}

// Whether g is an exact doubling whose rows are whole groups: the run is k = 1 .. in - 2 (the pairs
// of every k but the first and the last), out is 2 in wide, and 2 in a multiple of 2V.
inline bool IsExactDoublingRow(const RowGather<float> &g) {
  const DoublingRun<float> &run = g.doubling;
  return run.begin == 1 && run.end == g.srcLen - 1 && g.dstLen == 2 * g.srcLen &&
         g.dstLen % kDoublingGroup == 0;
}

// DoublingRow written straight into a destination row with non-temporal stores of whole 64-byte
// lines (the forward's output, written once), for rows StreamsDoublingRows takes; out is 64-byte
// aligned. Every group of 2V outputs comes from one vector of pairs; the end groups' missing
// neighbours (src[-1], src[in]) are stood in for by a lane of the same vector, and their outputs
// outside the run (0, 1, 2 in - 2, 2 in - 1) are set from the lists.
inline void DoublingRowStreamed(const RowGather<float> &g, const float *src, float *out) {
  using L = DoublingLanes;
  const DoublingRun<float> &run = g.doubling;
  const DoublingVec w[4] = {Broadcast(run.w[0]), Broadcast(run.w[1]), Broadcast(run.w[2]),
                            Broadcast(run.w[3])};
  const int64_t in = g.srcLen;
  DoublingVec first, second;
  const DoublingVec head = L::Load(src);
  DoublingPairs(ShiftUpOne(head), head, L::Load(src + 1), w, &first, &second);
  first = WithLane<1>(WithLane<0>(first, ListOutput(g, src, 0)), ListOutput(g, src, 1));
  StreamVec(out, first);
  StreamVec(out + kDoublingLanes, second);
  for (int64_t k = kDoublingLanes; k < in - kDoublingLanes; k += kDoublingLanes) {
    DoublingVector(src, k, w, &first, &second);
    StreamVec(out + 2 * k, first);
    StreamVec(out + 2 * k + kDoublingLanes, second);
  }
  const int64_t k = in - kDoublingLanes;
  const DoublingVec tail = L::Load(src + k);
  DoublingPairs(L::Load(src + k - 1), tail, ShiftDownOne(tail), w, &first, &second);
  second = WithLane<kDoublingLanes - 1>(WithLane<kDoublingLanes - 2>(second, ListOutput(g, src, 2 * in - 2)),
                                        ListOutput(g, src, 2 * in - 1));
  StreamVec(out + 2 * k, first);
  StreamVec(out + 2 * k + kDoublingLanes, second);
}

// Whether DoublingRowStreamed can write g's rows: DoublingApplies to an exact doubling whose rows are
// whole groups of 2V outputs (whole 64-byte lines). Other rows go through DoublingRow and the
// caller's streamed copy.
template <typename A>
inline bool StreamsDoublingRows(const RowGather<A> &g) {
  if constexpr (std::is_same_v<A, float>) {
    return DoublingApplies(g) && IsExactDoublingRow(g);
  }
  return false;
}

// The W pass of kRows rows through DoublingRow when DoublingApplies; returns false (nothing done)
// otherwise. The vectors read source elements [begin - 1, end]: inside the row, as the run's own
// entries are.
template <int kRows, typename A>
inline bool DoublingRows(const RowGather<A> &g, const A *const *src, A *const *dst) {
  if constexpr (std::is_same_v<A, float>) {
    if (!DoublingApplies(g)) return false;
    for (int r = 0; r < kRows; ++r) DoublingRow(g, src[r], dst[r]);
    return true;
  }
  return false;
}

#else

constexpr bool kDoublingVectors = false;

// A baseline tier without vectors: plain loops, every output summed as the scalar lists sum it
// (ListSum: from zero, in list order, the same expressions), so the bits are the lists' bits.
template <typename A>
inline void DoublingRowBaseline(const RowGather<A> &g, const A *__restrict src, A *__restrict dst) {
  const DoublingRun<A> &run = g.doubling;
  const A w0 = run.w[0], w1 = run.w[1], w2 = run.w[2], w3 = run.w[3];
  for (int64_t j = 0; j < 2 * run.begin; ++j) dst[j] = ListSum(g, src, j);
  for (int64_t k = run.begin; k < run.end; ++k) {
    A even = A(0);
    even = LaneFma(w0, src[k - 1], even);
    even = LaneFma(w1, src[k], even);
    A odd = A(0);
    odd = LaneFma(w2, src[k], odd);
    odd = LaneFma(w3, src[k + 1], odd);
    dst[2 * k] = even;
    dst[2 * k + 1] = odd;
  }
  for (int64_t j = 2 * run.end; j < g.dstLen; ++j) dst[j] = ListSum(g, src, j);
}

// The W pass of kRows rows through DoublingRowBaseline when the gather has a doubling run of at least
// 4 pairs and no vector steps; returns false (nothing done) otherwise.
template <int kRows, typename A>
inline bool DoublingRows(const RowGather<A> &g, const A *const *src, A *const *dst) {
  if (g.lanes != GatherLanes<A>() || g.doubling.end - g.doubling.begin < 4) return false;
  for (int r = 0; r < kRows; ++r) DoublingRowBaseline(g, src[r], dst[r]);
  return true;
}

// Declared only, for the kernels' `if constexpr (kDoublingVectors)` branches, which this tier discards.
template <typename A>
bool StreamsDoublingRows(const RowGather<A> &g);
template <typename A>
void DoublingRowStreamed(const RowGather<A> &g, const A *src, A *out);

#endif

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_DOUBLING_H_
