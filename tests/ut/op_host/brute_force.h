// Brute-force references for the op_host tests, from first principles: docs/spec.md §2's scale
// formula written out again, and per-axis facts (which output indices reach which source indices)
// found by walking every output index's taps from math::ComputeTap. Deliberately slow and simple;
// nothing here calls the tables or helpers under test.
#ifndef TRILINEAR3D_TESTS_UT_OP_HOST_BRUTE_FORCE_H_
#define TRILINEAR3D_TESTS_UT_OP_HOST_BRUTE_FORCE_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/resample_math.h"

namespace trilinear3d::test {

// docs/spec.md §2, verbatim: identity axis 1; align_corners (in-1)/(out-1) or 0 for out == 1;
// 1/s when all three user scales are > 0; in/out otherwise. `userScale` is this axis's user scale
// when all three are > 0, else 0.
inline double SpecScale(int64_t in, int64_t out, bool alignCorners, double userScale) {
  if (in == out) return 1.0;
  if (alignCorners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (userScale > 0.0) return 1.0 / userScale;
  return static_cast<double>(in) / static_cast<double>(out);
}

struct BruteAxis {
  int64_t in;
  int64_t out;
  bool alignCorners;
  double scale;

  math::Tap Tap(int64_t o) const { return math::ComputeTap(in, out, scale, alignCorners, o); }
  bool Reaches(int64_t o, int64_t i) const {
    const math::Tap t = Tap(o);
    return t.i0 == i || t.i1 == i;
  }
};

inline BruteAxis MakeBruteAxis(int64_t in, int64_t out, bool alignCorners, double userScale = 0.0) {
  return BruteAxis{in, out, alignCorners, SpecScale(in, out, alignCorners, userScale)};
}

// [first, last] output indices reaching any source index of [i0, i1); {0, -1} when none does.
inline std::pair<int64_t, int64_t> BruteWindow(const BruteAxis &a, int64_t i0, int64_t i1) {
  int64_t first = -1;
  int64_t last = -1;
  for (int64_t o = 0; o < a.out; ++o) {
    for (int64_t i = i0; i < i1; ++i) {
      if (a.Reaches(o, i)) {
        if (first < 0) first = o;
        last = o;
        break;
      }
    }
  }
  return first < 0 ? std::pair<int64_t, int64_t>{0, -1} : std::pair<int64_t, int64_t>{first, last};
}

// Per slide of `slide` source indices, the window of output indices reaching it.
inline std::vector<std::pair<int64_t, int64_t>> BruteSlideWindows(const BruteAxis &a, int64_t slide = 16) {
  std::vector<std::pair<int64_t, int64_t>> windows;
  for (int64_t s = 0; s < a.in; s += slide) windows.push_back(BruteWindow(a, s, std::min(s + slide, a.in)));
  return windows;
}

// The seed's singleCoreK here: the widest slide window.
inline int64_t BruteSingleCoreK(const BruteAxis &a, int64_t slide = 16) {
  int64_t k = 0;
  for (const auto &[first, last] : BruteSlideWindows(a, slide)) k = std::max(k, last - first + 1);
  return k;
}

// The largest f(start) over start = 0, step, 2 step, ... below end, and at least `least`: the form of
// every "most ... per ..." fact below.
template <typename F>
int64_t MostOver(int64_t end, int64_t step, int64_t least, F f) {
  int64_t most = least;
  for (int64_t start = 0; start < end; start += step) most = std::max(most, f(start));
  return most;
}

// How many of the indices 0 .. end-1 satisfy pred.
template <typename Pred>
int64_t CountOver(int64_t end, Pred pred) {
  int64_t count = 0;
  for (int64_t k = 0; k < end; ++k) count += pred(k) ? 1 : 0;
  return count;
}

// Backward D ring: the most source indices "open" at one output index od, i.e. reached by some
// o <= od and by some o >= od (at least 1).
inline int64_t BruteMaxOpen(const BruteAxis &a) {
  return MostOver(a.out, 1, 1, [&](int64_t od) {
    return CountOver(a.in, [&](int64_t i) {
      bool before = false;
      bool after = false;
      for (int64_t o = 0; o < a.out; ++o) {
        if (!a.Reaches(o, i)) continue;
        before = before || o <= od;
        after = after || o >= od;
      }
      return before && after;
    });
  });
}

// Width-last backward: the most output indices one chunk of `chunk` source indices is reached from
// (from the first to the last, at least 1).
inline int64_t BruteTapSpanPerChunk(const BruteAxis &a, int64_t chunk) {
  return MostOver(a.in, chunk, 1, [&](int64_t start) {
    const auto [first, last] = BruteWindow(a, start, std::min(start + chunk, a.in));
    return last - first + 1;
  });
}

// Width-last backward: the most output indices that reach both of two consecutive source indices.
inline int64_t BruteMaxShared(const BruteAxis &a) {
  return MostOver(a.in - 1, 1, 0, [&](int64_t i) {
    return CountOver(a.out, [&](int64_t o) { return a.Reaches(o, i) && a.Reaches(o, i + 1); });
  });
}

// Forward: the most source indices spanned by the taps of one chunk of `chunk` output indices
// (from the smallest tap index to the largest).
inline int64_t BruteSourceSpanPerChunk(const BruteAxis &a, int64_t chunk) {
  return MostOver(a.out, chunk, 1, [&](int64_t start) {
    int64_t lo = a.in;
    int64_t hi = -1;
    for (int64_t o = start; o < std::min(start + chunk, a.out); ++o) {
      const math::Tap t = a.Tap(o);
      lo = std::min({lo, t.i0, t.i1});
      hi = std::max({hi, t.i0, t.i1});
    }
    return hi - lo + 1;
  });
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_UT_OP_HOST_BRUTE_FORCE_H_
