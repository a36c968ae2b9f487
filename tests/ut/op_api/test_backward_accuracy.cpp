// Accuracy of the backward op against the float64 reference with docs/spec.md §5's bound: every
// dtype x format x alignCorners x (sizes | scales) on small odd shapes, then special values.
// TRILINEAR3D_TEST_SAMPLE=k runs every k-th sweep case.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>

#include "acl_test_environment.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

// Up- and down-sampling, size-1 axes, identity axes, integer and odd ratios.
const ShapeCase kShapes[] = {
    {"MixedUpDown", {2, 3, 3, 5, 7}, {6, 4, 11}},
    {"SizeOneAxes", {1, 2, 1, 4, 5}, {3, 4, 1}},
    {"FromSizeOne", {1, 3, 5, 1, 3}, {2, 7, 3}},
    {"OddRatios", {2, 1, 4, 6, 2}, {9, 13, 5}},
    {"AllIdentity", {1, 2, 7, 3, 9}, {7, 3, 9}},
    {"StrongDown", {1, 2, 9, 11, 13}, {2, 3, 1}},
    {"IntegerSources", {1, 2, 7, 5, 9}, {3, 3, 5}},  // align_corners: integer source indices
    // W doubled with a halving run longer than a vector of every tier and rows of 42 (not a multiple
    // of one): bf16 takes split rows from the D step (width-last) and their element tails.
    {"HalvingRows", {1, 2, 3, 4, 21}, {5, 8, 42}},
};

class BackwardAccuracy : public BackwardKernelsTest<SweepCase> {};

TEST_P(BackwardAccuracy, MatchesFloat64Reference) { ExpectSweepCaseAccurate<BackwardProblem>(TestCase()); }

INSTANTIATE_TEST_SUITE_P(Sweep, BackwardAccuracy, WithBackwardKernels(SampledCases(SweepCases(kShapes))),
                         CaseAndKernelName());

// ±inf and NaN in gradOut: each output's class must be the float64 golden's (docs/spec.md §6),
// including NaN from a zero-weight tap times inf.
using SpecialParam = std::tuple<aclDataType, bool, BackwardKernel>;

class BackwardSpecialValues : public ::testing::TestWithParam<SpecialParam> {};

TEST_P(BackwardSpecialValues, NonFiniteClassesMatchGolden) {
  const auto &[dtype, alignCorners, order] = GetParam();
  const ScopedKernel forcedKernel(order);
  // H is an identity axis: its zero-weight tap must still spread NaN.
  ExpectNonFiniteClassesMatchGolden(BackwardProblem{{1, 2, 3, 5, 7}, {6, 5, 11}, alignCorners}, dtype,
                                    ACL_FORMAT_NCDHW);
  // D shrunk 11 -> 4 (no symmetric lists): the SSE2 tier's fp16 D step widens raw as it loads, and on
  // the first inf or NaN runs that index again exactly, as every later one of the item.
  ExpectNonFiniteClassesMatchGolden(BackwardProblem{{1, 2, 4, 5, 7}, {11, 5, 11}, alignCorners}, dtype,
                                    ACL_FORMAT_NCDHW);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BackwardSpecialValues,
                         ::testing::Combine(::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::Bool(), ::testing::ValuesIn(kBackwardKernels)),
                         [](const ::testing::TestParamInfo<SpecialParam> &info) {
                           return std::string(DtypeName(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) ? "_Align_" : "_NoAlign_") +
                                  BackwardKernelName(std::get<2>(info.param));
                         });

// fp16 sums beyond 65520 must saturate to inf of the right sign (fp32 accumulation, one rounding).
TEST(BackwardFp16Overflow, LargeSumsBecomeInfinity) {
  const BackwardProblem problem{{1, 2, 2, 3, 2},
                                {2, 3, 9}};  // about 4.5 terms of weight 1 per input point along W
  TracedRng rng;
  DeviceTensor gradOut(problem.GradOutShape(), ACL_FLOAT16, ACL_FORMAT_NCDHW);
  DeviceTensor gradInput(problem.inputSize, ACL_FLOAT16, ACL_FORMAT_NCDHW);
  std::vector<double> values =
      RandomValues(rng, ElementCount(problem.GradOutShape()), Distribution::kUnitNormal);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = (i < values.size() / 2 ? 30000.0 : -30000.0) + values[i];
  values = gradOut.Upload(values);
  ASSERT_TRUE(RunBackward(gradOut, problem, gradInput));
  const std::vector<double> got = gradInput.Download();
  EXPECT_TRUE(ResultMatchesReference(values, problem, ACL_FLOAT16, got));
  EXPECT_TRUE(std::isinf(got.front()) && got.front() > 0) << got.front();
  EXPECT_TRUE(std::isinf(got.back()) && got.back() < 0) << got.back();
}

}  // namespace
}  // namespace trilinear3d::test
