// Bitwise determinism of the linear group (docs/spec.md §7): aclnnUpsampleBilinear2d, aclnnUpsampleLinear1d,
// aclnnUpsampleBilinear2dBackward (V1), ...BackwardV2 and aclnnUpsampleLinear1dBackward give the same bits
// run after run and for 1, 2 and 3 cores (child processes, as test_determinism.cpp), on the determinism
// cases with D (and H) folded into N (FoldIntoBatch), the backwards under each general kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "acl_test_environment.h"
#include "child_process.h"
#include "op_runner.h"
#include "reference/forward_reference.h"

namespace trilinear3d::test {
namespace {

// Raw result bytes of every operator's cases, in one order, concatenated; the data from seed alone.
std::vector<uint8_t> ComputeAllCases(uint64_t seed, bool checkAccuracy) {
  std::vector<uint8_t> bytes;
  std::mt19937_64 rng(seed);
  auto append = [&](const std::vector<uint8_t> &more) {
    bytes.insert(bytes.end(), more.begin(), more.end());
  };
  for (Api api : {Api::kBilinear2d, Api::kLinear1d}) {
    SCOPED_TRACE(ApiName(false, api));
    append(DeterminismCasesResultBytes<ForwardProblem>(rng, checkAccuracy, api));
  }
  for (Api api : {Api::kBilinear2d, Api::kBilinear2dBackwardV1, Api::kLinear1d}) {
    SCOPED_TRACE(ApiName(true, api));
    for (BackwardKernel kernel : kBackwardKernels) {
      const ScopedKernel forced(kernel);
      SCOPED_TRACE(BackwardKernelName(kernel));
      append(DeterminismCasesResultBytes<BackwardProblem>(rng, checkAccuracy, api));
    }
  }
  return bytes;
}

[[maybe_unused]] const bool kChildRegistered = RegisterChildWriter(ComputeAllCases);

TEST(LinearDeterminism, SameBitsForOneTwoAndThreeCores) { ExpectSameBitsForCoreCounts(ComputeAllCases); }

TEST(LinearDeterminism, RepeatedRunsInOneProcessAreIdentical) {
  ExpectRepeatedRunsIdentical(ComputeAllCases);
}

}  // namespace
}  // namespace trilinear3d::test
