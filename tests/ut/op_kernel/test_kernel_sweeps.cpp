// Every registry kernel on every ISA tier this CPU supports, run directly through its entry point
// (kernel_tester.h), for each dtype, both memory layouts and both align_corners settings the kernel
// applies to, on shapes with tails, shrinking and growing axes, identity axes and channels-inner rows.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <array>
#include <ostream>
#include <string>
#include <vector>

#include "kernel_tester.h"

namespace trilinear3d::test {
namespace {

struct SweepParam {
  std::string kernel;
  std::string isa;
  aclDataType dtype;
  aclFormat layout;
  bool alignCorners;
};

struct SweepShape {
  std::array<int64_t, 5> input;   // the op's small side: N, C, D, H, W
  std::array<int64_t, 3> output;  // the large side's D, H, W
  std::array<double, 3> scales;   // all > 0: user scales (floor(in * s) == out on each axis)
};

// gtest prints a failing case's parameter with this.
void PrintTo(const SweepParam &p, std::ostream *os) {
  *os << p.kernel << " on " << p.isa << ", " << DtypeName(p.dtype) << " " << FormatName(p.layout)
      << (p.alignCorners ? ", align_corners" : "");
}

bool IsStencil(const std::string &kernel) { return kernel == "backward_stencil2x"; }
// The nearest kernels take the nearest operators' one-tap problems only (tests/ut/op_api/test_nearest_*).
bool IsNearest(const std::string &kernel) {
  return kernel == "nearest_backward" || kernel == "nearest_forward";
}

// The doubling stencil: every axis exactly doubled. In NDHWC its rows have unit W stride only with C = 1.
std::vector<SweepShape> StencilShapes(aclFormat layout) {
  const int64_t c = layout == ACL_FORMAT_NDHWC ? 1 : 3;
  return {
      {{1, c, 3, 5, 17}, {6, 10, 34}, {0.0, 0.0, 0.0}},
      {{2, c, 2, 4, 16}, {4, 8, 32}, {2.0, 2.0, 2.0}},
      {{1, 1, 1, 3, 40}, {2, 6, 80}, {0.0, 0.0, 0.0}},
  };
}

// The general kernels apply to every shape. C = 9 gives channels-inner rows in NDHWC.
std::vector<SweepShape> GeneralShapes() {
  return {
      {{2, 3, 4, 5, 7}, {7, 9, 13}, {0.0, 0.0, 0.0}},   // every axis grows, with tails
      {{2, 3, 4, 5, 7}, {7, 9, 13}, {1.8, 1.85, 1.9}},  // the same with user scales
      {{1, 2, 9, 8, 20}, {4, 5, 9}, {0.0, 0.0, 0.0}},   // every axis shrinks
      {{1, 9, 3, 6, 5}, {5, 3, 11}, {0.0, 0.0, 0.0}},   // mixed, channels-inner rows in NDHWC
      {{1, 2, 4, 6, 6}, {4, 11, 3}, {0.0, 0.0, 0.0}},   // an identity axis
      {{1, 10, 2, 2, 33}, {3, 3, 4}, {0.0, 0.0, 0.0}},  // W shrinks far: the forward's W-first order
      // W shrinks 4.5x (the backward's W pass on eight rows' lanes) and H with it (lists of seven taps,
      // a short batch of six rows), or H grows (rows no tap reaches, batches of 8 + 5)
      {{1, 2, 3, 6, 8}, {5, 21, 36}, {0.0, 0.0, 0.0}},
      {{1, 2, 3, 13, 8}, {5, 5, 36}, {0.0, 0.0, 0.0}},
      // W exactly halves over long rows (70 <- 140): the halving run's vector loop several times a row,
      // its rows starting at four alignments (AVX-512: from the row's first line-aligned pair)
      {{1, 2, 2, 3, 70}, {3, 6, 140}, {0.0, 0.0, 0.0}},
      // W exactly halves over short rows (8 <- 16, 12 <- 24): a halving run of 6 or 10 outputs, under the
      // halving vectors' V (both AVX tiers, AVX-512), whose rows the windowed vector steps take
      {{1, 2, 3, 5, 8}, {5, 9, 16}, {0.0, 0.0, 0.0}},
      {{1, 2, 3, 5, 12}, {5, 9, 24}, {0.0, 0.0, 0.0}},
  };
}

std::vector<SweepParam> AllParams() {
  std::vector<SweepParam> params;
  for (int k = 0; k < tiling::kKernelCount; ++k) {
    const std::string kernel = tiling::KernelEntries()[k].name;
    if (IsNearest(kernel)) continue;  // their problems: test_nearest_accuracy, on every tier
    for (const std::string &isa : SupportedIsaNames()) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
        for (aclFormat layout : {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}) {
          for (bool alignCorners : {false, true}) {
            // The stencil applies to fp32 without align_corners only (its registry check).
            if (IsStencil(kernel) && (dtype != ACL_FLOAT || alignCorners)) continue;
            params.push_back({kernel, isa, dtype, layout, alignCorners});
          }
        }
      }
    }
  }
  return params;
}

class KernelSweep : public ::testing::TestWithParam<SweepParam> {};

TEST_P(KernelSweep, MatchesFloat64Reference) {
  const SweepParam &p = GetParam();
  const std::vector<SweepShape> shapes = IsStencil(p.kernel) ? StencilShapes(p.layout) : GeneralShapes();
  for (const SweepShape &shape : shapes) {
    for (int64_t cores : {1, 3}) {
      KernelTester tester;
      tester.Input(shape.input[0], shape.input[1], shape.input[2], shape.input[3], shape.input[4])
          .Output(shape.output[0], shape.output[1], shape.output[2])
          .AlignCorners(p.alignCorners)
          .DataType(p.dtype)
          .Layout(p.layout)
          .Kernel(p.kernel)
          .Isa(p.isa)
          .Cores(cores);
      // User scales count only without align_corners (docs/spec.md §2); with it they would be ignored.
      if (!p.alignCorners) tester.Scales(shape.scales[0], shape.scales[1], shape.scales[2]);
      tester.Test();
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelSweep, ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<SweepParam> &info) {
                           const SweepParam &p = info.param;
                           return p.kernel + "_" + p.isa + "_" + DtypeName(p.dtype) + "_" +
                                  FormatName(p.layout) + (p.alignCorners ? "_AlignCorners" : "");
                         });

// Every registry kernel is swept (a kernel added to the registry joins the sweep), on every tier.
TEST(KernelSweepCoverage, EveryKernelOnEveryTier) {
  const std::vector<SweepParam> params = AllParams();
  for (int k = 0; k < tiling::kKernelCount; ++k) {
    if (IsNearest(tiling::KernelEntries()[k].name)) continue;
    for (const std::string &isa : SupportedIsaNames()) {
      bool found = false;
      for (const SweepParam &p : params)
        found = found || (p.kernel == tiling::KernelEntries()[k].name && p.isa == isa);
      EXPECT_TRUE(found) << tiling::KernelEntries()[k].name << " on " << isa;
    }
  }
  EXPECT_FALSE(SupportedIsaNames().empty());
}

// The tester fails where it should: a kernel forced onto a shape it does not apply to is an error,
// not a silent fallback.
TEST(KernelTesterSelfCheck, RejectsAKernelThatDoesNotApply) {
  EXPECT_FATAL_FAILURE(KernelTester()
                           .Input(1, 1, 3, 3, 3)
                           .Output(5, 5, 5)
                           .Kernel("backward_stencil2x")
                           .Isa(SupportedIsaNames().back())
                           .Test(),
                       "does not apply");
}

}  // namespace
}  // namespace trilinear3d::test
