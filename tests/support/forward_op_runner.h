// Calls aclnnUpsampleTrilinear3d (the forward) the two-phase CANN way, like op_runner.h does for
// the backward. Shared by the forward accuracy, adjoint and determinism tests.
#ifndef TRILINEAR3D_TESTS_UT_FORWARD_FORWARD_OP_RUNNER_H_
#define TRILINEAR3D_TESTS_UT_FORWARD_FORWARD_OP_RUNNER_H_

#include <gtest/gtest.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "op_runner.h"
#include "reference/forward_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {

// GetWorkspaceSize with the problem's sizes and attributes; the int array is destroyed before
// returning (the executor must have copied it). Allocates the workspace on success and fills it
// with NaN bytes, so that a kernel reading scratch before writing it fails.
inline ::testing::AssertionResult PrepareForward(const aclTensor *self, const ForwardProblem &p,
                                                 aclTensor *out, PreparedOp *op) {
  aclIntArray *outputSize = aclCreateIntArray(p.outputSize.data(), 3);
  const aclnnStatus status =
      aclnnUpsampleTrilinear3dGetWorkspaceSize(self, outputSize, p.alignCorners, p.scales[0], p.scales[1],
                                               p.scales[2], out, &op->workspaceSize, &op->executor);
  aclDestroyIntArray(outputSize);
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure() << "aclnnUpsampleTrilinear3dGetWorkspaceSize returned " << status
                                         << ": " << aclGetRecentErrMsg() << " for " << p.Describe();
  }
  return AllocateWorkspace(op);
}

inline ::testing::AssertionResult EnqueueForward(PreparedOp *op, aclrtStream stream) {
  const aclnnStatus status = aclnnUpsampleTrilinear3d(op->workspace, op->workspaceSize, op->executor, stream);
  op->executor = nullptr;  // consumed
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure()
           << "aclnnUpsampleTrilinear3d returned " << status << ": " << aclGetRecentErrMsg();
  }
  return ::testing::AssertionSuccess();
}

// Both phases and a synchronize: out holds the result on success.
inline ::testing::AssertionResult RunForward(const DeviceTensor &self, const ForwardProblem &p,
                                             DeviceTensor &out, aclrtStream stream = nullptr) {
  PreparedOp op;
  ::testing::AssertionResult prepared = PrepareForward(self.get(), p, out.get(), &op);
  if (!prepared) return prepared;
  ::testing::AssertionResult enqueued = EnqueueForward(&op, stream);
  if (!enqueued) return enqueued;
  return SynchronizeStream(stream);
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_UT_FORWARD_FORWARD_OP_RUNNER_H_
