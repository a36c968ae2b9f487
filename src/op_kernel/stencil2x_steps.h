// The backward's doubling stencil on one axis (Kernel::kBackwardStencil2x: gradOut size 2 * in,
// align_corners false, real scale 0.5). math::ComputeTap then gives gradOut index o = 2k the taps
// (k - 1: 1/4, k: 3/4) and o = 2k + 1 the taps (k: 3/4, k + 1: 1/4), clamped at the ends: o = 0
// is (0: 1, 1: 0) and o = 2 in - 1 is (in - 1: 1/4, in - 1: 3/4). So gradInput index i sums
//   1/4 g[2i - 1] + 3/4 g[2i] + 3/4 g[2i + 1] + 1/4 g[2i + 2]   (indices clamped to [0, 2 in - 1];
// i = 0's weight 1 on g[0] is its first two terms), and index min(1, in - 1) also takes 0 * g[0]:
// the zero-weight tap is kept, as math::BackwardTable keeps it, so that 0 * inf still gives NaN.
// StencilSteps lists, for a chunk [i0, i1) of gradInput indices, the gradOut indices it reads in
// increasing order and what each one adds to which index of the chunk; the kernel applies them in
// list order, so every index sums its terms in the same order whatever the chunk.
#ifndef TRILINEAR3D_OP_KERNEL_STENCIL2X_STEPS_H_
#define TRILINEAR3D_OP_KERNEL_STENCIL2X_STEPS_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <algorithm>
#include <cstdint>
#include <vector>

namespace trilinear3d::kernel {

// What one gradOut index adds to one gradInput index: dst = w * g (assign: its first term) or
// dst += w * g.
struct StencilEntry {
  int64_t dst;
  float w;
  bool assign;
};

// One gradOut index `src` of a chunk: its entries in order, then `finish`, the gradInput index
// whose last term this was (-1: none). No two indices open at once (assigned, not yet finished)
// share a parity: the kernels keep two accumulators, chosen by dst & 1.
struct StencilStep {
  int64_t src = 0;
  int count = 0;
  StencilEntry e[3];
  int64_t finish = -1;
};

// The steps of gradInput indices [i0, i1) on an axis of `in` indices (gradOut: 2 * in), appended
// to *steps after clearing it (its capacity is kept: no allocation per item once it has grown).
inline void StencilSteps(int64_t i0, int64_t i1, int64_t in, std::vector<StencilStep> *steps) {
  steps->clear();
  const int64_t out = 2 * in;
  // Index 1's first term is o = 0's zero-weight tap, so a chunk from i0 <= 1 starts at o = 0.
  auto firstTerm = [&](int64_t i) { return i <= 1 ? int64_t{0} : 2 * i - 1; };
  auto lastTerm = [&](int64_t i) { return std::min<int64_t>(2 * i + 2, out - 1); };
  const int64_t first = firstTerm(i0), last = lastTerm(i1 - 1);
  for (int64_t o = first; o <= last; ++o) {
    StencilStep s;
    s.src = o;
    auto add = [&](int64_t i, float w) {
      if (i < i0 || i >= i1) return;
      // The first term of i: o = 2i - 1 (clamped to 0), or o = 0's zero-weight tap for index 1.
      bool assign = o == firstTerm(i);
      for (int k = 0; k < s.count; ++k) assign = assign && s.e[k].dst != i;  // a second term at o
      s.e[s.count++] = StencilEntry{i, w, assign};
    };
    const int64_t k = o / 2;
    if (o == 0) {
      add(0, 0.25f);  // the clamped 2i - 1 of i = 0
      add(0, 0.75f);
      add(std::min<int64_t>(1, in - 1), 0.0f);
    } else if (o % 2 == 0) {
      add(k - 1, 0.25f);
      add(k, 0.75f);
    } else {
      add(k, 0.75f);
      add(k + 1 < in ? k + 1 : k, 0.25f);  // o = 2 in - 1 also stands for the clamped 2i + 2
    }
    for (int j = 0; j < s.count; ++j) {
      if (lastTerm(s.e[j].dst) == o) s.finish = s.e[j].dst;
    }
    steps->push_back(s);
  }
}

}  // namespace trilinear3d::kernel

#endif  // TRILINEAR3D_OP_KERNEL_STENCIL2X_STEPS_H_
