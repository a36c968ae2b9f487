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

#include <algorithm>
#include <cstdint>
#include <type_traits>

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
    mask[v] = L::FirstLanes(left);
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
    for (int64_t k = 0; k < width; ++k) acc[k] = LaneFma(w, x[k], acc[k]);
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

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
#if defined(TRILINEAR3D_HAVE_AVX512)
constexpr int kRunVectors = 4;  // Chunk's: 4 vectors of channels
#else
constexpr int kRunVectors = 8;  // Chunk's: 8 vectors of channels
#endif

// The halving run's results for one vector v of channels: stored at out, or applied to the targets (w *
// v assigned, or added with the lanes' Fma: ApplyTargetLanes, EmitLanes), the first target before the
// second, as Chunk does (the two are one row where the taps coincide). kMasked: the lanes of m only.
// kStream (no targets, fp32, out + o vector-aligned): a non-temporal store, for a destination row the
// W pass writes itself.
// The addresses are formed here, base + o, only for the rows the branch writes: the others may be null.
template <typename L, int kCount, bool kAssign0, bool kAssign1, bool kMasked, typename A,
          bool kStream = false>
inline void EmitRunLanes(typename L::Vec v, int64_t o, A *dst, A *row0, A *row1, typename L::Vec tw0,
                         typename L::Vec tw1, typename L::Mask m) {
  auto load = [&](const A *p) {
    if constexpr (kMasked)
      return L::Load(p, m);
    else
      return L::Load(p);
  };
  auto store = [&](A *p, typename L::Vec x) {
    if constexpr (kMasked)
      L::Store(p, x, m);
    else
      L::Store(p, x);
  };
  if constexpr (kCount == 0 && kStream) {
    static_assert(!kMasked, "whole vectors only");
    L::Stream(dst + o, v);
  } else if constexpr (kCount == 0) {
    store(dst + o, v);
  } else {
    A *p0 = row0 + o;
    store(p0, kAssign0 ? L::Mul(tw0, v) : L::Fma(tw0, v, load(p0)));
    if constexpr (kCount == 2) {
      A *p1 = row1 + o;
      store(p1, kAssign1 ? L::Mul(tw1, v) : L::Fma(tw1, v, load(p1)));
    }
  }
}

// Outputs [jb, je) of a halving run of kTaps taps (a linear axis's 4, a cubic axis's 8: HalvingRun,
// CubicHalvingRun): output j sums the kTaps source positions from 2j + 1 - kTaps / 2 with the run's
// weights w, in that order, with FMAs from zero: the entries and the operations of j's list in Chunk,
// so the same bits, without the index and weight loads per entry. The targets (kCount of them, the
// assignments fixed for the row) are hoisted out of the loop. Memory: the two source positions output
// j + kAhead adds to the previous output's are requested while j is summed. kStream: dst is the
// destination row, written with non-temporal stores (ResampleRowCInner's streamDst).
template <typename A, int kTaps, int kCount, bool kAssign0, bool kAssign1, bool kStream = false>
inline void HalvingOutputs(const A *runW, int64_t jb, int64_t je, int64_t j0, const A *__restrict src,
                           int64_t srcFirst, A *__restrict dst, int64_t c, bool prefetch,
                           const RowTargets<A> *targets) {
  using L = TierLanes<A>;
  using Vec = typename L::Vec;
  constexpr int64_t kL = L::kLanes;
  constexpr int64_t kChunkC = kRunVectors * kL;
  constexpr int64_t kAhead = 4;
  constexpr int64_t kLineElems = 64 / static_cast<int64_t>(sizeof(A));
  A w[kTaps];
  for (int e = 0; e < kTaps; ++e) w[e] = runW[e];
  A *row0 = nullptr, *row1 = nullptr;
  Vec tw0 = L::Zero(), tw1 = L::Zero();
  if constexpr (kCount >= 1) {
    row0 = targets->row[0];
    tw0 = L::Broadcast(targets->w[0]);
  }
  if constexpr (kCount == 2) {
    row1 = targets->row[1];
    tw1 = L::Broadcast(targets->w[1]);
  }
  const int64_t tail = c % kChunkC;  // channels of the last, partial chunk
  const int tailVectors = static_cast<int>((tail + kL - 1) / kL);
  const typename L::Mask tailMask = L::FirstLanes(tail % kL == 0 ? kL : tail % kL);
  // kFmaIsMulAdd: symmetric weights (an exact 2x cubic axis) sum w[e] (x_e + x_(kTaps-1-e)) instead.
  constexpr bool kMayPair = kFmaIsMulAdd && kTaps == 8;
  bool paired = false;
  if constexpr (kMayPair) paired = SymmetricWeights<kTaps>(w);
  for (int64_t j = jb; j < je; ++j) {
    const A *x = src + (2 * j + 1 - kTaps / 2 - srcFirst) * c;
    const int64_t at = (j - j0) * c;
    // The two source positions output j + kAhead adds to j + kAhead - 1's (its last two), requested a
    // chunk of channels at a time, one request per line of each.
    const bool ahead = prefetch && j + kAhead < je;
    const A *aheadAt = ahead ? x + (2 * kAhead + kTaps - 2) * c : x;
    int64_t k0 = 0;
    for (; k0 + kChunkC <= c; k0 += kChunkC) {
      if (ahead) {
#pragma GCC unroll 8
        for (int64_t q = 0; q < kChunkC; q += kLineElems) {
          __builtin_prefetch(aheadAt + k0 + q, 0, 3);
          __builtin_prefetch(aheadAt + c + k0 + q, 0, 3);
        }
      }
      Vec acc[kRunVectors];
      bool summed = false;
      if constexpr (kMayPair) {
        if (paired) {
          const Vec w0 = L::Broadcast(w[0]);
          const A *lo = x + k0, *hi = x + (kTaps - 1) * c + k0;
#pragma GCC unroll 8
          for (int v = 0; v < kRunVectors; ++v)
            acc[v] = L::Mul(w0, L::Add(L::Load(lo + v * kL), L::Load(hi + v * kL)));
          for (int e = 1; e < kTaps / 2; ++e) {
            const Vec we = L::Broadcast(w[e]);
            lo = x + e * c + k0;
            hi = x + (kTaps - 1 - e) * c + k0;
#pragma GCC unroll 8
            for (int v = 0; v < kRunVectors; ++v) {
              acc[v] = L::Fma(we, L::Add(L::Load(lo + v * kL), L::Load(hi + v * kL)), acc[v]);
            }
          }
          summed = true;
        }
      }
      if (!summed) {
#pragma GCC unroll 8
        for (int v = 0; v < kRunVectors; ++v)
          acc[v] = L::Fma(L::Broadcast(w[0]), L::Load(x + k0 + v * kL), L::Zero());
        for (int e = 1; e < kTaps; ++e) {
          const Vec we = L::Broadcast(w[e]);
          const A *xe = x + e * c + k0;
#pragma GCC unroll 8
          for (int v = 0; v < kRunVectors; ++v) acc[v] = L::Fma(we, L::Load(xe + v * kL), acc[v]);
        }
      }
#pragma GCC unroll 8
      for (int v = 0; v < kRunVectors; ++v) {
        const int64_t o = at + k0 + v * kL;
        EmitRunLanes<L, kCount, kAssign0, kAssign1, false, A, kStream>(acc[v], o, dst, row0, row1, tw0, tw1,
                                                                       tailMask);
      }
    }
    if (k0 == c) continue;
    if (ahead) {
      for (const A *p = aheadAt + k0; p < aheadAt + c; p += kLineElems) __builtin_prefetch(p, 0, 3);
      for (const A *p = aheadAt + c + k0; p < aheadAt + 2 * c; p += kLineElems) __builtin_prefetch(p, 0, 3);
    }
    // The partial chunk: whole vectors, then the last one masked if the tail is not a whole vector.
    Vec acc[kRunVectors];
#pragma GCC unroll 8
    for (int v = 0; v < kRunVectors; ++v) {
      if (v >= tailVectors) break;
      const bool masked = v + 1 == tailVectors && tail % kL != 0;
      acc[v] = L::Zero();
      bool summed = false;
      if constexpr (kMayPair) {
        if (paired) {
          auto load = [&](const A *p) { return masked ? L::Load(p, tailMask) : L::Load(p); };
          const A *p = x + k0 + v * kL;
          acc[v] = L::Mul(L::Broadcast(w[0]), L::Add(load(p), load(p + (kTaps - 1) * c)));
          for (int e = 1; e < kTaps / 2; ++e) {
            acc[v] =
                L::Fma(L::Broadcast(w[e]), L::Add(load(p + e * c), load(p + (kTaps - 1 - e) * c)), acc[v]);
          }
          summed = true;
        }
      }
      for (int e = 0; e < kTaps && !summed; ++e) {
        const A *p = x + e * c + k0 + v * kL;
        acc[v] = L::Fma(L::Broadcast(w[e]), masked ? L::Load(p, tailMask) : L::Load(p), acc[v]);
      }
      const int64_t o = at + k0 + v * kL;
      if (masked) {
        EmitRunLanes<L, kCount, kAssign0, kAssign1, true>(acc[v], o, dst, row0, row1, tw0, tw1, tailMask);
      } else {
        EmitRunLanes<L, kCount, kAssign0, kAssign1, false, A, kStream>(acc[v], o, dst, row0, row1, tw0, tw1,
                                                                       tailMask);
      }
    }
  }
}

// HalvingOutputs with its targets' count and assignments as template arguments. Not inlined: one call a
// row, and ResampleRowCInner stays small enough to be inlined into its callers, whose constant arguments
// (sourceIn, no targets) then fold into the list outputs' loop.
template <typename A, int kTaps>
__attribute__((noinline)) inline void HalvingOutputsFor(const A *w, int64_t jb, int64_t je, int64_t j0,
                                                        const A *src, int64_t srcFirst, A *dst, int64_t c,
                                                        bool prefetch, const RowTargets<A> *t,
                                                        bool streamDst) {
  if (t == nullptr) {
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
    if constexpr (std::is_same_v<A, float>) {
      if (streamDst) {
        HalvingOutputs<A, kTaps, 0, false, false, true>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
        return;
      }
    }
#endif
    (void)streamDst;
    HalvingOutputs<A, kTaps, 0, false, false>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
  } else if (t->count == 1) {
    if (t->assign[0]) {
      HalvingOutputs<A, kTaps, 1, true, false>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
    } else {
      HalvingOutputs<A, kTaps, 1, false, false>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
    }
  } else if (t->count == 2) {
    if (t->assign[0] && t->assign[1]) {
      HalvingOutputs<A, kTaps, 2, true, true>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
    } else if (t->assign[0]) {
      HalvingOutputs<A, kTaps, 2, true, false>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
    } else if (t->assign[1]) {
      HalvingOutputs<A, kTaps, 2, false, true>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
    } else {
      HalvingOutputs<A, kTaps, 2, false, false>(w, jb, je, j0, src, srcFirst, dst, c, prefetch, t);
    }
  }
  // No target: nothing is written (Chunk's sums would go nowhere).
}
#endif

}  // namespace c_inner

// Whether ResampleRowCInner's streamDst writes the halving run with non-temporal stores on this tier:
// the vector tiers (the 128-bit tier's a chunk's eight vectors back to back, two whole lines; on aarch64
// ordinary stores, still straight into the destination row instead of a row that is then copied).
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
constexpr bool kStreamsDstRows = true;
#else
constexpr bool kStreamsDstRows = false;
#endif

// The outputs [j0, j1) of a RowGather, from a source row whose first element is source position
// srcFirst (a W chunk of the width-last backward); the whole row is {0, dstLen, 0}.
struct ResampleSpan {
  int64_t j0, j1, srcFirst;
};

// Where ResampleRowCInner's source row lives. A row read from memory has the positions of a later output
// requested ahead; a row the kernel has just computed (in cache) does not: there the requests only take
// load slots (a 64 KB row in L2: 53 -> 33 cycles per output position without them).
enum class SourceIn { kMemory, kCache };

namespace c_inner {

// Outputs [jFrom, jTo) of the span through their lists (ResampleRowCInner's arguments otherwise): each
// output's channel vectors summed over its list a chunk at a time (Chunk). Inlined at each call, so that
// the caller's constant arguments fold into the loop.
template <typename A>
__attribute__((always_inline)) inline void ListOutputs(const RowGather<A> &g, ResampleSpan span,
                                                       int64_t jFrom, int64_t jTo, const A *__restrict src,
                                                       A *__restrict dst, int64_t c, SourceIn sourceIn,
                                                       const RowTargets<A> *targets) {
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
  for (int64_t j = jFrom; j < jTo; ++j) {
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
      Chunk(src, srcFirst, srcIdx, weights, e0, e1, c, k0, width, out + k0, targets, at + k0);
    }
  }
}

}  // namespace c_inner

// The W pass of a channels-inner row: dst[(j - j0) * c + k] = sum over j's list of
// w * src[(s - srcFirst) * c + k] for j in span. The channel vectors of one j are accumulated in
// registers across its list, then stored once, or, with targets (the backward's H scatter), applied
// to the target rows instead of dst (not written then). The outputs of the halving run (linear) or
// of the cubic halving run take its fixed four or eight entries (c_inner::HalvingOutputs), the others
// their lists. streamDst (fp32, no targets, every position of dst line-aligned: LineAlignedPositions):
// dst is the destination row, and the run writes it with non-temporal stores (the few list outputs at
// its ends with ordinary ones).
template <typename A>
inline void ResampleRowCInner(const RowGather<A> &g, ResampleSpan span, const A *__restrict src,
                              A *__restrict dst, int64_t c, SourceIn sourceIn,
                              const RowTargets<A> *targets = nullptr, bool streamDst = false) {
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
  const bool prefetch = sourceIn == SourceIn::kMemory;
  // The run's outputs take its fixed taps, the outputs before and after it their lists.
  auto listsRunLists = [&](auto taps, const auto &w, int64_t rb, int64_t re) {
    c_inner::ListOutputs(g, span, span.j0, rb, src, dst, c, sourceIn, targets);
    c_inner::HalvingOutputsFor<A, decltype(taps)::value>(w, rb, re, span.j0, src, span.srcFirst, dst, c,
                                                         prefetch, targets, streamDst);
    c_inner::ListOutputs(g, span, re, span.j1, src, dst, c, sourceIn, targets);
  };
  const int64_t hb = std::max(g.halving.begin, span.j0), he = std::min(g.halving.end, span.j1);
  if (hb < he) {
    listsRunLists(std::integral_constant<int, 4>{}, g.halving.w, hb, he);
    return;
  }
  const int64_t cb = std::max(g.cubicHalving.begin, span.j0), ce = std::min(g.cubicHalving.end, span.j1);
  if (cb < ce) {
    listsRunLists(std::integral_constant<int, 8>{}, g.cubicHalving.w, cb, ce);
    return;
  }
#endif
  (void)streamDst;  // the lists' ordinary stores (the baseline tier, or no halving run)
  c_inner::ListOutputs(g, span, span.j0, span.j1, src, dst, c, sourceIn, targets);
}

// ResampleRowCInner over a whole row read from memory.
template <typename A>
inline void ResampleRowCInner(const RowGather<A> &g, const A *__restrict src, A *__restrict dst, int64_t c,
                              const RowTargets<A> *targets = nullptr) {
  ResampleRowCInner(g, ResampleSpan{0, g.dstLen, 0}, src, dst, c, SourceIn::kMemory, targets);
}

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROW_C_INNER_H_
