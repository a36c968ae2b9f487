// Calls both operators, aclnnUpsampleTrilinear3dBackward and aclnnUpsampleTrilinear3d, the two-phase
// CANN way, and checks a backward result against the float64 reference. Shared by the unit and
// reliability tests.
#ifndef TRILINEAR3D_TESTS_SUPPORT_OP_RUNNER_H_
#define TRILINEAR3D_TESTS_SUPPORT_OP_RUNNER_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "reference/forward_reference.h"
#include "reference/upsample_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {

// The backward's two general kernels (pass orders). The library picks one per shape; tests run both
// on every shape through TRILINEAR3D_PASS_ORDER, which is read at each GetWorkspaceSize. kStencil2x
// asks for the doubling stencil kernel where it applies (test_stencil2x.cpp; elsewhere it is kAuto).
enum class PassOrder { kWidthFirst, kWidthLast, kStencil2x };

inline const char *PassOrderName(PassOrder order) {
  switch (order) {
    case PassOrder::kWidthFirst:
      return "width_first";
    case PassOrder::kWidthLast:
      return "width_last";
    case PassOrder::kStencil2x:
      break;
  }
  return "stencil2x";
}

// Sets TRILINEAR3D_PASS_ORDER for the scope's plans; restores the previous value (or "unset") on exit,
// so that scopes nest.
class ScopedPassOrder {
 public:
  explicit ScopedPassOrder(PassOrder order) {
    if (const char *previous = std::getenv(kVariable)) {
      hadPrevious_ = true;
      previous_ = previous;
    }
    setenv(kVariable, PassOrderName(order), 1);
  }
  ~ScopedPassOrder() {
    if (hadPrevious_) {
      setenv(kVariable, previous_.c_str(), 1);
    } else {
      unsetenv(kVariable);
    }
  }
  ScopedPassOrder(const ScopedPassOrder &) = delete;
  ScopedPassOrder &operator=(const ScopedPassOrder &) = delete;

 private:
  static constexpr const char *kVariable = "TRILINEAR3D_PASS_ORDER";
  bool hadPrevious_ = false;
  std::string previous_;
};

constexpr PassOrder kPassOrders[] = {PassOrder::kWidthFirst, PassOrder::kWidthLast};

// Phase 1 done: an executor and its workspace, waiting to be enqueued.
struct PreparedOp {
  bool backward = true;  // which operator planned it
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

// The status of a GetWorkspaceSize call: on success the workspace is allocated.
inline ::testing::AssertionResult Planned(aclnnStatus status, const char *call, const std::string &problem,
                                          PreparedOp *op) {
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure()
           << call << " returned " << status << ": " << aclGetRecentErrMsg() << " for " << problem;
  }
  return AllocateWorkspace(op);
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
  op->backward = true;
  return Planned(status, "GetWorkspaceSize", p.Describe(), op);
}

inline ::testing::AssertionResult PrepareForward(const aclTensor *self, const ForwardProblem &p,
                                                 aclTensor *out, PreparedOp *op) {
  aclIntArray *outputSize = aclCreateIntArray(p.outputSize.data(), 3);
  const aclnnStatus status =
      aclnnUpsampleTrilinear3dGetWorkspaceSize(self, outputSize, p.alignCorners, p.scales[0], p.scales[1],
                                               p.scales[2], out, &op->workspaceSize, &op->executor);
  aclDestroyIntArray(outputSize);
  op->backward = false;
  return Planned(status, "aclnnUpsampleTrilinear3dGetWorkspaceSize", p.Describe(), op);
}

// The run phase of the operator op was planned for; the executor is left as it is (a run rejected
// before it starts, e.g. on a destroyed stream, keeps it usable).
inline aclnnStatus RunPhase(const PreparedOp &op, aclrtStream stream) {
  return op.backward ? aclnnUpsampleTrilinear3dBackward(op.workspace, op.workspaceSize, op.executor, stream)
                     : aclnnUpsampleTrilinear3d(op.workspace, op.workspaceSize, op.executor, stream);
}

// The run phase; the executor counts as consumed either way.
inline ::testing::AssertionResult Enqueue(PreparedOp *op, aclrtStream stream) {
  const aclnnStatus status = RunPhase(*op, stream);
  op->executor = nullptr;
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure()
           << (op->backward ? "aclnnUpsampleTrilinear3dBackward" : "aclnnUpsampleTrilinear3d") << " returned "
           << status << ": " << aclGetRecentErrMsg();
  }
  return ::testing::AssertionSuccess();
}

// The run phase after a phase one (which may have failed), and a synchronize.
inline ::testing::AssertionResult EnqueueAndSynchronize(::testing::AssertionResult prepared, PreparedOp *op,
                                                        aclrtStream stream) {
  if (!prepared) return prepared;
  ::testing::AssertionResult enqueued = Enqueue(op, stream);
  if (!enqueued) return enqueued;
  return SynchronizeStream(stream);
}

// Both phases and a synchronize: gradInput holds the result on success.
inline ::testing::AssertionResult RunBackward(const DeviceTensor &gradOut, const BackwardProblem &p,
                                              DeviceTensor &gradInput, aclrtStream stream = nullptr) {
  PreparedOp op;
  return EnqueueAndSynchronize(PrepareBackward(gradOut.get(), p, gradInput.get(), &op), &op, stream);
}

// Both phases and a synchronize: out holds the result on success.
inline ::testing::AssertionResult RunForward(const DeviceTensor &self, const ForwardProblem &p,
                                             DeviceTensor &out, aclrtStream stream = nullptr) {
  PreparedOp op;
  return EnqueueAndSynchronize(PrepareForward(self.get(), p, out.get(), &op), &op, stream);
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

#endif  // TRILINEAR3D_TESTS_SUPPORT_OP_RUNNER_H_
