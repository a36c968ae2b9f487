// Bitwise determinism of the forward op (docs/spec.md §7): the same result run after run and for
// every core count. TRILINEAR3D_CORES is read once per process, so other core counts run in child
// processes: this binary re-executes itself (fork + execve of /proc/self/exe) with a gtest filter
// selecting the child test, which writes its raw results to a file for the parent to compare
// (the pattern of test_determinism.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
#include "reference/forward_reference.h"

extern char **environ;

namespace trilinear3d::test {
namespace {

constexpr char kOutputEnv[] = "TRILINEAR3D_UT_FORWARD_DETERMINISM_OUTPUT";
constexpr char kSeedEnv[] = "TRILINEAR3D_UT_FORWARD_DETERMINISM_SEED";

struct DeterminismCase {
  const char *name;
  aclDataType dtype;
  aclFormat format;
  bool alignCorners;
  Shape5 selfSize;
  std::array<int64_t, 3> outputSize;
  bool withScales;
};

// Shapes whose item split (planes x D chunks x H chunks) changes with the core count, on both
// row layouts (W-inner, and C-inner for NDHWC with C >= 8) and every dtype.
const DeterminismCase kCases[] = {
    {"FloatNcdhwUp", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {2, 5, 9, 17, 23}, {13, 31, 40}, false},
    {"Bf16NcdhwUp", ACL_BF16, ACL_FORMAT_NCDHW, false, {2, 5, 9, 17, 23}, {13, 31, 40}, false},
    {"FloatNdhwcAlign", ACL_FLOAT, ACL_FORMAT_NDHWC, true, {1, 11, 6, 9, 13}, {11, 17, 20}, false},
    {"Fp16NdhwcScales", ACL_FLOAT16, ACL_FORMAT_NDHWC, false, {2, 11, 5, 7, 9}, {8, 12, 21}, true},
    {"DoubleNcdhwDown", ACL_DOUBLE, ACL_FORMAT_NCDHW, false, {2, 3, 17, 31, 40}, {9, 13, 23}, false},
    {"FloatStrongDownH", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {1, 2, 4, 200, 9}, {3, 7, 5}, false},
    {"FloatOnePlane", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {1, 1, 7, 19, 33}, {15, 40, 50}, false},
    // W first (W shrinks 64 -> 8 under D growing 5 -> 17): items split D differently per core count,
    // and each starts its cache of W-resampled tap planes empty.
    {"FloatWidthFirstGrowD", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {1, 3, 5, 6, 64}, {17, 5, 8}, false},
    {"Bf16WidthFirstGrowDNdhwc", ACL_BF16, ACL_FORMAT_NDHWC, true, {1, 3, 5, 6, 64}, {17, 5, 8}, false},
};

ForwardProblem ProblemOf(const DeterminismCase &c) {
  ForwardProblem problem{c.selfSize, c.outputSize, c.alignCorners};
  if (c.withScales) {
    for (int a = 0; a < 3; ++a) {
      problem.scales[a] =
          (static_cast<double>(c.outputSize[a]) + 0.4) / static_cast<double>(c.selfSize[2 + a]);
    }
  }
  return problem;
}

// Raw out bytes of every case, concatenated; the data comes from seed alone so that every
// process computes the same problem. When checkAccuracy, also checks each result's values.
std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  for (const DeterminismCase &c : kCases) {
    SCOPED_TRACE(c.name);
    AppendResultBytes(ProblemOf(c), c.dtype, c.format, rng, checkAccuracy, &bytes);
  }
  return bytes;
}

// The child's job (child processes only): compute every case and write the raw bytes for the parent.
[[maybe_unused]] const bool kChildRegistered =
    RegisterChildWriter("ForwardDeterminismChild", kOutputEnv, kSeedEnv,
                        [](uint64_t seed) { return ComputeAllCases(seed, false); });

TEST(ForwardDeterminism, SameBitsForOneTwoAndThreeCores) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  ExpectSameBitsForCoreCounts(seed, ComputeAllCases, kOutputEnv, kSeedEnv,
                              "ForwardDeterminismChild.WriteResults");
}

TEST(ForwardDeterminism, RepeatedRunsInOneProcessAreIdentical) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  ExpectRepeatedRunsIdentical(seed, ComputeAllCases);
}

}  // namespace
}  // namespace trilinear3d::test
