// Accuracy on shapes large enough to reach the kernels' vector and blocked paths (long W rows with
// tails, channel vectors under NDHWC with odd channel counts, large up- and down-sampling ratios),
// against the float64 reference with docs/spec.md §5's bound. TRILINEAR3D_TEST_SAMPLE=k runs every k-th
// case.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

struct MediumShape {
  const char *name;
  Shape5 inputSize;
  std::array<int64_t, 3> outputSize;
};

const MediumShape kMediumShapes[] = {
    {"TwiceUpChannels16", {1, 16, 4, 9, 33}, {8, 18, 66}},
    {"OddChannelsWideW", {2, 17, 3, 5, 7}, {7, 11, 64}},
    {"DownsampleLongRows", {1, 3, 8, 40, 100}, {3, 17, 37}},
    {"LongRowsWithTails", {1, 8, 2, 3, 129}, {5, 7, 257}},
    {"Ratio32LikeB4", {1, 2, 2, 3, 8}, {64, 5, 256}},
    // 64 channels: whole 4-vector channel chunks (the W pass's full-chunk path and its fused H scatter)
    {"Channels64LikeB3", {1, 64, 3, 5, 9}, {6, 10, 18}},
    // W x C rows of 72 KB (fp32): the width-last ring kernel cuts W into chunks (tiling::kRingRowBytes)
    {"WideChannelRowsInWChunks", {1, 72, 2, 3, 120}, {3, 5, 250}},
};

struct MemoryCase {
  const char *name;
  aclFormat format;
  MemLayout layout;
};

const MemoryCase kMemoryCases[] = {
    {"NCDHW", ACL_FORMAT_NCDHW, MemLayout::kContiguous},
    {"NDHWC", ACL_FORMAT_NDHWC, MemLayout::kContiguous},
    {"NCDHWOverChannelsLast", ACL_FORMAT_NCDHW, MemLayout::kPermuted},
};

using MediumParam = std::tuple<aclDataType, MemoryCase, bool, MediumShape, BackwardKernel>;

class BackwardMediumShapes : public ::testing::TestWithParam<MediumParam> {};

TEST_P(BackwardMediumShapes, MatchesFloat64Reference) {
  const auto &[dtype, memory, alignCorners, shape, order] = GetParam();
  const ScopedKernel forcedKernel(order);
  BackwardProblem problem{shape.inputSize, shape.outputSize, alignCorners};
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  SCOPED_TRACE(problem.Describe());
  std::mt19937_64 rng(seed);
  DeviceTensor gradOut(problem.GradOutShape(), dtype, memory.format, memory.layout);
  DeviceTensor gradInput(problem.inputSize, dtype, memory.format, memory.layout);
  const Distribution dist = rng() % 2 == 0 ? Distribution::kUnitNormal : Distribution::kLargeOffset;
  SCOPED_TRACE(DistributionName(dist));
  const std::vector<double> values = gradOut.UploadRandom(rng, dist);
  ASSERT_TRUE(RunBackward(gradOut, problem, gradInput));
  EXPECT_TRUE(ResultMatchesReference(values, problem, dtype, gradInput.Download()));
}

std::string MediumName(const ::testing::TestParamInfo<MediumParam> &info) {
  const auto &[dtype, memory, alignCorners, shape, order] = info.param;
  return std::string(DtypeName(dtype)) + "_" + memory.name + (alignCorners ? "_Align_" : "_NoAlign_") +
         shape.name + "_" + BackwardKernelName(order);
}

// Every dtype, memory case, align_corners, shape and kernel; a sample of them under
// TRILINEAR3D_TEST_SAMPLE (SampledCases: the sanitizer step).
std::vector<MediumParam> MediumParams() {
  std::vector<MediumParam> params;
  for (const aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    for (const MemoryCase &memory : kMemoryCases) {
      for (const bool alignCorners : {false, true}) {
        for (const MediumShape &shape : kMediumShapes) {
          for (const BackwardKernel kernel : kBackwardKernels) {
            params.emplace_back(dtype, memory, alignCorners, shape, kernel);
          }
        }
      }
    }
  }
  return SampledCases(std::move(params));
}

INSTANTIATE_TEST_SUITE_P(Kernels, BackwardMediumShapes, ::testing::ValuesIn(MediumParams()), MediumName);

}  // namespace
}  // namespace trilinear3d::test
