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

[[maybe_unused]] const bool kRegistered = RegisterPlannedRunTests<RunValidation>("RunValidation");

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
