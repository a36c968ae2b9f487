// The doubling stencil kernel (the registry's backward_stencil2x: fp32, every axis doubled, align_corners
// false, unit-stride gradOut rows) against the float64 reference with docs/spec.md §5's bound, on the shapes
// that reach each of its paths: W strips (up to 128 gradInput columns; partial last vectors; rows of
// one element; rows of 128 and 64 in four-plane lockstep), H and D of one, two and odd sizes, chunks cut
// for 2 and 3 cores (items starting at index 1, or mid-axis), NaN and inf (its zero-weight taps),
// strided and channels-last gradInput, and the same bits for 1, 2 and 3 cores. Each case also runs with the
// general width-last kernel, which must agree with it within the same bound. In NDHWC the shapes with C = 1
// have unit-stride gradOut rows and take the stencil; the others take the general kernels (a check of the
// choice's other side).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "acl_test_environment.h"
#include "child_process.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

struct DoublingShape {
  const char *name;
  Shape5 inputSize;  // gradInput; gradOut is twice D, H and W
};

const DoublingShape kShapes[] = {
    {"AllOnes", {2, 3, 1, 1, 1}},
    {"RowOf17", {1, 2, 1, 1, 17}},
    {"Vector16", {1, 1, 2, 3, 16}},
    {"Tails15", {1, 2, 3, 5, 15}},
    {"Width33", {1, 1, 4, 7, 33}},
    {"TwoStrips129", {1, 1, 2, 4, 129}},
    {"TwoStrips130", {1, 1, 3, 3, 130}},
    {"ThreeStrips300", {1, 1, 2, 2, 300}},
    {"OddPlanes", {2, 1, 5, 9, 37}},
    {"Full128", {1, 2, 3, 6, 128}},
    {"Width256", {1, 1, 2, 3, 256}},
    // Rows of 128 or 64 with four or more planes between the D axis's ends: with streamed stores
    // (the stream_stores_always rerun) these take the kernel's four-plane lockstep (Quad). Eight
    // planes or more, so that 2 cores get whole planes and Quad has rows between the first and the
    // last H index (its register D step); fewer planes would be cut into H chunks of 1 or 2 rows.
    {"Quad128", {2, 4, 5, 6, 128}},
    {"ThreeQuads128", {1, 8, 8, 4, 128}},
    {"Quad64", {2, 4, 5, 6, 64}},
    // The AVX2 strips (8-lane vectors, strips of up to 4): last vectors of 2, 3 and 6 of 8 lanes
    // (a buffered partial vector), whole vectors in rows that are not whole 64-byte lines (24, 40:
    // accumulator planes), rows of whole lines in several strips (48, 96, 160: streamed strip by
    // strip), and the lockstep's strips and blocks on rows of 128 and 64 with one or two H rows.
    {"Width2", {1, 2, 3, 3, 2}},
    {"Width11", {1, 1, 3, 4, 11}},
    {"Width22", {1, 2, 2, 3, 22}},
    {"Width24", {1, 1, 2, 5, 24}},
    {"Width40", {1, 1, 3, 3, 40}},
    {"Width48", {1, 1, 2, 4, 48}},
    {"Width96", {1, 1, 3, 3, 96}},
    {"Width160", {1, 1, 2, 2, 160}},
    {"QuadOneRow128", {1, 1, 8, 1, 128}},
    {"QuadTwoRows64", {1, 2, 8, 2, 64}},
    // The AVX2 lockstep of the planes outside Quad's shape (the D axis's ends, D chunk ends), with
    // streamed stores: 3 planes cut into H chunks of 2 for 2 cores (chunks that start at index 2
    // and end inside the axis), and 1 plane cut into D chunks of 2 (groups that start mid-axis, on
    // H chunks of one row).
    {"EdgeLockstep128", {1, 3, 4, 5, 128}},
    {"EdgeLockstepDChunks64", {1, 1, 6, 3, 64}},
};

BackwardProblem ProblemOf(const Shape5 &inputSize, bool scales) {
  BackwardProblem problem;
  problem.inputSize = inputSize;
  problem.outputSize = {2 * inputSize[2], 2 * inputSize[3], 2 * inputSize[4]};
  if (scales) problem.scales = {2.0, 2.0, 2.0};  // the same real scale 0.5: the stencil still applies
  return problem;
}

using AccuracyParam = std::tuple<DoublingShape, aclFormat, bool, BackwardKernel>;

class Stencil2xAccuracy : public ::testing::TestWithParam<AccuracyParam> {};

TEST_P(Stencil2xAccuracy, MatchesFloat64Reference) {
  const auto &[shape, format, scales, order] = GetParam();
  const ScopedKernel forcedKernel(order);
  const BackwardProblem problem = ProblemOf(shape.inputSize, scales);
  ExpectAccurateOnFreshData(problem, ACL_FLOAT, format);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Stencil2xAccuracy,
    ::testing::Combine(::testing::ValuesIn(kShapes),
                       ::testing::Values(ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC),
                       ::testing::Bool(),
                       ::testing::Values(BackwardKernel::kStencil2x, BackwardKernel::kWidthLast)),
    [](const ::testing::TestParamInfo<AccuracyParam> &info) {
      return std::string(std::get<0>(info.param).name) + "_" + FormatName(std::get<1>(info.param)) +
             (std::get<2>(info.param) ? "_Scales_" : "_Sizes_") + BackwardKernelName(std::get<3>(info.param));
    });

// NaN and inf, also at gradOut index 0 of each axis, whose zero-weight tap reaches index 1 (or index
// 0 itself on an axis of one): every output's class must be the float64 golden's.
class Stencil2xSpecialValues : public ::testing::TestWithParam<DoublingShape> {};

TEST_P(Stencil2xSpecialValues, NonFiniteClassesMatchGolden) {
  const ScopedKernel forcedKernel(BackwardKernel::kStencil2x);
  const BackwardProblem problem = ProblemOf(GetParam().inputSize, false);
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  std::mt19937_64 rng(seed);
  const Shape5 outShape = problem.GradOutShape();
  const double specials[] = {INFINITY, -INFINITY, NAN};
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    DeviceTensor gradOut(outShape, ACL_FLOAT, ACL_FORMAT_NCDHW);
    DeviceTensor gradInput(problem.inputSize, ACL_FLOAT, ACL_FORMAT_NCDHW);
    std::vector<double> values = RandomValues(rng, ElementCount(outShape), Distribution::kUnitNormal);
    // Round 0: the very first element (index 0 on every axis); then random planes' first rows and
    // first columns, and random elements.
    std::uniform_int_distribution<int64_t> pick(0, static_cast<int64_t>(values.size()) - 1);
    auto at = [&](int64_t d, int64_t h, int64_t w) {
      const int64_t plane = outShape[2] * outShape[3] * outShape[4];
      return static_cast<size_t>((pick(rng) / plane) * plane + (d * outShape[3] + h) * outShape[4] + w);
    };
    if (round == 0) {
      values[0] = specials[2];
    } else {
      std::uniform_int_distribution<int64_t> d(0, outShape[2] - 1), h(0, outShape[3] - 1),
          w(0, outShape[4] - 1);
      values[at(0, h(rng), w(rng))] = specials[round % 3];
      values[at(d(rng), 0, w(rng))] = specials[(round + 1) % 3];
      values[at(d(rng), h(rng), 0)] = specials[(round + 2) % 3];
      values[static_cast<size_t>(pick(rng))] = specials[round % 3];
    }
    values = gradOut.Upload(values);
    ASSERT_TRUE(RunBackward(gradOut, problem, gradInput));
    const std::vector<double> got = gradInput.Download();
    EXPECT_TRUE(ResultMatchesReference(values, problem, ACL_FLOAT, got));
    EXPECT_GT(CountNonFinite(got), 0u) << "the non-finite gradOut values vanished";
    // The reference exempts what a non-finite value reaches through a near-integer source index
    // (gradOut index 0 of an axis, clamped to 0). Both kernels keep that index's zero-weight tap
    // (0 * inf = NaN), so there each element's class must be the general kernel's.
    DeviceTensor general(problem.inputSize, ACL_FLOAT, ACL_FORMAT_NCDHW);
    {
      const ScopedKernel widthLast(BackwardKernel::kWidthLast);
      ASSERT_TRUE(RunBackward(gradOut, problem, general));
    }
    const std::vector<double> want = general.Download();
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += ClassOf(got[i]) == ClassOf(want[i]) ? 0 : 1;
    EXPECT_EQ(differ, 0u) << "elements whose class (finite, NaN, +inf, -inf) differs from width_last's";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Stencil2xSpecialValues, ::testing::ValuesIn(kShapes), CaseName());

// gradInput as a strided or channels-last view (gradOut contiguous, so the stencil still applies):
// written through its strides, nothing outside the view touched.
using ViewParam = std::tuple<DoublingShape, int>;  // gradInput: sliced, channels-last memory, NDHWC

class Stencil2xViews : public ::testing::TestWithParam<ViewParam> {};

TEST_P(Stencil2xViews, StridedGradInputMatchesReferenceAndKeepsCanary) {
  const auto &[shape, which] = GetParam();
  const ScopedKernel forcedKernel(BackwardKernel::kStencil2x);
  const BackwardProblem problem = ProblemOf(shape.inputSize, false);
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  std::mt19937_64 rng(seed);
  const aclFormat formats[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC};
  const MemLayout layouts[] = {MemLayout::kSliced, MemLayout::kPermuted, MemLayout::kContiguous};
  DeviceTensor gradOut(problem.GradOutShape(), ACL_FLOAT, ACL_FORMAT_NCDHW);
  DeviceTensor gradInput(problem.inputSize, ACL_FLOAT, formats[which], layouts[which]);
  const std::vector<uint8_t> canary = gradInput.StorageBytes();
  const std::vector<double> values =
      gradOut.Upload(RandomValues(rng, ElementCount(problem.GradOutShape()), Distribution::kUnitNormal));
  ASSERT_TRUE(RunBackward(gradOut, problem, gradInput));
  EXPECT_TRUE(ResultMatchesReference(values, problem, ACL_FLOAT, gradInput.Download()));
  EXPECT_TRUE(gradInput.OutsideViewUnchanged(canary));
}

std::string ViewName(const ::testing::TestParamInfo<ViewParam> &info) {
  const char *names[] = {"Sliced", "ChannelsLastMemory", "Ndhwc"};
  return std::string(std::get<0>(info.param).name) + "_" + names[std::get<1>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Layouts, Stencil2xViews,
                         ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Values(0, 1, 2)),
                         ViewName);

// The same bits for every core count: 2 and 3 cores cut these shapes into H and D chunks (an item
// may start at H index 1, or mid-axis, and end before the axis does).
const Shape5 kChunkedShapes[] = {{1, 1, 5, 9, 37}, {1, 1, 7, 4, 130}, {1, 2, 3, 5, 16},
                                 {1, 1, 2, 11, 1}, {1, 1, 8, 6, 128}, {1, 1, 8, 5, 64},
                                 {1, 1, 8, 7, 96}, {1, 1, 9, 3, 40},  {1, 1, 9, 2, 128}};

std::vector<uint8_t> ComputeChunked(uint64_t seed, bool checkAccuracy) {
  const ScopedKernel forcedKernel(BackwardKernel::kStencil2x);
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  for (const Shape5 &shape : kChunkedShapes) {
    const BackwardProblem problem = ProblemOf(shape, false);
    SCOPED_TRACE(problem.Describe());
    AppendResultBytes(problem, ACL_FLOAT, ACL_FORMAT_NCDHW, rng, checkAccuracy, &bytes);
  }
  return bytes;
}

[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(ComputeChunked);

// Each child's bits equal the in-process run's (its default core count), which is also checked against
// the reference.
TEST(Stencil2xDeterminism, SameBitsForOneTwoAndThreeCores) { ExpectSameBitsForCoreCounts(ComputeChunked); }

}  // namespace
}  // namespace trilinear3d::test
