// Guard bands: the written tensor (gradInput / out) sits inside a larger allocation filled with a
// canary, its view poisoned with NaN. After the op every element of the view holds a finite value
// within docs/spec.md §5's bound of the float64 reference, no byte outside the view changed, and the
// tensor read (gradOut / self) is byte-for-byte unchanged, guards included. For all seven entry points
// (the linear group's on the problems with unit D (and H) axes, in their formats), every dtype, and
// contiguous NCDHW / ND / NDHWC, permuted (the other memory order) and sliced views.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "acl_test_environment.h"
#include "reliability_support.h"

namespace trilinear3d::reliability {
namespace {

struct ViewKind {
  aclFormat format;
  MemLayout layout;
};

const ViewKind kViewKinds[] = {
    {ACL_FORMAT_NCDHW, MemLayout::kContiguous}, {ACL_FORMAT_ND, MemLayout::kContiguous},
    {ACL_FORMAT_NDHWC, MemLayout::kContiguous}, {ACL_FORMAT_NCDHW, MemLayout::kPermuted},
    {ACL_FORMAT_NDHWC, MemLayout::kPermuted},   {ACL_FORMAT_NCDHW, MemLayout::kSliced},
    {ACL_FORMAT_NDHWC, MemLayout::kSliced},
};
constexpr int kViewKindCount = sizeof(kViewKinds) / sizeof(kViewKinds[0]);

BackwardProblem Problem(Shape5 inputSize, std::array<int64_t, 3> outputSize, bool alignCorners,
                        std::array<double, 3> scales = {0.0, 0.0, 0.0}) {
  return BackwardProblem{inputSize, outputSize, alignCorners, scales};
}

// Odd sizes and tails; an identity axis; downsampling with user scales; C >= 8 (the channels-inner
// path when C is contiguous); N * C = 1.
std::vector<BackwardProblem> Problems() {
  return {
      Problem({2, 3, 4, 5, 6}, {7, 9, 11}, false),
      Problem({1, 9, 3, 4, 5}, {3, 7, 10}, true),
      Problem({2, 2, 6, 8, 9}, {3, 4, 5}, false, {0.5, 0.5, 0.6}),
      Problem({1, 16, 2, 3, 17}, {5, 6, 33}, false, {2.5, 2.0, 1.95}),
      Problem({1, 1, 1, 1, 1}, {2, 1, 3}, false),
  };
}

// Each problem through the entry point (backward, api) on dtype, the written tensor of view kind `kind`.
void ExpectGuardBandsHold(bool backward, test::Api api, aclDataType dtype, int kind, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<BackwardProblem> problems = Problems();
  for (size_t i = 0; i < problems.size(); ++i) {
    OpCase c;
    c.backward = backward;
    c.dtype = dtype;
    c.problem = problems[i];
    c.dstFormat = kViewKinds[kind].format;
    c.dstLayout = kViewKinds[kind].layout;
    // The tensor read walks the view kinds too, offset so that it differs from the written one.
    const ViewKind &srcKind = kViewKinds[(kind + 1 + static_cast<int>(i)) % kViewKindCount];
    c.srcFormat = srcKind.format;
    c.srcLayout = srcKind.layout;
    c.dataSeed = rng();
    if (api != test::Api::kTrilinear3d) WithApi(api, &c);
    SCOPED_TRACE(c.Describe());

    PreparedCase p;
    ASSERT_TRUE(Prepare(c, &p));
    const std::vector<uint8_t> srcBefore = p.src->StorageBytes();
    ASSERT_TRUE(Enqueue(&p, nullptr));
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);

    const std::vector<double> got = p.dst->Download();
    size_t notFinite = 0;
    for (double v : got) notFinite += std::isfinite(v) ? 0 : 1;
    EXPECT_EQ(notFinite, 0u) << "elements of the written view left NaN (not written) or not finite";
    EXPECT_TRUE(test::MatchesReference(got, Reference(c, p.srcValues), test::ToleranceFor(dtype, c.problem),
                                       c.DstShape()));
    EXPECT_TRUE(p.dst->CanaryIntact()) << "the written tensor";
    EXPECT_TRUE(p.src->StorageBytes() == srcBefore) << "the tensor read was modified";
  }
}

// (backward, dtype, view kind of the written tensor)
using Param = std::tuple<bool, aclDataType, int>;

class GuardBands : public ::testing::TestWithParam<Param> {
 protected:
  const uint64_t seed_ = test::FreshSeed();
  const ::testing::ScopedTrace trace_{__FILE__, __LINE__, test::SeedTrace(seed_)};
};

TEST_P(GuardBands, EveryViewElementWrittenNothingElse) {
  const auto [backward, dtype, kind] = GetParam();
  ExpectGuardBandsHold(backward, test::Api::kTrilinear3d, dtype, kind, seed_);
}

std::string ParamName(const ::testing::TestParamInfo<Param> &info) {
  const auto [backward, dtype, kind] = info.param;
  return std::string(backward ? "Backward" : "Forward") + test::DtypeName(dtype) +
         test::FormatName(kViewKinds[kind].format) + LayoutName(kViewKinds[kind].layout);
}

INSTANTIATE_TEST_SUITE_P(AllOpsDtypesViews, GuardBands,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                                            ::testing::Range(0, kViewKindCount)),
                         ParamName);

// The linear group: (entry point, dtype, view kind of the written tensor); entry 0-1 the forwards
// (Bilinear2d, Linear1d), 2-4 the backwards (V2, V1, Linear1d).
using LinearParam = std::tuple<int, aclDataType, int>;
constexpr std::pair<bool, test::Api> kLinearEntries[] = {
    {false, test::Api::kBilinear2d},          {false, test::Api::kLinear1d}, {true, test::Api::kBilinear2d},
    {true, test::Api::kBilinear2dBackwardV1}, {true, test::Api::kLinear1d},
};

class GuardBandsLinear : public ::testing::TestWithParam<LinearParam> {
 protected:
  const uint64_t seed_ = test::FreshSeed();
  const ::testing::ScopedTrace trace_{__FILE__, __LINE__, test::SeedTrace(seed_)};
};

TEST_P(GuardBandsLinear, EveryViewElementWrittenNothingElse) {
  const auto [entry, dtype, kind] = GetParam();
  const auto [backward, api] = kLinearEntries[entry];
  ExpectGuardBandsHold(backward, api, dtype, kind, seed_);
}

std::string LinearParamName(const ::testing::TestParamInfo<LinearParam> &info) {
  const auto [entry, dtype, kind] = info.param;
  const auto [backward, api] = kLinearEntries[entry];
  return test::ApiName(backward, api).substr(13) + test::DtypeName(dtype) +
         test::FormatName(test::FormatFor(api, kViewKinds[kind].format)) +
         LayoutName(kViewKinds[kind].layout) + std::to_string(kind);  // 1-D: NCDHW and NDHWC are both NCL
}

// Every entry x dtype x view kind (TRILINEAR3D_TEST_SAMPLE=k: every k-th, for the emulated CI steps).
std::vector<LinearParam> LinearParams() {
  std::vector<LinearParam> params;
  for (int entry = 0; entry < 5; ++entry) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      for (int kind = 0; kind < kViewKindCount; ++kind) params.emplace_back(entry, dtype, kind);
    }
  }
  return test::SampledCases(params);
}

INSTANTIATE_TEST_SUITE_P(EntriesDtypesViews, GuardBandsLinear, ::testing::ValuesIn(LinearParams()),
                         LinearParamName);

// Empty tensors (N = 0, or C = 0 in the backward) succeed and write nothing: the canary of the whole
// allocation survives. The forward rejects C = 0 (CANN's 161002), and writes nothing either.
TEST(GuardBandsEmpty, EmptyTensorsWriteNothing) {
  for (bool backward : {true, false}) {
    for (const Shape5 &in : {Shape5{0, 3, 2, 3, 4}, Shape5{2, 0, 2, 3, 4}}) {
      OpCase c;
      c.backward = backward;
      c.problem = Problem(in, {4, 5, 6}, false);
      SCOPED_TRACE(c.Describe());
      PreparedCase p;
      if (!backward && in[1] == 0) {
        const ::testing::AssertionResult prepared = Prepare(c, &p);
        EXPECT_FALSE(prepared);
        EXPECT_NE(std::string(prepared.message()).find("returned 161002"), std::string::npos)
            << prepared.message();
        EXPECT_EQ(p.op.executor, nullptr);
        EXPECT_TRUE(p.dst->CanaryIntact());
        continue;
      }
      ASSERT_TRUE(Prepare(c, &p));
      EXPECT_EQ(p.op.workspaceSize, 0u);
      ASSERT_TRUE(Enqueue(&p, nullptr));
      ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
      EXPECT_TRUE(p.dst->CanaryIntact());
    }
  }
}

}  // namespace
}  // namespace trilinear3d::reliability
