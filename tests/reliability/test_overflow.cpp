// Overflow: shapes whose element counts overflow int64, views that reach past int64 or past their
// storage, and tensors larger than any address space are rejected with 161002 and a message, and
// never cause a large allocation (tests/ut's allocation probe records every operator new).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "acl_test_environment.h"
#include "allocation_probe.h"
#include "reliability_support.h"

namespace trilinear3d::reliability {
namespace {

constexpr int64_t k2p20 = int64_t{1} << 20;  // CANN's per-dim limit
constexpr int64_t k2p62 = int64_t{1} << 62;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// A rejected call may allocate its message and small vectors, nothing sized by the shapes.
constexpr size_t kMaxAllocationBytes = 64 * 1024;

using Dims = std::vector<int64_t>;

// A tensor description over a tiny real buffer: whatever the view claims, only 64 bytes exist.
struct TensorDesc {
  Dims dims;
  Dims strides;  // empty: contiguous strides, saturated at int64's maximum
  int64_t offset = 0;
  Dims storageDims = {1};
  aclFormat format = ACL_FORMAT_NCDHW;
};

Dims ContiguousStrides(const Dims &dims) {
  Dims strides(dims.size());
  int64_t stride = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    strides[k] = stride;
    if (__builtin_mul_overflow(stride, dims[k], &stride)) stride = kInt64Max;
  }
  return strides;
}

struct OverflowCase {
  const char *name;
  bool backward;
  aclDataType dtype;
  TensorDesc src;  // gradOut / self
  TensorDesc dst;  // gradInput / out
  Dims outputSize;
  Dims inputSize;           // backward only
  const char *messagePart;  // expected in aclGetRecentErrMsg()
  test::Api api = test::Api::kTrilinear3d;
};

void PrintTo(const OverflowCase &c, std::ostream *os) {
  *os << test::ApiName(c.backward, c.api) << " " << c.name;
}

alignas(64) unsigned char g_tinyBuffer[64];

aclTensor *Create(const TensorDesc &d, aclDataType dtype) {
  const Dims strides = d.strides.empty() ? ContiguousStrides(d.dims) : d.strides;
  return aclCreateTensor(d.dims.data(), d.dims.size(), dtype, strides.data(), d.offset, d.format,
                         d.storageDims.data(), d.storageDims.size(), g_tinyBuffer);
}

TensorDesc Desc(Dims dims, Dims strides = {}, int64_t offset = 0) {
  TensorDesc d;
  d.dims = std::move(dims);
  d.strides = std::move(strides);
  d.offset = offset;
  return d;
}

std::vector<OverflowCase> Cases() {
  const Dims all2p20 = {k2p20, k2p20, k2p20, k2p20, k2p20};
  const Dims spatial2p20 = {k2p20, k2p20, k2p20};
  const Dims zeroStrides = {0, 0, 0, 0, 0};
  const Dims small = {1, 1, 2, 2, 2};
  std::vector<OverflowCase> cases;
  for (bool backward : {true, false}) {
    auto add = [&](const char *name, TensorDesc src, TensorDesc dst, Dims outputSize, Dims inputSize,
                   const char *messagePart) {
      cases.push_back({name, backward, ACL_FLOAT, std::move(src), std::move(dst), std::move(outputSize),
                       std::move(inputSize), messagePart});
    };
    // Every dim at CANN's limit: 2^100 elements, however the strides are chosen.
    add("AllDims2p20ZeroStrides", Desc(all2p20, zeroStrides), Desc(all2p20, zeroStrides), spatial2p20,
        all2p20, "overflows int64");
    add("AllDims2p20ContiguousStrides", Desc(all2p20), Desc(all2p20), spatial2p20, all2p20,
        "overflows int64");
    // 2^60 elements fit int64, but the view reaches far past its one-element storage.
    add("HugeViewOverTinyStorage", Desc({k2p20, k2p20, k2p20, 1, 1}), Desc({k2p20, k2p20, k2p20, 1, 1}),
        {k2p20, 1, 1}, {k2p20, k2p20, k2p20, 1, 1}, "outside its storage");
    // Few elements, but strides whose span overflows int64.
    add("StrideSpanOverflows", Desc(small, {1, 1, k2p62, k2p62, 1}), Desc(small, {1, 1, k2p62, k2p62, 1}),
        {2, 2, 2}, small, "overflows int64");
    // An offset near int64's maximum.
    add("OffsetNearInt64Max", Desc(small, {}, kInt64Max - 2), Desc(small, {}, kInt64Max - 2), {2, 2, 2},
        small, "");
    // A dim just above CANN's limit.
    add("DimAboveLimit", Desc({1, 1, 1, 1, k2p20 + 1}, zeroStrides),
        Desc({1, 1, 1, 1, k2p20 + 1}, zeroStrides), {1, 1, k2p20 + 1}, {1, 1, 1, 1, k2p20 + 1}, "limit");
    // Sizes at int64's maximum in the int arrays.
    add("Int64MaxSizes", Desc(small), Desc(small), {kInt64Max, kInt64Max, kInt64Max},
        {kInt64Max, kInt64Max, kInt64Max, kInt64Max, kInt64Max}, "");
  }
  return cases;
}

// The linear group's entry points (rank 4: 2-D, rank 3: 1-D): every dim at CANN's limit (2^80 elements in
// 2-D; 2^60 in 1-D, which fit int64 but reach far past a one-element storage), strides whose span
// overflows, a dim above the limit.
std::vector<OverflowCase> LinearCases() {
  std::vector<OverflowCase> cases;
  const std::pair<bool, test::Api> entries[] = {{false, test::Api::kBilinear2d},
                                                {false, test::Api::kLinear1d},
                                                {true, test::Api::kBilinear2d},
                                                {true, test::Api::kBilinear2dBackwardV1},
                                                {true, test::Api::kLinear1d}};
  for (const auto &[backward, api] : entries) {
    const size_t spatial = static_cast<size_t>(test::ApiRank(api)) - 2;
    auto add = [&, backward = backward, api = api](const char *name, TensorDesc src, TensorDesc dst,
                                                   Dims outputSize, Dims inputSize, const char *messagePart) {
      src.format = dst.format = test::FormatFor(api, ACL_FORMAT_NCDHW);
      cases.push_back({name, backward, ACL_FLOAT, std::move(src), std::move(dst), std::move(outputSize),
                       std::move(inputSize), messagePart, api});
    };
    const Dims all(spatial + 2, k2p20), sizes(spatial, k2p20);
    add("AllDims2p20", Desc(all), Desc(all), sizes, all,
        spatial == 2 ? "overflows int64" : "outside its storage");
    Dims small(spatial + 2, 2), smallSizes(spatial, 2), spanStrides(spatial + 2, 1);
    spanStrides[1] = spanStrides[2] = k2p62;  // (2 - 1) * 2^62 twice: past int64
    add("StrideSpanOverflows", Desc(small, spanStrides), Desc(small, spanStrides), smallSizes, small,
        "overflows int64");
    Dims wide(spatial + 2, 1), wideSizes(spatial, 1), zero(spatial + 2, 0);
    wide.back() = k2p20 + 1;
    wideSizes.back() = k2p20 + 1;
    add("DimAboveLimit", Desc(wide, zero), Desc(wide, zero), wideSizes, wide, "limit");
  }
  return cases;
}

// Element counts and storage that fit int64, but whose bytes do not: 2^61 doubles are 2^64 bytes,
// more than any address space, and byte offsets into them overflow (a case the fuzzer found).
std::vector<OverflowCase> ByteOverflowCases() {
  const Dims huge = {k2p20, k2p20, k2p20, 2, 1};  // 2^61 elements
  const Dims planes = {k2p20, k2p20, 1, 1, 1};    // 2^40 elements
  TensorDesc big = Desc(huge);
  big.storageDims = {int64_t{1} << 61};
  TensorDesc small = Desc(planes);
  small.storageDims = {int64_t{1} << 40};
  return {
      {"BytesOverflowInt64", true, ACL_DOUBLE, small, big, {1, 1, 1}, huge, ""},
      {"BytesOverflowInt64", false, ACL_DOUBLE, small, big, {k2p20, 2, 1}, {}, ""},
  };
}

class Overflow : public ::testing::TestWithParam<OverflowCase> {};

TEST_P(Overflow, RejectedWith161002AndNoLargeAllocation) {
  const OverflowCase &c = GetParam();
  aclTensor *src = Create(c.src, c.dtype);
  aclTensor *dst = Create(c.dst, c.dtype);
  ASSERT_NE(src, nullptr);
  ASSERT_NE(dst, nullptr);
  aclIntArray *outputSize = aclCreateIntArray(c.outputSize.data(), c.outputSize.size());
  aclIntArray *inputSize = aclCreateIntArray(c.inputSize.data(), c.inputSize.size());
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  (void)aclGetRecentErrMsg();
  test::ResetLargestAllocation();
  aclnnStatus status = ACLNN_SUCCESS;
  switch (c.api) {
    case test::Api::kTrilinear3d:
      status = c.backward
                   ? aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
                         src, outputSize, inputSize, false, 0.0, 0.0, 0.0, dst, &workspaceSize, &executor)
                   : aclnnUpsampleTrilinear3dGetWorkspaceSize(src, outputSize, false, 0.0, 0.0, 0.0, dst,
                                                              &workspaceSize, &executor);
      break;
    case test::Api::kBilinear2d:
      status = c.backward ? aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                                src, outputSize, inputSize, false, 0.0, 0.0, dst, &workspaceSize, &executor)
                          : aclnnUpsampleBilinear2dGetWorkspaceSize(src, outputSize, false, 0.0, 0.0, dst,
                                                                    &workspaceSize, &executor);
      break;
    case test::Api::kBilinear2dBackwardV1:
      status = aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(src, outputSize, inputSize, false, 0.0, 0.0,
                                                               dst, &workspaceSize, &executor);
      break;
    case test::Api::kLinear1d:  // the forward's "no scale" is -1 (0 must give the size)
      status = c.backward ? aclnnUpsampleLinear1dBackwardGetWorkspaceSize(src, outputSize, inputSize, false,
                                                                          0.0, dst, &workspaceSize, &executor)
                          : aclnnUpsampleLinear1dGetWorkspaceSize(src, outputSize, false, -1.0, dst,
                                                                  &workspaceSize, &executor);
      break;
  }
  const size_t largest = test::LargestAllocation();
  const std::string message = aclGetRecentErrMsg();
  EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID) << message << " (workspace " << workspaceSize << ")";
  EXPECT_EQ(executor, nullptr);
  EXPECT_FALSE(message.empty());
  EXPECT_NE(message.find(c.messagePart), std::string::npos) << message;
  EXPECT_LE(largest, kMaxAllocationBytes);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  aclDestroyTensor(src);
  aclDestroyTensor(dst);
}

std::string CaseName(const ::testing::TestParamInfo<OverflowCase> &info) {
  if (info.param.api !=
      test::Api::kTrilinear3d)  // aclnnUpsampleBilinear2dBackward... -> Bilinear2dBackward...
    return test::ApiName(info.param.backward, info.param.api).substr(13) + info.param.name;
  return std::string(info.param.backward ? "Backward" : "Forward") + info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Overflow, ::testing::ValuesIn(Cases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Bytes, Overflow, ::testing::ValuesIn(ByteOverflowCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(LinearGroup, Overflow, ::testing::ValuesIn(LinearCases()), CaseName);

}  // namespace
}  // namespace trilinear3d::reliability
