// Bitwise determinism of the cubic group (docs/spec.md §7): the six entry points give the same bits run after
// run and for 1, 2 and 3 cores (child processes, as test_determinism.cpp), on shapes of several items per
// core (up, down, antialiased shrinks by 1/7 and more), every dtype, channels first and (bicubic) channels
// last.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "acl_test_environment.h"
#include "child_process.h"
#include "cubic_ops.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

struct DeterminismShape {
  int64_t n, c, inH, inW, outH, outW;
};

const DeterminismShape kShapes[] = {
    {2, 5, 37, 41, 80, 19},   // H grows, W shrinks
    {1, 16, 70, 63, 10, 9},   // a shrink by 7
    {3, 3, 24, 96, 97, 200},  // growth on both axes
    {1, 9, 131, 17, 6, 17},   // a strong shrink on H, W kept
    {2, 4, 20, 45, 40, 90},   // an exact 2x (bicubic's fixed-phase W runs)
};

// Raw result bytes of every operator's cases, in one order, concatenated; the data from seed alone.
std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  int index = 0;
  for (FilterKind kind : CubicOpsUnderTest()) {
    for (bool backward : {false, true}) {
      for (const DeterminismShape &s :
           SampledCases(std::vector<DeterminismShape>(std::begin(kShapes), std::end(kShapes)))) {
        const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
        const aclDataType dtype = dtypes[index % 4];
        const bool channelsLast = kind == FilterKind::kBicubic && index % 3 == 1;
        ++index;
        FilterProblem p{kind, s.n, s.c, s.inH, s.inW, s.outH, s.outW, index % 5 == 2, 0.0, 0.0};
        SCOPED_TRACE(std::string(CubicOpName(kind)) + (backward ? " backward" : " forward") + " case " +
                     std::to_string(index));
        const CubicRun run =
            ExpectCubicOpAccurate(p, backward, dtype, channelsLast ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW, rng,
                                  MemLayout::kContiguous, checkAccuracy);
        bytes.insert(bytes.end(), run.bytes.begin(), run.bytes.end());
      }
    }
  }
  return bytes;
}

[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(ComputeAllCases);

TEST(CubicDeterminism, SameBitsForOneTwoAndThreeCores) { ExpectSameBitsForCoreCounts(ComputeAllCases); }

TEST(CubicDeterminism, RepeatedRunsInOneProcessAreIdentical) { ExpectRepeatedRunsIdentical(ComputeAllCases); }

}  // namespace
}  // namespace trilinear3d::test
