// GetWorkspaceSize validation, one test per row of docs/spec.md §4, in CANN's order. Every
// rejection must carry the right code and a message naming the offending parameter.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "acl_test_environment.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "allocation_probe.h"
#include "op_runner.h"
#include "validation_helpers.h"

namespace trilinear3d::test {
namespace {

// gradInput (In()) <- gradOut (Out()); inputSize is gradInput's shape.
class Validation : public ValidationBaseline {
 protected:
  aclnnStatus Call(const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize,
                   aclTensor *gradInput, std::array<double, 3> scales = {0.0, 0.0, 0.0},
                   bool alignCorners = false) {
    return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, alignCorners,
                                                            scales[0], scales[1], scales[2], gradInput,
                                                            &workspaceSize_, &executor_);
  }

  // GetWorkspaceSize on the valid gradOut and gradInput with these size arrays.
  aclnnStatus CallWithSizes(const IntArray &outputSize, const IntArray &inputSize) {
    RawTensor gradOut = Out();
    RawTensor gradInput = In();
    return Call(gradOut.get(), outputSize.get(), inputSize.get(), gradInput.get());
  }

  // Runs an executor a successful call returned (a run is what frees it).
  void RunExecutor() { ASSERT_TRUE(RunPlannedExecutor(true, &executor_, workspaceSize_)); }

  IntArray inputSize_{1, 2, 2, 3, 4};
};

TEST_F(Validation, BaselineIsAccepted) {
  RawTensor gradOut = Out();
  RawTensor gradInput = In();
  ASSERT_EQ(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  RunExecutor();
}

// Row 1: null arguments -> 161001.
TEST_F(Validation, NullGradOut) {
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(nullptr, outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_NULLPTR, {"gradOut"}));
}

TEST_F(Validation, NullOutputSize) {
  RawTensor gradOut = Out();
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), nullptr, inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_NULLPTR, {"outputSize"}));
}

TEST_F(Validation, NullInputSize) {
  RawTensor gradOut = Out();
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), nullptr, gradInput.get()),
                       ACLNN_ERR_PARAM_NULLPTR, {"inputSize"}));
}

TEST_F(Validation, NullGradInput) {
  RawTensor gradOut = Out();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), nullptr),
                       ACLNN_ERR_PARAM_NULLPTR, {"gradInput"}));
}

TEST_F(Validation, NullWorkspaceSize) {
  RawTensor gradOut = Out();
  RawTensor gradInput = In();
  const aclnnStatus status = aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
      gradOut.get(), outputSize_.get(), inputSize_.get(), false, 0.0, 0.0, 0.0, gradInput.get(), nullptr,
      &executor_);
  EXPECT_TRUE(Rejected(status, ACLNN_ERR_PARAM_NULLPTR, {"workspaceSize"}));
}

TEST_F(Validation, NullExecutor) {
  RawTensor gradOut = Out();
  RawTensor gradInput = In();
  const aclnnStatus status = aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
      gradOut.get(), outputSize_.get(), inputSize_.get(), false, 0.0, 0.0, 0.0, gradInput.get(),
      &workspaceSize_, nullptr);
  EXPECT_TRUE(Rejected(status, ACLNN_ERR_PARAM_NULLPTR, {"executor"}));
}

// Row 2: dtypes.
TEST_F(Validation, UnsupportedDtype) {
  RawTensor gradOut = Out(ACL_INT32);
  RawTensor gradInput = In(ACL_INT32);
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, MismatchedDtypes) {
  RawTensor gradOut = Out(ACL_FLOAT);
  RawTensor gradInput = In(ACL_FLOAT16);
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradInput"}));
}

// Row 3: ranks, array sizes, formats.
TEST_F(Validation, GradOutFourDims) {
  RawTensor gradOut({2, 3, 4, 5}, ACL_FLOAT, ACL_FORMAT_ND, outBuf_.data());
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, GradOutSixDims) {
  RawTensor gradOut({1, 1, 2, 3, 4, 5}, ACL_FLOAT, ACL_FORMAT_ND, outBuf_.data());
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, OutputSizeOfTwo) {
  EXPECT_TRUE(Rejected(CallWithSizes(IntArray{4, 5}, inputSize_), ACLNN_ERR_PARAM_INVALID, {"outputSize"}));
}

TEST_F(Validation, OutputSizeOfFour) {
  EXPECT_TRUE(
      Rejected(CallWithSizes(IntArray{3, 4, 5, 1}, inputSize_), ACLNN_ERR_PARAM_INVALID, {"outputSize"}));
}

TEST_F(Validation, InputSizeOfFour) {
  EXPECT_TRUE(
      Rejected(CallWithSizes(outputSize_, IntArray{2, 2, 3, 4}), ACLNN_ERR_PARAM_INVALID, {"inputSize"}));
}

TEST_F(Validation, InputSizeOfSix) {
  EXPECT_TRUE(Rejected(CallWithSizes(outputSize_, IntArray{1, 1, 2, 2, 3, 4}), ACLNN_ERR_PARAM_INVALID,
                       {"inputSize"}));
}

TEST_F(Validation, GradOutFormatNchw) {
  RawTensor gradOut = Out(ACL_FLOAT, ACL_FORMAT_NCHW);
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, GradOutFormatNc1hwc0) {
  RawTensor gradOut = Out(ACL_FLOAT, ACL_FORMAT_NC1HWC0);
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, GradInputFormatNchw) {
  RawTensor gradOut = Out();
  RawTensor gradInput = In(ACL_FLOAT, ACL_FORMAT_NCHW);
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradInput"}));
}

// Row 4: sizes and shapes.
TEST_F(Validation, OutputSizeZero) {
  RawTensor gradOut({1, 2, 0, 4, 5}, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data());
  RawTensor gradInput = In();
  IntArray outputSize{0, 4, 5};
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"outputSize"}));
}

TEST_F(Validation, OutputSizeNegative) {
  EXPECT_TRUE(
      Rejected(CallWithSizes(IntArray{3, -4, 5}, inputSize_), ACLNN_ERR_PARAM_INVALID, {"outputSize"}));
}

TEST_F(Validation, InputSizeSpatialNotPositive) {
  RawTensor gradOut = Out();
  ForEachInDimsWithSpatialNotPositive([&](const std::vector<int64_t> &dims) {
    RawTensor gradInput(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {}, 0, {48});
    IntArray inputSize(dims);
    EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize.get(), gradInput.get()),
                         ACLNN_ERR_PARAM_INVALID, {"inputSize"}));
  });
}

TEST_F(Validation, GradOutShapeNotOutputSize) {
  RawTensor gradOut({1, 2, 3, 4, 6}, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data());
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, GradOutChannelsNotInputSize) {
  RawTensor gradOut({1, 3, 3, 4, 5}, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data());
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, GradOutNdhwcShapeReadInNcdhwOrder) {
  // (N, C, D, H, W) dims under NDHWC mean C = 5 and W = 2: not (N, C, outputSize).
  RawTensor gradOut(kOutDims, ACL_FLOAT, ACL_FORMAT_NDHWC, outBuf_.data());
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

TEST_F(Validation, GradInputShapeNotInputSize) {
  RawTensor gradOut = Out();
  RawTensor gradInput({1, 2, 2, 3, 5}, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data());
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradInput"}));
}

TEST_F(Validation, GradInputNdhwcShapeReadInNcdhwOrder) {
  RawTensor gradOut = Out();
  RawTensor gradInput(kInDims, ACL_FLOAT, ACL_FORMAT_NDHWC, inBuf_.data());
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradInput"}));
}

// Row 5: limits.
TEST_F(Validation, GradOutDimAboveLimit) {
  DeviceBuffer big(4 * static_cast<size_t>(kDimLimit + 1));
  RawTensor gradOut({1, 1, 1, 1, kDimLimit + 1}, ACL_FLOAT, ACL_FORMAT_NCDHW, big.data());
  RawTensor gradInput({1, 1, 1, 1, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data());
  IntArray outputSize{1, 1, kDimLimit + 1};
  IntArray inputSize{1, 1, 1, 1, 2};
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize.get(), inputSize.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut", "outputSize"}));
}

TEST_F(Validation, GradInputDimAboveLimit) {
  DeviceBuffer big(4 * static_cast<size_t>(kDimLimit + 1));
  RawTensor gradOut({1, 1, 1, 1, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data());
  RawTensor gradInput({1, 1, 1, kDimLimit + 1, 1}, ACL_FLOAT, ACL_FORMAT_NCDHW, big.data());
  IntArray outputSize{1, 1, 2};
  IntArray inputSize{1, 1, 1, kDimLimit + 1, 1};
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize.get(), inputSize.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradInput", "inputSize"}));
}

TEST_F(Validation, DimAtLimitIsAccepted) {
  BackwardProblem problem{{1, 1, 1, 1, 3}, {1, 1, kDimLimit}};
  DeviceTensor gradOut(problem.GradOutShape(), ACL_FLOAT, ACL_FORMAT_NCDHW);
  DeviceTensor gradInput(problem.inputSize, ACL_FLOAT, ACL_FORMAT_NCDHW);
  TracedRng rng;
  const std::vector<double> values = gradOut.Upload(RandomValues(rng, kDimLimit, Distribution::kUnitNormal));
  ASSERT_TRUE(RunBackward(gradOut, problem, gradInput));
  EXPECT_TRUE(ResultMatchesReference(values, problem, ACL_FLOAT, gradInput.Download()));
}

TEST_F(Validation, SizeProductOverflowsInt64) {
  // Every dim within 2^20, but N*C*D*H*W = 2^64: must be rejected without being allocated.
  const std::vector<int64_t> dims{kDimLimit, kDimLimit, 256, 256, 256};
  const std::vector<int64_t> strides{int64_t{1} << 44, int64_t{1} << 24, 1 << 16, 1 << 8, 1};
  RawTensor gradOut(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), strides, 0, dims);
  RawTensor gradInput(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), strides, 0, dims);
  IntArray outputSize{256, 256, 256};
  IntArray inputSize(dims);
  ResetLargestAllocation();
  const aclnnStatus status = Call(gradOut.get(), outputSize.get(), inputSize.get(), gradInput.get());
  const size_t largest = LargestAllocation();
  EXPECT_TRUE(Rejected(status, ACLNN_ERR_PARAM_INVALID, {"gradOut", "gradInput", "inputSize", "outputSize"}));
  EXPECT_LT(largest, size_t{1} << 24) << "a large allocation happened before the overflow was rejected";
}

TEST_F(Validation, ScalesInconsistentWithSizes) {
  RawTensor gradOut = Out();
  RawTensor gradInput = In();
  // Consistent would be e.g. (1.5, 1.4, 1.3): floor(2*1.5)=3, floor(3*1.4)=4, floor(4*1.3)=5.
  for (bool alignCorners : {false, true}) {
    SCOPED_TRACE(alignCorners ? "alignCorners" : "no alignCorners");
    EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get(),
                              {1.5, 1.4, 1.6}, alignCorners),
                         ACLNN_ERR_PARAM_INVALID, {"scales"}));
  }
}

TEST_F(Validation, ScalesWithOneNotPositiveAreIgnored) {
  // Inconsistent as a triple, but one is <= 0: the sizes decide and the result follows them.
  for (std::array<double, 3> scales :
       {std::array<double, 3>{1.5, 0.0, 9.0}, std::array<double, 3>{-1.0, 7.0, 1.3}}) {
    SCOPED_TRACE("scales " + std::to_string(scales[0]) + "," + std::to_string(scales[1]) + "," +
                 std::to_string(scales[2]));
    BackwardProblem problem{{1, 2, 2, 3, 4}, {3, 4, 5}};
    problem.scales = scales;
    DeviceTensor gradOut(problem.GradOutShape(), ACL_FLOAT, ACL_FORMAT_NCDHW);
    DeviceTensor gradInput(problem.inputSize, ACL_FLOAT, ACL_FORMAT_NCDHW);
    const uint64_t seed = FreshSeed();
    SCOPED_TRACE(SeedTrace(seed));
    std::mt19937_64 rng(seed);
    const std::vector<double> values = gradOut.Upload(RandomValues(rng, 120, Distribution::kUnitNormal));
    ASSERT_TRUE(RunBackward(gradOut, problem, gradInput));
    EXPECT_TRUE(ResultMatchesReference(values, problem, ACL_FLOAT, gradInput.Download()));
  }
}

// Empty tensors: success, workspace 0, nothing written (the storage keeps its canary).
TEST_F(Validation, EmptyBatchOrChannelsIsANoOp) {
  for (int emptyAxis : {0, 1}) {
    SCOPED_TRACE(emptyAxis == 0 ? "N = 0" : "C = 0");
    std::vector<int64_t> outDims = kOutDims, inDims = kInDims;
    outDims[static_cast<size_t>(emptyAxis)] = 0;
    inDims[static_cast<size_t>(emptyAxis)] = 0;
    RawTensor gradOut(outDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {}, 0, {120});
    RawTensor gradInput(inDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {}, 0, {48});
    IntArray inputSize(inDims);
    const std::vector<uint8_t> before = inBuf_.Bytes();
    workspaceSize_ = 12345;
    ASSERT_EQ(Call(gradOut.get(), outputSize_.get(), inputSize.get(), gradInput.get()), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(workspaceSize_, 0u);
    RunExecutor();
    EXPECT_EQ(inBuf_.Bytes(), before) << "an empty gradInput's storage was written";
  }
}

TEST_F(Validation, NegativeBatch) {
  RawTensor gradOut({-1, 2, 3, 4, 5}, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {120, 60, 20, 5, 1}, 0,
                    {120});
  RawTensor gradInput({-1, 2, 2, 3, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {48, 24, 12, 4, 1}, 0,
                      {48});
  IntArray inputSize{-1, 2, 2, 3, 4};
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut", "gradInput", "inputSize"}));
}

TEST_F(Validation, ViewExtentBeyondStorage) {
  RawTensor gradInput = In();
  {
    SCOPED_TRACE("storage one element short");
    RawTensor gradOut(kOutDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {}, 0, {119});
    EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                         ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
  }
  {
    SCOPED_TRACE("offset pushes the view past the end");
    RawTensor gradOut(kOutDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {}, 1, {120});
    EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                         ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
  }
  {
    SCOPED_TRACE("gradInput storage too small");
    RawTensor gradOut = Out();
    RawTensor shortInput(kInDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {}, 0, {2, 23});
    EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), shortInput.get()),
                         ACLNN_ERR_PARAM_INVALID, {"gradInput"}));
  }
}

TEST_F(Validation, NegativeStride) {
  // W walks backwards from offset 4: every element lies inside the storage, the stride is still invalid.
  RawTensor gradOut(kOutDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {120, 60, 20, 5, -1}, 4, {120});
  RawTensor gradInput = In();
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), gradInput.get()),
                       ACLNN_ERR_PARAM_INVALID, {"gradOut"}));
}

// Order: a null argument (row 1) is reported before an unsupported dtype (row 2).
TEST_F(Validation, NullIsReportedBeforeDtype) {
  RawTensor gradOut = Out(ACL_INT32);
  EXPECT_TRUE(Rejected(Call(gradOut.get(), outputSize_.get(), inputSize_.get(), nullptr),
                       ACLNN_ERR_PARAM_NULLPTR, {"gradInput"}));
}

}  // namespace
}  // namespace trilinear3d::test
