// Naive float64 reference of UpsampleTrilinear3d (the forward) and docs/spec.md §5's bound built the
// forward way. Computed directly: every output element is the sum of its 8 corner terms, zero
// weights included (0 * inf must give NaN), so it shares nothing with the library's fused
// D -> H -> W kernel except the per-axis index / weight math of resample_math.h.
#ifndef TRILINEAR3D_TESTS_SUPPORT_REFERENCE_FORWARD_REFERENCE_H_
#define TRILINEAR3D_TESTS_SUPPORT_REFERENCE_FORWARD_REFERENCE_H_

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "common/resample_math.h"
#include "reference/upsample_reference.h"

namespace trilinear3d::test {

// One forward problem as the op sees it: self's shape, out's spatial size, attributes.
struct ForwardProblem {
  Shape5 selfSize{};                    // self: N, C, iD, iH, iW
  std::array<int64_t, 3> outputSize{};  // out: oD, oH, oW
  bool alignCorners = false;
  std::array<double, 3> scales{0.0, 0.0, 0.0};  // scalesD / H / W as passed to the op
  bool perAxisScales = false;                   // as BackwardProblem::perAxisScales
  Api api = Api::kTrilinear3d;                  // as BackwardProblem::api (never kBilinear2dBackwardV1)

  Shape5 OutShape() const { return {selfSize[0], selfSize[1], outputSize[0], outputSize[1], outputSize[2]}; }

  // The backward problem with the same axes: its gradInput is self, its gradOut is out.
  BackwardProblem Transposed() const {
    return BackwardProblem{selfSize, outputSize, alignCorners, scales, perAxisScales, api};
  }

  std::string Describe() const {
    std::ostringstream os;
    os << "self(" << selfSize[0] << "," << selfSize[1] << "," << selfSize[2] << "," << selfSize[3] << ","
       << selfSize[4] << ") -> out(" << selfSize[0] << "," << selfSize[1] << "," << outputSize[0] << ","
       << outputSize[1] << "," << outputSize[2] << ") alignCorners=" << alignCorners << " scales=("
       << scales[0] << "," << scales[1] << "," << scales[2] << ")";
    if (api != Api::kTrilinear3d) os << " op=" << ApiLabel(api);
    return os.str();
  }
};

// The forward problem with a backward problem's axes: self is its gradInput, out its gradOut.
inline ForwardProblem ForwardOf(const BackwardProblem &p) {
  return ForwardProblem{p.inputSize,     p.outputSize,
                        p.alignCorners,  p.scales,
                        p.perAxisScales, p.api == Api::kBilinear2dBackwardV1 ? Api::kBilinear2d : p.api};
}

// self in logical NCDHW order (p.selfSize); the result in logical NCDHW of p.OutShape().
//   golden  = sum over the 8 corners of l_d*l_h*l_w * x            (every corner, zero weights too)
//   absSum  = A: the same with |x|
//   tapSum  = T: unit weight on every source index a rounded source position can select
//             (MakeCandidates: i0, i1 and k-1, k, k+1 near an integer k; identity axes i0 only)
//   exempt  = outputs with a near-integer source index on some axis whose candidates include a
//             non-finite x (either neighbouring tap choice is acceptable there)
inline ReferenceResult ForwardReference(const ForwardProblem &p, const std::vector<double> &self) {
  const AxisTables axes = MakeAxisTables(p.Transposed());
  const std::vector<math::Tap> &tapD = axes.taps[0], &tapH = axes.taps[1], &tapW = axes.taps[2];
  const AxisCandidates &candD = axes.candidates[0], &candH = axes.candidates[1], &candW = axes.candidates[2];
  const int64_t planes = p.selfSize[0] * p.selfSize[1];
  const int64_t iD = p.selfSize[2], iH = p.selfSize[3], iW = p.selfSize[4];
  const int64_t oD = p.outputSize[0], oH = p.outputSize[1], oW = p.outputSize[2];
  const size_t outCount = static_cast<size_t>(ElementCount(p.OutShape()));

  ReferenceResult r;
  r.golden.assign(outCount, 0.0);
  r.absSum.assign(outCount, 0.0);
  r.tapSum.assign(outCount, 0.0);
  r.exempt.assign(outCount, false);
  size_t o = 0;  // output element, logical NCDHW order
  for (int64_t plane = 0; plane < planes; ++plane) {
    const size_t inBase = static_cast<size_t>(plane * iD * iH * iW);
    auto x = [&](int64_t d, int64_t h, int64_t w) {
      return self[inBase + static_cast<size_t>((d * iH + h) * iW + w)];
    };
    for (int64_t od = 0; od < oD; ++od) {
      for (int64_t oh = 0; oh < oH; ++oh) {
        for (int64_t ow = 0; ow < oW; ++ow, ++o) {
          const math::Tap &td = tapD[static_cast<size_t>(od)];
          const math::Tap &th = tapH[static_cast<size_t>(oh)];
          const math::Tap &tw = tapW[static_cast<size_t>(ow)];
          const int64_t id[2] = {td.i0, td.i1}, ih[2] = {th.i0, th.i1}, iw[2] = {tw.i0, tw.i1};
          const double ld[2] = {td.l0, td.l1}, lh[2] = {th.l0, th.l1}, lw[2] = {tw.l0, tw.l1};
          double sum = 0.0, absSum = 0.0;
          for (int a = 0; a < axes.tapCount[0]; ++a) {
            for (int b = 0; b < axes.tapCount[1]; ++b) {
              for (int c = 0; c < axes.tapCount[2]; ++c) {
                const double weight = ld[a] * lh[b] * lw[c];  // every corner, zero weight included
                const double v = x(id[a], ih[b], iw[c]);
                sum += weight * v;
                absSum += weight * std::abs(v);
              }
            }
          }
          r.golden[o] = sum;
          r.absSum[o] = absSum;
          const bool nearInteger = candD.nearInteger[static_cast<size_t>(od)] ||
                                   candH.nearInteger[static_cast<size_t>(oh)] ||
                                   candW.nearInteger[static_cast<size_t>(ow)];
          double tapSum = 0.0;
          bool nonFiniteCandidate = false;
          for (int64_t d : candD.indices[static_cast<size_t>(od)]) {
            for (int64_t h : candH.indices[static_cast<size_t>(oh)]) {
              for (int64_t w : candW.indices[static_cast<size_t>(ow)]) {
                const double v = x(d, h, w);
                tapSum += std::abs(v);
                nonFiniteCandidate = nonFiniteCandidate || !std::isfinite(v);
              }
            }
          }
          r.tapSum[o] = tapSum;
          r.exempt[o] = nearInteger && nonFiniteCandidate;
        }
      }
    }
  }
  return r;
}

// docs/spec.md §5 for the forward: k, u_acc, e_out and (iD + iH + iW) exactly as the backward's
// (self plays gradInput's part), with A and T from ForwardReference; fp16 overflow and the
// non-finite class rule as in ElementAcceptable.
inline Tolerance ForwardToleranceFor(aclDataType dtype, const ForwardProblem &p) {
  return ToleranceFor(dtype, p.Transposed());
}

// selfValues: what the library read (already rounded to the dtype), logical NCDHW.
inline ::testing::AssertionResult ForwardMatchesReference(const std::vector<double> &selfValues,
                                                          const ForwardProblem &p, aclDataType dtype,
                                                          const std::vector<double> &got) {
  const ReferenceResult ref = ForwardReference(p, selfValues);
  return MatchesReference(got, ref, ForwardToleranceFor(dtype, p), p.OutShape());
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_REFERENCE_FORWARD_REFERENCE_H_
