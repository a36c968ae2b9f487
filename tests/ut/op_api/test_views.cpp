// Non-contiguous gradOut and gradInput: strided views are read and written through their strides,
// each tensor by its own format, and gradInput's storage outside its view is never written.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>

#include "acl_test_environment.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

using ViewParam = std::tuple<aclDataType, ViewCase, BackwardKernel>;

class BackwardViews : public ::testing::TestWithParam<ViewParam> {};

TEST_P(BackwardViews, StridedViewsMatchReferenceAndGapsKeepCanary) {
  const auto &[dtype, view, order] = GetParam();
  const ScopedKernel forcedKernel(order);
  BackwardProblem problem{{2, 3, 5, 4, 7}, {8, 9, 5}};
  TracedRng rng;
  for (bool alignCorners : {false, true}) {
    SCOPED_TRACE(alignCorners ? "alignCorners" : "no alignCorners");
    problem.alignCorners = alignCorners;
    ExpectViewsMatchReference(problem, dtype, view, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, BackwardViews,
                         ::testing::Combine(::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::ValuesIn(kViewCases),
                                            ::testing::ValuesIn(kBackwardKernels)),
                         [](const ::testing::TestParamInfo<ViewParam> &info) {
                           return std::string(DtypeName(std::get<0>(info.param))) + "_" +
                                  ViewCaseName(std::get<1>(info.param), "GradOut", "GradInput") + "_" +
                                  BackwardKernelName(std::get<2>(info.param));
                         });

}  // namespace
}  // namespace trilinear3d::test
