// The W pass over channels-innermost rows, ResampleRowCInner: each output position j of a row is
// the sum over j's list (RowGather) of w * source position s, C channels wide, so the sums are plain
// combinations of channel vectors (no lane permutes). An output's channel vectors are accumulated in
// registers across its list, a chunk of channels at a time (c_inner::Chunk: its body is the tier's),
// then stored once, or applied to the backward's H-scatter targets. Compiled once per ISA (included
// only from src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROW_C_INNER_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROW_C_INNER_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace c_inner {

// One chunk of channels [k0, k0 + width) of output j (entries [e0, e1) of its list; the source row's
// first position is srcFirst, c channels per position): the sums go to out, or to the targets at
// element offset `at`. The body is the ISA tier's own.
template <typename A>
inline void Chunk(const A *__restrict src, int64_t srcFirst, const int32_t *__restrict srcIdx,
                  const A *__restrict weights, int64_t e0, int64_t e1, int64_t c, int64_t k0, int64_t width,
                  A *__restrict out, const RowTargets<A> *targets, int64_t at) {
#if defined(TRILINEAR3D_HAVE_AVX512)
  // Up to 4 vectors of channels: the accumulators stay in registers across the entry list; a partial
  // last vector is loaded and stored with a mask (EmitLanes).
  using L = Avx512Lanes<A>;
  constexpr int kLanes = static_cast<int>(L::kLanes);
  using Vec = typename L::Vec;
  using Mask = typename L::Mask;
  Vec acc[4];
  Mask mask[4];
  for (int v = 0; v < 4; ++v) {
    const int64_t left = width - v * kLanes;
    mask[v] = left >= kLanes ? Mask(~Mask(0)) : (left > 0 ? Mask((1u << left) - 1) : Mask(0));
    acc[v] = L::Zero();
  }
  const int vectors = static_cast<int>((width + kLanes - 1) / kLanes);
  if (width == 4 * kLanes) {
    // Full chunk: four named accumulators, so they stay in registers across the list.
    Vec a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (int64_t e = e0; e < e1; ++e) {
      const A *x = src + (static_cast<int64_t>(srcIdx[e]) - srcFirst) * c + k0;
      const Vec w = L::Broadcast(weights[e]);
      a0 = L::Fma(w, L::Load(x), a0);
      a1 = L::Fma(w, L::Load(x + kLanes), a1);
      a2 = L::Fma(w, L::Load(x + 2 * kLanes), a2);
      a3 = L::Fma(w, L::Load(x + 3 * kLanes), a3);
    }
    const Mask all = Mask(~Mask(0));
    EmitLanes(a0, out, all, targets, at);
    EmitLanes(a1, out + kLanes, all, targets, at + kLanes);
    EmitLanes(a2, out + 2 * kLanes, all, targets, at + 2 * kLanes);
    EmitLanes(a3, out + 3 * kLanes, all, targets, at + 3 * kLanes);
    return;
  }
  for (int64_t e = e0; e < e1; ++e) {
    const A *x = src + (static_cast<int64_t>(srcIdx[e]) - srcFirst) * c + k0;
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      if (v >= vectors) break;
      acc[v] = L::Fma(L::Broadcast(weights[e]), L::Load(x + v * kLanes, mask[v]), acc[v]);
    }
  }
  for (int v = 0; v < vectors; ++v) EmitLanes(acc[v], out + v * kLanes, mask[v], targets, at + v * kLanes);
#elif defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
  // Up to 8 vectors of channels (AVX2's, or the baseline tier's 128-bit ones), the accumulators in
  // registers across the entry list, a partial last vector loaded and stored with a mask; the results
  // go to out, or to the targets at element offset `at` (w * v assigned, or added with the lanes' Fma).
  using L = TierLanes<A>;
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
#else
  // Plain loops over up to 4 * 64 bytes of channels.
  constexpr int kChunk = 4 * 64 / static_cast<int>(sizeof(A));
  A acc[kChunk] = {};
  for (int64_t e = e0; e < e1; ++e) {
    const A w = weights[e];
    const A *x = src + (static_cast<int64_t>(srcIdx[e]) - srcFirst) * c + k0;
    for (int64_t k = 0; k < width; ++k) acc[k] += w * x[k];
  }
  if (targets == nullptr) {
    for (int64_t k = 0; k < width; ++k) out[k] = acc[k];
    return;
  }
  for (int t = 0; t < targets->count; ++t) {
    AxpyRow(targets->row[t] + at, acc, targets->w[t], width, targets->assign[t]);
  }
#endif
}

}  // namespace c_inner

// The outputs [j0, j1) of a RowGather, from a source row whose first element is source position
// srcFirst (a W chunk of the width-last backward); the whole row is {0, dstLen, 0}.
struct ResampleSpan {
  int64_t j0, j1, srcFirst;
};

// Where ResampleRowCInner's source row lives. A row read from memory has the positions of a later output
// requested ahead; a row the kernel has just computed (in cache) does not: there the requests only take
// load slots (a 64 KB row in L2: 53 -> 33 cycles per output position without them).
enum class SourceIn { kMemory, kCache };

// The W pass of a channels-inner row: dst[(j - j0) * c + k] = sum over j's list of
// w * src[(s - srcFirst) * c + k] for j in span. The channel vectors of one j are accumulated in
// registers across its list, then stored once, or, with targets (the backward's H scatter), applied
// to the target rows instead of dst (not written then).
template <typename A>
inline void ResampleRowCInner(const RowGather<A> &g, ResampleSpan span, const A *__restrict src,
                              A *__restrict dst, int64_t c, SourceIn sourceIn,
                              const RowTargets<A> *targets = nullptr) {
  constexpr int kLanes = 64 / static_cast<int>(sizeof(A));  // one 64-byte vector of A
#if defined(TRILINEAR3D_HAVE_VEC128)
  constexpr int kChunk = 2 * kLanes;  // channels a Chunk takes at most: 8 of the baseline's 16-byte vectors
#else
  constexpr int kChunk = 4 * kLanes;  // channels a Chunk takes at most
#endif
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
      c_inner::Chunk(src, srcFirst, srcIdx, weights, e0, e1, c, k0, width, out + k0, targets, at + k0);
    }
  }
}

// ResampleRowCInner over a whole row read from memory.
template <typename A>
inline void ResampleRowCInner(const RowGather<A> &g, const A *__restrict src, A *__restrict dst, int64_t c,
                              const RowTargets<A> *targets = nullptr) {
  ResampleRowCInner(g, ResampleSpan{0, g.dstLen, 0}, src, dst, c, SourceIn::kMemory, targets);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROW_C_INNER_H_
