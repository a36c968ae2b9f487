// The whole index / weight math of separable resampling (docs/spec.md §2), per axis, in double: the
// resize family's operators of rank 1 to 3 differ only in their axes' filters and scales.
// Shared by op_host tiling, the kernels' plans and the tests' float64 reference:
// nothing else re-derives scale, source index, the taps or their weights.
#ifndef TRILINEAR3D_COMMON_RESAMPLE_MATH_H_
#define TRILINEAR3D_COMMON_RESAMPLE_MATH_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace trilinear3d::math {

// The 3-D operators' rule (CANN's aclnn): the user scales count only when all three are > 0. The
// 1-D and 2-D operators take each axis's scale on its own (where it is > 0), as PyTorch does.
inline bool UseUserScales(double scaleD, double scaleH, double scaleW) {
  return scaleD > 0.0 && scaleH > 0.0 && scaleW > 0.0;
}

// The 3-D operators' scales as their axes take them (each axis takes a scale > 0): all three, or none.
inline void AllOrNoScales(const double scales[3], double axisScales[3]) {
  const bool use = UseUserScales(scales[0], scales[1], scales[2]);
  for (int i = 0; i < 3; ++i) axisScales[i] = use ? scales[i] : 0.0;
}

// How an axis turns a source position into taps. The tap count is the axis's property: the plan's
// lists and the kernels' list passes take any count; a kernel that keeps a fixed number of taps per
// output in registers says which filters it takes (op_host/kernel_registry.cpp).
enum class Filter {
  kLinear,  // two taps: floor(src) and the next, weights 1 - frac and frac
  // An axis the operator does not have (the D of a 2-D operator, the D and H of a 1-D one, run as the
  // 3-D problem): size 1 -> 1 (or the 1-D operators' planes, folded into H), one tap o of weight 1, so
  // that an inf stays an inf as in PyTorch's 2-D and 1-D kernels, which have no such axis.
  kUnit,
  // One tap per output of weight 1, PyTorch's nearest rules (UpSample.h nearest_idx): in float,
  // min(floor(o * r), in - 1), and o itself when out == in, o / 2 when out == 2 * in. PyTorch's
  // upsample_nearest2d and every nearest backward.
  kNearest,
  // The same without nearest_idx's two size cases: min(floor(o * r), in - 1) always, PyTorch's
  // upsample_nearest1d / 3d forwards (its generic N-d kernel), which differ from kNearest only where a
  // user scale disagrees with the sizes.
  kNearestPlain,
  // PyTorch's nearest-exact (nearest_exact_idx): min(floor((o + 0.5) * r), in - 1), r in float.
  kNearestExact,
  // Keys' cubic convolution (a = -0.75): four taps floor(src) - 1 ... floor(src) + 2 around the unclamped
  // source index, clamped to [0, in - 1]; taps that land on one input merge, their weights added.
  kCubic,
  // Antialiased shrink filters: the kernel (a triangle; Keys' cubic with a = -0.5) stretched by the
  // shrink factor, every input inside its support taken, each output's weights normalised to sum 1.
  kLinearAntialias,
  kCubicAntialias,
};

// One tap per output of weight 1 that copies (or, transposed, sums) the input at the picked index.
constexpr bool IsNearest(Filter filter) {
  return filter == Filter::kNearest || filter == Filter::kNearestPlain || filter == Filter::kNearestExact;
}

// The most taps one output index takes on an axis of this filter.
constexpr int MaxTapsPerOutput(Filter filter) {
  switch (filter) {
    case Filter::kLinear:
      return 2;
    case Filter::kUnit:
    case Filter::kNearest:
    case Filter::kNearestPlain:
    case Filter::kNearestExact:
      return 1;
    case Filter::kCubic:
      return 4;
    case Filter::kLinearAntialias:
    case Filter::kCubicAntialias:
      return 0;  // grows with the shrink factor: AxisSpec::MaxTaps
  }
  return 0;
}

// The scale PyTorch's cubic and antialiased modes take (area_pixel_compute_scale): no identity shortcut,
// a user scale > 0 counts even where in == out.
inline double FilterAxisScale(int64_t in, int64_t out, bool alignCorners, double userScale) {
  if (alignCorners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (userScale > 0.0) return 1.0 / userScale;
  return static_cast<double>(in) / static_cast<double>(out);
}

// min(floor(x), last) as an index, defined for every x: an extreme user scale (a ratio of inf, or beyond
// int64's range) makes source positions the cast of a double cannot take. Past the axis (inf included)
// gives last, as the min does; NaN (0 * inf) gives 0; far below zero is held at -2^62, where the
// callers' clamps still apply and their offsets cannot overflow.
inline int64_t FloorIndex(double x, int64_t last) {
  if (x != x) return 0;
  if (x >= static_cast<double>(last)) return last;
  constexpr double kLow = -static_cast<double>(int64_t{1} << 62);
  if (x < kLow) return static_cast<int64_t>(kLow);
  return static_cast<int64_t>(std::floor(x));
}

// int64(x), the truncation CANN sizes an output with (floor(in * scale)), defined for every x: held to
// [-2^62, 2^62], NaN 0. A scale too large for int64 then gives a size no tensor has, which the callers'
// comparisons with the real sizes refuse.
inline int64_t TruncSize(double x) {
  constexpr double kLimit = static_cast<double>(int64_t{1} << 62);
  if (x != x) return 0;
  if (x >= kLimit) return int64_t{1} << 62;
  if (x <= -kLimit) return -(int64_t{1} << 62);
  return static_cast<int64_t>(x);
}

// min(max(trunc(x), 0), hi) for every x (NaN gives 0): the antialiased support's bounds.
inline int64_t TruncIndex(double x, int64_t hi) {
  if (!(x > 0.0)) return 0;
  if (x >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(x);
}

// Keys' cubic convolution kernel with parameter a, at distance x from the tap.
inline double CubicKernel(double x, double a) {
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

inline double TriangleKernel(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

constexpr double kCubicA = -0.75;          // upsample_bicubic2d
constexpr double kCubicAntialiasA = -0.5;  // _upsample_bicubic2d_aa

// Half the width of an antialiased filter's support in source points: the kernel's own (1 for the
// triangle, 2 for the cubic) stretched by the shrink factor when the axis shrinks.
inline double AntialiasSupport(Filter filter, double scale) {
  const double base = filter == Filter::kCubicAntialias ? 2.0 : 1.0;
  return scale >= 1.0 ? base * scale : base;
}

// The most taps an antialiased output takes (PyTorch's max_interp_size).
// The support is held to 2^20 points before the cast: a scale of inf (refused by the operators' shrink
// limit, but planned by any caller that asks first) would otherwise make the cast undefined.
inline int AntialiasMaxTaps(Filter filter, double scale) {
  const double support = std::min(AntialiasSupport(filter, scale), static_cast<double>(1 << 20));
  return static_cast<int>(std::ceil(support)) * 2 + 1;
}

// Source step per output index. userScale is the user's scale factor for this axis where the
// operator's rule lets it count (> 0), otherwise 0 (ignored).
// The nearest filters keep PyTorch's float ratio (compute_scales_value<float>: float(1 / scale), or
// float(in) / float(out) divided in float), held exactly in the double; the user scale counts even on an
// axis of equal sizes (the nearest-exact index of a scale other than 1 is not o there).
inline double AxisScale(int64_t in, int64_t out, bool alignCorners, double userScale,
                        Filter filter = Filter::kLinear) {
  if (IsNearest(filter)) {
    if (userScale > 0.0) return static_cast<double>(static_cast<float>(1.0 / userScale));
    return static_cast<double>(static_cast<float>(in) / static_cast<float>(out));
  }
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
  const int64_t i0 = FloorIndex(src, in - 1);
  const int64_t i1 = std::min(i0 + 1, in - 1);
  const double l1 = std::clamp(src - static_cast<double>(i0), 0.0, 1.0);
  return Tap{i0, i1, 1.0 - l1, l1};
}

// The source index of output o on a nearest axis of float ratio `scale` (AxisScale), with PyTorch's
// float arithmetic: o * r in float for kNearest (after its size cases) and kNearestPlain; (o + 0.5) * r
// in double, rounded to float, for
// kNearestExact (UpSample.h's floorf of a double argument).
inline int64_t NearestIndex(Filter filter, int64_t in, int64_t out, double scale, int64_t o) {
  const float r = static_cast<float>(scale);
  float src = 0.0f;
  if (filter == Filter::kNearest && out == in) return o;
  if (filter == Filter::kNearest && out == 2 * in) return o >> 1;
  if (filter != Filter::kNearestExact) {
    src = static_cast<float>(o) * r;
  } else {
    src = static_cast<float>((static_cast<double>(o) + 0.5) * static_cast<double>(r));
  }
  return FloorIndex(src, in - 1);
}

// One resized axis: sizes, mode, the effective scale and the filter.
struct AxisSpec {
  int64_t in = 1;   // source size (forward input, gradInput)
  int64_t out = 1;  // destination size (forward output, gradOut)
  bool alignCorners = false;
  double scale = 1.0;  // AxisScale(...)
  Filter filter = Filter::kLinear;

  bool NeedResize() const { return in != out || (filter == Filter::kNearestExact && scale != 1.0); }
  int MaxTaps() const {
    if (filter == Filter::kLinearAntialias || filter == Filter::kCubicAntialias) {
      return AntialiasKeepsAxis() ? 1 : AntialiasMaxTaps(filter, scale);
    }
    return MaxTapsPerOutput(filter);
  }
  // The two taps of a linear axis (filter kLinear); a unit axis's one tap is {o, 1} (ForEachTap).
  Tap TapOf(int64_t o) const { return ComputeTap(in, out, scale, alignCorners, o); }
  // visit(i, w) for each tap of output o, in the order its terms are summed.
  template <typename Visit>
  void ForEachTap(int64_t o, Visit &&visit) const {
    switch (filter) {
      case Filter::kLinear: {
        const Tap t = TapOf(o);
        visit(t.i0, t.l0);
        visit(t.i1, t.l1);
        return;
      }
      case Filter::kUnit:
        visit(o, 1.0);
        return;
      case Filter::kNearest:
      case Filter::kNearestPlain:
      case Filter::kNearestExact:
        visit(NearestIndex(filter, in, out, scale, o), 1.0);
        return;
      case Filter::kCubic:
        CubicTaps(o, visit);
        return;
      case Filter::kLinearAntialias:
      case Filter::kCubicAntialias:
        AntialiasTaps(o, visit);
        return;
    }
  }
  // The first and last source index output o reads (its taps come in increasing index order).
  int64_t FirstSource(int64_t o) const {
    int64_t first = -1;
    ForEachTap(o, [&](int64_t i, double) {
      if (first < 0) first = i;
    });
    return first;
  }
  int64_t LastSource(int64_t o) const {
    int64_t last = -1;
    ForEachTap(o, [&](int64_t i, double) { last = i; });
    return last;
  }

 private:
  // Keys' four taps around the unclamped source index (PyTorch: floor, clamped to in - 1, and the
  // fraction clamped to [0, 1]); indices clamped to [0, in - 1], equal neighbours merged.
  template <typename Visit>
  void CubicTaps(int64_t o, Visit &&visit) const {
    const double src =
        alignCorners ? scale * static_cast<double>(o) : scale * (static_cast<double>(o) + 0.5) - 0.5;
    const int64_t base = FloorIndex(src, in - 1);
    const double t = std::clamp(src - static_cast<double>(base), 0.0, 1.0);
    const double w[4] = {CubicKernel(t + 1.0, kCubicA), CubicKernel(t, kCubicA),
                         CubicKernel(1.0 - t, kCubicA), CubicKernel(2.0 - t, kCubicA)};
    int64_t pending = -1;
    double sum = 0.0;
    for (int k = 0; k < 4; ++k) {
      const int64_t i = std::clamp<int64_t>(base - 1 + k, 0, in - 1);
      if (i != pending && pending >= 0) {
        visit(pending, sum);
        sum = 0.0;
      }
      pending = i;
      sum += w[k];
    }
    visit(pending, sum);
  }

  // An antialiased axis whose size does not change and whose step is 1 is not resampled (one tap of
  // weight 1), as PyTorch's forward skips such an axis; its backward resamples one whose user scale gives
  // another step, which the operators pass on (op_api: the forwards drop the scale of such an axis).
  bool AntialiasKeepsAxis() const { return !NeedResize() && scale == 1.0; }

  // PyTorch's _upsample_*_aa: the support centred on scale * (o + 0.5), the inputs whose centres it
  // covers, the kernel at their distance in units of the stretched kernel, normalised to sum 1.
  template <typename Visit>
  void AntialiasTaps(int64_t o, Visit &&visit) const {
    if (AntialiasKeepsAxis()) {
      visit(o, 1.0);
      return;
    }
    const double support = AntialiasSupport(filter, scale);
    const double center = scale * (static_cast<double>(o) + 0.5);
    const double invScale = scale >= 1.0 ? 1.0 / scale : 1.0;
    const int64_t first = TruncIndex(center - support + 0.5, in);
    const int64_t size = std::clamp<int64_t>(TruncIndex(center + support + 0.5, in) - first, 0, MaxTaps());
    if (size == 0) {
      // No input under the support (a user scale puts the centre past the input's end): the empty sum,
      // as one tap of weight 0 at the last input, so that every output has a source window inside the
      // input and the windows of consecutive outputs stay monotone.
      visit(in - 1, 0.0);
      return;
    }
    double w[kMaxAntialiasStack];
    std::vector<double> heap;
    double *weights = w;
    if (size > kMaxAntialiasStack) {
      heap.resize(static_cast<size_t>(size));
      weights = heap.data();
    }
    double total = 0.0;
    for (int64_t j = 0; j < size; ++j) {
      const double x = (static_cast<double>(first + j) - center + 0.5) * invScale;
      weights[j] = filter == Filter::kCubicAntialias ? CubicKernel(x, kCubicAntialiasA) : TriangleKernel(x);
      total += weights[j];
    }
    for (int64_t j = 0; j < size; ++j) visit(first + j, total != 0.0 ? weights[j] / total : weights[j]);
  }

  static constexpr int64_t kMaxAntialiasStack = 64;
};

inline AxisSpec MakeAxis(int64_t in, int64_t out, bool alignCorners, double userScale,
                         Filter filter = Filter::kLinear) {
  const bool pytorchScale =
      filter == Filter::kCubic || filter == Filter::kLinearAntialias || filter == Filter::kCubicAntialias;
  return AxisSpec{in, out, alignCorners,
                  pytorchScale ? FilterAxisScale(in, out, alignCorners, userScale)
                               : AxisScale(in, out, alignCorners, userScale, filter),
                  filter};
}

// All taps of an axis, indexed by output position: the forward weight table.
inline std::vector<Tap> ForwardTaps(const AxisSpec &axis) {
  std::vector<Tap> taps(static_cast<size_t>(axis.out));
  for (int64_t o = 0; o < axis.out; ++o) taps[static_cast<size_t>(o)] = axis.TapOf(o);
  return taps;
}

// The backward (transposed) weight table: for every source index i, the list of
// (output index, weight) pairs that feed it, in increasing output order; taps of one output that
// coincide (a linear i0 == i1) give an entry each, in tap order. Zero weights are kept:
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
    axis.ForEachTap(o, [&](int64_t i, double) { ++begin[static_cast<size_t>(i) + 1]; });
  }
  for (size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
  table.entries.resize(static_cast<size_t>(begin.back()));
  // begin[i] serves as list i's fill cursor (it ends at list i's end, the old begin[i + 1]), then the
  // cursors are shifted back by one list.
  for (int64_t o = 0; o < axis.out; ++o) {  // increasing o keeps every list sorted
    axis.ForEachTap(o, [&](int64_t i, double w) {
      table.entries[static_cast<size_t>(begin[static_cast<size_t>(i)]++)] = GatherEntry{o, w};
    });
  }
  for (size_t i = begin.size() - 1; i > 0; --i) begin[i] = begin[i - 1];
  begin[0] = 0;
  return table;
}

// The most terms one source point can receive on this axis (docs/spec.md §5's m = ceil(out/in) + 2).
inline int64_t MaxTermsPerSource(const AxisSpec &axis) { return (axis.out + axis.in - 1) / axis.in + 2; }

}  // namespace trilinear3d::math

#endif  // TRILINEAR3D_COMMON_RESAMPLE_MATH_H_
