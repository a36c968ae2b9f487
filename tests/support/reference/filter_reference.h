// Float64 reference of the cubic group's 2-D operators (bicubic, antialiased bilinear and bicubic; forward
// and backward), written from the operators' formulas (docs/spec.md §2) and not from
// common/resample_math.h: each axis is a dense out x in weight matrix, the forward sums every (h, w)
// term, the backward the transposed terms. Also the error bound the tests hold the library to.
#ifndef TRILINEAR3D_TESTS_SUPPORT_REFERENCE_FILTER_REFERENCE_H_
#define TRILINEAR3D_TESTS_SUPPORT_REFERENCE_FILTER_REFERENCE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace trilinear3d::test {

enum class FilterKind { kBicubic, kBilinearAntialias, kBicubicAntialias };

// Keys' cubic convolution weight at distance d (docs: (a+2)|d|^3 - (a+3)|d|^2 + 1 for |d| <= 1,
// a|d|^3 - 5a|d|^2 + 8a|d| - 4a for 1 < |d| < 2, else 0).
inline double KeysWeight(double d, double a) {
  const double x = d < 0 ? -d : d;
  if (x <= 1.0) return (a + 2.0) * x * x * x - (a + 3.0) * x * x + 1.0;
  if (x < 2.0) return a * x * x * x - 5.0 * a * x * x + 8.0 * a * x - 4.0 * a;
  return 0.0;
}

inline double TriangleWeight(double d) {
  const double x = d < 0 ? -d : d;
  return x < 1.0 ? 1.0 - x : 0.0;
}

// Source step per output index: align_corners (in - 1) / (out - 1) (0 for one output); else 1 / scale for a
// scale > 0, else in / out.
inline double ReferenceStep(int64_t in, int64_t out, bool alignCorners, double scale) {
  if (alignCorners) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
  if (scale > 0.0) return 1.0 / scale;
  return double(in) / double(out);
}

// The axis as a dense matrix m[o * in + i]. copy: the axis is copied (PyTorch's bicubic backward where
// neither axis changes size).
inline std::vector<double> ReferenceAxisMatrix(FilterKind kind, int64_t in, int64_t out, bool alignCorners,
                                               double scale, bool backward, bool copy) {
  std::vector<double> m(static_cast<size_t>(in * out), 0.0);
  auto at = [&](int64_t o, int64_t i) -> double & { return m[static_cast<size_t>(o * in + i)]; };
  if (copy) {
    for (int64_t o = 0; o < out; ++o) at(o, o) = 1.0;
    return m;
  }
  if (kind == FilterKind::kBicubic) {
    const double step = ReferenceStep(in, out, alignCorners, scale);
    for (int64_t o = 0; o < out; ++o) {
      const double x = alignCorners ? step * double(o) : step * (double(o) + 0.5) - 0.5;  // not clamped
      const int64_t left = std::min<int64_t>(static_cast<int64_t>(std::floor(x)), in - 1);
      const double frac = std::min(std::max(x - double(left), 0.0), 1.0);
      for (int64_t k = -1; k <= 2; ++k) {
        const int64_t i = std::min<int64_t>(std::max<int64_t>(left + k, 0), in - 1);  // edge taps add up
        at(o, i) += KeysWeight(frac - double(k), -0.75);
      }
    }
    return m;
  }
  const double step = ReferenceStep(in, out, alignCorners, scale);
  // PyTorch's antialiased forward leaves an axis of unchanged size as it is; its backward only where the step
  // is 1 (a user scale may give another).
  if (in == out && (!backward || step == 1.0)) {
    for (int64_t o = 0; o < out; ++o) at(o, o) = 1.0;
    return m;
  }
  const bool cubic = kind == FilterKind::kBicubicAntialias;
  const double stretch = std::max(step, 1.0);
  const double halfWidth = (cubic ? 2.0 : 1.0) * stretch;
  const int64_t most = static_cast<int64_t>(std::ceil(halfWidth)) * 2 + 1;
  for (int64_t o = 0; o < out; ++o) {
    const double centre = step * (double(o) + 0.5);
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(centre - halfWidth + 0.5), 0);
    const int64_t hi =
        std::min<int64_t>(std::min<int64_t>(static_cast<int64_t>(centre + halfWidth + 0.5), in), lo + most);
    double total = 0.0;
    for (int64_t i = lo; i < hi; ++i) {
      const double d = (double(i) + 0.5 - centre) / stretch;
      at(o, i) = cubic ? KeysWeight(d, -0.5) : TriangleWeight(d);
      total += at(o, i);
    }
    if (total != 0.0) {
      for (int64_t i = lo; i < hi; ++i) at(o, i) /= total;
    }
  }
  return m;
}

// A 2-D problem: (N, C, inH, inW) <-> (N, C, outH, outW).
struct FilterProblem {
  FilterKind kind = FilterKind::kBicubic;
  int64_t n = 1, c = 1, inH = 1, inW = 1, outH = 1, outW = 1;
  bool alignCorners = false;
  double scalesH = 0.0, scalesW = 0.0;
};

struct FilterReferenceResult {
  std::vector<double> golden;  // logical NCHW
  std::vector<double> absSum;  // the same sums of |w| * |x|
  std::vector<double> tapSum;  // the sums of |x| over the taps (unit weights)
  int64_t terms = 0;           // the most nonzero taps one result sums per axis, both axes added
};

// forward: x is (N, C, inH, inW), the result (N, C, outH, outW); backward: x is gradOut (N, C, outH, outW),
// the result gradInput (N, C, inH, inW). Logical NCHW order.
inline FilterReferenceResult FilterReference(const FilterProblem &p, const std::vector<double> &x,
                                             bool backward) {
  const bool copy = backward && p.kind == FilterKind::kBicubic && p.inH == p.outH && p.inW == p.outW;
  const std::vector<double> mh =
      ReferenceAxisMatrix(p.kind, p.inH, p.outH, p.alignCorners, p.scalesH, backward, copy);
  const std::vector<double> mw =
      ReferenceAxisMatrix(p.kind, p.inW, p.outW, p.alignCorners, p.scalesW, backward, copy);
  const int64_t srcH = backward ? p.outH : p.inH, srcW = backward ? p.outW : p.inW;
  const int64_t dstH = backward ? p.inH : p.outH, dstW = backward ? p.inW : p.outW;
  auto wh = [&](int64_t dst, int64_t src) {
    return backward ? mh[static_cast<size_t>(src * p.inH + dst)] : mh[static_cast<size_t>(dst * p.inH + src)];
  };
  auto ww = [&](int64_t dst, int64_t src) {
    return backward ? mw[static_cast<size_t>(src * p.inW + dst)] : mw[static_cast<size_t>(dst * p.inW + src)];
  };
  FilterReferenceResult r;
  const size_t count = static_cast<size_t>(p.n * p.c * dstH * dstW);
  r.golden.assign(count, 0.0);
  r.absSum.assign(count, 0.0);
  r.tapSum.assign(count, 0.0);
  int64_t mostH = 0, mostW = 0;
  for (int64_t d = 0; d < dstH; ++d) {
    int64_t k = 0;
    for (int64_t s = 0; s < srcH; ++s) k += wh(d, s) != 0.0;
    mostH = std::max(mostH, k);
  }
  for (int64_t d = 0; d < dstW; ++d) {
    int64_t k = 0;
    for (int64_t s = 0; s < srcW; ++s) k += ww(d, s) != 0.0;
    mostW = std::max(mostW, k);
  }
  r.terms = mostH + mostW;
  for (int64_t plane = 0; plane < p.n * p.c; ++plane) {
    const double *src = x.data() + plane * srcH * srcW;
    for (int64_t dh = 0; dh < dstH; ++dh) {
      for (int64_t dw = 0; dw < dstW; ++dw) {
        double sum = 0.0, abs = 0.0, taps = 0.0;
        for (int64_t sh = 0; sh < srcH; ++sh) {
          const double a = wh(dh, sh);
          if (a == 0.0) continue;
          for (int64_t sw = 0; sw < srcW; ++sw) {
            const double b = ww(dw, sw);
            if (b == 0.0) continue;
            const double v = src[sh * srcW + sw];
            sum += a * b * v;
            abs += std::abs(a * b * v);
            taps += std::abs(v);
          }
        }
        const size_t at = static_cast<size_t>((plane * dstH + dh) * dstW + dw);
        r.golden[at] = sum;
        r.absSum[at] = abs;
        r.tapSum[at] = taps;
      }
    }
  }
  return r;
}

// The bound on |result - golden|: the result's rounding to its dtype (relative to absSum >= |golden|) plus
// the accumulation in the accumulation type (fp32 for fp16 / bf16 / fp32, fp64 for fp64) over the terms of
// both axes' passes, at most one unit roundoff of absSum per term, plus the weights' own error (the library's
// and the golden's polynomials, evaluated in other orders, differ by a few ulps of the largest term: 2^-46 of
// each tap's |x|), and the smallest subnormal step of the dtype.
inline double FilterTolerance(aclDataType dtype, int64_t terms, double absSum, double tapSum) {
  double outUnit = 0.0, accUnit = 0x1p-24, tiny = 0.0;
  switch (dtype) {
    case ACL_FLOAT16:
      outUnit = 0x1p-11;
      tiny = 0x1p-24;
      break;
    case ACL_BF16:
      outUnit = 0x1p-8;
      tiny = 0x1p-133;
      break;
    case ACL_DOUBLE:
      accUnit = 0x1p-53;
      tiny = 0x1p-1074;
      break;
    default:
      tiny = 0x1p-149;
      break;
  }
  return (outUnit + 2.0 * double(terms + 4) * accUnit) * absSum + 0x1p-46 * tapSum + tiny;
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_REFERENCE_FILTER_REFERENCE_H_
