// Shared pieces of the reliability tests: one call of either operator on tensors inside guard bands
// (tests/support's DeviceTensor with Guard::kBands), random op cases and a content hash for bitwise
// comparisons.
#ifndef TRILINEAR3D_TESTS_RELIABILITY_RELIABILITY_SUPPORT_H_
#define TRILINEAR3D_TESTS_RELIABILITY_RELIABILITY_SUPPORT_H_

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "op_runner.h"
#include "reference/forward_reference.h"
#include "reference/upsample_reference.h"
#include "test_tensor.h"

namespace trilinear3d::reliability {

using test::BackwardProblem;
using test::LayoutName;
using test::MemLayout;
using test::Shape5;

// One call of either operator: its sizes and attributes (a BackwardProblem describes the forward
// too: inputSize is self's shape, GradOutShape() out's; problem.api the entry point, the forward of
// kBilinear2dBackwardV1 being aclnnUpsampleBilinear2d), dtype, and each tensor's format and layout.
// src is the tensor read (self / gradOut), dst the one written (out / gradInput).
struct OpCase {
  bool backward = true;
  aclDataType dtype = ACL_FLOAT;
  BackwardProblem problem;
  aclFormat srcFormat = ACL_FORMAT_NCDHW;
  aclFormat dstFormat = ACL_FORMAT_NCDHW;
  MemLayout srcLayout = MemLayout::kContiguous;
  MemLayout dstLayout = MemLayout::kContiguous;
  uint64_t dataSeed = 0;

  Shape5 SrcShape() const { return backward ? problem.GradOutShape() : problem.inputSize; }
  Shape5 DstShape() const { return backward ? problem.inputSize : problem.GradOutShape(); }

  std::string Describe() const {
    std::ostringstream os;
    os << (backward ? "backward " : "forward ") << test::DtypeName(dtype) << " " << problem.Describe()
       << " src " << test::FormatName(srcFormat) << "/" << LayoutName(srcLayout) << " dst "
       << test::FormatName(dstFormat) << "/" << LayoutName(dstLayout) << " dataSeed " << dataSeed;
    return os.str();
  }
};

// Phase one of either operator on its two tensors (the int arrays are destroyed before returning).
inline ::testing::AssertionResult PrepareOp(const OpCase &c, const aclTensor *src, aclTensor *dst,
                                            test::PreparedOp *op) {
  ::testing::AssertionResult prepared = c.backward
                                            ? test::PrepareBackward(src, c.problem, dst, op)
                                            : test::PrepareForward(src, test::ForwardOf(c.problem), dst, op);
  if (!prepared) prepared << " (" << c.Describe() << ")";
  return prepared;
}

// Phase two of the operator op was planned for.
inline ::testing::AssertionResult EnqueueOp(const OpCase &c, test::PreparedOp *op, aclrtStream stream) {
  ::testing::AssertionResult enqueued = test::Enqueue(op, stream);
  if (!enqueued) enqueued << " (" << c.Describe() << ")";
  return enqueued;
}

// The float64 result of a case, for the values the library read (already rounded to the dtype).
inline test::ReferenceResult Reference(const OpCase &c, const std::vector<double> &srcValues) {
  return c.backward ? test::BackwardReference(c.problem, srcValues)
                    : test::ForwardReference(test::ForwardOf(c.problem), srcValues);
}

// FNV-1a over bytes: enough to compare results bit for bit without keeping them.
inline uint64_t HashBytes(const std::vector<uint8_t> &bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  return h;
}

// Consistent user scales for a problem: floor(in * s) == out on every axis (docs/spec.md §2).
inline std::array<double, 3> ConsistentScales(const BackwardProblem &p) {
  std::array<double, 3> s{};
  for (int a = 0; a < 3; ++a) {
    const double in = static_cast<double>(p.inputSize[2 + a]);
    s[a] = (static_cast<double>(p.outputSize[a]) + 0.25) / in;  // floor(in * s) = out: away from the edge
  }
  return s;
}

// The case for a 2-D / 1-D entry point: its unit D (and H) axes (size 1), its formats (test::FormatFor;
// aclnnUpsampleBilinear2d: src in dst's format), and the 1-D forward's "no scale" (-1) where it has none.
inline void WithApi(test::Api api, OpCase *c) {
  BackwardProblem &p = c->problem;
  p.api = api;
  const int unitAxes = 5 - test::ApiRank(api);
  for (int a = 0; a < unitAxes; ++a) {
    p.inputSize[2 + static_cast<size_t>(a)] = 1;
    p.outputSize[static_cast<size_t>(a)] = 1;
    p.scales[static_cast<size_t>(a)] = 0.0;
  }
  c->srcFormat = test::FormatFor(api, c->srcFormat);
  c->dstFormat = test::FormatFor(api, c->dstFormat);
  if (!c->backward && api != test::Api::kTrilinear3d && api != test::Api::kLinear1d)
    c->srcFormat = c->dstFormat;
  if (!c->backward && api == test::Api::kLinear1d && p.scales[2] == 0.0) p.scales[2] = -1.0;
}

// A random small case of one of the seven entry points (problem.api; a 2-D / 1-D op's unit D (and H) axes
// of size 1, its formats by test::FormatFor, aclnnUpsampleBilinear2d's two tensors in one format): every
// dtype, format and layout; identity, up- and down-sampled axes; both align modes; user scales in a quarter
// of the cases.
inline OpCase RandomCase(std::mt19937_64 &rng) {
  auto pick = [&rng](int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng)); };
  static const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  static const aclFormat kFormats[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND};
  static const MemLayout kLayouts[] = {MemLayout::kContiguous, MemLayout::kPermuted, MemLayout::kSliced};
  OpCase c;
  c.backward = pick(2) == 0;
  c.dtype = kDtypes[pick(4)];
  BackwardProblem &p = c.problem;
  p.inputSize[0] = 1 + pick(2);
  p.inputSize[1] = pick(4) == 0 ? 8 + pick(9) : 1 + pick(3);  // C >= 8 takes the channels-inner path
  for (int a = 0; a < 3; ++a) {
    p.inputSize[2 + a] = 1 + pick(9);
    const int kind = pick(3);  // identity, upsample, downsample
    p.outputSize[a] = kind == 0   ? p.inputSize[2 + a]
                      : kind == 1 ? p.inputSize[2 + a] + 1 + pick(10)
                                  : 1 + pick(9);
  }
  p.alignCorners = pick(2) == 0;
  if (pick(4) == 0) p.scales = ConsistentScales(p);
  c.srcFormat = kFormats[pick(3)];
  c.dstFormat = kFormats[pick(3)];
  c.srcLayout = kLayouts[pick(3)];
  c.dstLayout = kLayouts[pick(3)];
  c.dataSeed = rng();
  static const test::Api kApis[] = {test::Api::kTrilinear3d, test::Api::kBilinear2d,
                                    test::Api::kBilinear2dBackwardV1, test::Api::kLinear1d};
  WithApi(kApis[pick(4)], &c);
  return c;
}

// A case with its tensors (inside guard bands) and planned executor: src uploaded from dataSeed, dst
// poisoned with NaN, both aclTensors already destroyed (the executor must not need them), workspace
// allocated.
struct PreparedCase {
  OpCase c;
  std::unique_ptr<test::DeviceTensor> src;
  std::unique_ptr<test::DeviceTensor> dst;
  std::vector<double> srcValues;  // as stored in the dtype
  test::PreparedOp op;
};

inline ::testing::AssertionResult Prepare(const OpCase &c, PreparedCase *out) {
  out->c = c;
  const int rank = test::ApiRank(c.problem.api);
  out->src = std::make_unique<test::DeviceTensor>(c.SrcShape(), c.dtype, c.srcFormat, c.srcLayout,
                                                  test::Guard::kBands, rank);
  out->dst = std::make_unique<test::DeviceTensor>(c.DstShape(), c.dtype, c.dstFormat, c.dstLayout,
                                                  test::Guard::kBands, rank);
  std::mt19937_64 rng(c.dataSeed);
  out->srcValues = out->src->Upload(
      test::RandomValues(rng, test::ElementCount(c.SrcShape()), test::Distribution::kUnitNormal));
  out->dst->PoisonView();
  const ::testing::AssertionResult prepared = PrepareOp(c, out->src->get(), out->dst->get(), &out->op);
  out->src->DestroyAclTensor();
  out->dst->DestroyAclTensor();
  return prepared;
}

inline ::testing::AssertionResult Enqueue(PreparedCase *p, aclrtStream stream) {
  return EnqueueOp(p->c, &p->op, stream);
}

// Seconds the stress tests run: TRILINEAR3D_STRESS_SECONDS when set to a positive number, else fallback.
inline double StressSeconds(double fallback) {
  if (const char *text = std::getenv("TRILINEAR3D_STRESS_SECONDS")) {
    const double v = std::strtod(text, nullptr);
    if (v > 0.0) return v;
  }
  return fallback;
}

}  // namespace trilinear3d::reliability

#endif  // TRILINEAR3D_TESTS_RELIABILITY_RELIABILITY_SUPPORT_H_
