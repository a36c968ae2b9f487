// aclnnResize (docs/spec.md §3): "nearest" against the float64 reference of PyTorch's
// interpolate(scale_factor) nearest rule (bitwise: a copy), "bilinear" bitwise equal to
// aclnnUpsampleBilinear2d with the same scales (whose accuracy test_linear_forward_accuracy covers), both
// formats; and its validation in CANN's order.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "aclnnop/aclnn_resize.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "nearest_runner.h"
#include "validation_helpers.h"

namespace trilinear3d::test {
namespace {

struct FloatArray {
  explicit FloatArray(const std::vector<float> &v) : array(aclCreateFloatArray(v.data(), v.size())) {}
  ~FloatArray() { aclDestroyFloatArray(array); }
  aclFloatArray *array;
};

// Runs an executor planned by GetWorkspaceSize (status s) to completion.
// (ws and executor by pointer: read after the planning call, which is an argument, has run.)
::testing::AssertionResult RunPlanned(aclnnStatus s, const uint64_t *ws, aclOpExecutor *const *e,
                                      aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream)) {
  const uint64_t workspaceSize = *ws;
  aclOpExecutor *executor = *e;
  if (s != ACLNN_SUCCESS)
    return ::testing::AssertionFailure() << "planning: " << s << " " << aclGetRecentErrMsg();
  void *workspace = nullptr;
  if (workspaceSize > 0 && aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "workspace";
  }
  const aclnnStatus r = run(workspace, workspaceSize, executor, nullptr);
  const aclError sync = aclrtSynchronizeDevice();
  if (workspace != nullptr) aclrtFree(workspace);
  if (r != ACLNN_SUCCESS || sync != ACL_SUCCESS) return ::testing::AssertionFailure() << "run: " << r;
  return ::testing::AssertionSuccess();
}

struct Shape {
  int64_t n, c, h, w;
  float sh, sw;
};

const Shape kShapes[] = {{2, 3, 7, 13, 2.7f, 0.4f},
                         {1, 9, 5, 5, 2.0f, 2.0f},
                         {2, 2, 9, 1, 0.5f, 19.0f},
                         {1, 3, 33, 17, 1.5f, 3.25f}};

TEST(Resize, NearestMatchesTheReference) {
  TracedRng rng;
  for (const Shape &s : kShapes) {
    for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        const int64_t oh = static_cast<int64_t>(static_cast<double>(s.h) * static_cast<double>(s.sh));
        const int64_t ow = static_cast<int64_t>(static_cast<double>(s.w) * static_cast<double>(s.sw));
        SCOPED_TRACE(std::string(FormatName(format)) + " " + DtypeName(dtype) + " " + std::to_string(s.h) +
                     "x" + std::to_string(s.w) + " -> " + std::to_string(oh) + "x" + std::to_string(ow));
        DeviceTensor self({s.n, s.c, 1, s.h, s.w}, dtype, format, MemLayout::kContiguous, Guard::kNone, 4);
        DeviceTensor out({s.n, s.c, 1, oh, ow}, dtype, format, MemLayout::kContiguous, Guard::kBands, 4);
        std::vector<double> values = RandomValues(rng, s.n * s.c * s.h * s.w, Distribution::kUnitNormal);
        SprinkleNonFinite(rng, values);
        const std::vector<double> stored = self.Upload(values);
        out.PoisonView();
        FloatArray scales({1.0f, 1.0f, s.sh, s.sw});
        uint64_t ws = 0;
        aclOpExecutor *e = nullptr;
        ASSERT_TRUE(
            RunPlanned(aclnnResizeGetWorkspaceSize(self.get(), scales.array, "nearest", out.get(), &ws, &e),
                       &ws, &e, aclnnResize));
        NearestProblem p;
        p.in = {s.n, s.c, 1, s.h, s.w};
        p.out = {1, oh, ow};
        p.scales = {0.0, static_cast<double>(s.sh), static_cast<double>(s.sw)};
        const std::vector<double> expected = NearestForwardReference(p, stored);
        const std::vector<double> got = out.Download();
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_TRUE(SameValue(got[i], expected[i]))
              << "element " << i << ": " << got[i] << " vs " << expected[i];
        }
        EXPECT_TRUE(out.CanaryIntact());
      }
    }
  }
}

TEST(Resize, BilinearIsUpsampleBilinear2dWithTheScales) {
  TracedRng rng;
  for (const Shape &s : kShapes) {
    for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
      const int64_t oh = static_cast<int64_t>(static_cast<double>(s.h) * static_cast<double>(s.sh));
      const int64_t ow = static_cast<int64_t>(static_cast<double>(s.w) * static_cast<double>(s.sw));
      SCOPED_TRACE(std::string(FormatName(format)) + " " + std::to_string(s.h) + "x" + std::to_string(s.w));
      DeviceTensor self({s.n, s.c, 1, s.h, s.w}, ACL_FLOAT, format, MemLayout::kContiguous, Guard::kNone, 4);
      DeviceTensor out({s.n, s.c, 1, oh, ow}, ACL_FLOAT, format, MemLayout::kContiguous, Guard::kNone, 4);
      DeviceTensor twin({s.n, s.c, 1, oh, ow}, ACL_FLOAT, format, MemLayout::kContiguous, Guard::kNone, 4);
      self.UploadRandom(rng);
      FloatArray scales({1.0f, 1.0f, s.sh, s.sw});
      uint64_t ws = 0;
      aclOpExecutor *e = nullptr;
      ASSERT_TRUE(
          RunPlanned(aclnnResizeGetWorkspaceSize(self.get(), scales.array, "bilinear", out.get(), &ws, &e),
                     &ws, &e, aclnnResize));
      IntArray size({oh, ow});
      ASSERT_TRUE(RunPlanned(aclnnUpsampleBilinear2dGetWorkspaceSize(self.get(), size.get(), false, s.sh,
                                                                     s.sw, twin.get(), &ws, &e),
                             &ws, &e, aclnnUpsampleBilinear2d));
      EXPECT_EQ(out.Download(), twin.Download());
    }
  }
}

TEST(ResizeValidation, InCannOrder) {
  DeviceBuffer a(4096), b(4096);
  RawTensor self({1, 2, 3, 4}, ACL_FLOAT, ACL_FORMAT_NCHW, a.data());
  RawTensor out({1, 2, 6, 8}, ACL_FLOAT, ACL_FORMAT_NCHW, b.data());
  FloatArray scales({1.0f, 1.0f, 2.0f, 2.0f});
  uint64_t ws = 0;
  aclOpExecutor *e = nullptr;
  EXPECT_TRUE(
      RejectedNaming(aclnnResizeGetWorkspaceSize(nullptr, scales.array, "nearest", out.get(), &ws, &e),
                     ACLNN_ERR_PARAM_NULLPTR, {"self"}));
  EXPECT_TRUE(RejectedNaming(aclnnResizeGetWorkspaceSize(self.get(), nullptr, "nearest", out.get(), &ws, &e),
                             ACLNN_ERR_PARAM_NULLPTR, {"scales"}));
  EXPECT_TRUE(
      RejectedNaming(aclnnResizeGetWorkspaceSize(self.get(), scales.array, nullptr, out.get(), &ws, &e),
                     ACLNN_ERR_PARAM_NULLPTR, {"mode"}));
  EXPECT_TRUE(
      RejectedNaming(aclnnResizeGetWorkspaceSize(self.get(), scales.array, "nearest", nullptr, &ws, &e),
                     ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  EXPECT_TRUE(
      RejectedNamingValues(aclnnResizeGetWorkspaceSize(self.get(), scales.array, "cubic", out.get(), &ws, &e),
                           ACLNN_ERR_PARAM_INVALID, {"mode"}, {"cubic"}));
  {
    RawTensor int32({1, 2, 3, 4}, ACL_INT32, ACL_FORMAT_NCHW, a.data());
    EXPECT_TRUE(
        RejectedNaming(aclnnResizeGetWorkspaceSize(int32.get(), scales.array, "cubic", out.get(), &ws, &e),
                       ACLNN_ERR_PARAM_INVALID, {"mode"}))
        << "the mode is checked before the dtype";
    EXPECT_TRUE(
        RejectedNaming(aclnnResizeGetWorkspaceSize(int32.get(), scales.array, "nearest", out.get(), &ws, &e),
                       ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
  {
    RawTensor nhwc({1, 6, 8, 2}, ACL_FLOAT, ACL_FORMAT_NHWC, b.data());
    EXPECT_TRUE(
        RejectedNaming(aclnnResizeGetWorkspaceSize(self.get(), scales.array, "nearest", nhwc.get(), &ws, &e),
                       ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
  {
    FloatArray channels({1.0f, 2.0f, 2.0f, 2.0f});
    EXPECT_TRUE(
        RejectedNaming(aclnnResizeGetWorkspaceSize(self.get(), channels.array, "nearest", out.get(), &ws, &e),
                       ACLNN_ERR_PARAM_INVALID, {"scales"}));
    FloatArray three({1.0f, 2.0f, 2.0f});
    EXPECT_TRUE(
        RejectedNaming(aclnnResizeGetWorkspaceSize(self.get(), three.array, "nearest", out.get(), &ws, &e),
                       ACLNN_ERR_PARAM_INVALID, {"scales"}));
  }
  {
    FloatArray other({1.0f, 1.0f, 3.0f, 2.0f});
    EXPECT_TRUE(
        RejectedNaming(aclnnResizeGetWorkspaceSize(self.get(), other.array, "nearest", out.get(), &ws, &e),
                       ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
  for (uint8_t byte : b.Bytes()) ASSERT_EQ(byte, DeviceBuffer::kCanary) << "a rejected call wrote to out";
}

}  // namespace
}  // namespace trilinear3d::test
