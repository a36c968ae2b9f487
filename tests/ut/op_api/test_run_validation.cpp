// Run-phase validation (docs/spec.md §4): a rejected aclnnUpsampleTrilinear3dBackward writes nothing,
// never crashes on a bad executor, and leaves a good executor usable for a corrected retry.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "op_runner.h"
#include "validation_helpers.h"

namespace trilinear3d::test {
namespace {

// A planned op on a medium shape (large enough to need a workspace), gradInput pre-filled.
class RunValidation : public PlannedRunTest<BackwardProblem> {
 protected:
  void SetUp() override { Plan(BackwardProblem{{2, 5, 9, 17, 23}, {13, 31, 40}}); }
};

TEST_F(RunValidation, NullExecutor) {
  EXPECT_TRUE(Rejected(aclnnUpsampleTrilinear3dBackward(op_.workspace, op_.workspaceSize, nullptr, nullptr),
                       ACLNN_ERR_PARAM_NULLPTR, {"executor"}));
  EXPECT_TRUE(WrittenUntouched());
  RunCorrectlyAndCheck();
}

TEST_F(RunValidation, NullWorkspaceWithNonZeroSize) {
  const uint64_t size = std::max<uint64_t>(op_.workspaceSize, 64);
  EXPECT_TRUE(Rejected(aclnnUpsampleTrilinear3dBackward(nullptr, size, op_.executor, nullptr),
                       ACLNN_ERR_PARAM_NULLPTR, {"workspace"}));
  EXPECT_TRUE(WrittenUntouched());
  RunCorrectlyAndCheck();
}

TEST_F(RunValidation, WorkspaceSmallerThanAsked) {
  if (op_.workspaceSize == 0) {
    RunCorrectlyAndCheck();
    GTEST_SKIP() << "this build plans no workspace for the shape: nothing to undersize";
  }
  EXPECT_TRUE(
      Rejected(aclnnUpsampleTrilinear3dBackward(op_.workspace, op_.workspaceSize - 1, op_.executor, nullptr),
               ACLNN_ERR_PARAM_INVALID, {"workspace"}));
  EXPECT_TRUE(WrittenUntouched());
  RunCorrectlyAndCheck();
}

TEST_F(RunValidation, ConsumedExecutor) {
  aclOpExecutor *const executor = op_.executor;
  RunCorrectlyAndCheck();
  const std::vector<uint8_t> result = written_->StorageBytes();
  EXPECT_TRUE(Rejected(aclnnUpsampleTrilinear3dBackward(op_.workspace, op_.workspaceSize, executor, nullptr),
                       ACLNN_ERR_PARAM_INVALID, {"executor"}));
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(written_->StorageBytes(), result);
}

TEST_F(RunValidation, GarbageExecutor) {
  int64_t notAnExecutor[16] = {};
  EXPECT_TRUE(
      Rejected(aclnnUpsampleTrilinear3dBackward(op_.workspace, op_.workspaceSize,
                                                reinterpret_cast<aclOpExecutor *>(notAnExecutor), nullptr),
               ACLNN_ERR_PARAM_INVALID, {"executor"}));
  EXPECT_TRUE(WrittenUntouched());
  RunCorrectlyAndCheck();
}

// aclDestroyAclOpExecutor frees a planned executor that will not run; afterwards the executor is
// unknown to the run phase, and a second destroy or a null one is an error, never a crash.
TEST_F(RunValidation, DestroyedExecutorIsUnknown) {
  aclOpExecutor *executor = op_.executor;
  ASSERT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnUpsampleTrilinear3dBackward(op_.workspace, op_.workspaceSize, executor, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("executor"), std::string::npos);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  op_.executor = nullptr;
  EXPECT_TRUE(WrittenUntouched());
}

}  // namespace
}  // namespace trilinear3d::test
