// The nearest group's validation (docs/spec.md §4) per entry point: null arguments in order, dtypes (uint8
// for the forwards only), ranks, the size arrays, sizes, the written tensor's shape, formats, empty
// batches and channels, V2's empty no-op before any check; CANN's codes, messages naming the parameter,
// and nothing written by a rejected call.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "device_buffer.h"
#include "nearest_runner.h"
#include "validation_helpers.h"

namespace trilinear3d::test {
namespace {

const char *SrcName(NearestEntry e) {
  if (!InfoOf(e).backward) return "self";
  return e == NearestEntry::kExact1dBackward || e == NearestEntry::kExact2dBackward ? "gradOutput"
                                                                                    : "gradOut";
}

const char *DstName(NearestEntry e) {
  switch (e) {
    case NearestEntry::kNearest2dBackward:
    case NearestEntry::kNearest3dBackward:
    case NearestEntry::kExact3dBackward:
      return "gradInput";
    default:
      return "out";
  }
}

// Every byte of the buffer still holds the canary: nothing was written.
bool Untouched(const DeviceBuffer &b) {
  for (uint8_t byte : b.Bytes()) {
    if (byte != DeviceBuffer::kCanary) return false;
  }
  return true;
}

aclFormat DefaultFormat(int rank) {
  return rank == 3 ? ACL_FORMAT_ND : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

// A valid call of the entry, any part of which a test changes before Plan().
struct Call {
  NearestEntry entry;
  std::vector<int64_t> small, large;  // logical (N, C, spatial) of the small and the large side
  aclDataType srcType = ACL_FLOAT, dstType = ACL_FLOAT;
  aclFormat srcFormat, dstFormat;
  std::vector<int64_t> outputSize, inputSize;
  std::array<double, 3> scales{0.0, 0.0, 0.0};
  DeviceBuffer srcData{1 << 16}, dstData{1 << 16};

  explicit Call(NearestEntry e) : entry(e) {
    const int rank = InfoOf(e).rank;
    const std::vector<int64_t> in = {5, 6, 7}, out = {8, 9, 11};
    small = {2, 3};
    large = {2, 3};
    for (int a = 5 - rank; a < 3; ++a) {
      small.push_back(in[static_cast<size_t>(a)]);
      large.push_back(out[static_cast<size_t>(a)]);
    }
    outputSize.assign(large.begin() + 2, large.end());
    inputSize = small;
    srcFormat = dstFormat = DefaultFormat(rank);
    // Source bytes other than the canary, so that a run's copies show in the destination.
    EXPECT_EQ(aclrtMemset(srcData.data(), srcData.size(), 0x3C, srcData.size()), ACL_SUCCESS);
  }

  const std::vector<int64_t> &SrcDims() const { return InfoOf(entry).backward ? large : small; }
  const std::vector<int64_t> &DstDims() const { return InfoOf(entry).backward ? small : large; }
  std::vector<int64_t> &SrcDims() { return InfoOf(entry).backward ? large : small; }
  std::vector<int64_t> &DstDims() { return InfoOf(entry).backward ? small : large; }

  // GetWorkspaceSize; nullArg: the position (0 src, 1 outputSize, 2 inputSize, 3 dst, 4 workspaceSize,
  // 5 executor) passed as null, or -1.
  aclnnStatus Plan(int nullArg = -1, aclOpExecutor **made = nullptr) {
    RawTensor src(SrcDims(), srcType, srcFormat, srcData.data());
    RawTensor dst(DstDims(), dstType, dstFormat, dstData.data());
    IntArray o(outputSize), i(inputSize);
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    const aclnnStatus s =
        PlanNearestArrays(entry, nullArg == 0 ? nullptr : src.get(), nullArg == 1 ? nullptr : o.get(),
                          nullArg == 2 ? nullptr : i.get(), scales, nullArg == 3 ? nullptr : dst.get(),
                          nullArg == 4 ? nullptr : &workspaceSize, nullArg == 5 ? nullptr : &executor);
    if (made != nullptr) {
      *made = executor;
    } else if (executor != nullptr) {
      void *workspace = nullptr;
      if (workspaceSize > 0) {
        EXPECT_EQ(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
      }
      EXPECT_EQ(RunNearest(entry, workspace, workspaceSize, executor, nullptr), ACLNN_SUCCESS)
          << aclGetRecentErrMsg();
      EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
      if (workspace != nullptr) aclrtFree(workspace);
    }
    return s;
  }
};

class NearestValidation : public ::testing::TestWithParam<NearestEntry> {};

TEST_P(NearestValidation, BaselineIsAcceptedAndRuns) {
  Call c(GetParam());
  EXPECT_EQ(c.Plan(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_FALSE(Untouched(c.dstData)) << "the run wrote nothing";
}

TEST_P(NearestValidation, NullArgumentsInOrder) {
  const NearestEntry e = GetParam();
  const bool backward = InfoOf(e).backward;
  const char *names[6] = {SrcName(e), "outputSize", "inputSize", DstName(e), "workspaceSize", "executor"};
  for (int arg = 0; arg < 6; ++arg) {
    if (arg == 2 && !backward) continue;
    SCOPED_TRACE(names[arg]);
    Call c(e);
    EXPECT_TRUE(Rejected(c.Plan(arg), ACLNN_ERR_PARAM_NULLPTR, {names[arg]}, NameMatch::kWholeWord));
    EXPECT_TRUE(Untouched(c.dstData));
  }
}

TEST_P(NearestValidation, Dtypes) {
  const NearestEntry e = GetParam();
  for (aclDataType t : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    Call c(e);
    c.srcType = c.dstType = t;
    EXPECT_EQ(c.Plan(), ACLNN_SUCCESS) << DtypeName(t) << ": " << aclGetRecentErrMsg();
  }
  {
    Call c(e);
    c.srcType = c.dstType = ACL_UINT8;
    if (InfoOf(e).backward) {
      EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {SrcName(e)}));
    } else {
      EXPECT_EQ(c.Plan(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    }
  }
  {
    Call c(e);
    c.srcType = c.dstType = ACL_INT32;
    EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {SrcName(e)}));
    EXPECT_TRUE(Untouched(c.dstData));
  }
  {
    Call c(e);
    c.dstType = ACL_FLOAT16;
    EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {DstName(e)}));
    EXPECT_TRUE(Untouched(c.dstData));
  }
}

TEST_P(NearestValidation, RanksAndArrays) {
  const NearestEntry e = GetParam();
  {
    Call c(e);
    c.SrcDims().push_back(1);
    EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {SrcName(e)}));
  }
  {
    Call c(e);
    c.DstDims().push_back(1);
    EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {DstName(e)}));
  }
  {
    Call c(e);
    c.outputSize.push_back(4);
    EXPECT_TRUE(RejectedNamingValues(c.Plan(), ACLNN_ERR_PARAM_INVALID, {"outputSize"}, {"4"}));
  }
  if (InfoOf(e).backward) {
    Call c(e);
    c.inputSize.pop_back();
    EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {"inputSize"}));
  }
}

TEST_P(NearestValidation, SizesAndShapes) {
  const NearestEntry e = GetParam();
  for (int64_t bad : {0, -3}) {
    Call c(e);
    c.outputSize.back() = bad;
    EXPECT_TRUE(
        RejectedNamingValues(c.Plan(), ACLNN_ERR_PARAM_INVALID, {"outputSize"}, {std::to_string(bad)}));
  }
  {
    Call c(e);  // the written tensor one element longer than the sizes make it
    ++c.DstDims().back();
    EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {DstName(e)}));
    EXPECT_TRUE(Untouched(c.dstData));
  }
  {
    Call c(e);  // the read tensor not of the sizes (a forward's self: of another C than out)
    ++(InfoOf(e).backward ? c.SrcDims().back() : c.SrcDims()[1]);
    EXPECT_TRUE(
        RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {InfoOf(e).backward ? SrcName(e) : DstName(e)}));
  }
  if (InfoOf(e).backward) {
    Call c(e);
    c.inputSize.back() = 0;
    c.small.back() = 0;
    EXPECT_TRUE(RejectedNamingValues(c.Plan(), ACLNN_ERR_PARAM_INVALID, {"inputSize"}, {"0"}));
  }
}

TEST_P(NearestValidation, EmptyBatchAndChannels) {
  const NearestEntry e = GetParam();
  const NearestEntryInfo &info = InfoOf(e);
  {
    Call c(e);
    c.small[0] = c.large[0] = c.inputSize[0] = 0;
    const aclnnStatus s = c.Plan();
    if (info.emptyBatchOk) {
      EXPECT_EQ(s, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    } else {
      EXPECT_TRUE(RejectedNaming(s, ACLNN_ERR_PARAM_INVALID, {"self"}));
    }
    EXPECT_TRUE(Untouched(c.dstData));
  }
  {
    Call c(e);
    c.small[1] = c.large[1] = c.inputSize[1] = 0;
    const aclnnStatus s = c.Plan();
    // The forwards need C > 0 (CANN's op_api); the backwards take C = 0 as an empty no-op, and V2
    // returns before its checks on an empty tensor.
    if (info.backward || e == NearestEntry::kNearest2dV2) {
      EXPECT_EQ(s, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    } else {
      EXPECT_TRUE(RejectedNaming(s, ACLNN_ERR_PARAM_INVALID, {"self"}));
    }
    EXPECT_TRUE(Untouched(c.dstData));
  }
}

TEST_P(NearestValidation, Formats) {
  const NearestEntry e = GetParam();
  const int rank = InfoOf(e).rank;
  Call c(e);
  c.srcFormat = rank == 3 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCL;
  EXPECT_TRUE(RejectedNaming(c.Plan(), ACLNN_ERR_PARAM_INVALID, {SrcName(e)}));
  if (rank > 3) {
    // Channels-last: the logical shape read through the format.
    Call last(e);
    last.srcFormat = last.dstFormat = rank == 4 ? ACL_FORMAT_NHWC : ACL_FORMAT_NDHWC;
    for (std::vector<int64_t> *dims : {&last.small, &last.large}) {
      std::vector<int64_t> &d = *dims;
      d = {d[0]};
      const std::vector<int64_t> &from = dims == &last.small ? Call(e).small : Call(e).large;
      d.insert(d.end(), from.begin() + 2, from.end());
      d.push_back(from[1]);
    }
    EXPECT_EQ(last.Plan(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

INSTANTIATE_TEST_SUITE_P(Entries, NearestValidation,
                         ::testing::Values(NearestEntry::kNearest1d, NearestEntry::kNearest2d,
                                           NearestEntry::kNearest1dV2, NearestEntry::kNearest2dV2,
                                           NearestEntry::kNearest3d, NearestEntry::kExact1d,
                                           NearestEntry::kExact2d, NearestEntry::kExact3d,
                                           NearestEntry::kNearest1dBackward, NearestEntry::kNearest2dBackward,
                                           NearestEntry::kNearest3dBackward, NearestEntry::kExact1dBackward,
                                           NearestEntry::kExact2dBackward, NearestEntry::kExact3dBackward),
                         [](const ::testing::TestParamInfo<NearestEntry> &i) {
                           return std::string(InfoOf(i.param).name);
                         });

// V2 returns success on an empty self or out before any other check (CANN's op_api), even of a dtype it
// does not take, and writes nothing.
TEST(Nearest2dV2Validation, EmptyTensorIsANoOpBeforeTheChecks) {
  Call c(NearestEntry::kNearest2dV2);
  c.srcType = c.dstType = ACL_INT32;
  c.small[2] = 0;
  EXPECT_EQ(c.Plan(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(Untouched(c.dstData));
}

}  // namespace
}  // namespace trilinear3d::test
