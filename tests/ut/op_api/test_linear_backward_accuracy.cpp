// Accuracy of the linear group's backwards, aclnnUpsampleBilinear2dBackward (V1), ...BackwardV2 and
// aclnnUpsampleLinear1dBackward, against the float64 reference with docs/spec.md §5's bound, under each
// general backward kernel: every dtype x format x alignCorners x (sizes | scales that select them | scales
// the rule ignores) on small odd shapes, each under the operator's own scales rule (UsedScales: V1 none, V2
// both or none, Linear1d's when it gives the size); strided and mixed-format views; +-inf / NaN in gradOut;
// the scales rules pinned against the ones they are not; fp16 overflow. TRILINEAR3D_TEST_SAMPLE=k runs
// every k-th sweep and view case.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"
#include "test_tensor.h"

namespace trilinear3d::test {
namespace {

// gradInput's size <- gradOut's: 2-D (D = 1) and 1-D (D = H = 1), up and down, size 1, identity, odd and
// integer ratios, rows and channels longer than a vector, an exact doubling.
const ShapeCase kShapes2d[] = {
    {"MixedUpDown", {2, 3, 1, 5, 7}, {1, 4, 11}}, {"SizeOneAxes", {1, 2, 1, 1, 5}, {1, 4, 1}},
    {"OddRatios", {2, 1, 1, 6, 2}, {1, 13, 5}},   {"AllIdentity", {1, 2, 1, 3, 9}, {1, 3, 9}},
    {"StrongDown", {1, 2, 1, 11, 13}, {1, 3, 1}}, {"IntegerSources", {1, 2, 1, 5, 9}, {1, 3, 5}},
    {"WideRows", {1, 19, 1, 3, 37}, {1, 2, 53}},  {"Doubling", {1, 3, 1, 3, 40}, {1, 6, 80}},
    {"OcvLike", {2, 4, 1, 14, 14}, {1, 28, 28}},
};
const ShapeCase kShapes1d[] = {
    {"Up", {2, 3, 1, 1, 7}, {1, 1, 11}},          {"Down", {1, 2, 1, 1, 13}, {1, 1, 5}},
    {"FromSizeOne", {1, 3, 1, 1, 1}, {1, 1, 4}},  {"ToSizeOne", {1, 2, 1, 1, 6}, {1, 1, 1}},
    {"Identity", {1, 2, 1, 1, 9}, {1, 1, 9}},     {"IntegerSources", {1, 2, 1, 1, 9}, {1, 1, 5}},
    {"WideRows", {1, 19, 1, 1, 37}, {1, 1, 53}},  {"Doubling", {2, 3, 1, 1, 40}, {1, 1, 80}},
    {"StrongDown", {1, 2, 1, 1, 130}, {1, 1, 2}},
};

class Bilinear2dBackwardV2Accuracy : public BackwardKernelsTest<SweepCase> {};
TEST_P(Bilinear2dBackwardV2Accuracy, MatchesFloat64Reference) {
  ExpectSweepCaseAccurate<BackwardProblem>(TestCase());
}
INSTANTIATE_TEST_SUITE_P(Sweep, Bilinear2dBackwardV2Accuracy,
                         WithBackwardKernels(SampledCases(SweepCases(kShapes2d, Api::kBilinear2d))),
                         CaseAndKernelName());

class Bilinear2dBackwardV1Accuracy : public BackwardKernelsTest<SweepCase> {};
TEST_P(Bilinear2dBackwardV1Accuracy, MatchesFloat64Reference) {
  ExpectSweepCaseAccurate<BackwardProblem>(TestCase());
}
INSTANTIATE_TEST_SUITE_P(Sweep, Bilinear2dBackwardV1Accuracy,
                         WithBackwardKernels(SampledCases(SweepCases(kShapes2d, Api::kBilinear2dBackwardV1))),
                         CaseAndKernelName());

class Linear1dBackwardAccuracy : public BackwardKernelsTest<SweepCase> {};
TEST_P(Linear1dBackwardAccuracy, MatchesFloat64Reference) {
  ExpectSweepCaseAccurate<BackwardProblem>(TestCase());
}
INSTANTIATE_TEST_SUITE_P(Sweep, Linear1dBackwardAccuracy,
                         WithBackwardKernels(SampledCases(SweepCases(kShapes1d, Api::kLinear1d))),
                         CaseAndKernelName());

constexpr Api kBackwardApis[] = {Api::kBilinear2d, Api::kBilinear2dBackwardV1, Api::kLinear1d};

// The backward name of an api (kBilinear2d is V2 here).
std::string BackwardLabel(Api api) {
  return api == Api::kBilinear2d ? "Bilinear2dBackwardV2" : ApiLabel(api);
}

// Strided gradOut and gradInput, each by its own format (mixed formats included: V1 orders inputSize by
// out's format, V2 by gradOut's); gradInput's storage outside its view never written, gradOut's never.
using ViewParam = std::tuple<Api, aclDataType, ViewCase>;

class LinearBackwardViews : public ::testing::TestWithParam<ViewParam> {};

TEST_P(LinearBackwardViews, StridedViewsMatchReferenceAndGapsKeepCanary) {
  const auto &[api, dtype, view] = GetParam();
  TracedRng rng;
  const BackwardProblem problems2d[] = {{{2, 3, 1, 4, 7}, {1, 9, 5}}, {{1, 9, 1, 4, 5}, {1, 7, 2}}};
  const BackwardProblem problems1d[] = {{{2, 3, 1, 1, 7}, {1, 1, 12}}, {{1, 9, 1, 1, 15}, {1, 1, 4}}};
  for (BackwardProblem problem : api == Api::kLinear1d ? problems1d : problems2d) {
    problem.api = api;
    for (BackwardKernel kernel : kBackwardKernels) {
      const ScopedKernel forced(kernel);
      for (bool alignCorners : {false, true}) {
        problem.alignCorners = alignCorners;
        SCOPED_TRACE(problem.Describe() + " " + BackwardKernelName(kernel));
        ExpectViewsMatchReference(problem, dtype, view, rng);
      }
    }
  }
}

std::vector<ViewParam> ViewParams() {
  std::vector<ViewParam> params;
  for (Api api : kBackwardApis) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      for (const ViewCase &view : ViewCasesFor(api)) params.emplace_back(api, dtype, view);
    }
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Layouts, LinearBackwardViews, ::testing::ValuesIn(SampledCases(ViewParams())),
                         [](const ::testing::TestParamInfo<ViewParam> &info) {
                           return BackwardLabel(std::get<0>(info.param)) + "_" +
                                  DtypeName(std::get<1>(info.param)) + "_" +
                                  ViewCaseName(std::get<2>(info.param), "GradOut", "GradInput") + "_" +
                                  std::to_string(info.index);
                         });

// +-inf and NaN in gradOut: each output's class must be the float64 golden's (docs/spec.md §6), NaN from a
// zero-weight tap times inf on the identity axis included.
using SpecialParam = std::tuple<Api, aclDataType, bool, BackwardKernel>;  // api, dtype, alignCorners, kernel

class LinearBackwardSpecialValues : public ::testing::TestWithParam<SpecialParam> {};

TEST_P(LinearBackwardSpecialValues, NonFiniteClassesMatchGolden) {
  const auto &[api, dtype, alignCorners, kernel] = GetParam();
  const ScopedKernel forced(kernel);
  BackwardProblem problem{{1, 2, 1, 5, 7}, {1, 5, 11}, alignCorners};  // H: an identity axis
  if (api == Api::kLinear1d) problem = BackwardProblem{{2, 3, 1, 1, 7}, {1, 1, 11}, alignCorners};
  problem.api = api;
  for (aclFormat format : SweepFormats(api)) {
    SCOPED_TRACE(FormatName(format));
    ExpectNonFiniteClassesMatchGolden(problem, dtype, format);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LinearBackwardSpecialValues,
                         ::testing::Combine(::testing::ValuesIn(kBackwardApis),
                                            ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::Bool(), ::testing::ValuesIn(kBackwardKernels)),
                         [](const ::testing::TestParamInfo<SpecialParam> &info) {
                           return BackwardLabel(std::get<0>(info.param)) + "_" +
                                  DtypeName(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_Align_" : "_NoAlign_") +
                                  BackwardKernelName(std::get<3>(info.param));
                         });

// A double run of problem on fresh N(0, 1) gradOut: matches the reference under the operator's rule, and
// differs by more than rounding from what `otherScales` would give by the per-axis rule (a rule the
// operator must not follow).
void ExpectScalesRule(BackwardProblem problem, const std::array<double, 3> &otherScales, const char *why) {
  SCOPED_TRACE(std::string(why) + ": " + problem.Describe());
  TracedRng rng;
  DeviceTensor gradOut = ReadTensor(problem, ACL_DOUBLE, FormatFor(problem.api, ACL_FORMAT_NCDHW));
  DeviceTensor gradInput = WrittenTensor(problem, ACL_DOUBLE, FormatFor(problem.api, ACL_FORMAT_NCDHW));
  const std::vector<double> values = gradOut.UploadRandom(rng);
  ASSERT_TRUE(Run(gradOut, problem, gradInput));
  const std::vector<double> got = gradInput.Download();
  EXPECT_TRUE(ResultMatchesReference(values, problem, ACL_DOUBLE, got));
  BackwardProblem other = problem;
  other.api = Api::kTrilinear3d;
  other.perAxisScales = true;
  other.scales = otherScales;
  const ReferenceResult ref = BackwardReference(other, values);
  double largest = 0.0;
  for (size_t i = 0; i < got.size(); ++i) largest = std::max(largest, std::abs(got[i] - ref.golden[i]));
  EXPECT_GT(largest, 1e-3) << "the result follows the wrong scales rule";
}

TEST(Bilinear2dBackwardScalesRule, V2BothOrNone) {
  BackwardProblem p{{1, 2, 1, 3, 4}, {1, 7, 9}};
  p.api = Api::kBilinear2d;
  p.scales = {0.0, 7.3 / 3, 9.3 / 4};
  ExpectScalesRule(p, {0.0, 0.0, 0.0}, "both scales used");
  p.scales = {0.0, 8.3 / 3, 9.3 / 4};
  ExpectScalesRule(p, {0.0, 0.0, 9.3 / 4}, "H's does not give the size: neither used");
  p.scales = {0.0, 7.3 / 3, 0.0};
  ExpectScalesRule(p, {0.0, 7.3 / 3, 0.0}, "a zero scalesW drops scalesH");
  p.scales = {0.0, 7.3 / 3, -2.0};
  ExpectScalesRule(p, {0.0, 7.3 / 3, 0.0}, "a negative scalesW drops scalesH");
}

TEST(Bilinear2dBackwardScalesRule, V1IgnoresScales) {
  BackwardProblem p{{1, 2, 1, 3, 4}, {1, 7, 9}};
  p.api = Api::kBilinear2dBackwardV1;
  p.scales = {0.0, 7.3 / 3, 9.3 / 4};  // they give the sizes: V2 would use them
  ExpectScalesRule(p, p.scales, "consistent scales ignored");
}

TEST(Linear1dBackwardScalesRule, UsedWhenTheyGiveTheSize) {
  BackwardProblem p{{1, 3, 1, 1, 4}, {1, 1, 9}};
  p.api = Api::kLinear1d;
  p.scales = {0.0, 0.0, 9.3 / 4};
  ExpectScalesRule(p, {0.0, 0.0, 0.0}, "scale used");
  p.scales = {0.0, 0.0, 1.1};  // floor(4 * 1.1) = 4, not 9: the sizes decide, no error (CANN's example)
  ExpectScalesRule(p, p.scales, "inconsistent scale ignored");
}

// fp16 sums beyond 65520 saturate to inf of the right sign.
TEST(LinearBackwardFp16Overflow, LargeSumsBecomeInfinity) {
  for (Api api : kBackwardApis) {
    BackwardProblem problem{{1, 2, 1, 3, 2}, {1, 3, 9}};
    if (api == Api::kLinear1d) problem = BackwardProblem{{1, 2, 1, 1, 2}, {1, 1, 19}};
    problem.api = api;
    SCOPED_TRACE(problem.Describe());
    TracedRng rng;
    DeviceTensor gradOut = ReadTensor(problem, ACL_FLOAT16, ACL_FORMAT_ND);
    DeviceTensor gradInput = WrittenTensor(problem, ACL_FLOAT16, ACL_FORMAT_ND);
    std::vector<double> values =
        RandomValues(rng, ElementCount(problem.GradOutShape()), Distribution::kUnitNormal);
    for (size_t i = 0; i < values.size(); ++i) values[i] += i < values.size() / 2 ? 30000.0 : -30000.0;
    values = gradOut.Upload(values);
    ASSERT_TRUE(RunBackward(gradOut, problem, gradInput));
    const std::vector<double> got = gradInput.Download();
    EXPECT_TRUE(ResultMatchesReference(values, problem, ACL_FLOAT16, got));
    EXPECT_TRUE(std::isinf(got.front()) && got.front() > 0) << got.front();
    EXPECT_TRUE(std::isinf(got.back()) && got.back() < 0) << got.back();
  }
}

}  // namespace
}  // namespace trilinear3d::test
