// Accuracy of the linear group's forwards, aclnnUpsampleBilinear2d and aclnnUpsampleLinear1d, against the
// float64 reference with docs/spec.md §5's bound: every dtype x format (NCHW / NHWC / ND; NCL / ND) x
// alignCorners x (sizes | scales that select them | scales the operator's rule ignores) on small odd shapes,
// each under the operator's own scales rule (UsedScales); strided views; +-inf / NaN inputs; the scales
// rules pinned against the rules they are not. TRILINEAR3D_TEST_SAMPLE=k runs every k-th sweep case.
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
#include "reference/forward_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {
namespace {

// 2-D (D = 1): up, down, from and to size 1, identity, odd and integer ratios, rows and channel counts
// longer than a vector, an exact doubling.
const ShapeCase kShapes2d[] = {
    {"MixedUpDown", {2, 3, 1, 5, 7}, {1, 4, 11}}, {"SizeOneAxes", {1, 2, 1, 1, 5}, {1, 4, 1}},
    {"OddRatios", {2, 1, 1, 6, 2}, {1, 13, 5}},   {"AllIdentity", {1, 2, 1, 3, 9}, {1, 3, 9}},
    {"StrongDown", {1, 2, 1, 11, 13}, {1, 3, 1}}, {"IntegerSources", {1, 2, 1, 5, 9}, {1, 3, 5}},
    {"WideRows", {1, 19, 1, 3, 37}, {1, 2, 53}},  {"Doubling", {1, 3, 1, 3, 40}, {1, 6, 80}},
    {"OcvLike", {2, 4, 1, 14, 14}, {1, 28, 28}},
};

// 1-D (D = H = 1).
const ShapeCase kShapes1d[] = {
    {"Up", {2, 3, 1, 1, 7}, {1, 1, 11}},          {"Down", {1, 2, 1, 1, 13}, {1, 1, 5}},
    {"FromSizeOne", {1, 3, 1, 1, 1}, {1, 1, 4}},  {"ToSizeOne", {1, 2, 1, 1, 6}, {1, 1, 1}},
    {"Identity", {1, 2, 1, 1, 9}, {1, 1, 9}},     {"IntegerSources", {1, 2, 1, 1, 9}, {1, 1, 5}},
    {"WideRows", {1, 19, 1, 1, 37}, {1, 1, 53}},  {"Doubling", {2, 3, 1, 1, 40}, {1, 1, 80}},
    {"StrongDown", {1, 2, 1, 1, 130}, {1, 1, 2}},
};

class Bilinear2dAccuracy : public ::testing::TestWithParam<SweepCase> {};
TEST_P(Bilinear2dAccuracy, MatchesFloat64Reference) { ExpectSweepCaseAccurate<ForwardProblem>(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Sweep, Bilinear2dAccuracy,
                         ::testing::ValuesIn(SampledCases(SweepCases(kShapes2d, Api::kBilinear2d))),
                         CaseName());

class Linear1dAccuracy : public ::testing::TestWithParam<SweepCase> {};
TEST_P(Linear1dAccuracy, MatchesFloat64Reference) { ExpectSweepCaseAccurate<ForwardProblem>(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Sweep, Linear1dAccuracy,
                         ::testing::ValuesIn(SampledCases(SweepCases(kShapes1d, Api::kLinear1d))),
                         CaseName());

// Strided self and out, each by its own format where the operator allows it (Bilinear2d: one format for
// both); out's storage outside its view never written, self's never.
using ViewParam = std::tuple<Api, aclDataType, ViewCase>;

class LinearForwardViews : public ::testing::TestWithParam<ViewParam> {};

TEST_P(LinearForwardViews, StridedViewsMatchReferenceAndGapsKeepCanary) {
  const auto &[api, dtype, view] = GetParam();
  TracedRng rng;
  const ForwardProblem problems2d[] = {{{2, 3, 1, 4, 7}, {1, 9, 5}}, {{1, 9, 1, 4, 5}, {1, 7, 2}}};
  const ForwardProblem problems1d[] = {{{2, 3, 1, 1, 7}, {1, 1, 12}}, {{1, 9, 1, 1, 15}, {1, 1, 4}}};
  for (ForwardProblem problem : api == Api::kLinear1d ? problems1d : problems2d) {
    problem.api = api;
    if (api == Api::kLinear1d) problem.scales[2] = -1.0;
    for (bool alignCorners : {false, true}) {
      problem.alignCorners = alignCorners;
      SCOPED_TRACE(problem.Describe());
      ExpectViewsMatchReference(problem, dtype, view, rng);
    }
  }
}

std::vector<ViewParam> ViewParams() {
  std::vector<ViewParam> params;
  for (Api api : {Api::kBilinear2d, Api::kLinear1d}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      for (const ViewCase &view : ViewCasesFor(api, /*sameFormat=*/api == Api::kBilinear2d)) {
        params.emplace_back(api, dtype, view);
      }
    }
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Layouts, LinearForwardViews, ::testing::ValuesIn(SampledCases(ViewParams())),
                         [](const ::testing::TestParamInfo<ViewParam> &info) {
                           return std::string(ApiLabel(std::get<0>(info.param))) + "_" +
                                  DtypeName(std::get<1>(info.param)) + "_" +
                                  ViewCaseName(std::get<2>(info.param), "Self", "Out") + "_" +
                                  std::to_string(info.index);
                         });

// +-inf and NaN in self: each output's class must be the float64 golden's (docs/spec.md §6), NaN from a
// zero-weight tap times inf on the identity axis included.
using SpecialParam = std::tuple<Api, aclDataType, bool, bool>;  // api, dtype, channels last, alignCorners

class LinearForwardSpecialValues : public ::testing::TestWithParam<SpecialParam> {};

TEST_P(LinearForwardSpecialValues, NonFiniteClassesMatchGolden) {
  const auto &[api, dtype, channelsLast, alignCorners] = GetParam();
  ForwardProblem problem{{1, 2, 1, 5, 7}, {1, 5, 11}, alignCorners};  // H: an identity axis
  if (api == Api::kLinear1d) problem = ForwardProblem{{2, 3, 1, 1, 7}, {1, 1, 11}, alignCorners, {0, 0, -1}};
  problem.api = api;
  ExpectNonFiniteClassesMatchGolden(problem, dtype,
                                    FormatFor(api, channelsLast ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LinearForwardSpecialValues,
                         ::testing::Combine(::testing::Values(Api::kBilinear2d, Api::kLinear1d),
                                            ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::Bool(), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<SpecialParam> &info) {
                           return std::string(ApiLabel(std::get<0>(info.param))) + "_" +
                                  DtypeName(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_ChannelsLast" : "_ChannelsFirst") +
                                  (std::get<3>(info.param) ? "_Align" : "_NoAlign");
                         });

// The largest difference between the result and the golden of other (another scales rule's problem).
double LargestDifference(const std::vector<double> &values, const ForwardProblem &other,
                         const std::vector<double> &got) {
  const ReferenceResult ref = ForwardReference(other, values);
  double largest = 0.0;
  for (size_t i = 0; i < got.size(); ++i) largest = std::max(largest, std::abs(got[i] - ref.golden[i]));
  return largest;
}

// A double run of problem on fresh N(0, 1) values: matches the reference under the operator's rule, and
// differs from the result the scales `otherScales` would give under the 3-D operators' per-axis rule (a
// rule the operator must not follow) by more than rounding.
void ExpectScalesRule(ForwardProblem problem, const std::array<double, 3> &otherScales, const char *why) {
  SCOPED_TRACE(std::string(why) + ": " + problem.Describe());
  TracedRng rng;
  DeviceTensor self = ReadTensor(problem, ACL_DOUBLE, FormatFor(problem.api, ACL_FORMAT_NCDHW));
  DeviceTensor out = WrittenTensor(problem, ACL_DOUBLE, FormatFor(problem.api, ACL_FORMAT_NCDHW));
  const std::vector<double> values = self.UploadRandom(rng);
  ASSERT_TRUE(Run(self, problem, out));
  const std::vector<double> got = out.Download();
  EXPECT_TRUE(ForwardMatchesReference(values, problem, ACL_DOUBLE, got));
  ForwardProblem other = problem;
  other.api = Api::kTrilinear3d;
  other.perAxisScales = true;
  other.scales = otherScales;
  EXPECT_GT(LargestDifference(values, other, got), 1e-3) << "the result follows the wrong scales rule";
}

// Bilinear2d: both scales count when both are > 0 and give the sizes (floor(in * s) == out); one that does
// not (or is 0) leaves both to the sizes; alignCorners ignores them.
TEST(Bilinear2dScalesRule, BothOrNone) {
  ForwardProblem p{{1, 2, 1, 3, 4}, {1, 7, 9}};
  p.api = Api::kBilinear2d;
  p.scales = {0.0, 7.3 / 3, 9.3 / 4};  // both give the sizes
  ExpectScalesRule(p, {0.0, 0.0, 0.0}, "both scales used");
  p.scales = {0.0, 8.3 / 3, 9.3 / 4};  // H's does not: neither is used
  ExpectScalesRule(p, {0.0, 0.0, 9.3 / 4}, "W's alone not used");
  p.scales = {0.0, 0.0, 9.3 / 4};  // H's is 0: neither
  ExpectScalesRule(p, {0.0, 0.0, 9.3 / 4}, "a zero scalesH drops scalesW");
  p.scales = {0.0, 7.3 / 3, 0.0};
  ExpectScalesRule(p, {0.0, 7.3 / 3, 0.0}, "a zero scalesW drops scalesH");
}

// Linear1d: a scale > 0 that gives the size is the source step; a negative one leaves it to the size.
TEST(Linear1dScalesRule, PositiveScaleUsedNegativeIgnored) {
  ForwardProblem p{{1, 3, 1, 1, 4}, {1, 1, 9}};
  p.api = Api::kLinear1d;
  p.scales = {0.0, 0.0, 9.3 / 4};
  ExpectScalesRule(p, {0.0, 0.0, 0.0}, "scale used");
  p.scales = {0.0, 0.0, -1.0};
  ExpectScalesRule(p, {0.0, 0.0, 2.4}, "negative scale: the sizes");
}

// fp16 values near the top of the range follow the overflow rule in both operators.
TEST(LinearForwardFp16Range, LargeValuesFollowTheOverflowRule) {
  for (Api api : {Api::kBilinear2d, Api::kLinear1d}) {
    ForwardProblem problem{{1, 2, 1, 3, 4}, {1, 5, 7}};
    if (api == Api::kLinear1d) problem = ForwardProblem{{1, 2, 1, 1, 4}, {1, 1, 7}, false, {0, 0, -1}};
    problem.api = api;
    SCOPED_TRACE(problem.Describe());
    TracedRng rng;
    DeviceTensor self = ReadTensor(problem, ACL_FLOAT16, ACL_FORMAT_ND);
    DeviceTensor out = WrittenTensor(problem, ACL_FLOAT16, ACL_FORMAT_ND);
    std::vector<double> values(static_cast<size_t>(ElementCount(problem.selfSize)));
    std::uniform_real_distribution<double> magnitude(64000.0, 65504.0);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = (i < values.size() / 2 ? 1.0 : -1.0) * magnitude(rng);
    values = self.Upload(values);
    ASSERT_TRUE(RunForward(self, problem, out));
    const std::vector<double> got = out.Download();
    EXPECT_TRUE(ForwardMatchesReference(values, problem, ACL_FLOAT16, got));
    EXPECT_GT(got.front(), 0.0);
    EXPECT_LT(got.back(), 0.0);
  }
}

}  // namespace
}  // namespace trilinear3d::test
