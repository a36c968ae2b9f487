// Naive float64 reference of UpsampleTrilinear3dBackward and the accuracy rule of docs/spec.md §5.
// Computed the direct way (scatter of every gradOut element to its 8 corners, zero weights
// included) so that it shares nothing with the library's separable gather kernel except the
// per-axis index / weight math of resample_math.h.
#ifndef TRILINEAR3D_TESTS_SUPPORT_REFERENCE_UPSAMPLE_REFERENCE_H_
#define TRILINEAR3D_TESTS_SUPPORT_REFERENCE_UPSAMPLE_REFERENCE_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "common/resample_math.h"

namespace trilinear3d::test {

using Shape5 = std::array<int64_t, 5>;  // logical N, C, D, H, W

inline int64_t ElementCount(const Shape5 &shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

// The operator a problem is for: the 3-D pair, or the 2-D and 1-D operators, which run as 5-D problems
// with unit D (and H) axes and have their own scales rules (UsedScales). A backward problem's kBilinear2d
// is aclnnUpsampleBilinear2dBackwardV2; kBilinear2dBackwardV1 is the backward's V1 only.
enum class Api { kTrilinear3d, kBilinear2d, kBilinear2dBackwardV1, kLinear1d };

inline const char *ApiLabel(Api api) {
  switch (api) {
    case Api::kTrilinear3d:
      return "Trilinear3d";
    case Api::kBilinear2d:
      return "Bilinear2d";
    case Api::kBilinear2dBackwardV1:
      return "Bilinear2dBackwardV1";
    case Api::kLinear1d:
      break;
  }
  return "Linear1d";
}

// The rank of the operator's tensors.
inline int ApiRank(Api api) { return api == Api::kTrilinear3d ? 5 : api == Api::kLinear1d ? 3 : 4; }

// One backward problem as the op sees it: gradInput's size, gradOut's spatial size, attributes.
struct BackwardProblem {
  Shape5 inputSize{};                   // gradInput: N, C, iD, iH, iW
  std::array<int64_t, 3> outputSize{};  // gradOut: oD, oH, oW
  bool alignCorners = false;
  std::array<double, 3> scales{0.0, 0.0, 0.0};  // scalesD / H / W as passed to the op
  // The 1-D and 2-D operators' rule (each axis's scale counts where > 0) instead of the 3-D operators'
  // (all three or none).
  bool perAxisScales = false;
  Api api = Api::kTrilinear3d;  // the 2-D and 1-D operators: logical D (and H) of 1

  Shape5 GradOutShape() const {
    return {inputSize[0], inputSize[1], outputSize[0], outputSize[1], outputSize[2]};
  }

  std::string Describe() const {
    std::ostringstream os;
    os << "gradInput(" << inputSize[0] << "," << inputSize[1] << "," << inputSize[2] << "," << inputSize[3]
       << "," << inputSize[4] << ") <- gradOut(" << inputSize[0] << "," << inputSize[1] << ","
       << outputSize[0] << "," << outputSize[1] << "," << outputSize[2] << ") alignCorners=" << alignCorners
       << " scales=(" << scales[0] << "," << scales[1] << "," << scales[2] << ")";
    if (api != Api::kTrilinear3d) os << " op=" << ApiLabel(api);
    return os.str();
  }
};

// Whether a user scale gives the output size of its axis: s > 0 and floor(in * s) == out.
inline bool ScaleGivesSize(double scale, int64_t in, int64_t out) {
  return scale > 0.0 && std::floor(static_cast<double>(in) * scale) == static_cast<double>(out);
}

// The D, H, W scales the operator takes from the scales passed to it (p.scales), by its own rule (CANN's
// op_api): the 3-D operators all three when all three are > 0 (perAxisScales: each one > 0); Bilinear2d
// and the backward's V2 scalesH and scalesW when both give the sizes, else none; the backward's V1 none;
// Linear1d's scale when it gives the size (the forward rejects any other scale >= 0). 0: the sizes decide.
inline std::array<double, 3> UsedScales(const BackwardProblem &p) {
  const auto gives = [&](int a) { return ScaleGivesSize(p.scales[a], p.inputSize[2 + a], p.outputSize[a]); };
  std::array<double, 3> used{0.0, 0.0, 0.0};
  switch (p.api) {
    case Api::kTrilinear3d:
      used = p.scales;
      if (!p.perAxisScales) math::AllOrNoScales(p.scales.data(), used.data());
      break;
    case Api::kBilinear2d:
      if (gives(1) && gives(2)) used = {0.0, p.scales[1], p.scales[2]};
      break;
    case Api::kBilinear2dBackwardV1:
      break;
    case Api::kLinear1d:
      if (gives(2)) used[2] = p.scales[2];
      break;
  }
  return used;
}

// The axes the operator does not have: D for the 2-D operators, D and H for the 1-D ones.
inline int UnitAxes(Api api) {
  switch (api) {
    case Api::kTrilinear3d:
      return 0;
    case Api::kBilinear2d:
    case Api::kBilinear2dBackwardV1:
      return 1;
    case Api::kLinear1d:
      return 2;
  }
  return 0;
}

// The D, H, W axes exactly as docs/spec.md §2 defines them, with the scales the operator uses; the axes
// the operator does not have are unit axes (one tap, weight 1).
inline std::array<math::AxisSpec, 3> MakeAxes(const BackwardProblem &p) {
  const std::array<double, 3> axisScales = UsedScales(p);
  std::array<math::AxisSpec, 3> axes;
  for (int a = 0; a < 3; ++a) {
    const math::Filter filter = a < UnitAxes(p.api) ? math::Filter::kUnit : math::Filter::kLinear;
    axes[a] = math::MakeAxis(p.inputSize[2 + a], p.outputSize[a], p.alignCorners, axisScales[a], filter);
  }
  return axes;
}

// Every source index a rounded source position can select on one axis (docs/spec.md §5's T):
// i0 and i1, plus k-1, k, k+1 where src is within rounding of an integer k. An identity axis has
// only o: both its taps are o (math::ComputeTap), with no rounding question.
struct AxisCandidates {
  std::vector<std::vector<int64_t>> indices;  // per output index, distinct, in [0, in)
  std::vector<bool> nearInteger;              // per output index
};

inline AxisCandidates MakeCandidates(const math::AxisSpec &axis) {
  AxisCandidates result;
  result.indices.resize(static_cast<size_t>(axis.out));
  result.nearInteger.assign(static_cast<size_t>(axis.out), false);
  const std::vector<math::Tap> taps = math::ForwardTaps(axis);
  for (int64_t o = 0; o < axis.out; ++o) {
    std::vector<int64_t> &list = result.indices[static_cast<size_t>(o)];
    const math::Tap &tap = taps[static_cast<size_t>(o)];
    list.push_back(tap.i0);
    if (!axis.NeedResize()) continue;
    list.push_back(tap.i1);
    const double src = math::SourceIndex(axis.scale, o, axis.alignCorners);
    const double k = std::nearbyint(src);
    if (std::abs(src - k) <= 1e-9 * std::max(1.0, std::abs(src))) {
      result.nearInteger[static_cast<size_t>(o)] = true;
      for (int64_t c = static_cast<int64_t>(k) - 1; c <= static_cast<int64_t>(k) + 1; ++c) {
        list.push_back(std::clamp<int64_t>(c, 0, axis.in - 1));
      }
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return result;
}

// golden: the float64 backward; absSum: docs/spec.md §5's A; tapSum: its T; exempt: elements reachable
// from a non-finite gradOut through a near-integer source index (class rule does not apply).
struct ReferenceResult {
  std::vector<double> golden;
  std::vector<double> absSum;
  std::vector<double> tapSum;
  std::vector<bool> exempt;
};

// A user scale per axis with floor(in * s) == out but 1/s != in/out, so that using it matters;
// in is the input's spatial sizes (D, H, W).
inline std::array<double, 3> ScalesSelecting(const std::array<int64_t, 3> &in,
                                             const std::array<int64_t, 3> &out) {
  std::array<double, 3> scales{};
  for (int a = 0; a < 3; ++a) scales[a] = (static_cast<double>(out[a]) + 0.3) / static_cast<double>(in[a]);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(static_cast<int64_t>(std::floor(static_cast<double>(in[a]) * scales[a])), out[a])
        << "test setup: scales must be consistent with the sizes";
  }
  return scales;
}

// The taps and rounding candidates of a problem's three axes (D, H, W), the forward's and the
// backward's alike.
struct AxisTables {
  std::array<std::vector<math::Tap>, 3> taps;
  std::array<int, 3> tapCount;  // per output: 2, or 1 on a unit axis (its i0, weight 1)
  std::array<AxisCandidates, 3> candidates;
};

inline AxisTables MakeAxisTables(const BackwardProblem &p) {
  const std::array<math::AxisSpec, 3> specs = MakeAxes(p);
  AxisTables t;
  for (int a = 0; a < 3; ++a) {
    t.taps[a] = math::ForwardTaps(specs[a]);
    t.tapCount[a] = specs[a].MaxTaps();
    t.candidates[a] = MakeCandidates(specs[a]);
  }
  return t;
}

// gradOut in logical NCDHW order (p.GradOutShape()); the result in logical NCDHW of p.inputSize.
inline ReferenceResult BackwardReference(const BackwardProblem &p, const std::vector<double> &gradOut) {
  const AxisTables axes = MakeAxisTables(p);
  const std::vector<math::Tap> &tapD = axes.taps[0], &tapH = axes.taps[1], &tapW = axes.taps[2];
  const AxisCandidates &candD = axes.candidates[0], &candH = axes.candidates[1], &candW = axes.candidates[2];
  const int64_t planes = p.inputSize[0] * p.inputSize[1];
  const int64_t iD = p.inputSize[2], iH = p.inputSize[3], iW = p.inputSize[4];
  const int64_t oD = p.outputSize[0], oH = p.outputSize[1], oW = p.outputSize[2];
  const size_t inCount = static_cast<size_t>(ElementCount(p.inputSize));

  ReferenceResult r;
  r.golden.assign(inCount, 0.0);
  r.absSum.assign(inCount, 0.0);
  r.tapSum.assign(inCount, 0.0);
  r.exempt.assign(inCount, false);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const size_t inBase = static_cast<size_t>(plane * iD * iH * iW);
    auto at = [&](int64_t d, int64_t h, int64_t w) {
      return inBase + static_cast<size_t>((d * iH + h) * iW + w);
    };
    for (int64_t od = 0; od < oD; ++od) {
      for (int64_t oh = 0; oh < oH; ++oh) {
        for (int64_t ow = 0; ow < oW; ++ow) {
          const double g = gradOut[static_cast<size_t>(((plane * oD + od) * oH + oh) * oW + ow)];
          const math::Tap &td = tapD[static_cast<size_t>(od)];
          const math::Tap &th = tapH[static_cast<size_t>(oh)];
          const math::Tap &tw = tapW[static_cast<size_t>(ow)];
          const int64_t id[2] = {td.i0, td.i1}, ih[2] = {th.i0, th.i1}, iw[2] = {tw.i0, tw.i1};
          const double ld[2] = {td.l0, td.l1}, lh[2] = {th.l0, th.l1}, lw[2] = {tw.l0, tw.l1};
          for (int a = 0; a < axes.tapCount[0]; ++a) {
            for (int b = 0; b < axes.tapCount[1]; ++b) {
              for (int c = 0; c < axes.tapCount[2]; ++c) {
                const double weight = ld[a] * lh[b] * lw[c];  // every corner, zero weight included
                const size_t i = at(id[a], ih[b], iw[c]);
                r.golden[i] += weight * g;
                r.absSum[i] += weight * std::abs(g);
              }
            }
          }
          const bool nearInteger = candD.nearInteger[static_cast<size_t>(od)] ||
                                   candH.nearInteger[static_cast<size_t>(oh)] ||
                                   candW.nearInteger[static_cast<size_t>(ow)];
          const bool exemptSource = !std::isfinite(g) && nearInteger;
          for (int64_t d : candD.indices[static_cast<size_t>(od)]) {
            for (int64_t h : candH.indices[static_cast<size_t>(oh)]) {
              for (int64_t w : candW.indices[static_cast<size_t>(ow)]) {
                r.tapSum[at(d, h, w)] += std::abs(g);
                if (exemptSource) r.exempt[at(d, h, w)] = true;
              }
            }
          }
        }
      }
    }
  }
  return r;
}

// docs/spec.md §5: |ours - golden| <= k*u_acc*A + 4*u_acc*(iD+iH+iW)*T + e_out*|golden|.
// One reading beyond the letter: e_out*|golden| stands for the rounding of the stored result,
// which below the dtype's smallest normal is absolute (half a subnormal ulp, 2^-25 for fp16),
// so |golden| is taken as at least that smallest normal. Without it a correctly rounded fp16
// subnormal result (e.g. 0.5 * 573 * 2^-24 -> 286 * 2^-24) would count as an error.
struct Tolerance {
  double uAcc = 0.0;
  double eOut = 0.0;
  double minNormal = 0.0;  // of the stored dtype
  double k = 0.0;
  double sizeSum = 0.0;  // iD + iH + iW
  bool fp16 = false;

  double Bound(double absSum, double tapSum, double golden) const {
    return k * uAcc * absSum + 4.0 * uAcc * sizeSum * tapSum + eOut * std::max(std::abs(golden), minNormal);
  }
};

inline Tolerance ToleranceFor(aclDataType dtype, const BackwardProblem &p) {
  const std::array<math::AxisSpec, 3> axes = MakeAxes(p);
  Tolerance t;
  t.uAcc = dtype == ACL_DOUBLE ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  t.eOut = dtype == ACL_FLOAT16 ? std::ldexp(1.0, -10) : dtype == ACL_BF16 ? std::ldexp(1.0, -7) : 0.0;
  t.minNormal = dtype == ACL_FLOAT16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126);
  double m = 0.0;
  for (const math::AxisSpec &axis : axes) m += static_cast<double>(math::MaxTermsPerSource(axis));
  t.k = 2.0 * m;
  t.sizeSum = static_cast<double>(p.inputSize[2] + p.inputSize[3] + p.inputSize[4]);
  t.fp16 = dtype == ACL_FLOAT16;
  return t;
}

enum class ValueClass { kFinite, kNaN, kPosInf, kNegInf };

inline ValueClass ClassOf(double v) {
  if (std::isnan(v)) return ValueClass::kNaN;
  if (std::isinf(v)) return v > 0 ? ValueClass::kPosInf : ValueClass::kNegInf;
  return ValueClass::kFinite;
}

// Whether one element of the result is acceptable; sets *excess to error / bound (inf for a
// class mismatch) so that the caller can report the worst element.
inline bool ElementAcceptable(double got, const ReferenceResult &ref, size_t i, const Tolerance &tol,
                              double *bound, double *excess) {
  const double golden = ref.golden[i];
  *bound = tol.Bound(ref.absSum[i], ref.tapSum[i], golden);
  *excess = 0.0;
  if (ref.exempt[i]) return true;
  if (!std::isfinite(golden)) {
    if (ClassOf(got) == ClassOf(golden)) return true;
    *excess = INFINITY;
    return false;
  }
  // fp16: near or beyond the overflow threshold, infinity of the golden's sign is the right answer.
  if (tol.fp16 && std::isinf(got) && std::signbit(got) == std::signbit(golden) &&
      std::abs(golden) >= 65520.0 - *bound) {
    return true;
  }
  if (!std::isfinite(got)) {
    *excess = INFINITY;
    return false;
  }
  const double err = std::abs(got - golden);
  *excess = *bound > 0.0 ? err / *bound : (err > 0.0 ? INFINITY : 0.0);
  return err <= *bound;
}

// Checks a whole gradInput (logical NCDHW) against the reference; on failure reports how many
// elements are off and the worst one (index, got, golden, bound).
inline ::testing::AssertionResult MatchesReference(const std::vector<double> &got, const ReferenceResult &ref,
                                                   const Tolerance &tol, const Shape5 &shape) {
  if (got.size() != ref.golden.size()) {
    return ::testing::AssertionFailure()
           << "result has " << got.size() << " elements, expected " << ref.golden.size();
  }
  size_t bad = 0, worst = 0;
  double worstExcess = -1.0, worstBound = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    double bound = 0.0, excess = 0.0;
    if (!ElementAcceptable(got[i], ref, i, tol, &bound, &excess)) ++bad;
    if (excess > worstExcess) {
      worstExcess = excess;
      worst = i;
      worstBound = bound;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  int64_t rest = static_cast<int64_t>(worst);
  int64_t index[5];
  for (int a = 4; a >= 0; --a) {
    index[a] = rest % shape[a];
    rest /= shape[a];
  }
  std::ostringstream os;
  os.precision(17);
  os << bad << " of " << got.size() << " elements out of bound; worst at (n,c,d,h,w)=(" << index[0] << ","
     << index[1] << "," << index[2] << "," << index[3] << "," << index[4] << "): got " << got[worst]
     << ", golden " << ref.golden[worst] << ", bound " << worstBound << ", A " << ref.absSum[worst] << ", T "
     << ref.tapSum[worst];
  return ::testing::AssertionFailure() << os.str();
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_REFERENCE_UPSAMPLE_REFERENCE_H_
