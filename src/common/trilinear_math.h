// The whole index / weight math of trilinear resampling (docs/spec.md §2), in double.
// Shared by op_host tiling, the kernels' plans and the tests' float64 reference:
// nothing else re-derives scale, source index, i0 / i1 or the lambdas.
#ifndef TRILINEAR3D_COMMON_TRILINEAR_MATH_H_
#define TRILINEAR3D_COMMON_TRILINEAR_MATH_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace trilinear3d::math {

// CANN's aclnn rule: the user scales count only when all three are > 0.
inline bool UseUserScales(double scaleD, double scaleH, double scaleW) {
  return scaleD > 0.0 && scaleH > 0.0 && scaleW > 0.0;
}

// Source step per output index. userScale is the user's scale factor for this axis when
// UseUserScales() holds, otherwise 0 (ignored).
inline double AxisScale(int64_t in, int64_t out, bool alignCorners, double userScale) {
  if (in == out) return 1.0;  // identity axis (see ComputeTap): whatever the user scale says
  if (alignCorners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (userScale > 0.0) return 1.0 / userScale;
  return static_cast<double>(in) / static_cast<double>(out);
}

inline double SourceIndex(double scale, int64_t o, bool alignCorners) {
  if (alignCorners) return scale * static_cast<double>(o);
  const double src = scale * (static_cast<double>(o) + 0.5) - 0.5;
  return src < 0.0 ? 0.0 : src;
}

// The two taps of output index o on an axis of `in` source points.
struct Tap {
  int64_t i0;
  int64_t i1;
  double l0;  // weight of i0
  double l1;  // weight of i1
};

// An identity axis is one whose output size equals its input size (`in == out`), whatever the user
// scale (AxisScale gives it scale 1, so the source index is o exactly, with or without align_corners).
// There both taps are o itself, weights 1 and 0, as PyTorch's compute_source_index_and_lambda has them:
// the zero-weight term still multiplies the input (0 * inf gives NaN), but at o, not at o + 1, so an
// inf at o makes NaN at o and nowhere else. Elsewhere i1 = min(i0 + 1, in - 1).
inline Tap ComputeTap(int64_t in, int64_t out, double scale, bool alignCorners, int64_t o) {
  if (in == out) return Tap{o, o, 1.0, 0.0};
  const double src = SourceIndex(scale, o, alignCorners);
  const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
  const int64_t i1 = std::min(i0 + 1, in - 1);
  const double l1 = std::clamp(src - static_cast<double>(i0), 0.0, 1.0);
  return Tap{i0, i1, 1.0 - l1, l1};
}

// One resized axis: sizes, mode and the effective scale.
struct AxisSpec {
  int64_t in = 1;   // source size (forward input, gradInput)
  int64_t out = 1;  // destination size (forward output, gradOut)
  bool alignCorners = false;
  double scale = 1.0;  // AxisScale(...)

  bool NeedResize() const { return in != out; }
  Tap TapOf(int64_t o) const { return ComputeTap(in, out, scale, alignCorners, o); }
};

inline AxisSpec MakeAxis(int64_t in, int64_t out, bool alignCorners, double userScale) {
  return AxisSpec{in, out, alignCorners, AxisScale(in, out, alignCorners, userScale)};
}

// All taps of an axis, indexed by output position: the forward weight table.
inline std::vector<Tap> ForwardTaps(const AxisSpec &axis) {
  std::vector<Tap> taps(static_cast<size_t>(axis.out));
  for (int64_t o = 0; o < axis.out; ++o) taps[static_cast<size_t>(o)] = axis.TapOf(o);
  return taps;
}

// The backward (transposed) weight table: for every source index i, the list of
// (output index, weight) pairs that feed it, in increasing output order; a tap whose two
// corners coincide (i0 == i1) gives two entries (l0 first, then l1). Zero weights are kept:
// docs/spec.md §6 adds every corner term, so 0 * inf must still give NaN.
struct GatherEntry {
  int64_t o;
  double w;
};

struct GatherTable {
  std::vector<int64_t> begin;  // size in + 1: entries of i are [begin[i], begin[i+1])
  std::vector<GatherEntry> entries;

  int64_t Count(int64_t i) const { return begin[static_cast<size_t>(i) + 1] - begin[static_cast<size_t>(i)]; }
  const GatherEntry *Of(int64_t i) const { return entries.data() + begin[static_cast<size_t>(i)]; }
};

inline GatherTable BackwardTable(const AxisSpec &axis) {
  // Two passes over the taps (count, then fill) instead of a stored copy of them: planning a 2^20
  // axis then allocates only the table.
  GatherTable table;
  std::vector<int64_t> &begin = table.begin;
  begin.assign(static_cast<size_t>(axis.in) + 1, 0);
  for (int64_t o = 0; o < axis.out; ++o) {
    const Tap t = axis.TapOf(o);
    ++begin[static_cast<size_t>(t.i0) + 1];
    ++begin[static_cast<size_t>(t.i1) + 1];
  }
  for (size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
  table.entries.resize(static_cast<size_t>(begin.back()));
  // begin[i] serves as list i's fill cursor (it ends at list i's end, the old begin[i + 1]), then the
  // cursors are shifted back by one list.
  for (int64_t o = 0; o < axis.out; ++o) {  // increasing o keeps every list sorted
    const Tap t = axis.TapOf(o);
    table.entries[static_cast<size_t>(begin[static_cast<size_t>(t.i0)]++)] = GatherEntry{o, t.l0};
    table.entries[static_cast<size_t>(begin[static_cast<size_t>(t.i1)]++)] = GatherEntry{o, t.l1};
  }
  for (size_t i = begin.size() - 1; i > 0; --i) begin[i] = begin[i - 1];
  begin[0] = 0;
  return table;
}

// The most terms one source point can receive on this axis (docs/spec.md §5's m = ceil(out/in) + 2).
inline int64_t MaxTermsPerSource(const AxisSpec &axis) { return (axis.out + axis.in - 1) / axis.in + 2; }

}  // namespace trilinear3d::math

#endif  // TRILINEAR3D_COMMON_TRILINEAR_MATH_H_
