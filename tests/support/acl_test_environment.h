// aclInit / aclrtSetDevice once per test binary, as a CANN program does before any aclnn call.
// Included by every test file; the inline variable registers the environment exactly once.
#ifndef TRILINEAR3D_TESTS_SUPPORT_ACL_TEST_ENVIRONMENT_H_
#define TRILINEAR3D_TESTS_SUPPORT_ACL_TEST_ENVIRONMENT_H_

#include <gtest/gtest.h>

#include "acl/acl.h"

namespace trilinear3d::test {

class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    (void)aclGetRecentErrMsg();  // start every binary with a clean message slot
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};

inline ::testing::Environment *const kAclEnvironment =
    ::testing::AddGlobalTestEnvironment(new AclEnvironment);

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_ACL_TEST_ENVIRONMENT_H_
