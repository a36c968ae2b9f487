// The channels-inner W pass (op_kernel/resample_row_c_inner.h) on its halving run, the interior of an
// exact 2x W axis of a backward (align_corners false), where each output takes the fixed four source
// positions 2j - 1 .. 2j + 2 instead of its list: both backward kernels that run it (width-first, with
// the H scatter fused into it, and width-last, on W chunks of long rows) on every tier and dtype,
// through kernel_tester.h against the float64 reference. The shapes give the run's edges: rows too short
// for a run (W = 1, 2) or of one output (W = 3), the list outputs at both row ends; C (channels-inner
// rows from 8 on) of partial vectors only, of tails after whole vectors and after whole chunks of
// channels, several chunks; H grows by 2x (the scatter's targets assigned and added) and by 7/3.
// TRILINEAR3D_TEST_SAMPLE=k runs every k-th shape.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "kernel_tester.h"

namespace trilinear3d::test {
namespace {

struct HalvingParam {
  std::string kernel;
  std::string isa;
  aclDataType dtype;
};

void PrintTo(const HalvingParam &p, std::ostream *os) {
  *os << p.kernel << " on " << p.isa << ", " << DtypeName(p.dtype);
}

struct HalvingShape {
  std::array<int64_t, 5> input;   // N, C, D, H, W of gradInput
  std::array<int64_t, 3> output;  // D, H, W of gradOut: W = 2 W
};

std::vector<HalvingShape> HalvingShapes() {
  std::vector<HalvingShape> shapes;
  for (int64_t c : {8, 9, 12, 16, 17, 33, 64, 70, 130}) {
    for (int64_t w : {1, 2, 3, 5, 17}) {
      shapes.push_back({{1, c, 1, 3, w}, {1, 6, 2 * w}});
      shapes.push_back({{2, c, 2, 3, w}, {3, 7, 2 * w}});
    }
  }
  // Long rows: the width-last kernel's W chunks (a source row offset, srcFirst, within the run).
  shapes.push_back({{1, 17, 1, 2, 520}, {1, 4, 1040}});
  shapes.push_back({{1, 3, 1, 2, 3000}, {1, 4, 6000}});
  // TRILINEAR3D_TEST_SAMPLE=k (k > 1): every k-th shape, from the first (the emulated CI steps).
  const char *env = std::getenv("TRILINEAR3D_TEST_SAMPLE");
  const long k = env != nullptr ? std::strtol(env, nullptr, 10) : 1;
  if (k <= 1) return shapes;
  std::vector<HalvingShape> sample;
  for (size_t i = 0; i < shapes.size(); i += static_cast<size_t>(k)) sample.push_back(shapes[i]);
  return sample;
}

std::vector<HalvingParam> AllParams() {
  std::vector<HalvingParam> params;
  for (const char *kernel : {"backward_width_first", "backward_width_last"}) {
    for (const std::string &isa : SupportedIsaNames()) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE})
        params.push_back({kernel, isa, dtype});
    }
  }
  return params;
}

class CInnerHalvingRun : public ::testing::TestWithParam<HalvingParam> {};

TEST_P(CInnerHalvingRun, MatchesFloat64Reference) {
  const HalvingParam &p = GetParam();
  for (const HalvingShape &shape : HalvingShapes()) {
    for (int64_t cores : {1, 3}) {
      KernelTester()
          .Input(shape.input[0], shape.input[1], shape.input[2], shape.input[3], shape.input[4])
          .Output(shape.output[0], shape.output[1], shape.output[2])
          .DataType(p.dtype)
          .Layout(ACL_FORMAT_NDHWC)
          .Kernel(p.kernel)
          .Isa(p.isa)
          .Cores(cores)
          .Test();
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BackwardKernels, CInnerHalvingRun, ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<HalvingParam> &info) {
                           return info.param.kernel + "_" + info.param.isa + "_" +
                                  DtypeName(info.param.dtype);
                         });

}  // namespace
}  // namespace trilinear3d::test
