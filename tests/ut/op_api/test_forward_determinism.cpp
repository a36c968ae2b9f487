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

namespace trilinear3d::test {
namespace {

// Raw out bytes of every case, concatenated; the data comes from seed alone so that every
// process computes the same problem. When checkAccuracy, also checks each result's values.
std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::mt19937_64 rng(seed);
  return DeterminismCasesResultBytes<ForwardProblem>(rng, checkAccuracy);
}

[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(ComputeAllCases);

TEST(ForwardDeterminism, SameBitsForOneTwoAndThreeCores) { ExpectSameBitsForCoreCounts(ComputeAllCases); }

TEST(ForwardDeterminism, RepeatedRunsInOneProcessAreIdentical) {
  ExpectRepeatedRunsIdentical(ComputeAllCases);
}

}  // namespace
}  // namespace trilinear3d::test
