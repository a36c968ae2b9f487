// Validation of the linear group's five entry points: aclnnUpsampleBilinear2d, aclnnUpsampleLinear1d,
// aclnnUpsampleBilinear2dBackward (V1), aclnnUpsampleBilinear2dBackwardV2 and aclnnUpsampleLinear1dBackward.
// The rows every operator has (null arguments, dtypes, ranks, array sizes, sizes, shapes, limits, views,
// empty batches) run on each of them (LinearValidation); each operator's own rows (its order, formats,
// scales rule, empty channels, limits) follow, then the run phase. Every rejection must carry the right
// code and a message naming the parameter as a word and showing its values, and leave the written
// tensor's storage and the executor untouched; where two things are wrong, CANN's order decides which one
// is reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"
#include "reference/forward_reference.h"
#include "validation_helpers.h"

namespace trilinear3d::test {
namespace {

// One of the five entry points.
struct Entry {
  bool backward;
  Api api;
};

std::string EntryName(const Entry &e) { return ApiName(e.backward, e.api); }

// gtest would print the parameter's bytes, padding included (valgrind: an uninitialised read).
void PrintTo(const Entry &e, std::ostream *os) { *os << EntryName(e); }

// The valid baseline of each entry point, which each test breaks in one thing: float tensors in the
// operator's channels-first format over canary-filled buffers, read (self / gradOut) and written (out):
//   2-D: self (1,2,3,4) -> out (1,2,5,6), outputSize (5,6); the backwards' gradOut (1,2,5,6), inputSize
//        (1,2,3,4), out (1,2,3,4);
//   1-D: self (1,2,4) -> out (1,2,7), outputSize (7), scale -1; gradOut (1,2,7), inputSize (1,2,4), out
//   (1,2,4).
class LinearValidation : public ::testing::TestWithParam<Entry> {
 protected:
  void SetUp() override {
    (void)aclGetRecentErrMsg();
    const Entry &e = GetParam();
    const bool twoD = ApiRank(e.api) == 4;
    smallDims_ = twoD ? std::vector<int64_t>{1, 2, 3, 4} : std::vector<int64_t>{1, 2, 4};
    largeDims_ = twoD ? std::vector<int64_t>{1, 2, 5, 6} : std::vector<int64_t>{1, 2, 7};
    outputSize_ = twoD ? std::vector<int64_t>{5, 6} : std::vector<int64_t>{7};
    format_ = twoD ? ACL_FORMAT_NCHW : ACL_FORMAT_NCL;
    scales_ = {0.0, 0.0};
    if (!e.backward && e.api == Api::kLinear1d) scales_ = {-1.0, -1.0};
  }

  const Entry &E() const { return GetParam(); }
  const char *ReadName() const { return E().backward ? "gradOut" : "self"; }
  std::vector<int64_t> ReadDims() const { return E().backward ? largeDims_ : smallDims_; }
  std::vector<int64_t> WrittenDims() const { return E().backward ? smallDims_ : largeDims_; }
  RawTensor Read(aclDataType dtype = ACL_FLOAT) const { return Read(ReadDims(), dtype, format_); }
  RawTensor Read(const std::vector<int64_t> &dims, aclDataType dtype, aclFormat format) const {
    return RawTensor(dims, dtype, format, readBuf_.data());
  }
  RawTensor Written(aclDataType dtype = ACL_FLOAT) const { return Written(WrittenDims(), dtype, format_); }
  RawTensor Written(const std::vector<int64_t> &dims, aclDataType dtype, aclFormat format) const {
    return RawTensor(dims, dtype, format, writtenBuf_.data());
  }

  // The entry point's GetWorkspaceSize. scales: (scalesH, scalesW) for 2-D; the 1-D scale is scales[1].
  aclnnStatus Call(const aclTensor *read, const aclIntArray *outputSize, const aclIntArray *inputSize,
                   aclTensor *written, std::array<double, 2> scales, bool alignCorners = false,
                   uint64_t *workspaceSize = nullptr, aclOpExecutor **executor = nullptr, bool nullWs = false,
                   bool nullExecutor = false) {
    uint64_t *ws = nullWs ? nullptr : workspaceSize != nullptr ? workspaceSize : &workspaceSize_;
    aclOpExecutor **ex = nullExecutor ? nullptr : executor != nullptr ? executor : &executor_;
    const Entry &e = E();
    if (!e.backward) {
      return e.api == Api::kLinear1d
                 ? aclnnUpsampleLinear1dGetWorkspaceSize(read, outputSize, alignCorners, scales[1], written,
                                                         ws, ex)
                 : aclnnUpsampleBilinear2dGetWorkspaceSize(read, outputSize, alignCorners, scales[0],
                                                           scales[1], written, ws, ex);
    }
    switch (e.api) {
      case Api::kBilinear2d:
        return aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(read, outputSize, inputSize, alignCorners,
                                                                 scales[0], scales[1], written, ws, ex);
      case Api::kBilinear2dBackwardV1:
        return aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(read, outputSize, inputSize, alignCorners,
                                                               scales[0], scales[1], written, ws, ex);
      default:
        return aclnnUpsampleLinear1dBackwardGetWorkspaceSize(read, outputSize, inputSize, alignCorners,
                                                             scales[1], written, ws, ex);
    }
  }
  // The baseline's arrays with these tensors (and the baseline's scales).
  aclnnStatus Call(const aclTensor *read, aclTensor *written) {
    IntArray outputSize(outputSize_), inputSize(smallDims_);
    return Call(read, outputSize.get(), inputSize.get(), written, scales_);
  }
  aclnnStatus CallArrays(const std::vector<int64_t> &outputSize, const std::vector<int64_t> &inputSize) {
    RawTensor read = Read();
    RawTensor written = Written();
    IntArray o(outputSize), i(inputSize);
    return Call(read.get(), o.get(), i.get(), written.get(), scales_);
  }

  // A rejected call: the code, its parameter named as a word, the values shown, nothing written, no executor.
  void ExpectRejected(aclnnStatus status, aclnnStatus expected, std::initializer_list<const char *> names,
                      const std::vector<std::string> &values = {}) {
    std::vector<std::string> all = values;
    all.push_back(EntryName(E()));  // the message names the entry point
    EXPECT_TRUE(RejectedNamingValues(status, expected, names, all));
    EXPECT_EQ(executor_, nullptr) << "a rejected call published an executor";
    EXPECT_TRUE(WrittenUntouched());
  }

  ::testing::AssertionResult WrittenUntouched() const {
    const std::vector<uint8_t> bytes = writtenBuf_.Bytes();
    if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0xA5; }))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "a rejected call wrote into out's storage";
  }

  // Runs an executor a successful call returned (a run is what frees it), then refills out's buffer with the
  // canary for the rejections that follow.
  void RunExecutor() {
    ASSERT_TRUE(RunPlannedExecutor(E().backward, &executor_, workspaceSize_, E().api));
    ASSERT_EQ(aclrtMemset(writtenBuf_.data(), kBufferBytes, DeviceBuffer::kCanary, kBufferBytes),
              ACL_SUCCESS);
  }

  std::vector<int64_t> smallDims_, largeDims_, outputSize_;
  aclFormat format_ = ACL_FORMAT_NCHW;
  std::array<double, 2> scales_{};
  static constexpr size_t kBufferBytes = 8 * 256;
  DeviceBuffer readBuf_{kBufferBytes};
  DeviceBuffer writtenBuf_{kBufferBytes};
  uint64_t workspaceSize_ = 0;
  aclOpExecutor *executor_ = nullptr;
};

// The rows of the backwards only (inputSize, gradOut's expected shape).
class LinearBackwardValidation : public LinearValidation {};

TEST_P(LinearValidation, BaselineIsAcceptedAndRuns) {
  RawTensor read = Read();
  RawTensor written = Written();
  ASSERT_EQ(Call(read.get(), written.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_NE(executor_, nullptr);
  RunExecutor();
}

// Null arguments -> 161001, in the entry point's order (CANN's, then workspaceSize and executor).
TEST_P(LinearValidation, NullArgumentsInOrder) {
  RawTensor read = Read();
  RawTensor written = Written();
  IntArray outputSize(outputSize_), inputSize(smallDims_);
  const aclTensor *r = read.get();
  const aclIntArray *o = outputSize.get(), *i = E().backward ? inputSize.get() : nullptr;
  aclTensor *w = written.get();
  ExpectRejected(Call(nullptr, o, i, w, scales_), ACLNN_ERR_PARAM_NULLPTR, {ReadName()});
  ExpectRejected(Call(r, nullptr, i, w, scales_), ACLNN_ERR_PARAM_NULLPTR, {"outputSize"});
  ExpectRejected(Call(r, o, i, nullptr, scales_), ACLNN_ERR_PARAM_NULLPTR, {"out"});
  ExpectRejected(Call(r, o, i, w, scales_, false, nullptr, nullptr, true), ACLNN_ERR_PARAM_NULLPTR,
                 {"workspaceSize"});
  ExpectRejected(Call(r, o, i, w, scales_, false, nullptr, nullptr, false, true), ACLNN_ERR_PARAM_NULLPTR,
                 {"executor"});
  // Two null: the first in the order wins.
  ExpectRejected(Call(nullptr, nullptr, i, nullptr, scales_), ACLNN_ERR_PARAM_NULLPTR, {ReadName()});
  if (E().backward) {
    ExpectRejected(Call(r, o, nullptr, w, scales_), ACLNN_ERR_PARAM_NULLPTR, {"inputSize"});
    // V2 checks inputSize before outputSize (CANN); V1 and Linear1d the other way round.
    const char *first = E().api == Api::kBilinear2d ? "inputSize" : "outputSize";
    ExpectRejected(Call(r, nullptr, nullptr, w, scales_), ACLNN_ERR_PARAM_NULLPTR, {first});
    ExpectRejected(Call(r, o, nullptr, nullptr, scales_), ACLNN_ERR_PARAM_NULLPTR, {"inputSize"});
  } else if (E().api == Api::kLinear1d) {
    // CANN's Linear1d checks self, out, outputSize.
    ExpectRejected(Call(r, nullptr, nullptr, nullptr, scales_), ACLNN_ERR_PARAM_NULLPTR, {"out"});
  }
  // A null pointer before an invalid one: the null wins.
  RawTensor badDtype = Read(ACL_INT32);
  ExpectRejected(Call(badDtype.get(), o, i, nullptr, scales_), ACLNN_ERR_PARAM_NULLPTR, {"out"});
}

TEST_P(LinearValidation, UnsupportedDtype) {
  for (aclDataType dtype : {ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT64, ACL_BOOL, ACL_COMPLEX64}) {
    SCOPED_TRACE("dtype " + std::to_string(static_cast<int>(dtype)));
    RawTensor read = Read(dtype);
    RawTensor written = Written(dtype);
    ExpectRejected(Call(read.get(), written.get()), ACLNN_ERR_PARAM_INVALID, {ReadName()},
                   {std::to_string(static_cast<int>(dtype))});
  }
}

TEST_P(LinearValidation, EveryDtypeIsAccepted) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    SCOPED_TRACE(DtypeName(dtype));
    RawTensor read = Read(dtype);
    RawTensor written = Written(dtype);
    ASSERT_EQ(Call(read.get(), written.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    RunExecutor();
  }
}

TEST_P(LinearValidation, MismatchedDtypes) {
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  for (aclDataType readType : dtypes) {
    for (aclDataType writtenType : dtypes) {
      if (readType == writtenType) continue;
      SCOPED_TRACE(std::string(DtypeName(readType)) + " -> " + DtypeName(writtenType));
      RawTensor read = Read(readType);
      RawTensor written = Written(writtenType);
      ExpectRejected(Call(read.get(), written.get()), ACLNN_ERR_PARAM_INVALID, {"out"},
                     {std::to_string(static_cast<int>(writtenType))});
    }
  }
}

// A rank other than the operator's: 5-D and one less.
TEST_P(LinearValidation, ReadTensorOfWrongRank) {
  std::vector<int64_t> more = ReadDims(), fewer = ReadDims();
  more.insert(more.begin() + 2, 1);
  fewer.erase(fewer.begin() + 2);
  for (const std::vector<int64_t> &dims : {more, fewer}) {
    SCOPED_TRACE(std::to_string(dims.size()) + "-D");
    RawTensor read = Read(dims, ACL_FLOAT, format_);
    RawTensor written = Written();
    ExpectRejected(Call(read.get(), written.get()), ACLNN_ERR_PARAM_INVALID, {ReadName()},
                   {std::to_string(dims.size()) + "-D"});
  }
}

TEST_P(LinearValidation, OutOfWrongRank) {
  std::vector<int64_t> more = WrittenDims(), fewer = WrittenDims();
  more.insert(more.begin() + 2, 1);
  fewer.erase(fewer.begin() + 2);
  for (const std::vector<int64_t> &dims : {more, fewer}) {
    SCOPED_TRACE(std::to_string(dims.size()) + "-D");
    RawTensor read = Read();
    RawTensor written = Written(dims, ACL_FLOAT, format_);
    ExpectRejected(Call(read.get(), written.get()), ACLNN_ERR_PARAM_INVALID, {"out"},
                   {std::to_string(dims.size()) + "-D"});
  }
}

TEST_P(LinearValidation, OutputSizeOfWrongLength) {
  std::vector<std::vector<int64_t>> bad = {{}, {outputSize_[0]}};
  bad.push_back(outputSize_);
  bad.back().push_back(3);
  if (outputSize_.size() == 1) bad.erase(bad.begin() + 1);  // {7} is the 1-D baseline
  for (const std::vector<int64_t> &values : bad) {
    SCOPED_TRACE("outputSize of " + std::to_string(values.size()));
    // Bilinear2d reads the first two of a longer outputSize (CANN's example passes four).
    if (!E().backward && E().api == Api::kBilinear2d && values.size() > 2) {
      EXPECT_EQ(CallArrays(values, smallDims_), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      RunExecutor();
      continue;
    }
    ExpectRejected(CallArrays(values, smallDims_), ACLNN_ERR_PARAM_INVALID, {"outputSize"},
                   {std::to_string(values.size())});
  }
}

TEST_P(LinearBackwardValidation, InputSizeOfWrongLength) {
  std::vector<int64_t> longer = smallDims_, shorter = smallDims_;
  longer.push_back(1);
  shorter.pop_back();
  for (const std::vector<int64_t> &values : {longer, shorter}) {
    SCOPED_TRACE("inputSize of " + std::to_string(values.size()));
    ExpectRejected(CallArrays(outputSize_, values), ACLNN_ERR_PARAM_INVALID, {"inputSize"},
                   {std::to_string(values.size())});
  }
}

// An outputSize element 0 or negative (out's dims matching it, so that only the size is wrong).
TEST_P(LinearValidation, OutputSizeNotPositive) {
  for (size_t axis = 0; axis < outputSize_.size(); ++axis) {
    for (int64_t bad : {int64_t{0}, int64_t{-3}}) {
      SCOPED_TRACE("outputSize[" + std::to_string(axis) + "] = " + std::to_string(bad));
      std::vector<int64_t> values = outputSize_;
      values[axis] = bad;
      std::vector<int64_t> largeDims = largeDims_;
      largeDims[2 + axis] = bad;
      RawTensor read = E().backward ? Read(largeDims, ACL_FLOAT, format_) : Read();
      RawTensor written = E().backward ? Written() : Written(largeDims, ACL_FLOAT, format_);
      IntArray o(values), i(smallDims_);
      const aclnnStatus status = Call(read.get(), o.get(), i.get(), written.get(), scales_);
      if (!E().backward && E().api == Api::kBilinear2d && bad == 0) {
        // CANN: out's H or W is 0, an empty out: nothing to do.
        EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
        EXPECT_EQ(workspaceSize_, 0u);
        RunExecutor();
        continue;
      }
      // Bilinear2d has no positivity check: out's negative dim is what it rejects.
      ExpectRejected(status, ACLNN_ERR_PARAM_INVALID,
                     {"outputSize", !E().backward && E().api == Api::kBilinear2d ? "out" : "outputSize"},
                     {std::to_string(bad)});
    }
  }
}

TEST_P(LinearBackwardValidation, InputSizeSpatialNotPositive) {
  for (size_t axis = 2; axis < smallDims_.size(); ++axis) {
    for (int64_t bad : {int64_t{0}, int64_t{-2}}) {
      SCOPED_TRACE("inputSize[" + std::to_string(axis) + "] = " + std::to_string(bad));
      std::vector<int64_t> values = smallDims_;
      values[axis] = bad;
      RawTensor read = Read();
      RawTensor written = Written(values, ACL_FLOAT, format_);
      IntArray o(outputSize_), i(values);
      ExpectRejected(Call(read.get(), o.get(), i.get(), written.get(), scales_), ACLNN_ERR_PARAM_INVALID,
                     {"inputSize"}, {std::to_string(bad)});
    }
  }
}

// out's spatial size other than the sizes (the forward's outputSize, the backward's inputSize), and
// its N or C other than the read tensor's.
TEST_P(LinearValidation, OutShapeNotTheSizes) {
  for (size_t axis = 0; axis < WrittenDims().size(); ++axis) {
    std::vector<int64_t> dims = WrittenDims();
    dims[axis] += 1;
    SCOPED_TRACE("out dim " + std::to_string(axis) + " = " + std::to_string(dims[axis]));
    RawTensor read = Read();
    RawTensor written = Written(dims, ACL_FLOAT, format_);
    ExpectRejected(Call(read.get(), written.get()), ACLNN_ERR_PARAM_INVALID, {"out"},
                   {std::to_string(dims[axis])});
  }
}

// The backward's gradOut other than (inputSize N, C, outputSize).
TEST_P(LinearBackwardValidation, GradOutShapeNotTheSizes) {
  for (size_t axis = 0; axis < ReadDims().size(); ++axis) {
    std::vector<int64_t> dims = ReadDims();
    dims[axis] += 1;
    SCOPED_TRACE("gradOut dim " + std::to_string(axis) + " = " + std::to_string(dims[axis]));
    RawTensor read = Read(dims, ACL_FLOAT, format_);
    RawTensor written = Written();
    ExpectRejected(Call(read.get(), written.get()), ACLNN_ERR_PARAM_INVALID, {"gradOut"},
                   {std::to_string(dims[axis])});
  }
}

// Limits and views (after the shape rows): a dim above 2^20, a view past its storage, a negative stride.
TEST_P(LinearValidation, ReadDimAboveLimit) {
  DeviceBuffer big(4 * static_cast<size_t>(kDimLimit + 2));
  std::vector<int64_t> read(ReadDims().size(), 1), written(WrittenDims().size(), 1);
  std::vector<int64_t> outputSize(outputSize_.size(), 1), inputSize(smallDims_.size(), 1);
  read.back() = kDimLimit + 1;
  if (E().backward) {
    outputSize.back() = kDimLimit + 1;
  } else {
    written.back() = 2;
    outputSize.back() = 2;
  }
  RawTensor r(read, ACL_FLOAT, format_, big.data());
  RawTensor w = Written(written, ACL_FLOAT, format_);
  IntArray o(outputSize), i(inputSize);
  ExpectRejected(Call(r.get(), o.get(), i.get(), w.get(), scales_), ACLNN_ERR_PARAM_INVALID, {ReadName()},
                 {std::to_string(kDimLimit + 1)});
}

TEST_P(LinearValidation, ViewBeyondStorageOrNegativeStride) {
  const std::vector<int64_t> rd = ReadDims(), wd = WrittenDims();
  const std::vector<int64_t> rStrides = ContiguousStrides(rd), wStrides = ContiguousStrides(wd);
  int64_t rCount = 1, wCount = 1;
  for (int64_t d : rd) rCount *= d;
  for (int64_t d : wd) wCount *= d;
  {
    SCOPED_TRACE("read storage one element short");
    RawTensor r(rd, ACL_FLOAT, format_, readBuf_.data(), {}, 0, {rCount - 1});
    RawTensor w = Written();
    ExpectRejected(Call(r.get(), w.get()), ACLNN_ERR_PARAM_INVALID, {ReadName()},
                   {std::to_string(rCount - 1)});
  }
  {
    SCOPED_TRACE("out offset past the end");
    RawTensor r = Read();
    RawTensor w(wd, ACL_FLOAT, format_, writtenBuf_.data(), {}, 1, {wCount});
    ExpectRejected(Call(r.get(), w.get()), ACLNN_ERR_PARAM_INVALID, {"out"}, {std::to_string(wCount)});
  }
  {
    SCOPED_TRACE("out negative W stride");
    std::vector<int64_t> strides = wStrides;
    strides.back() = -1;
    RawTensor r = Read();
    RawTensor w(wd, ACL_FLOAT, format_, writtenBuf_.data(), strides, wd.back() - 1, {wCount});
    ExpectRejected(Call(r.get(), w.get()), ACLNN_ERR_PARAM_INVALID, {"out"}, {"-1"});
  }
  {
    SCOPED_TRACE("read negative W stride");
    std::vector<int64_t> strides = rStrides;
    strides.back() = -1;
    RawTensor r(rd, ACL_FLOAT, format_, readBuf_.data(), strides, rd.back() - 1, {rCount});
    RawTensor w = Written();
    ExpectRejected(Call(r.get(), w.get()), ACLNN_ERR_PARAM_INVALID, {ReadName()}, {"-1"});
  }
}

// N = 0: success, workspace 0, an executor that runs and writes nothing.
TEST_P(LinearValidation, EmptyBatchIsANoOp) {
  std::vector<int64_t> rd = ReadDims(), wd = WrittenDims(), inputSize = smallDims_;
  rd[0] = wd[0] = inputSize[0] = 0;
  RawTensor r(rd, ACL_FLOAT, format_, readBuf_.data(), {}, 0, {1});
  RawTensor w(wd, ACL_FLOAT, format_, writtenBuf_.data(), {}, 0, {1});
  IntArray o(outputSize_), i(inputSize);
  workspaceSize_ = 12345;
  ASSERT_EQ(Call(r.get(), o.get(), i.get(), w.get(), scales_), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(workspaceSize_, 0u);
  RunExecutor();
  EXPECT_TRUE(WrittenUntouched());
}

// C = 0: CANN's Linear1d forward rejects it (161002, naming self); the others have nothing to do.
TEST_P(LinearValidation, EmptyChannels) {
  std::vector<int64_t> rd = ReadDims(), wd = WrittenDims(), inputSize = smallDims_;
  rd[1] = wd[1] = inputSize[1] = 0;
  RawTensor r(rd, ACL_FLOAT, format_, readBuf_.data(), {}, 0, {1});
  RawTensor w(wd, ACL_FLOAT, format_, writtenBuf_.data(), {}, 0, {1});
  IntArray o(outputSize_), i(inputSize);
  const aclnnStatus status = Call(r.get(), o.get(), i.get(), w.get(), scales_);
  if (!E().backward && E().api == Api::kLinear1d) {
    ExpectRejected(status, ACLNN_ERR_PARAM_INVALID, {"self"}, {"C > 0"});
    return;
  }
  ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(workspaceSize_, 0u);
  RunExecutor();
  EXPECT_TRUE(WrittenUntouched());
}

// The tensors and arrays may be destroyed right after GetWorkspaceSize; the run gives the reference's result.
TEST_P(LinearValidation, ArgumentsMayBeDestroyedAfterPlanning) {
  TracedRng rng;
  const Entry &e = E();
  const aclFormat channelsLast = FormatFor(e.api, ACL_FORMAT_NDHWC);
  if (e.backward) {
    BackwardProblem p{{2, 3, 1, 4, 5}, {1, 7, 3}};
    if (e.api == Api::kLinear1d) p = BackwardProblem{{2, 3, 1, 1, 5}, {1, 1, 9}};
    p.api = e.api;
    DeviceTensor gradOut = ReadTensor(p, ACL_FLOAT, channelsLast);
    DeviceTensor gradInput = WrittenTensor(p, ACL_FLOAT, format_, MemLayout::kSliced);
    const std::vector<double> values = gradOut.UploadRandom(rng);
    PreparedOp op;
    ASSERT_TRUE(PrepareBackward(gradOut.get(), p, gradInput.get(), &op));
    gradOut.DestroyAclTensor();
    gradInput.DestroyAclTensor();
    ASSERT_TRUE(EnqueueAndSynchronize(::testing::AssertionSuccess(), &op, nullptr));
    EXPECT_TRUE(ResultMatchesReference(values, p, ACL_FLOAT, gradInput.Download()));
  } else {
    ForwardProblem p{{2, 3, 1, 4, 5}, {1, 7, 3}};
    if (e.api == Api::kLinear1d) p = ForwardProblem{{2, 3, 1, 1, 5}, {1, 1, 9}, false, {0, 0, -1}};
    p.api = e.api;
    // Bilinear2d: one format for both tensors.
    const aclFormat outFormat = e.api == Api::kBilinear2d ? channelsLast : format_;
    DeviceTensor self = ReadTensor(p, ACL_FLOAT, channelsLast);
    DeviceTensor out = WrittenTensor(p, ACL_FLOAT, outFormat, MemLayout::kSliced);
    const std::vector<double> values = self.UploadRandom(rng);
    PreparedOp op;
    ASSERT_TRUE(PrepareForward(self.get(), p, out.get(), &op));
    self.DestroyAclTensor();
    out.DestroyAclTensor();
    ASSERT_TRUE(EnqueueAndSynchronize(::testing::AssertionSuccess(), &op, nullptr));
    EXPECT_TRUE(ResultMatchesReference(values, p, ACL_FLOAT, out.Download()));
  }
}

INSTANTIATE_TEST_SUITE_P(Entries, LinearValidation,
                         ::testing::Values(Entry{false, Api::kBilinear2d}, Entry{false, Api::kLinear1d},
                                           Entry{true, Api::kBilinear2dBackwardV1},
                                           Entry{true, Api::kBilinear2d}, Entry{true, Api::kLinear1d}),
                         [](const ::testing::TestParamInfo<Entry> &info) {
                           return EntryName(info.param).substr(std::string("aclnnUpsample").size());
                         });

INSTANTIATE_TEST_SUITE_P(Entries, LinearBackwardValidation,
                         ::testing::Values(Entry{true, Api::kBilinear2dBackwardV1},
                                           Entry{true, Api::kBilinear2d}, Entry{true, Api::kLinear1d}),
                         [](const ::testing::TestParamInfo<Entry> &info) {
                           return EntryName(info.param).substr(std::string("aclnnUpsample").size());
                         });

// Each operator's own rows: a fixture per entry point on LinearValidation's baseline.
class Bilinear2dValidation : public LinearValidation {};
class Linear1dValidation : public LinearValidation {};
class Linear1dBackwardValidation : public LinearValidation {};
class Bilinear2dBackwardValidation : public LinearValidation {};  // V1 and V2

// Bilinear2d: self and out of one format, NCHW / NHWC / ND (as NCHW).
TEST_P(Bilinear2dValidation, FormatsMustMatchAndBeSupported) {
  {
    RawTensor self = Read();
    RawTensor out = Written(WrittenDims(), ACL_FLOAT, ACL_FORMAT_NHWC);
    ExpectRejected(Call(self.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self", "out"}, {"NCHW", "NHWC"});
  }
  for (aclFormat format : {ACL_FORMAT_NCDHW, ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCL}) {
    SCOPED_TRACE(std::to_string(static_cast<int>(format)));
    RawTensor self = Read(ReadDims(), ACL_FLOAT, format);
    RawTensor out = Written(WrittenDims(), ACL_FLOAT, format);
    ExpectRejected(Call(self.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"self"},
                   {std::to_string(static_cast<int>(format))});
  }
  for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NHWC}) {
    SCOPED_TRACE(FormatName(format));
    // NHWC views are (N, H, W, C).
    const std::vector<int64_t> self =
        format == ACL_FORMAT_NHWC ? std::vector<int64_t>{1, 3, 4, 2} : ReadDims();
    const std::vector<int64_t> out =
        format == ACL_FORMAT_NHWC ? std::vector<int64_t>{1, 5, 6, 2} : WrittenDims();
    RawTensor s = Read(self, ACL_FLOAT, format);
    RawTensor o = Written(out, ACL_FLOAT, format);
    ASSERT_EQ(Call(s.get(), o.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    RunExecutor();
  }
}

// CANN: an empty self (H or W = 0) or out is an empty call, whatever the other's size: success, workspace
// 0, and a non-empty out is not written.
TEST_P(Bilinear2dValidation, EmptySelfLeavesANonEmptyOutAsItWas) {
  for (const std::vector<int64_t> &self :
       {std::vector<int64_t>{1, 2, 0, 4}, std::vector<int64_t>{1, 2, 3, 0}}) {
    RawTensor s(self, ACL_FLOAT, ACL_FORMAT_NCHW, readBuf_.data(), {}, 0, {1});
    RawTensor out = Written();
    workspaceSize_ = 12345;
    ASSERT_EQ(Call(s.get(), out.get()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(workspaceSize_, 0u);
    ASSERT_TRUE(RunPlannedExecutor(false, &executor_, workspaceSize_, Api::kBilinear2d));
    EXPECT_TRUE(WrittenUntouched());
  }
}

TEST_P(Bilinear2dValidation, NegativeScalesAreRejectedZeroAccepted) {
  RawTensor self = Read();
  RawTensor out = Written();
  IntArray o(outputSize_);
  for (std::array<double, 2> scales : {std::array<double, 2>{-1.0, 2.0}, std::array<double, 2>{2.0, -0.5}}) {
    ExpectRejected(Call(self.get(), o.get(), nullptr, out.get(), scales), ACLNN_ERR_PARAM_INVALID,
                   {"scalesH", "scalesW"}, {"-"});
  }
  // CANN tests scale < 0: a NaN passes (and gives no scale).
  for (std::array<double, 2> scales : {std::array<double, 2>{0.0, 0.0}, std::array<double, 2>{9.0, 0.0},
                                       std::array<double, 2>{5.0 / 3, 6.0 / 4},
                                       std::array<double, 2>{NAN, 2.0}, std::array<double, 2>{2.0, NAN}}) {
    ASSERT_EQ(Call(self.get(), o.get(), nullptr, out.get(), scales), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    RunExecutor();
  }
}

// CANN's order: dtype, dtype match, formats (same, supported), ranks, N and C, scales, outputSize vs out.
TEST_P(Bilinear2dValidation, RowsAreCheckedInCannOrder) {
  IntArray o(outputSize_), wrongSize({5, 7});
  {
    SCOPED_TRACE("dtype before format");
    RawTensor self = Read(ReadDims(), ACL_INT32, ACL_FORMAT_NCDHW);
    RawTensor out = Written(WrittenDims(), ACL_INT32, ACL_FORMAT_NCDHW);
    ExpectRejected(Call(self.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"dtype"});
  }
  {
    SCOPED_TRACE("format before rank");
    RawTensor self = Read({1, 2, 1, 3, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW);
    RawTensor out = Written();
    ExpectRejected(Call(self.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"format"});
  }
  {
    SCOPED_TRACE("N, C before scales");
    RawTensor self = Read();
    RawTensor out = Written({1, 3, 5, 6}, ACL_FLOAT, ACL_FORMAT_NCHW);
    ExpectRejected(Call(self.get(), o.get(), nullptr, out.get(), {-1.0, 1.0}), ACLNN_ERR_PARAM_INVALID,
                   {"out"}, {"3"});
  }
  {
    SCOPED_TRACE("scales before outputSize against out");
    RawTensor self = Read();
    RawTensor out = Written();
    ExpectRejected(Call(self.get(), wrongSize.get(), nullptr, out.get(), {-1.0, 1.0}),
                   ACLNN_ERR_PARAM_INVALID, {"scalesH"});
  }
}

// Linear1d: a scale >= 0 must give the output size (0 included: CANN's floor(L * 0) = 0 != out); a
// negative one leaves it to the size; alignCorners does not change the rule.
TEST_P(Linear1dValidation, ScaleMustGiveTheSize) {
  RawTensor self = Read();
  RawTensor out = Written();
  IntArray o(outputSize_);
  for (bool alignCorners : {false, true}) {
    for (double scale : {0.0, 1.5, 2.0, 100.0}) {
      SCOPED_TRACE("scale " + std::to_string(scale) + (alignCorners ? ", alignCorners" : ""));
      ExpectRejected(Call(self.get(), o.get(), nullptr, out.get(), {0.0, scale}, alignCorners),
                     ACLNN_ERR_PARAM_INVALID, {"scale"}, {"outputSize"});
    }
    for (double scale : {-1.0, -0.001, 1.75, 1.99}) {  // floor(4 * 1.75) = floor(4 * 1.99) = 7
      SCOPED_TRACE("scale " + std::to_string(scale));
      ASSERT_EQ(Call(self.get(), o.get(), nullptr, out.get(), {0.0, scale}, alignCorners), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      RunExecutor();
    }
  }
}

// CANN's order: ranks, outputSize's length, self's C and L, outputSize > 0, out's shape, the scale, then
// the dtypes (shape before dtype, unlike the 3-D forward).
TEST_P(Linear1dValidation, RowsAreCheckedInCannOrder) {
  IntArray o(outputSize_), zero({0});
  {
    SCOPED_TRACE("out's rank before the dtype");
    RawTensor self = Read(ACL_INT32);
    RawTensor out = Written({1, 2, 1, 7}, ACL_INT32, ACL_FORMAT_ND);
    ExpectRejected(Call(self.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"}, {"4-D"});
  }
  {
    SCOPED_TRACE("self's L before outputSize");
    RawTensor self = Read({1, 2, 0}, ACL_FLOAT, ACL_FORMAT_NCL);
    RawTensor out = Written({1, 2, 0}, ACL_FLOAT, ACL_FORMAT_NCL);
    ExpectRejected(Call(self.get(), zero.get(), nullptr, out.get(), scales_), ACLNN_ERR_PARAM_INVALID,
                   {"self"});
  }
  {
    SCOPED_TRACE("out's shape before the scale");
    RawTensor self = Read();
    RawTensor out = Written({1, 2, 8}, ACL_FLOAT, ACL_FORMAT_NCL);
    ExpectRejected(Call(self.get(), o.get(), nullptr, out.get(), {0.0, 0.0}), ACLNN_ERR_PARAM_INVALID,
                   {"out"}, {"8"});
  }
  {
    SCOPED_TRACE("the scale before the dtypes");
    RawTensor self = Read(ACL_FLOAT);
    RawTensor out = Written(ACL_FLOAT16);
    ExpectRejected(Call(self.get(), o.get(), nullptr, out.get(), {0.0, 0.0}), ACLNN_ERR_PARAM_INVALID,
                   {"scale"});
  }
}

// Linear1dBackward: the magnification (a scale that gives the size, else outL / inL) is at most 500.
TEST_P(Linear1dBackwardValidation, MagnificationAbove500IsRejected) {
  DeviceBuffer gradOutBuf(4 * 1024);
  struct Case {
    int64_t outL;
    double scale;
    bool accepted;
  };
  const Case cases[] = {{500, 0.0, true},   {501, 0.0, false}, {500, 500.5, false}, {501, 1.0, false},
                        {400, 400.0, true}, {400, 600.0, true}};  // 600 does not give 400: the sizes decide
  for (const Case &c : cases) {
    SCOPED_TRACE("1 -> " + std::to_string(c.outL) + ", scale " + std::to_string(c.scale));
    RawTensor gradOut({1, 1, c.outL}, ACL_FLOAT, ACL_FORMAT_NCL, gradOutBuf.data());
    RawTensor out = Written({1, 1, 1}, ACL_FLOAT, ACL_FORMAT_NCL);
    IntArray o({c.outL}), i({1, 1, 1});
    const aclnnStatus status = Call(gradOut.get(), o.get(), i.get(), out.get(), {0.0, c.scale});
    if (c.accepted) {
      ASSERT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
      RunExecutor();
    } else {
      ExpectRejected(status, ACLNN_ERR_PARAM_INVALID, {"magnification"}, {"500"});
    }
  }
}

// CANN's order: gradOut's rank, the arrays' lengths, the dtypes, sizes > 0, gradOut's shape, out's rank and
// shape.
TEST_P(Linear1dBackwardValidation, RowsAreCheckedInCannOrder) {
  {
    SCOPED_TRACE("inputSize's length before the dtypes");
    RawTensor gradOut = Read(ACL_INT32);
    RawTensor out = Written(ACL_INT32);
    IntArray o(outputSize_), i({1, 2});
    ExpectRejected(Call(gradOut.get(), o.get(), i.get(), out.get(), scales_), ACLNN_ERR_PARAM_INVALID,
                   {"inputSize"});
  }
  {
    SCOPED_TRACE("the dtypes before outputSize > 0");
    RawTensor gradOut = Read(ACL_FLOAT);
    RawTensor out = Written(ACL_DOUBLE);
    IntArray o({0}), i(smallDims_);
    ExpectRejected(Call(gradOut.get(), o.get(), i.get(), out.get(), scales_), ACLNN_ERR_PARAM_INVALID,
                   {"out"}, {"dtype"});
  }
  {
    SCOPED_TRACE("gradOut's shape before out's rank");
    RawTensor gradOut = Read({1, 2, 8}, ACL_FLOAT, ACL_FORMAT_NCL);
    RawTensor out = Written({1, 2, 1, 4}, ACL_FLOAT, ACL_FORMAT_ND);
    ExpectRejected(Call(gradOut.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"gradOut"});
  }
}

// The backward's formats: NCHW / NHWC / ND for each tensor, each read by its own; V1 orders inputSize by
// out's format, V2 by gradOut's.
TEST_P(Bilinear2dBackwardValidation, FormatsAndTheOrderOfInputSize) {
  const bool v1 = E().api == Api::kBilinear2dBackwardV1;
  for (aclFormat format : {ACL_FORMAT_NCDHW, ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCL}) {
    SCOPED_TRACE(std::to_string(static_cast<int>(format)));
    RawTensor gradOut = Read();
    RawTensor out = Written(WrittenDims(), ACL_FLOAT, format);
    ExpectRejected(Call(gradOut.get(), out.get()), ACLNN_ERR_PARAM_INVALID, {"out"},
                   {std::to_string(static_cast<int>(format))});
    RawTensor badGradOut = Read(ReadDims(), ACL_FLOAT, format);
    RawTensor goodOut = Written();
    ExpectRejected(Call(badGradOut.get(), goodOut.get()), ACLNN_ERR_PARAM_INVALID, {"gradOut"},
                   {std::to_string(static_cast<int>(format))});
  }
  // gradOut NHWC (1,5,6,2), out NCHW (1,2,3,4): inputSize in NHWC order (1,3,4,2) for V2, NCHW for V1.
  RawTensor gradOut = Read({1, 5, 6, 2}, ACL_FLOAT, ACL_FORMAT_NHWC);
  RawTensor out = Written();
  IntArray o(outputSize_), nhwc({1, 3, 4, 2}), nchw({1, 2, 3, 4});
  ASSERT_EQ(Call(gradOut.get(), o.get(), v1 ? nchw.get() : nhwc.get(), out.get(), scales_), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  RunExecutor();
  ExpectRejected(Call(gradOut.get(), o.get(), v1 ? nhwc.get() : nchw.get(), out.get(), scales_),
                 ACLNN_ERR_PARAM_INVALID, {"gradOut", "out"});
}

// V1 checks out's shape before the dtypes, V2 the dtypes before out's shape (CANN's two orders); both check
// the arrays' lengths before the formats (V1: outputSize first, V2: inputSize first).
TEST_P(Bilinear2dBackwardValidation, RowsAreCheckedInTheVersionsOrder) {
  const bool v1 = E().api == Api::kBilinear2dBackwardV1;
  {
    SCOPED_TRACE("out's shape and dtype both wrong");
    RawTensor gradOut = Read();
    RawTensor out = Written({1, 2, 3, 5}, ACL_FLOAT16, ACL_FORMAT_NCHW);
    const aclnnStatus status = Call(gradOut.get(), out.get());
    const std::string message = aclGetRecentErrMsg();
    EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ContainsWord(message, "out")) << message;
    EXPECT_EQ(ContainsWord(message, "dtype"), !v1) << message;
  }
  {
    // CANN's V2 compares out's N and C with gradOut's before the dtypes (CheckNCDimValid): both versions
    // report out's shape here.
    SCOPED_TRACE("out's N and dtype both wrong");
    RawTensor gradOut = Read();
    RawTensor out = Written({2, 2, 3, 4}, ACL_FLOAT16, ACL_FORMAT_NCHW);
    const aclnnStatus status = Call(gradOut.get(), out.get());
    const std::string message = aclGetRecentErrMsg();
    EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ContainsWord(message, "out")) << message;
    EXPECT_FALSE(ContainsWord(message, "dtype")) << message;
  }
  {
    SCOPED_TRACE("both arrays of wrong length");
    RawTensor gradOut = Read();
    RawTensor out = Written();
    IntArray o({5}), i({1, 2, 3});
    ExpectRejected(Call(gradOut.get(), o.get(), i.get(), out.get(), scales_), ACLNN_ERR_PARAM_INVALID,
                   {v1 ? "outputSize" : "inputSize"});
  }
  {
    SCOPED_TRACE("an array's length before a format");
    RawTensor gradOut = Read();
    RawTensor out = Written(WrittenDims(), ACL_FLOAT, ACL_FORMAT_NCDHW);
    IntArray o({5}), i(smallDims_);
    ExpectRejected(Call(gradOut.get(), o.get(), i.get(), out.get(), scales_), ACLNN_ERR_PARAM_INVALID,
                   {"outputSize"});
  }
  {
    SCOPED_TRACE("gradOut's rank first");
    RawTensor gradOut = Read({1, 2, 1, 5, 6}, ACL_INT32, ACL_FORMAT_NCDHW);
    RawTensor out = Written();
    IntArray o({5}), i({1});
    ExpectRejected(Call(gradOut.get(), o.get(), i.get(), out.get(), scales_), ACLNN_ERR_PARAM_INVALID,
                   {"gradOut"}, {"5-D"});
  }
}

// Scales are never an error for the backwards (V1 ignores them; V2 and Linear1d use them only where they
// give the sizes).
TEST_P(Bilinear2dBackwardValidation, AnyScalesAreAccepted) {
  RawTensor gradOut = Read();
  RawTensor out = Written();
  IntArray o(outputSize_), i(smallDims_);
  for (std::array<double, 2> scales : {std::array<double, 2>{-1.0, -1.0}, std::array<double, 2>{0.0, 100.0},
                                       std::array<double, 2>{5.0 / 3, 6.0 / 4}}) {
    ASSERT_EQ(Call(gradOut.get(), o.get(), i.get(), out.get(), scales), ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    RunExecutor();
  }
}

INSTANTIATE_TEST_SUITE_P(Entry, Bilinear2dValidation, ::testing::Values(Entry{false, Api::kBilinear2d}));
INSTANTIATE_TEST_SUITE_P(Entry, Linear1dValidation, ::testing::Values(Entry{false, Api::kLinear1d}));
INSTANTIATE_TEST_SUITE_P(Entry, Linear1dBackwardValidation, ::testing::Values(Entry{true, Api::kLinear1d}));
INSTANTIATE_TEST_SUITE_P(Versions, Bilinear2dBackwardValidation,
                         ::testing::Values(Entry{true, Api::kBilinear2dBackwardV1},
                                           Entry{true, Api::kBilinear2d}),
                         [](const ::testing::TestParamInfo<Entry> &info) {
                           return info.param.api == Api::kBilinear2d ? std::string("V2") : std::string("V1");
                         });

// Run phase: a rejected run writes nothing, never crashes on a bad executor, and leaves a good executor
// usable for a corrected retry (PlannedRunTest), for each entry point on a shape that needs a workspace
// where the plan has one.
template <bool kBackward, Api kApi>
class LinearRunValidation
    : public PlannedRunTest<std::conditional_t<kBackward, BackwardProblem, ForwardProblem>> {
 protected:
  void SetUp() override {
    std::conditional_t<kBackward, BackwardProblem, ForwardProblem> p{{2, 5, 1, 17, 23}, {1, 31, 40}};
    if (kApi == Api::kLinear1d) p = {{6, 5, 1, 1, 23}, {1, 1, 40}};
    if (!kBackward && kApi == Api::kLinear1d) p.scales[2] = -1.0;
    p.api = kApi;
    this->Plan(p);
  }
};

[[maybe_unused]] const bool kRegistered =
    RegisterPlannedRunTests<LinearRunValidation<false, Api::kBilinear2d>>("Bilinear2dRunValidation") &&
    RegisterPlannedRunTests<LinearRunValidation<false, Api::kLinear1d>>("Linear1dRunValidation") &&
    RegisterPlannedRunTests<LinearRunValidation<true, Api::kBilinear2dBackwardV1>>(
        "Bilinear2dBackwardRunValidation") &&
    RegisterPlannedRunTests<LinearRunValidation<true, Api::kBilinear2d>>(
        "Bilinear2dBackwardV2RunValidation") &&
    RegisterPlannedRunTests<LinearRunValidation<true, Api::kLinear1d>>("Linear1dBackwardRunValidation");

}  // namespace
}  // namespace trilinear3d::test
