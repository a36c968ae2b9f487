// Validation of the forward op (docs/spec.md §4: "the forward operator validates the same way"),
// one test per row, in CANN's order: null arguments, dtypes, rank / outputSize size / format,
// sizes and out's shape, limits / overflow / the scales rule, empty tensors, views; then the run
// phase. Every rejection must carry the right code and a message that names the offending
// parameter as a word ("out" must not be satisfied by "outputSize").
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "allocation_probe.h"
#include "op_runner.h"
#include "reference/forward_reference.h"
#include "validation_helpers.h"

namespace trilinear3d::test {
namespace {

// self (In()) -> out (Out()).
class ForwardValidation : public ValidationBaseline {
 protected:
  aclnnStatus Call(const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
                   std::array<double, 3> scales = {0.0, 0.0, 0.0}, bool alignCorners = false) {
    return aclnnUpsampleTrilinear3dGetWorkspaceSize(self, outputSize, alignCorners, scales[0], scales[1],
                                                    scales[2], out, &workspaceSize_, &executor_);
  }

  // Runs an executor a successful call returned (a run is what frees it).
  void RunExecutor() { ASSERT_TRUE(RunPlannedExecutor(false, &executor_, workspaceSize_)); }

  // Each of these NCDHW out shapes, under the valid self and outputSize, is rejected naming out.
  void ExpectOutShapesRejected(std::initializer_list<std::vector<int64_t>> shapes) {
    RawTensor self = In();
    for (const std::vector<int64_t> &dims : shapes) {
      SCOPED_TRACE("out " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
                   std::to_string(dims[2]) + "x" + std::to_string(dims[3]) + "x" + std::to_string(dims[4]));
      RawTensor out(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data());
      EXPECT_TRUE(
          RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
    }
  }

  // The forward of problem in dtype (NCDHW) on fresh N(0, 1) self values from rng: *values gets what
  // self held, *got the result.
  static ::testing::AssertionResult RunOnRandomSelf(const ForwardProblem &problem, aclDataType dtype,
                                                    std::mt19937_64 &rng, std::vector<double> *values,
                                                    std::vector<double> *got) {
    DeviceTensor self(problem.selfSize, dtype, ACL_FORMAT_NCDHW);
    DeviceTensor out(problem.OutShape(), dtype, ACL_FORMAT_NCDHW);
    *values = self.UploadRandom(rng);
    const ::testing::AssertionResult ran = RunForward(self, problem, out);
    if (ran) *got = out.Download();
    return ran;
  }

  // The call is rejected naming a size, and nothing large is allocated before the overflow is seen.
  void ExpectOverflowRejectedUnallocated(const RawTensor &self, const IntArray &outputSize,
                                         const RawTensor &out) {
    ResetLargestAllocation();
    const aclnnStatus status = Call(self.get(), outputSize.get(), out.get());
    const size_t largest = LargestAllocation();
    EXPECT_TRUE(RejectedNaming(status, ACLNN_ERR_PARAM_INVALID, {"self", "out", "outputSize"}));
    EXPECT_LT(largest, size_t{1} << 24) << "a large allocation happened before the overflow was rejected";
  }

  // A rejected call wrote nothing into out's buffer (it still holds the canary).
  ::testing::AssertionResult WrittenUntouched() {
    const std::vector<uint8_t> bytes = outBuf_.Bytes();
    if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0xA5; })) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "a rejected call wrote into out's storage";
  }
};

TEST_F(ForwardValidation, BaselineIsAccepted) {
  RawTensor self = In();
  RawTensor out = Out();
  ASSERT_EQ(Call(self.get(), outputSize_.get(), out.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  RunExecutor();
}

// Row 1: null arguments -> 161001.
TEST_F(ForwardValidation, NullSelf) {
  RawTensor out = Out();
  EXPECT_TRUE(RejectedNaming(Call(nullptr, outputSize_.get(), out.get()), ACLNN_ERR_PARAM_NULLPTR, {"self"}));
}

TEST_F(ForwardValidation, NullOutputSize) {
  RawTensor self = In();
  RawTensor out = Out();
  EXPECT_TRUE(RejectedNaming(Call(self.get(), nullptr, out.get()), ACLNN_ERR_PARAM_NULLPTR, {"outputSize"}));
}

TEST_F(ForwardValidation, NullOut) {
  RawTensor self = In();
  EXPECT_TRUE(RejectedNaming(Call(self.get(), outputSize_.get(), nullptr), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
}

TEST_F(ForwardValidation, NullWorkspaceSize) {
  RawTensor self = In();
  RawTensor out = Out();
  const aclnnStatus status = aclnnUpsampleTrilinear3dGetWorkspaceSize(
      self.get(), outputSize_.get(), false, 0.0, 0.0, 0.0, out.get(), nullptr, &executor_);
  EXPECT_TRUE(RejectedNaming(status, ACLNN_ERR_PARAM_NULLPTR, {"workspaceSize"}));
}

TEST_F(ForwardValidation, NullExecutor) {
  RawTensor self = In();
  RawTensor out = Out();
  const aclnnStatus status = aclnnUpsampleTrilinear3dGetWorkspaceSize(
      self.get(), outputSize_.get(), false, 0.0, 0.0, 0.0, out.get(), &workspaceSize_, nullptr);
  EXPECT_TRUE(RejectedNaming(status, ACLNN_ERR_PARAM_NULLPTR, {"executor"}));
}

// Row 2: dtypes.
TEST_F(ForwardValidation, UnsupportedDtype) {
  for (aclDataType dtype : {ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT64, ACL_BOOL, ACL_COMPLEX64}) {
    SCOPED_TRACE("dtype " + std::to_string(static_cast<int>(dtype)));
    RawTensor self = In(dtype);
    RawTensor out = Out(dtype);
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
}

TEST_F(ForwardValidation, MismatchedDtypes) {
  const std::array<aclDataType, 4> dtypes{ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  for (aclDataType selfType : dtypes) {
    for (aclDataType outType : dtypes) {
      if (selfType == outType) continue;
      SCOPED_TRACE(std::string("self ") + DtypeName(selfType) + ", out " + DtypeName(outType));
      RawTensor self = In(selfType);
      RawTensor out = Out(outType);
      EXPECT_TRUE(
          RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
    }
  }
}

// Row 3: ranks, outputSize's size, formats.
TEST_F(ForwardValidation, SelfNotFiveDims) {
  for (const std::vector<int64_t> &dims :
       {std::vector<int64_t>{2, 2, 3, 4}, std::vector<int64_t>{1, 1, 2, 2, 3, 4}, std::vector<int64_t>{48}}) {
    SCOPED_TRACE(std::to_string(dims.size()) + "-D self");
    RawTensor self(dims, ACL_FLOAT, ACL_FORMAT_ND, inBuf_.data());
    RawTensor out = Out();
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
}

TEST_F(ForwardValidation, OutNotFiveDims) {
  for (const std::vector<int64_t> &dims :
       {std::vector<int64_t>{2, 3, 4, 5}, std::vector<int64_t>{1, 1, 2, 3, 4, 5}}) {
    SCOPED_TRACE(std::to_string(dims.size()) + "-D out");
    RawTensor self = In();
    RawTensor out(dims, ACL_FLOAT, ACL_FORMAT_ND, outBuf_.data());
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
}

TEST_F(ForwardValidation, OutputSizeNotThreeElements) {
  RawTensor self = In();
  RawTensor out = Out();
  for (const std::vector<int64_t> &values :
       {std::vector<int64_t>{4, 5}, std::vector<int64_t>{3, 4, 5, 1}, std::vector<int64_t>{1, 2, 3, 4, 5}}) {
    SCOPED_TRACE("outputSize of " + std::to_string(values.size()));
    IntArray outputSize(values);
    EXPECT_TRUE(RejectedNaming(Call(self.get(), outputSize.get(), out.get()), ACLNN_ERR_PARAM_INVALID,
                               {"outputSize"}));
  }
}

TEST_F(ForwardValidation, SelfFormatNotSupported) {
  for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NC1HWC0}) {
    SCOPED_TRACE("format " + std::to_string(static_cast<int>(format)));
    RawTensor self = In(ACL_FLOAT, format);
    RawTensor out = Out();
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
}

TEST_F(ForwardValidation, OutFormatNotSupported) {
  for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NC1HWC0}) {
    SCOPED_TRACE("format " + std::to_string(static_cast<int>(format)));
    RawTensor self = In();
    RawTensor out = Out(ACL_FLOAT, format);
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
}

// Row 4: sizes and shapes.
TEST_F(ForwardValidation, OutputSizeNotPositive) {
  RawTensor self = In();
  for (int axis = 0; axis < 3; ++axis) {
    for (int64_t bad : {int64_t{0}, int64_t{-3}}) {
      SCOPED_TRACE("outputSize[" + std::to_string(axis) + "] = " + std::to_string(bad));
      std::vector<int64_t> values{3, 4, 5};
      values[static_cast<size_t>(axis)] = bad;
      std::vector<int64_t> outDims{1, 2, values[0], values[1], values[2]};
      RawTensor out(outDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {20, 10, 5, 5, 1}, 0, {120});
      IntArray outputSize(values);
      EXPECT_TRUE(RejectedNaming(Call(self.get(), outputSize.get(), out.get()), ACLNN_ERR_PARAM_INVALID,
                                 {"outputSize"}));
    }
  }
}

TEST_F(ForwardValidation, SelfSpatialNotPositive) {
  RawTensor out = Out();
  ForEachInDimsWithSpatialNotPositive([&](const std::vector<int64_t> &dims) {
    RawTensor self(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {24, 12, 12, 4, 1}, 0, {48});
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  });
}

TEST_F(ForwardValidation, OutSpatialShapeNotOutputSize) {
  ExpectOutShapesRejected({{1, 2, 3, 4, 6}, {1, 2, 3, 5, 4}, {1, 2, 2, 4, 5}});
}

TEST_F(ForwardValidation, OutBatchOrChannelsNotSelf) {
  ExpectOutShapesRejected({{2, 2, 3, 4, 5}, {1, 3, 3, 4, 5}, {1, 1, 3, 4, 5}});
}

TEST_F(ForwardValidation, OutNdhwcShapeReadInNcdhwOrder) {
  // (N, C, D, H, W) dims under NDHWC mean C = 5 and W = 2: not (N, C, outputSize).
  RawTensor self = In();
  RawTensor out(kOutDims, ACL_FLOAT, ACL_FORMAT_NDHWC, outBuf_.data());
  EXPECT_TRUE(
      RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
}

TEST_F(ForwardValidation, SelfNdhwcShapeReadInNcdhwOrder) {
  // self dims (1,2,2,3,4) under NDHWC are N=1, C=4: out (1,2,...) no longer has self's channels.
  RawTensor self(kInDims, ACL_FLOAT, ACL_FORMAT_NDHWC, inBuf_.data());
  RawTensor out = Out();
  EXPECT_TRUE(RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID,
                             {"out", "self"}));
}

TEST_F(ForwardValidation, MatchingNdhwcShapesAreAccepted) {
  // The same problem with both tensors NDHWC: view dims (N, D, H, W, C).
  RawTensor self({1, 2, 3, 4, 2}, ACL_FLOAT, ACL_FORMAT_NDHWC, inBuf_.data());
  RawTensor out({1, 3, 4, 5, 2}, ACL_FLOAT, ACL_FORMAT_NDHWC, outBuf_.data());
  ASSERT_EQ(Call(self.get(), outputSize_.get(), out.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  RunExecutor();
}

// Row 5: limits, overflow, the scales rule.
TEST_F(ForwardValidation, SelfDimAboveLimit) {
  DeviceBuffer big(4 * static_cast<size_t>(kDimLimit + 1));
  RawTensor self({1, 1, 1, 1, kDimLimit + 1}, ACL_FLOAT, ACL_FORMAT_NCDHW, big.data());
  RawTensor out({1, 1, 1, 1, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data());
  IntArray outputSize{1, 1, 2};
  EXPECT_TRUE(
      RejectedNaming(Call(self.get(), outputSize.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  EXPECT_TRUE(WrittenUntouched());
}

TEST_F(ForwardValidation, OutDimAboveLimit) {
  DeviceBuffer big(4 * static_cast<size_t>(kDimLimit + 1));
  RawTensor self({1, 1, 1, 2, 1}, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data());
  RawTensor out({1, 1, 1, kDimLimit + 1, 1}, ACL_FLOAT, ACL_FORMAT_NCDHW, big.data());
  IntArray outputSize{1, kDimLimit + 1, 1};
  EXPECT_TRUE(RejectedNaming(Call(self.get(), outputSize.get(), out.get()), ACLNN_ERR_PARAM_INVALID,
                             {"out", "outputSize"}));
}

TEST_F(ForwardValidation, DimAtLimitIsAccepted) {
  ForwardProblem problem{{1, 1, 1, 1, 3}, {1, 1, kDimLimit}};
  DeviceTensor self(problem.selfSize, ACL_FLOAT, ACL_FORMAT_NCDHW);
  DeviceTensor out(problem.OutShape(), ACL_FLOAT, ACL_FORMAT_NCDHW);
  TracedRng rng;
  const std::vector<double> values = self.Upload(RandomValues(rng, 3, Distribution::kUnitNormal));
  ASSERT_TRUE(RunForward(self, problem, out));
  EXPECT_TRUE(ForwardMatchesReference(values, problem, ACL_FLOAT, out.Download()));
}

TEST_F(ForwardValidation, SizeProductOverflowsInt64) {
  // Every dim within 2^20, but N*C*D*H*W = 2^64: must be rejected without being allocated.
  const std::vector<int64_t> dims{kDimLimit, kDimLimit, 256, 256, 256};
  const std::vector<int64_t> strides{int64_t{1} << 44, int64_t{1} << 24, 1 << 16, 1 << 8, 1};
  IntArray outputSize{256, 256, 256};
  {
    SCOPED_TRACE("self and out");
    RawTensor self(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), strides, 0, dims);
    RawTensor out(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), strides, 0, dims);
    ExpectOverflowRejectedUnallocated(self, outputSize, out);
  }
  {
    // A small self; only out's element count overflows (the forward's output side).
    SCOPED_TRACE("out only");
    const std::vector<int64_t> selfDims{kDimLimit, kDimLimit, 1, 1, 1};
    RawTensor self(selfDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {kDimLimit, 1, 1, 1, 1}, 0,
                   selfDims);
    RawTensor out(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), strides, 0, dims);
    ExpectOverflowRejectedUnallocated(self, outputSize, out);
  }
}

TEST_F(ForwardValidation, ViewExtentOverflowsInt64) {
  // Few elements, but (dim - 1) * stride overflows: rejected, never wrapped into range.
  const std::vector<int64_t> dims{1, 1, 1, 3, 2};
  const std::vector<int64_t> strides{6, 6, 6, int64_t{1} << 62, 1};
  RawTensor self(dims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), strides, 0, {48});
  RawTensor out({1, 1, 2, 3, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data());
  IntArray outputSize{2, 3, 2};
  EXPECT_TRUE(
      RejectedNaming(Call(self.get(), outputSize.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
}

TEST_F(ForwardValidation, ScalesInconsistentWithSizes) {
  RawTensor self = In();
  RawTensor out = Out();
  // Consistent would be e.g. (1.5, 1.4, 1.3): floor(2*1.5)=3, floor(3*1.4)=4, floor(4*1.3)=5.
  const std::array<double, 3> bad[] = {{1.5, 1.4, 1.6}, {1.0, 1.4, 1.3}, {1.5, 1.7, 1.3}, {0.5, 0.5, 0.5}};
  for (const std::array<double, 3> &scales : bad) {
    for (bool alignCorners : {false, true}) {
      SCOPED_TRACE(std::string(alignCorners ? "alignCorners" : "no alignCorners") + ", scales " +
                   std::to_string(scales[0]) + "," + std::to_string(scales[1]) + "," +
                   std::to_string(scales[2]));
      EXPECT_TRUE(RejectedNaming(Call(self.get(), outputSize_.get(), out.get(), scales, alignCorners),
                                 ACLNN_ERR_PARAM_INVALID, {"scales", "scalesD", "scalesH", "scalesW"}));
    }
  }
}

TEST_F(ForwardValidation, ConsistentScalesAreUsed) {
  // All three > 0 and consistent: accepted, and without alignCorners 1/s is the source step.
  for (bool alignCorners : {false, true}) {
    SCOPED_TRACE(alignCorners ? "alignCorners" : "no alignCorners");
    ForwardProblem problem{{1, 2, 2, 3, 4}, {3, 4, 5}, alignCorners};
    problem.scales = {1.5, 1.4, 1.3};
    TracedRng rng;
    std::vector<double> values, got;
    ASSERT_TRUE(RunOnRandomSelf(problem, ACL_DOUBLE, rng, &values, &got));
    EXPECT_TRUE(ForwardMatchesReference(values, problem, ACL_DOUBLE, got));
    if (!alignCorners) {
      // The sizes' in/out step would give a different result: the scales were really used.
      ForwardProblem bySizes = problem;
      bySizes.scales = {0.0, 0.0, 0.0};
      const ReferenceResult sizesRef = ForwardReference(bySizes, values);
      double largestDifference = 0.0;
      for (size_t i = 0; i < got.size(); ++i) {
        largestDifference = std::max(largestDifference, std::abs(got[i] - sizesRef.golden[i]));
      }
      EXPECT_GT(largestDifference, 1e-3) << "the result follows in/out, not 1/scale";
    }
  }
}

TEST_F(ForwardValidation, ScalesWithOneNotPositiveAreIgnored) {
  // Inconsistent as a triple, but one is <= 0: the sizes decide and the result follows them.
  for (std::array<double, 3> scales :
       {std::array<double, 3>{1.5, 0.0, 9.0}, std::array<double, 3>{-1.0, 7.0, 1.3},
        std::array<double, 3>{2.0, 2.0, -0.5}}) {
    SCOPED_TRACE("scales " + std::to_string(scales[0]) + "," + std::to_string(scales[1]) + "," +
                 std::to_string(scales[2]));
    ForwardProblem problem{{1, 2, 2, 3, 4}, {3, 4, 5}};
    problem.scales = scales;
    TracedRng rng;
    std::vector<double> values, got;
    ASSERT_TRUE(RunOnRandomSelf(problem, ACL_FLOAT, rng, &values, &got));
    ForwardProblem bySizes = problem;
    bySizes.scales = {0.0, 0.0, 0.0};
    EXPECT_TRUE(ForwardMatchesReference(values, bySizes, ACL_FLOAT, got));
  }
}

// Empty batch (N = 0): success, workspace 0, nothing written (the storage keeps its canary).
TEST_F(ForwardValidation, EmptyBatchIsANoOp) {
  std::vector<int64_t> selfDims = kInDims, outDims = kOutDims;
  selfDims[0] = 0;
  outDims[0] = 0;
  RawTensor self(selfDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {}, 0, {48});
  RawTensor out(outDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {}, 0, {120});
  workspaceSize_ = 12345;
  ASSERT_EQ(Call(self.get(), outputSize_.get(), out.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(workspaceSize_, 0u);
  RunExecutor();
  EXPECT_TRUE(WrittenUntouched()) << "an empty out's storage was written";
}

// No channels (C = 0): CANN's forward rejects it with 161002 (its UT case_shape_2_0_3_4_5_abnormal;
// its op_api checks outC > 0), whatever N is and in either format; the message names self and C = 0.
TEST_F(ForwardValidation, EmptyChannelsAreRejected) {
  struct Case {
    const char *name;
    std::vector<int64_t> selfDims, outDims;
    aclFormat format;
  };
  const Case cases[] = {
      {"NCDHW (2,0,3,4,5)", {2, 0, 3, 4, 5}, {2, 0, 3, 4, 5}, ACL_FORMAT_NCDHW},
      {"NCDHW (1,0,2,3,4) -> (1,0,3,4,5)", {1, 0, 2, 3, 4}, {1, 0, 3, 4, 5}, ACL_FORMAT_NCDHW},
      {"ND (1,0,2,3,4)", {1, 0, 2, 3, 4}, {1, 0, 3, 4, 5}, ACL_FORMAT_ND},
      {"NDHWC (1,2,3,4,0)", {1, 2, 3, 4, 0}, {1, 3, 4, 5, 0}, ACL_FORMAT_NDHWC},
      {"N and C both 0", {0, 0, 2, 3, 4}, {0, 0, 3, 4, 5}, ACL_FORMAT_NCDHW},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    RawTensor self(c.selfDims, ACL_FLOAT, c.format, inBuf_.data(), {}, 0, {48});
    RawTensor out(c.outDims, ACL_FLOAT, c.format, outBuf_.data(), {}, 0, {120});
    const aclnnStatus status = Call(self.get(), outputSize_.get(), out.get());
    const std::string message = aclGetRecentErrMsg();
    EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID) << message;
    EXPECT_TRUE(ContainsWord(message, "self")) << message;
    EXPECT_NE(message.find("C = 0"), std::string::npos) << message;
    EXPECT_EQ(executor_, nullptr);
  }
  {
    SCOPED_TRACE("self C = 2, out C = 0");
    std::vector<int64_t> outDims = kOutDims;
    outDims[1] = 0;
    RawTensor self = In();
    RawTensor out(outDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {}, 0, {120});
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
  EXPECT_TRUE(WrittenUntouched());
}

TEST_F(ForwardValidation, NegativeBatchOrChannels) {
  for (int axis : {0, 1}) {
    SCOPED_TRACE(axis == 0 ? "N = -1" : "C = -1");
    std::vector<int64_t> selfDims = kInDims, outDims = kOutDims;
    selfDims[static_cast<size_t>(axis)] = -1;
    outDims[static_cast<size_t>(axis)] = -1;
    RawTensor self(selfDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {24, 12, 12, 4, 1}, 0, {48});
    RawTensor out(outDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {60, 60, 20, 5, 1}, 0, {120});
    EXPECT_TRUE(RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID,
                               {"self", "out"}));
  }
}

// Views: extent beyond storage, negative strides.
TEST_F(ForwardValidation, ViewExtentBeyondStorage) {
  {
    SCOPED_TRACE("self storage one element short");
    RawTensor self(kInDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {}, 0, {47});
    RawTensor out = Out();
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
  {
    SCOPED_TRACE("offset pushes self past the end");
    RawTensor self(kInDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {}, 1, {48});
    RawTensor out = Out();
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
  {
    SCOPED_TRACE("out storage too small");
    RawTensor self = In();
    RawTensor out(kOutDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {}, 0, {7, 17});
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
  {
    SCOPED_TRACE("out strides reach past the storage");
    RawTensor self = In();
    RawTensor out(kOutDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {120, 60, 20, 5, 2}, 0, {120});
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
  EXPECT_TRUE(WrittenUntouched());
}

TEST_F(ForwardValidation, NegativeStride) {
  {
    // W walks backwards from offset 3: every element lies inside the storage, the stride is still invalid.
    SCOPED_TRACE("self");
    RawTensor self(kInDims, ACL_FLOAT, ACL_FORMAT_NCDHW, inBuf_.data(), {24, 12, 4, 1, -1}, 3, {48});
    RawTensor out = Out();
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
  {
    SCOPED_TRACE("out");
    RawTensor self = In();
    RawTensor out(kOutDims, ACL_FLOAT, ACL_FORMAT_NCDHW, outBuf_.data(), {60, 20, 5, 1, -1}, 4, {120});
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}));
  }
  EXPECT_TRUE(WrittenUntouched());
}

// Order: a null argument (row 1) before an unsupported dtype (row 2); a dtype mismatch (row 2)
// before a wrong rank (row 3); a wrong rank (row 3) before a bad outputSize value (row 4).
TEST_F(ForwardValidation, RowsAreCheckedInCannOrder) {
  {
    SCOPED_TRACE("null out before self's dtype");
    RawTensor self = In(ACL_INT32);
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize_.get(), nullptr), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  }
  {
    SCOPED_TRACE("out's dtype before self's rank");
    RawTensor self({2, 3, 4, 2}, ACL_FLOAT, ACL_FORMAT_ND, inBuf_.data());
    RawTensor out = Out(ACL_FLOAT16);
    const aclnnStatus status = Call(self.get(), outputSize_.get(), out.get());
    const std::string message = aclGetRecentErrMsg();
    EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ContainsWord(message, "dtype")) << message;
  }
  {
    SCOPED_TRACE("self's rank before outputSize's values");
    RawTensor self({2, 3, 4, 2}, ACL_FLOAT, ACL_FORMAT_ND, inBuf_.data());
    RawTensor out = Out();
    IntArray outputSize{0, 4, 5};
    EXPECT_TRUE(
        RejectedNaming(Call(self.get(), outputSize.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"}));
  }
}

// The executor copies what it needs: tensors and the int array may be destroyed right after
// GetWorkspaceSize (docs/spec.md §3); the memory they point to stays valid until the run.
TEST_F(ForwardValidation, ArgumentsMayBeDestroyedAfterPlanning) {
  ForwardProblem problem{{2, 3, 4, 5, 6}, {7, 3, 9}};
  TracedRng rng;
  DeviceTensor self(problem.selfSize, ACL_FLOAT, ACL_FORMAT_NDHWC);
  DeviceTensor out(problem.OutShape(), ACL_FLOAT, ACL_FORMAT_NCDHW, MemLayout::kSliced);
  const std::vector<double> values = self.UploadRandom(rng);
  PreparedOp op;
  ASSERT_TRUE(PrepareForward(self.get(), problem, out.get(), &op));  // destroys its int array
  self.DestroyAclTensor();
  out.DestroyAclTensor();
  ASSERT_TRUE(Enqueue(&op, nullptr));
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_TRUE(ForwardMatchesReference(values, problem, ACL_FLOAT, out.Download()));
}

// Run phase: a rejected aclnnUpsampleTrilinear3d writes nothing, never crashes on a bad executor,
// and leaves a good executor usable for a corrected retry.
class ForwardRunValidation : public PlannedRunTest<ForwardProblem> {
 protected:
  void SetUp() override { Plan(ForwardProblem{{2, 5, 9, 17, 23}, {13, 31, 40}}); }
};

[[maybe_unused]] const bool kRegistered =
    RegisterPlannedRunTests<ForwardRunValidation>("ForwardRunValidation");

}  // namespace
}  // namespace trilinear3d::test
