// Accuracy of the forward op aclnnUpsampleTrilinear3d against the float64 reference with
// docs/spec.md §5's bound built the forward way: every dtype x format x alignCorners x (sizes | scales)
// on small odd shapes; strided self / out views (bytes outside out's view never written, self
// never written); empty N (C = 0 rejected); +-inf / NaN inputs and the non-finite class rule.
// TRILINEAR3D_TEST_SAMPLE=k runs every k-th sweep case.
#include <gtest/gtest.h>

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

// Up- and down-sampling, size-1 axes, identity axes, integer and odd ratios, rows longer than a
// vector (W), channel counts longer than a vector (the channels-last path), a W-first forward
// whose D taps repeat across out D indices (its cache of W-resampled tap planes), and exact
// doubling with rows longer than two vectors (the W pass's doubling run).
const ShapeCase kShapes[] = {
    {"MixedUpDown", {2, 3, 3, 5, 7}, {6, 4, 11}},            // up, down, up
    {"SizeOneAxes", {1, 2, 1, 4, 5}, {3, 4, 1}},             // from 1, identity, to 1
    {"FromSizeOne", {1, 3, 5, 1, 3}, {2, 7, 3}},             // down, from 1, identity
    {"OddRatios", {2, 1, 4, 6, 2}, {9, 13, 5}},              // odd up ratios
    {"AllIdentity", {1, 2, 7, 3, 9}, {7, 3, 9}},             // a copy (zero-weight taps still added)
    {"StrongDown", {1, 2, 9, 11, 13}, {2, 3, 1}},            // down on every axis
    {"IntegerSources", {1, 2, 7, 5, 9}, {3, 3, 5}},          // align_corners: integer source indices
    {"VeryStrongDown", {1, 2, 3, 130, 150}, {2, 3, 2}},      // ratios below CANN's MIN_SUPPORT_SCALE 0.02
    {"WideRows", {1, 19, 2, 3, 37}, {3, 2, 53}},             // W and C longer than a vector
    {"GrowDShrinkW", {1, 2, 4, 6, 9}, {11, 5, 4}},           // W first: D tap planes reused across out D
    {"Doubling", {1, 3, 2, 3, 40}, {4, 6, 80}},              // exact 2x: W's doubling run, vectors and a rest
    {"DoublingOddW", {1, 2, 3, 2, 33}, {6, 4, 66}},          // exact 2x, an odd run
    {"DoublingWholeGroups", {1, 2, 2, 3, 64}, {4, 6, 128}},  // exact 2x, rows of whole 32-float groups
};

class ForwardAccuracy : public ::testing::TestWithParam<SweepCase> {};

TEST_P(ForwardAccuracy, MatchesFloat64Reference) { ExpectSweepCaseAccurate<ForwardProblem>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sweep, ForwardAccuracy, ::testing::ValuesIn(SampledCases(SweepCases(kShapes))),
                         CaseName());

// Non-contiguous self and out: read and written through their strides, each by its own format;
// no byte of out's storage outside its view changes, and self's storage is never written.
using ViewParam = std::tuple<aclDataType, ViewCase>;

class ForwardViews : public ::testing::TestWithParam<ViewParam> {};

TEST_P(ForwardViews, StridedViewsMatchReferenceAndGapsKeepCanary) {
  const auto &[dtype, view] = GetParam();
  TracedRng rng;
  // An upsampling and a downsampling problem (the forward's D-pass window differs between them),
  // and one with C >= 8 (out with unit channel stride takes the channels-inner row layout).
  struct ViewProblem {
    Shape5 selfSize;
    std::array<int64_t, 3> outputSize;
  };
  const ViewProblem viewProblems[] = {
      {{2, 3, 5, 4, 7}, {8, 9, 5}}, {{2, 3, 5, 4, 7}, {3, 2, 4}}, {{1, 9, 3, 4, 5}, {5, 7, 2}}};
  for (const ViewProblem &viewProblem : viewProblems) {
    for (bool alignCorners : {false, true}) {
      ForwardProblem problem{viewProblem.selfSize, viewProblem.outputSize, alignCorners};
      SCOPED_TRACE(problem.Describe());
      ExpectViewsMatchReference(problem, dtype, view, rng);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, ForwardViews,
                         ::testing::Combine(::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::ValuesIn(kViewCases)),
                         [](const ::testing::TestParamInfo<ViewParam> &info) {
                           return std::string(DtypeName(std::get<0>(info.param))) + "_" +
                                  ViewCaseName(std::get<1>(info.param), "Self", "Out");
                         });

// Empty batch (N = 0): success, workspace 0, nothing written (the canary stays). No channels (C = 0)
// is CANN's 161002 for the forward (test_forward_validation.cpp); it writes nothing either.
using EmptyParam = std::tuple<aclDataType, aclFormat>;

class ForwardEmpty : public ::testing::TestWithParam<EmptyParam> {};

TEST_P(ForwardEmpty, EmptyBatchIsANoOpAndNoChannelsIsRejected) {
  const auto &[dtype, format] = GetParam();
  for (int emptyAxis : {0, 1}) {
    SCOPED_TRACE(emptyAxis == 0 ? "N = 0" : "C = 0");
    ForwardProblem problem;
    problem.selfSize = {2, 3, 4, 5, 6};
    problem.selfSize[static_cast<size_t>(emptyAxis)] = 0;
    problem.outputSize = {7, 3, 9};
    DeviceTensor self(problem.selfSize, dtype, format);
    DeviceTensor out(problem.OutShape(), dtype, format);
    const std::vector<uint8_t> before = out.StorageBytes();
    PreparedOp op;
    op.workspaceSize = 12345;
    if (emptyAxis == 1) {
      aclIntArray *outputSize = aclCreateIntArray(problem.outputSize.data(), 3);
      EXPECT_EQ(aclnnUpsampleTrilinear3dGetWorkspaceSize(self.get(), outputSize, false, 0.0, 0.0, 0.0,
                                                         out.get(), &op.workspaceSize, &op.executor),
                ACLNN_ERR_PARAM_INVALID);
      aclDestroyIntArray(outputSize);
      EXPECT_NE(std::string(aclGetRecentErrMsg()).find("C = 0"), std::string::npos);
      EXPECT_EQ(op.executor, nullptr);
    } else {
      ASSERT_TRUE(PrepareForward(self.get(), problem, out.get(), &op));
      EXPECT_EQ(op.workspaceSize, 0u);
      ASSERT_TRUE(Enqueue(&op, nullptr));
      ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    }
    EXPECT_EQ(out.StorageBytes(), before) << "an empty out's storage was written";
  }
}

INSTANTIATE_TEST_SUITE_P(DtypesFormats, ForwardEmpty,
                         ::testing::Combine(::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::Values(ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC)),
                         [](const ::testing::TestParamInfo<EmptyParam> &info) {
                           return std::string(DtypeName(std::get<0>(info.param))) + "_" +
                                  FormatName(std::get<1>(info.param));
                         });

// +-inf and NaN in self: each output's class must be the float64 golden's (docs/spec.md §6),
// including NaN from a zero-weight tap times inf.
using SpecialParam = std::tuple<aclDataType, aclFormat, bool>;

class ForwardSpecialValues : public ::testing::TestWithParam<SpecialParam> {};

TEST_P(ForwardSpecialValues, NonFiniteClassesMatchGolden) {
  const auto &[dtype, format, alignCorners] = GetParam();
  // H is an identity axis: its zero-weight tap must still spread NaN.
  ExpectNonFiniteClassesMatchGolden(ForwardProblem{{1, 2, 3, 5, 7}, {6, 5, 11}, alignCorners}, dtype, format);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ForwardSpecialValues,
                         ::testing::Combine(::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::Values(ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<SpecialParam> &info) {
                           return std::string(DtypeName(std::get<0>(info.param))) + "_" +
                                  FormatName(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_Align" : "_NoAlign");
                         });

// An identity copy (every axis in == out) still adds each corner's zero-weight term, and on an
// identity axis both taps are o itself (PyTorch's rule, math::ComputeTap): an inf in self turns
// into NaN where it is (1*inf + 0*inf) and nowhere else; no index is near "rounding" there, so
// nothing is exempt. Finite values are copied exactly (1*x + 0*x + ... = x).
class ForwardIdentity : public ::testing::TestWithParam<aclDataType> {};

TEST_P(ForwardIdentity, ZeroWeightTapTimesInfIsNaNAndFiniteValuesCopyExactly) {
  const aclDataType dtype = GetParam();
  ForwardProblem problem{{1, 2, 3, 3, 3}, {3, 3, 3}};
  TracedRng rng;
  for (aclFormat format : {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}) {
    SCOPED_TRACE(FormatName(format));
    DeviceTensor self(problem.selfSize, dtype, format);
    DeviceTensor out(problem.OutShape(), dtype, format);
    std::vector<double> values = RandomValues(rng, ElementCount(problem.selfSize), Distribution::kUnitNormal);
    auto at = [](int64_t c, int64_t d, int64_t h, int64_t w) {
      return static_cast<size_t>(((c * 3 + d) * 3 + h) * 3 + w);
    };
    values[at(0, 1, 1, 1)] = INFINITY;  // channel 0: +inf in the middle
    values = self.Upload(values);
    ASSERT_TRUE(RunForward(self, problem, out));
    const std::vector<double> got = out.Download();
    EXPECT_TRUE(ForwardMatchesReference(values, problem, dtype, got));
    // Output (d,h,w) reads (d,h,w) only: weight 1 once, weight 0 seven times.
    for (int64_t d = 0; d < 3; ++d) {
      for (int64_t h = 0; h < 3; ++h) {
        for (int64_t w = 0; w < 3; ++w) {
          const size_t i = at(0, d, h, w);
          if (d == 1 && h == 1 && w == 1) {
            EXPECT_TRUE(std::isnan(got[i])) << "1 * inf + 0 * inf must give NaN at the inf, got " << got[i];
          } else {
            EXPECT_EQ(got[i], values[i]) << "(" << d << "," << h << "," << w << ")";
          }
        }
      }
    }
    for (size_t i = at(1, 0, 0, 0); i < values.size(); ++i)
      EXPECT_EQ(got[i], values[i]) << "channel 1, element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ForwardIdentity,
                         ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                         [](const ::testing::TestParamInfo<aclDataType> &info) {
                           return std::string(DtypeName(info.param));
                         });

// fp16 values near the top of the range: a convex blend cannot exceed them by more than the
// bound; where it rounds past 65520 the rule accepts inf of the golden's sign.
TEST(ForwardFp16Range, LargeValuesFollowTheOverflowRule) {
  ForwardProblem problem{{1, 2, 2, 3, 4}, {3, 5, 7}};
  TracedRng rng;
  DeviceTensor self(problem.selfSize, ACL_FLOAT16, ACL_FORMAT_NCDHW);
  DeviceTensor out(problem.OutShape(), ACL_FLOAT16, ACL_FORMAT_NCDHW);
  std::vector<double> values(static_cast<size_t>(ElementCount(problem.selfSize)));
  std::uniform_real_distribution<double> magnitude(64000.0, 65504.0);  // all finite in fp16
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = (i < values.size() / 2 ? 1.0 : -1.0) * magnitude(rng);
  values = self.Upload(values);
  ASSERT_TRUE(RunForward(self, problem, out));
  const std::vector<double> got = out.Download();
  EXPECT_TRUE(ForwardMatchesReference(values, problem, ACL_FLOAT16, got));
  EXPECT_GT(got.front(), 0.0);
  EXPECT_LT(got.back(), 0.0);
}

}  // namespace
}  // namespace trilinear3d::test
