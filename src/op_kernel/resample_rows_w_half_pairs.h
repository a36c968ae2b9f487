// FourWindowedRowsF32 of a gather of RowGather::allHalfWindowPairs (linear upsampling), written once for
// the AVX2 and AVX-512 tiers (L: Avx2Lanes<float> or Avx512Lanes<float>; the tier's W-pass header includes
// it and dispatches to it).
#ifndef TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_HALF_PAIRS_H_
#define TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_HALF_PAIRS_H_

#if !defined(TRILINEAR3D_ISA_REGION) || !defined(TRILINEAR3D_HAVE_AVX2)
#error "an AVX tier's W pass: include op_kernel/resample_rows_w_inner.h in an avx2 or avx512 ISA region"
#endif

#include <cstdint>

#include "op_kernel/kernel_plan.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace w_inner {

// Block b's two steps are 2b and 2b + 1, its outputs from V * b on (V = L::kLanes), and each row's window
// is one whole load (the plan keeps it inside the row). Per block and row: a load, two one-source
// permutes, two FMAs and a store. On these blocks (every lane on, every index in the window's first
// half) FourWindowedRowsF32's walk of the block's step ranges picks and sums the same values in the
// same order (from zero, step 2b first), so the bits are its bits, without that walk (AVX-512: without
// its second window load and two-source permutes either).
template <typename L>
__attribute__((noinline)) inline void FourHalfWindowPairRowsF32(const RowGather<float> &g,
                                                                const float *const *src, float *const *dst) {
  using Vec = typename L::Vec;
  using Index = typename L::Index;
  constexpr int64_t kV = L::kLanes;
  const float *s0 = src[0], *s1 = src[1], *s2 = src[2], *s3 = src[3];
  float *d0 = dst[0], *d1 = dst[1], *d2 = dst[2], *d3 = dst[3];
  const int64_t *__restrict base = g.stepBase.data();
  const int32_t *__restrict stepIdx = g.stepIdx.data();
  const float *__restrict stepW = g.stepW.data();
  const int64_t last = static_cast<int64_t>(g.blockStart.size()) - 1;
  const Vec zero = L::Zero();
  Vec a0, a1, a2, a3;
  auto block = [&](int64_t b) {
    const int64_t at = base[2 * b];
    const Index i0 = L::LoadIndex(stepIdx + 2 * kV * b), i1 = L::LoadIndex(stepIdx + 2 * kV * b + kV);
    const Vec w0 = L::Load(stepW + 2 * kV * b), w1 = L::Load(stepW + 2 * kV * b + kV);
    auto sum = [&](const float *row) {
      const Vec x = L::Load(row + at);
      return L::Fma(L::Permute(x, i1), w1, L::Fma(L::Permute(x, i0), w0, zero));
    };
    a0 = sum(s0);
    a1 = sum(s1);
    a2 = sum(s2);
    a3 = sum(s3);
  };
  for (int64_t b = 0; b < last; ++b) {
    block(b);
    const int64_t j0 = kV * b;
    L::Store(d0 + j0, a0);
    L::Store(d1 + j0, a1);
    L::Store(d2 + j0, a2);
    L::Store(d3 + j0, a3);
  }
  block(last);
  const int64_t j0 = kV * last;
  const typename L::Mask keep = L::FirstLanes(g.dstLen - j0);  // nothing past the row end is written
  L::Store(d0 + j0, a0, keep);
  L::Store(d1 + j0, a1, keep);
  L::Store(d2 + j0, a2, keep);
  L::Store(d3 + j0, a3, keep);
}

}  // namespace w_inner
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_RESAMPLE_ROWS_W_HALF_PAIRS_H_
