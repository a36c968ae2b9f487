// Validation of the cubic group's six entry points (aclnnUpsampleBicubic2d, aclnnUpsampleBilinear2dAA,
// aclnnUpsampleBicubic2dAA and their backwards): the rows every operator has (null arguments, dtypes, ranks,
// array sizes, formats, shapes) on each of them, then each operator's own rows (its formats, scales rules,
// shrink and growth limits, empty tensors). Every rejection must carry CANN's code and a message naming the
// parameter, and leave the written buffer as it was; an accepted call with an empty tensor plans nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "cubic_ops.h"
#include "device_buffer.h"
#include "validation_helpers.h"

namespace trilinear3d::test {
namespace {

struct Entry {
  FilterKind kind;
  bool backward;
};

std::string EntryName(const Entry &e) {
  return std::string(CubicOpName(e.kind)) + (e.backward ? "Backward" : "Forward");
}

void PrintTo(const Entry &e, std::ostream *os) { *os << EntryName(e); }

// One call's arguments, the valid baseline by default: forward self (1,2,3,4) -> out (1,2,5,6), outputSize
// (5,6); backward gradOut (1,2,5,6) -> gradInput (1,2,3,4), inputSize (1,2,3,4); fp32, NCHW.
struct Args {
  std::vector<int64_t> readDims, writtenDims, outputSize = {5, 6}, inputSize = {1, 2, 3, 4};
  aclDataType readType = ACL_FLOAT, writtenType = ACL_FLOAT;
  aclFormat readFormat = ACL_FORMAT_NCHW, writtenFormat = ACL_FORMAT_NCHW;
  double scalesH = 0.0, scalesW = 0.0;
  bool nullRead = false, nullWritten = false, nullOutputSize = false, nullInputSize = false,
       nullWorkspace = false, nullExecutor = false;
};

class CubicValidation : public ::testing::TestWithParam<Entry> {
 protected:
  Args Baseline() const {
    Args a;
    a.readDims = GetParam().backward ? std::vector<int64_t>{1, 2, 5, 6} : std::vector<int64_t>{1, 2, 3, 4};
    a.writtenDims = GetParam().backward ? std::vector<int64_t>{1, 2, 3, 4} : std::vector<int64_t>{1, 2, 5, 6};
    return a;
  }
  const char *ReadName() const {
    const Entry &e = GetParam();
    if (!e.backward)
      return e.kind == FilterKind::kBicubic            ? "self"
             : e.kind == FilterKind::kBicubicAntialias ? "x"
                                                       : "input";
    return e.kind == FilterKind::kBicubic ? "gradOut" : "gradOutput";
  }
  const char *WrittenName() const {
    return GetParam().backward && GetParam().kind == FilterKind::kBicubic ? "gradInput" : "out";
  }

  // GetWorkspaceSize with a; an accepted call is run (which releases its executor), *workspaceSize its size.
  aclnnStatus Call(const Args &a, uint64_t *workspaceSize = nullptr) {
    const Entry &e = GetParam();
    const CubicOp &op = CubicOpOf(e.kind);
    RawTensor read(a.readDims, a.readType, a.readFormat, readBuf_.data());
    RawTensor written(a.writtenDims, a.writtenType, a.writtenFormat, writtenBuf_.data());
    IntArray outputSize(a.outputSize), inputSize(a.inputSize);
    uint64_t ws = 0;
    aclOpExecutor *executor = nullptr;
    const aclTensor *r = a.nullRead ? nullptr : read.get();
    aclTensor *w = a.nullWritten ? nullptr : written.get();
    const aclIntArray *o = a.nullOutputSize ? nullptr : outputSize.get();
    const aclIntArray *i = a.nullInputSize ? nullptr : inputSize.get();
    uint64_t *wsp = a.nullWorkspace ? nullptr : &ws;
    aclOpExecutor **ex = a.nullExecutor ? nullptr : &executor;
    const aclnnStatus s = e.backward ? op.backwardPrepare(r, o, i, false, a.scalesH, a.scalesW, w, wsp, ex)
                                     : op.forwardPrepare(r, o, false, a.scalesH, a.scalesW, w, wsp, ex);
    if (s == ACLNN_SUCCESS) {
      EXPECT_NE(executor, nullptr);
      if (workspaceSize != nullptr) *workspaceSize = ws;
      void *workspace = nullptr;
      if (ws > 0) {
        EXPECT_EQ(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
      }
      EXPECT_EQ((e.backward ? op.backward : op.forward)(workspace, ws, executor, nullptr), ACLNN_SUCCESS);
      EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
      if (workspace != nullptr) aclrtFree(workspace);
    } else {
      EXPECT_EQ(executor, nullptr) << "a rejected call published an executor";
    }
    return s;
  }

  // Rejected with code naming one of names, the written buffer untouched.
  void ExpectRejected(const Args &a, aclnnStatus code, std::initializer_list<const char *> names) {
    const std::vector<uint8_t> before = writtenBuf_.Bytes();
    EXPECT_TRUE(Rejected(Call(a), code, names));
    EXPECT_EQ(writtenBuf_.Bytes(), before) << "a rejected call wrote its output";
  }

  // Large enough for the biggest tensor a test here describes (ShrinkAndGrowthLimits' self, 1x2x3x204).
  DeviceBuffer readBuf_{16384}, writtenBuf_{16384};
};

TEST_P(CubicValidation, BaselineRuns) {
  (void)aclGetRecentErrMsg();
  EXPECT_EQ(Call(Baseline()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST_P(CubicValidation, NullArguments) {
  const auto each = [&](bool Args::*field, std::initializer_list<const char *> names) {
    Args a = Baseline();
    a.*field = true;
    ExpectRejected(a, ACLNN_ERR_PARAM_NULLPTR, names);
  };
  each(&Args::nullRead, {ReadName()});
  each(&Args::nullWritten, {WrittenName()});
  each(&Args::nullOutputSize, {"outputSize"});
  each(&Args::nullWorkspace, {"workspaceSize"});
  each(&Args::nullExecutor, {"executor"});
  if (GetParam().backward) each(&Args::nullInputSize, {"inputSize"});
}

TEST_P(CubicValidation, DataTypes) {
  Args a = Baseline();
  a.readType = ACL_INT32;
  a.writtenType = ACL_INT32;
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {ReadName()});
  a = Baseline();
  a.writtenType = ACL_FLOAT16;
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {WrittenName()});
}

TEST_P(CubicValidation, RanksAndArraySizes) {
  Args a = Baseline();
  a.readDims = {2, a.readDims[2], a.readDims[3]};
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {ReadName()});
  a = Baseline();
  a.outputSize = {5, 6, 7};
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"outputSize", "output_size"});
  if (GetParam().backward) {
    a = Baseline();
    a.inputSize = {1, 2, 3};
    ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"inputSize", "input_size"});
  }
}

TEST_P(CubicValidation, ShapesAgainstSizes) {
  Args a = Baseline();
  a.writtenDims[3] += 1;
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {WrittenName()});
  a = Baseline();
  a.outputSize = {0, 6};
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"H", "output"});
  a = Baseline();
  a.writtenDims[1] = 3;  // C
  if (GetParam().backward) a.inputSize[1] = 3;
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {WrittenName(), ReadName()});
}

TEST_P(CubicValidation, Formats) {
  Args a = Baseline();
  a.writtenFormat = ACL_FORMAT_NHWC;
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"format"});
  a = Baseline();
  a.readFormat = a.writtenFormat = ACL_FORMAT_NCDHW;
  ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"format"});
  // NHWC: the bicubic operators take it (channels last, inputSize as N, H, W, C), the antialiased ones do
  // not.
  a = Baseline();
  a.readFormat = a.writtenFormat = ACL_FORMAT_NHWC;
  auto nhwc = [](const std::vector<int64_t> &d) { return std::vector<int64_t>{d[0], d[2], d[3], d[1]}; };
  a.readDims = nhwc(a.readDims);
  a.writtenDims = nhwc(a.writtenDims);
  a.inputSize = nhwc(a.inputSize);
  if (GetParam().kind == FilterKind::kBicubic) {
    EXPECT_EQ(Call(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  } else {
    ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"format"});
  }
}

TEST_P(CubicValidation, ScalesRules) {
  const Entry &e = GetParam();
  Args a = Baseline();
  a.scalesH = -1.0;
  if (e.kind == FilterKind::kBicubic) {
    EXPECT_EQ(Call(a), ACLNN_SUCCESS) << "a negative scale is not used: " << aclGetRecentErrMsg();
  } else if (e.kind == FilterKind::kBicubicAntialias && !e.backward) {
    EXPECT_EQ(Call(a), ACLNN_SUCCESS)
        << "CANN's Bicubic2dAA checks no scale's sign: " << aclGetRecentErrMsg();
  } else {
    ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"scalesH"});
  }
  if (e.kind == FilterKind::kBicubic && !e.backward) {  // a scale > 0 must give its output size
    a = Baseline();
    a.scalesW = 3.0;  // floor(4 * 3) = 12, not 6
    ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"scalesW"});
    a.scalesW = 6.2 / 4;
    EXPECT_EQ(Call(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    a.scalesW = 1e300;  // floor(4 * 1e300) is beyond int64: refused, not an undefined cast
    ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"scalesW"});
  }
}

TEST_P(CubicValidation, ShrinkAndGrowthLimits) {
  const Entry &e = GetParam();
  const bool limited = e.kind != FilterKind::kBicubic;  // the bicubic operators have no such limit
  Args a = Baseline();
  if (!e.backward) {
    a.readDims = {1, 2, 3, 204};  // W: 204 / 4 = 51
    a.outputSize = {5, 4};
    a.writtenDims = {1, 2, 5, 4};
    if (limited) {
      ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"shrink"});
    } else {
      EXPECT_EQ(Call(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    }
    a.readDims = {1, 2, 3, 200};  // 50: accepted
    EXPECT_EQ(Call(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  } else {
    a.inputSize = {1, 2, 3, 2};  // W: 2 / 101 < 1/50
    a.writtenDims = {1, 2, 3, 2};
    a.outputSize = {5, 101};
    a.readDims = {1, 2, 5, 101};
    if (limited) {
      ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"growth"});
    } else {
      EXPECT_EQ(Call(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    }
    a.outputSize = {5, 100};
    a.readDims = {1, 2, 5, 100};
    EXPECT_EQ(Call(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

// Empty tensors: the bicubic operators and Bicubic2dAA take an empty batch (nothing to do, workspace 0); the
// others refuse any size 0.
TEST_P(CubicValidation, EmptyBatch) {
  const Entry &e = GetParam();
  Args a = Baseline();
  a.readDims[0] = a.writtenDims[0] = a.inputSize[0] = 0;
  const bool accepted =
      e.kind == FilterKind::kBicubic || (e.kind == FilterKind::kBicubicAntialias && !e.backward);
  if (accepted) {
    uint64_t ws = 1;
    const std::vector<uint8_t> before = writtenBuf_.Bytes();
    EXPECT_EQ(Call(a, &ws), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(ws, 0u);
    EXPECT_EQ(writtenBuf_.Bytes(), before);
  } else {
    ExpectRejected(a, ACLNN_ERR_PARAM_INVALID, {"N", "sizes"});
  }
}

std::vector<Entry> Entries() {
  std::vector<Entry> entries;
  for (FilterKind kind : CubicOpsUnderTest()) {
    for (bool backward : {false, true}) entries.push_back({kind, backward});
  }
  return entries;
}

INSTANTIATE_TEST_SUITE_P(Entries, CubicValidation, ::testing::ValuesIn(Entries()),
                         [](const ::testing::TestParamInfo<Entry> &info) { return EntryName(info.param); });

}  // namespace
}  // namespace trilinear3d::test
