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

namespace trilinear3d::test {
namespace {

// Raw gradInput bytes of every case under each general kernel, concatenated; the data comes from seed
// alone so that every process computes the same problem. When checkAccuracy, also checks each result's
// values.
std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  for (BackwardKernel order : kBackwardKernels) {
    const ScopedKernel forcedKernel(order);
    SCOPED_TRACE(BackwardKernelName(order));
    const std::vector<uint8_t> kernelBytes = DeterminismCasesResultBytes<BackwardProblem>(rng, checkAccuracy);
    bytes.insert(bytes.end(), kernelBytes.begin(), kernelBytes.end());
  }
  return bytes;
}

[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(ComputeAllCases);

TEST(Determinism, SameBitsForOneTwoAndThreeCores) { ExpectSameBitsForCoreCounts(ComputeAllCases); }

TEST(Determinism, RepeatedRunsInOneProcessAreIdentical) { ExpectRepeatedRunsIdentical(ComputeAllCases); }

}  // namespace
}  // namespace trilinear3d::test
