// Destinations large enough to be written with non-temporal stores (tiling::kStreamStoreBytes),
// whose rows are not a multiple of 64 bytes: the kernels join an item's rows into one span and
// stream whole lines only (LineStreamer of op_kernel/stream_stores.h, and the width-first
// backward's chunk runs), so the spans start and end inside lines, and neighbouring spans (other
// items, maybe other cores) share those lines. Every element must still match the float64
// reference, and nothing outside the views changes. Views whose rows are not contiguous take the
// per-row path.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>

#include "acl_test_environment.h"
#include "op_host/resample_tiling.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

struct StreamedCase {
  const char *name;
  Shape5 small;                  // gradInput (backward) / self (forward)
  std::array<int64_t, 3> large;  // gradOut's D, H, W (backward) / out's (forward)
  aclDataType dtype;
  aclFormat format;
  MemLayout layout;
  bool alignCorners;
};

// Rows of 131 (W inner) or 131 x 8 (channels inner: tiling::kMinChannelsInner) elements, 125 rows per
// plane, so that spans begin and end inside lines; D and H grow or shrink so that both backward kernels
// (each forced below) and both forward pass orders are reached.
constexpr Shape5 kRowsW{1, 5, 16, 125, 131};
constexpr Shape5 kRowsWC{1, 8, 10, 125, 131};
// Channels inner with 16 fp32 channels: every position is a whole 64-byte line, so the W pass writes the
// rows itself (the backward's halving run, the forward's one-pass H blend and W pass) instead of a row
// that the spans copy.
constexpr Shape5 kLinesWC{1, 16, 6, 100, 128};
constexpr auto kNcdhw = ACL_FORMAT_NCDHW;
constexpr auto kNdhwc = ACL_FORMAT_NDHWC;
constexpr auto kDense = MemLayout::kContiguous;

// clang-format off
const StreamedCase kBackwardCases[] = {
    {"ShrinkFloat",             kRowsW,  {24, 160, 200}, ACL_FLOAT,  kNcdhw, kDense, false},
    {"ShrinkFloatChannelsLast", kRowsWC, {15, 160, 200}, ACL_FLOAT,  kNdhwc, kDense, true},
    {"ShrinkDouble",            kRowsW,  {24, 160, 200}, ACL_DOUBLE, kNcdhw, kDense, true},
    // gradOut smaller than gradInput: whole gradInput planes of one tap (the scaled store).
    {"GrowFloat",               kRowsW,  {8, 63, 66},    ACL_FLOAT,  kNcdhw, kDense, false},
    {"GrowDoubleChannelsLast",  kRowsWC, {5, 63, 66},    ACL_DOUBLE, kNdhwc, kDense, false},
    {"HalvingWFloatLines",      kLinesWC, {6, 100, 256}, ACL_FLOAT,  kNdhwc, kDense, false},
    {"ShrinkFloatLines",        kLinesWC, {8, 130, 250},  ACL_FLOAT, kNdhwc, kDense, true},
    // Channels-last memory under an NCDHW view: no contiguous rows, stored row by row.
    {"ShrinkFloatPermuted",     kRowsW,  {24, 160, 200}, ACL_FLOAT,  kNcdhw, MemLayout::kPermuted, false},
};

const StreamedCase kForwardCases[] = {
    {"GrowFloat",             {1, 5, 8, 63, 66},  {16, 125, 131}, ACL_FLOAT,  kNcdhw, kDense, true},
    {"GrowFloatChannelsLast", {1, 8, 5, 63, 66},  {10, 125, 131}, ACL_FLOAT,  kNdhwc, kDense, false},
    {"GrowDouble",            {1, 5, 8, 63, 66},  {16, 125, 131}, ACL_DOUBLE, kNcdhw, kDense, false},
    // W shrinks 400 -> 131: the forward resamples W first.
    {"ShrinkWFloat",          {1, 5, 8, 63, 400}, {16, 125, 131}, ACL_FLOAT,  kNcdhw, kDense, false},
    {"ShrinkWDouble",         {1, 5, 8, 63, 400}, {16, 125, 131}, ACL_DOUBLE, kNcdhw, kDense, true},
    {"ShrinkWFloatChannelsLast", {1, 8, 5, 63, 400}, {10, 125, 131}, ACL_FLOAT, kNdhwc, kDense, true},
    {"DoublingFloatLines",    {1, 16, 5, 50, 64},  {10, 100, 128}, ACL_FLOAT, kNdhwc, kDense, false},
    {"GrowFloatLinesOneTapH", {1, 16, 5, 100, 64}, {10, 100, 131}, ACL_FLOAT, kNdhwc, kDense, true},
};
// clang-format on

// The case's destination must be one the tiling streams, or the test would not cover what it names.
::testing::AssertionResult Streamed(const Shape5 &dst, aclDataType dtype) {
  const int64_t bytes = ElementCount(dst) * static_cast<int64_t>(DtypeSize(dtype));
  if (bytes > tiling::kStreamStoreBytes) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "destination of " << bytes << " bytes is not streamed (threshold "
                                       << tiling::kStreamStoreBytes << ")";
}

// The case as a problem of either operator, on fresh data (the seed reported on failure), both tensors in
// the case's format and layout: the result matches the float64 reference and nothing outside the views
// changes (ExpectViewsMatchReference).
template <typename Problem>
void ExpectStreamedMatchesReference(const StreamedCase &c) {
  const Problem problem{c.small, c.large, c.alignCorners};
  ASSERT_TRUE(Streamed(WrittenShape(problem), c.dtype));
  TracedRng rng;
  SCOPED_TRACE(problem.Describe());
  ExpectViewsMatchReference(problem, c.dtype, ViewCase{c.format, c.layout, c.format, c.layout}, rng);
}

class StreamedBackward : public BackwardKernelsTest<StreamedCase> {};

TEST_P(StreamedBackward, MatchesFloat64Reference) {
  ExpectStreamedMatchesReference<BackwardProblem>(TestCase());
}

INSTANTIATE_TEST_SUITE_P(Rows, StreamedBackward, WithBackwardKernels(kBackwardCases), CaseAndKernelName());

class StreamedForward : public ::testing::TestWithParam<StreamedCase> {};

TEST_P(StreamedForward, MatchesFloat64Reference) {
  ExpectStreamedMatchesReference<ForwardProblem>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Rows, StreamedForward, ::testing::ValuesIn(kForwardCases), CaseName());

}  // namespace
}  // namespace trilinear3d::test
