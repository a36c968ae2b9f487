// Bitwise determinism (docs/spec.md §7): the same result run after run and for every core count.
// TRILINEAR3D_CORES is read once per process, so other core counts run in child processes: this
// binary re-executes itself (fork + execve of /proc/self/exe) with a gtest filter selecting the
// child test, which writes its raw results to a file for the parent to compare.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
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

// An identity D axis (3 -> 3) under H and W halved, gradOut holding one +inf (plane 1, row 17): where an
// item's H chunk spans that row, the width-last kernel runs the D step of plane 1 (1 * inf + 0 * inf is
// NaN, PyTorch's rule), elsewhere it reads the plane's rows directly once they are found finite, and its H
// step then combines a batch of rows at once. One core takes all of H in one item, two and three cores
// cut H into chunks of 3 and 2 rows, so rows away from the inf come from the D step's slab in one run
// and straight from gradOut in another: the bits must not depend on which. W 26: a vector tail on AVX2.
void AppendIdentityDWithAnInf(std::mt19937_64 &rng, std::vector<uint8_t> *bytes) {
  const BackwardProblem p = ProblemOfSizes<BackwardProblem>({1, 1, 3, 21, 13}, {3, 42, 26}, false,
                                                            ScalesKind::kNone, Api::kTrilinear3d);
  DeviceTensor read = ReadTensor(p, ACL_FLOAT, ACL_FORMAT_NCDHW);
  DeviceTensor written = WrittenTensor(p, ACL_FLOAT, ACL_FORMAT_NCDHW);
  std::vector<double> values = read.UploadRandom(rng);
  values[static_cast<size_t>((1 * 42 + 17) * 26 + 5)] = INFINITY;
  read.Upload(values);
  EXPECT_TRUE(Run(read, p, written));
  const std::vector<uint8_t> result = written.StorageBytes();
  bytes->insert(bytes->end(), result.begin(), result.end());
}

// Raw gradInput bytes of every case under each general kernel, concatenated; the data comes from seed
// alone so that every process computes the same problem. When checkAccuracy, also checks each result's
// values (not the inf case's).
std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  for (BackwardKernel order : kBackwardKernels) {
    const ScopedKernel forcedKernel(order);
    SCOPED_TRACE(BackwardKernelName(order));
    const std::vector<uint8_t> kernelBytes = DeterminismCasesResultBytes<BackwardProblem>(rng, checkAccuracy);
    bytes.insert(bytes.end(), kernelBytes.begin(), kernelBytes.end());
    AppendIdentityDWithAnInf(rng, &bytes);
  }
  return bytes;
}

[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(ComputeAllCases);

TEST(Determinism, SameBitsForOneTwoAndThreeCores) { ExpectSameBitsForCoreCounts(ComputeAllCases); }

TEST(Determinism, RepeatedRunsInOneProcessAreIdentical) { ExpectRepeatedRunsIdentical(ComputeAllCases); }

}  // namespace
}  // namespace trilinear3d::test
