// Calls aclnnUpsampleTrilinear3dBackward the two-phase CANN way, and checks a result against the
// float64 reference. Shared by the accuracy, view, stream and determinism tests.
#ifndef TRILINEAR3D_TESTS_UT_OP_RUNNER_H_
#define TRILINEAR3D_TESTS_UT_OP_RUNNER_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "reference/upsample_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {

// The backward's kernels by their registry names (src/op_host/kernel_registry.cpp). The library picks
// one per shape; tests run the two general ones on every shape through TRILINEAR3D_KERNEL, which is
// read at each GetWorkspaceSize. kStencil2x forces the doubling stencil where it applies
// (test_stencil2x.cpp; elsewhere the registry's own choice runs).
enum class BackwardKernel { kWidthFirst, kWidthLast, kStencil2x };

inline const char *BackwardKernelName(BackwardKernel kernel) {
  switch (kernel) {
    case BackwardKernel::kWidthFirst:
      return "backward_width_first";
    case BackwardKernel::kWidthLast:
      return "backward_width_last";
    case BackwardKernel::kStencil2x:
      break;
  }
  return "backward_stencil2x";
}

// Sets TRILINEAR3D_KERNEL for the scope's plans; restores the previous value (or "unset") on exit,
// so that scopes nest.
class ScopedKernel {
 public:
  explicit ScopedKernel(BackwardKernel kernel) {
    if (const char *previous = std::getenv(kVariable)) {
      hadPrevious_ = true;
      previous_ = previous;
    }
    setenv(kVariable, BackwardKernelName(kernel), 1);
  }
  ~ScopedKernel() {
    if (hadPrevious_) {
      setenv(kVariable, previous_.c_str(), 1);
    } else {
      unsetenv(kVariable);
    }
  }
  ScopedKernel(const ScopedKernel &) = delete;
  ScopedKernel &operator=(const ScopedKernel &) = delete;

 private:
  static constexpr const char *kVariable = "TRILINEAR3D_KERNEL";
  bool hadPrevious_ = false;
  std::string previous_;
};

constexpr BackwardKernel kBackwardKernels[] = {BackwardKernel::kWidthFirst, BackwardKernel::kWidthLast};

// Phase 1 done: an executor and its workspace, waiting to be enqueued.
struct PreparedOp {
  aclOpExecutor *executor = nullptr;
  uint64_t workspaceSize = 0;
  void *workspace = nullptr;

  PreparedOp() = default;
  PreparedOp(const PreparedOp &) = delete;
  PreparedOp &operator=(const PreparedOp &) = delete;
  // The workspace must outlive the queued work: free only after the stream is synchronised.
  ~PreparedOp() {
    if (workspace != nullptr) aclrtFree(workspace);
  }
};

// Allocates op->workspaceSize bytes of workspace. A workspace's contents are unspecified (CANN
// reuses pools): it is filled with NaN bytes so that a kernel reading it before writing it fails
// here, not only when fresh pages happen to be zero.
inline ::testing::AssertionResult AllocateWorkspace(PreparedOp *op) {
  if (op->workspaceSize == 0) return ::testing::AssertionSuccess();
  if (aclrtMalloc(&op->workspace, op->workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ::testing::AssertionFailure()
           << "aclrtMalloc of " << op->workspaceSize << " workspace bytes failed";
  }
  if (aclrtMemset(op->workspace, op->workspaceSize, 0xFF, op->workspaceSize) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "aclrtMemset of the workspace failed";
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult SynchronizeStream(aclrtStream stream) {
  if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "aclrtSynchronizeStream failed: " << aclGetRecentErrMsg();
  }
  return ::testing::AssertionSuccess();
}

// GetWorkspaceSize with the problem's sizes and attributes; the int arrays are destroyed before
// returning (the executor must have copied them). Allocates the workspace on success.
inline ::testing::AssertionResult PrepareBackward(const aclTensor *gradOut, const BackwardProblem &p,
                                                  aclTensor *gradInput, PreparedOp *op) {
  aclIntArray *outputSize = aclCreateIntArray(p.outputSize.data(), 3);
  aclIntArray *inputSize = aclCreateIntArray(p.inputSize.data(), 5);
  const aclnnStatus status = aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
      gradOut, outputSize, inputSize, p.alignCorners, p.scales[0], p.scales[1], p.scales[2], gradInput,
      &op->workspaceSize, &op->executor);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure() << "GetWorkspaceSize returned " << status << ": "
                                         << aclGetRecentErrMsg() << " for " << p.Describe();
  }
  return AllocateWorkspace(op);
}

inline ::testing::AssertionResult EnqueueBackward(PreparedOp *op, aclrtStream stream) {
  const aclnnStatus status =
      aclnnUpsampleTrilinear3dBackward(op->workspace, op->workspaceSize, op->executor, stream);
  op->executor = nullptr;  // consumed
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure()
           << "aclnnUpsampleTrilinear3dBackward returned " << status << ": " << aclGetRecentErrMsg();
  }
  return ::testing::AssertionSuccess();
}

// Both phases and a synchronize: gradInput holds the result on success.
inline ::testing::AssertionResult RunBackward(const DeviceTensor &gradOut, const BackwardProblem &p,
                                              DeviceTensor &gradInput, aclrtStream stream = nullptr) {
  PreparedOp op;
  ::testing::AssertionResult prepared = PrepareBackward(gradOut.get(), p, gradInput.get(), &op);
  if (!prepared) return prepared;
  ::testing::AssertionResult enqueued = EnqueueBackward(&op, stream);
  if (!enqueued) return enqueued;
  return SynchronizeStream(stream);
}

// gradOutValues: what the library read (already rounded to the dtype), logical NCDHW.
inline ::testing::AssertionResult ResultMatchesReference(const std::vector<double> &gradOutValues,
                                                         const BackwardProblem &p, aclDataType dtype,
                                                         const std::vector<double> &got) {
  const ReferenceResult ref = BackwardReference(p, gradOutValues);
  return MatchesReference(got, ref, ToleranceFor(dtype, p), p.inputSize);
}

// One run on fresh random gradOut values of `dist` (tensors of dtype in format), checked against the
// float64 reference: the body of the accuracy sweeps.
inline ::testing::AssertionResult RandomRunMatchesReference(const BackwardProblem &p, aclDataType dtype,
                                                            aclFormat format, Distribution dist,
                                                            std::mt19937_64 &rng) {
  DeviceTensor gradOut(p.GradOutShape(), dtype, format);
  DeviceTensor gradInput(p.inputSize, dtype, format);
  const std::vector<double> values = gradOut.Upload(RandomValues(rng, ElementCount(p.GradOutShape()), dist));
  const ::testing::AssertionResult ran = RunBackward(gradOut, p, gradInput);
  if (!ran) return ran;
  return ResultMatchesReference(values, p, dtype, gradInput.Download());
}

// The accuracy sweeps' check: a fresh seed (reported, replayable), then one run per distribution,
// each against the float64 reference.
inline void ExpectAccurateOnFreshData(const BackwardProblem &p, aclDataType dtype, aclFormat format) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  SCOPED_TRACE(p.Describe());
  std::mt19937_64 rng(seed);
  for (Distribution dist : {Distribution::kUnitNormal, Distribution::kLargeOffset}) {
    SCOPED_TRACE(DistributionName(dist));
    EXPECT_TRUE(RandomRunMatchesReference(p, dtype, format, dist, rng));
  }
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_UT_OP_RUNNER_H_
