// Bitwise determinism (docs/spec.md §7): the same result run after run and for every core count.
// TRILINEAR3D_CORES is read once per process, so other core counts run in child processes: this
// binary re-executes itself (fork + execve of /proc/self/exe) with a gtest filter selecting the
// child test, which writes its raw results to a file for the parent to compare.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "child_process.h"
#include "op_runner.h"

extern char **environ;

namespace trilinear3d::test {
namespace {

constexpr char kOutputEnv[] = "TRILINEAR3D_UT_DETERMINISM_OUTPUT";
constexpr char kSeedEnv[] = "TRILINEAR3D_UT_DETERMINISM_SEED";

struct DeterminismCase {
  aclDataType dtype;
  aclFormat format;
  bool alignCorners;
  Shape5 inputSize;
  std::array<int64_t, 3> outputSize;
};

const DeterminismCase kCases[] = {
    {ACL_FLOAT, ACL_FORMAT_NCDHW, false, {2, 5, 9, 17, 23}, {13, 31, 40}},
    {ACL_BF16, ACL_FORMAT_NCDHW, false, {2, 5, 9, 17, 23}, {13, 31, 40}},
    {ACL_FLOAT, ACL_FORMAT_NDHWC, true, {2, 5, 9, 17, 23}, {13, 31, 40}},
    // Channels inner (C >= 8): the width-last ring kernel; then W x C rows of 72 KB, cut into W chunks.
    {ACL_FLOAT, ACL_FORMAT_NDHWC, false, {1, 16, 9, 17, 23}, {13, 31, 40}},
    {ACL_FLOAT, ACL_FORMAT_NDHWC, false, {1, 72, 2, 3, 120}, {3, 5, 250}},
};

BackwardProblem ProblemOf(const DeterminismCase &c) {
  BackwardProblem problem{c.inputSize, c.outputSize, c.alignCorners};
  return problem;
}

// Raw gradInput bytes of every case, concatenated; the data comes from seed alone so that every
// process computes the same problem. When checkAccuracy, also checks each result's values.
std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  for (const DeterminismCase &c : kCases) {
    for (BackwardKernel order : kBackwardKernels) {
      const ScopedKernel forcedKernel(order);
      SCOPED_TRACE(std::string(DtypeName(c.dtype)) + " " + FormatName(c.format) + " " +
                   BackwardKernelName(order));
      AppendResultBytes(ProblemOf(c), c.dtype, c.format, rng, checkAccuracy, &bytes);
    }
  }
  return bytes;
}

// The child's job (child processes only): compute every case and write the raw bytes for the parent.
[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(
    "DeterminismChild", kOutputEnv, kSeedEnv, [](uint64_t seed) { return ComputeAllCases(seed, false); });

TEST(Determinism, SameBitsForOneTwoAndThreeCores) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  ExpectSameBitsForCoreCounts(seed, ComputeAllCases, kOutputEnv, kSeedEnv, "DeterminismChild.WriteResults");
}

TEST(Determinism, RepeatedRunsInOneProcessAreIdentical) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  ExpectRepeatedRunsIdentical(seed, ComputeAllCases);
}

}  // namespace
}  // namespace trilinear3d::test
