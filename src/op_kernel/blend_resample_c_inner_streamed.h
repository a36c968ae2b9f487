// The forward's H blend and W pass of one channels-inner out row in one pass, written straight into
// the destination with non-temporal stores (BlendResampleRowCInnerStreamed): out position j is its W
// list's blend (one or two entries) of H-blended source positions, and each source position's channels
// are blended from the row's two H tap rows in registers, a chunk of channels at a time, and kept while
// the next output reads them (the lists of an upsampling W share positions with their neighbours; an
// exact 2x W's doubling run computes each position once for its two outputs). No
// H-blended row and no out row pass through memory. Every value takes the operations of the two-pass
// path (BlendOutputTaps' two-tap BlendRows, then the W lists' BlendRows): w0 * a + w1 * b as the tier's
// BlendRows computes it (blend_detail::FirstTwo: on the AVX tiers w1 * b rounded, then w0 * a added with
// one FMA; on the 128-bit tier w0 * a rounded, then w1 * b added by Vec128Lanes::Fma); one tap: w0 * a.
// So the same bits. The vector tiers: AVX-512, AVX2 and the 128-bit tier, whose Stream is SSE2's
// non-temporal store, or a plain one on aarch64 (compiled once per ISA: included only from
// src/op_kernel/isa/*.cpp).
#ifndef TRILINEAR3D_OP_KERNEL_BLEND_RESAMPLE_C_INNER_STREAMED_H_
#define TRILINEAR3D_OP_KERNEL_BLEND_RESAMPLE_C_INNER_STREAMED_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/vector_lanes.h"

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace c_inner {

#if defined(TRILINEAR3D_HAVE_AVX512)
using StreamedLanes = Avx512Lanes<float>;
#elif defined(TRILINEAR3D_HAVE_AVX2)
using StreamedLanes = Avx2Lanes<float>;
#else
using StreamedLanes = Vec128Lanes<float>;
#endif

// Channels [k0, k0 + kVecs lanes) of every out position of the row (BlendResampleRowCInnerStreamed).
template <int kVecs>
inline void BlendResampleChunkStreamed(const RowGather<float> &g, const float *a, float l0, const float *b,
                                       float l1, int64_t c, int64_t k0, float *out) {
  using L = StreamedLanes;
  using Vec = L::Vec;
  constexpr int64_t kL = L::kLanes;
  const Vec v0 = L::Broadcast(l0), v1 = L::Broadcast(l1);
  // The H-blended channels of source position s.
  auto column = [&](int64_t s, Vec(&col)[kVecs]) {
    const float *pa = a + s * c + k0;
    if (b == nullptr) {
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) col[v] = L::Mul(v0, L::Load(pa + v * kL));
      return;
    }
    const float *pb = b + s * c + k0;
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v)
#if defined(TRILINEAR3D_HAVE_AVX2)
      col[v] = L::Fma(v0, L::Load(pa + v * kL), L::Mul(v1, L::Load(pb + v * kL)));
#else  // the 128-bit tier's BlendRows order (blend_detail::FirstTwo)
      col[v] = L::Fma(v1, L::Load(pb + v * kL), L::Mul(v0, L::Load(pa + v * kL)));
#endif
  };
  auto store = [&](int64_t j, const Vec(&x)[kVecs], Vec wx, const Vec(&y)[kVecs], Vec wy) {
    float *o = out + j * c + k0;
#pragma GCC unroll 4
#if defined(TRILINEAR3D_HAVE_AVX2)
    for (int v = 0; v < kVecs; ++v) L::Stream(o + v * kL, L::Fma(wx, x[v], L::Mul(wy, y[v])));
#else
    for (int v = 0; v < kVecs; ++v) L::Stream(o + v * kL, L::Fma(wy, y[v], L::Mul(wx, x[v])));
#endif
  };
  const int64_t *__restrict begin = g.begin.data();
  const int32_t *__restrict src = g.src.data();
  const float *__restrict w = g.w.data();
  Vec lo[kVecs], hi[kVecs];  // the columns of source positions sLo and sHi
  int64_t sLo = -1, sHi = -1;
  // The doubling run's outputs 2k, 2k + 1 (k in [rb, re)) in order, from the columns of k - 1, k, k + 1:
  // each column computed once, the two registers' roles swapped every k (p: k - 1 and q: k on entry).
  const int64_t rb = g.doubling.begin, re = g.doubling.end;
  auto runOutputs = [&]() {
    const Vec w0 = L::Broadcast(g.doubling.w[0]), w1 = L::Broadcast(g.doubling.w[1]);
    const Vec w2 = L::Broadcast(g.doubling.w[2]), w3 = L::Broadcast(g.doubling.w[3]);
    Vec p[kVecs], q[kVecs];
    column(rb - 1, p);
    column(rb, q);
    int64_t k = rb;
    for (; k + 2 <= re; k += 2) {
      store(2 * k, p, w0, q, w1);
      column(k + 1, p);
      store(2 * k + 1, q, w2, p, w3);
      store(2 * k + 2, q, w0, p, w1);
      column(k + 2, q);
      store(2 * k + 3, p, w2, q, w3);
    }
    if (k < re) {
      store(2 * k, p, w0, q, w1);
      column(k + 1, p);
      store(2 * k + 1, q, w2, p, w3);
    }
  };
  // Makes `into` (holding column *held) hold column s: a copy of `other` when that holds it (the
  // next list starts where this one ended), else s blended from the rows.
  auto hold = [&](int64_t s, int64_t *held, Vec(&into)[kVecs], int64_t otherHeld, const Vec(&other)[kVecs]) {
    if (*held == s) return;
    if (otherHeld == s) {
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) into[v] = other[v];
    } else {
      column(s, into);
    }
    *held = s;
  };
  for (int64_t j = 0; j < g.dstLen; ++j) {
    if (j == 2 * rb && rb < re && rb >= 1) {
      runOutputs();
      j = 2 * re - 1;
      sLo = sHi = -1;
      continue;
    }
    const int64_t e = begin[j];
    const bool two = begin[j + 1] > e + 1;
    const int64_t s0 = src[e];
    hold(s0, &sLo, lo, sHi, hi);
    float *o = out + j * c + k0;
    const Vec w0 = L::Broadcast(w[e]);
    if (!two) {
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) L::Stream(o + v * kL, L::Mul(w0, lo[v]));
      continue;
    }
    hold(src[e + 1], &sHi, hi, sLo, lo);
    store(j, lo, w0, hi, L::Broadcast(w[e + 1]));
  }
}

// Out row = W lists (one or two entries each) of the H blend l0 * a + l1 * b (b null: l0 * a) of two
// channels-inner source rows of c channels. out: every position line-aligned (LineAlignedPositions:
// c a multiple of 16). Not inlined: inside the forward's item loop the compiler kept the loop's
// pointers and sizes on the stack.
__attribute__((noinline)) inline void BlendResampleRowCInnerStreamed(const RowGather<float> &g,
                                                                     const float *a, float l0, const float *b,
                                                                     float l1, int64_t c, float *out) {
  constexpr int64_t kL = StreamedLanes::kLanes;
  int64_t k0 = 0;
  for (; k0 + 4 * kL <= c; k0 += 4 * kL) BlendResampleChunkStreamed<4>(g, a, l0, b, l1, c, k0, out);
  for (; k0 < c; k0 += kL) BlendResampleChunkStreamed<1>(g, a, l0, b, l1, c, k0, out);
}

}  // namespace c_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA
#endif

#endif  // TRILINEAR3D_OP_KERNEL_BLEND_RESAMPLE_C_INNER_STREAMED_H_
