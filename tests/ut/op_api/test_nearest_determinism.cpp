// Bitwise determinism of the nearest group (docs/spec.md §7): every entry point gives the same bits run
// after run and for 1, 2 and 3 cores (child processes, as test_determinism.cpp), on shapes whose items
// split D and H over the cores, both row layouts, fp32 and bf16 (the backward's fp32 sums rounded once).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "acl_test_environment.h"
#include "child_process.h"
#include "nearest_runner.h"

namespace trilinear3d::test {
namespace {

std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  for (const NearestEntryInfo &info : kNearestEntries) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
      for (aclFormat format : {info.rank == 3   ? ACL_FORMAT_NCL
                               : info.rank == 4 ? ACL_FORMAT_NCHW
                                                : ACL_FORMAT_NCDHW,
                               info.rank == 3   ? ACL_FORMAT_ND
                               : info.rank == 4 ? ACL_FORMAT_NHWC
                                                : ACL_FORMAT_NDHWC}) {
        NearestCase c;
        c.entry = info.entry;
        c.dtype = dtype;
        c.format = format;
        c.in = {2, 9, info.rank == 5 ? 5 : 1, info.rank >= 4 ? 13 : 1, 17};
        c.out = {info.rank == 5 ? 11 : 1, info.rank >= 4 ? 29 : 1, 37};
        SCOPED_TRACE(c.Describe());
        if (checkAccuracy) {
          std::mt19937_64 copy = rng;
          EXPECT_TRUE(NearestCaseMatches(c, copy));
        }
        NearestRun run;
        EXPECT_TRUE(RunNearestCase(c, rng, &run));
        bytes.insert(bytes.end(), run.resultBytes.begin(), run.resultBytes.end());
      }
    }
  }
  return bytes;
}

[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(ComputeAllCases);

TEST(NearestDeterminism, SameBitsForOneTwoAndThreeCores) { ExpectSameBitsForCoreCounts(ComputeAllCases); }

TEST(NearestDeterminism, RepeatedRunsInOneProcessAreIdentical) {
  ExpectRepeatedRunsIdentical(ComputeAllCases);
}

}  // namespace
}  // namespace trilinear3d::test
