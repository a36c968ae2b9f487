// The cubic group's forward row paths, through the public API against the float64 reference:
//  - the blend of an out row from all of its H taps in one pass (op_kernel/blend_tap_rows.h): bicubic's
//    four taps, and antialiased shrinks whose tap lists are longer than one call's arrays (the blend
//    continued on the stored row), rows of every length around a vector and its tails;
//  - the 2-D operators' H pass reading the source rows in place (the unit D axis' identity pass
//    skipped), on contiguous and on sliced rows (row stride other than the row);
//  - the W pass of four rows on the rows' lanes (op_kernel/resample_rows_w_row_lanes.h), their H blend
//    stored interleaved: W shrinks of 4 to 4.6 (lists of 9 to 19 entries, consecutive: the unrolled
//    steps), rows of 37, 230 and 300 elements (vector and block tails), outputs per row not a multiple of
//    4, batches of four rows and the rest;
//  - bicubic's exact 2x W written straight into line-aligned destination rows
//    (op_kernel/resample_rows_w_cubic2x_streamed.h): source rows of whole vectors of every tier (8 to 128
//    elements), with the end groups' outputs from the lists, batches of four rows and the rest of an
//    H chunk; by sizes and by a W scale of 2. The test runs again with TRILINEAR3D_STREAM_STORES=always
//    (so that small destinations take the streamed rows) and on each lower tier (CMakeLists.txt).
// TRILINEAR3D_TEST_SAMPLE=k runs every k-th sweep case.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "cubic_ops.h"
#include "op_runner.h"
#include "reference/filter_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {
namespace {

struct RowsParam {
  FilterKind kind;
  int64_t n, c, inH, inW, outH, outW;
  aclDataType dtype;
  MemLayout layout;
  double scalesW;
};

std::vector<RowsParam> Sweep() {
  std::vector<RowsParam> params;
  // Bicubic exact 2x in W: source rows of whole vectors (8: the baseline tier's pair of groups; 16, 24:
  // AVX2's; 32, 48: AVX-512's; 128: many groups), H growing or shrinking, by sizes and by scale 2.
  for (int64_t inW : {8, 16, 24, 32, 48, 128}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE}) {
      for (double scalesW : {0.0, 2.0}) {
        params.push_back(
            {FilterKind::kBicubic, 2, 3, 7, inW, 13, 2 * inW, dtype, MemLayout::kContiguous, scalesW});
        params.push_back(
            {FilterKind::kBicubic, 1, 2, 9, inW, 4, 2 * inW, dtype, MemLayout::kContiguous, scalesW});
      }
    }
  }
  // Long H tap lists (antialiased shrinks of 1/9 to 1/40: 19 to 161 taps per output), rows of 1 to 37
  // elements; bicubic's four taps on rows around the vectors' lengths.
  for (FilterKind kind : CubicOpsUnderTest()) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT16}) {
      for (MemLayout layout : {MemLayout::kContiguous, MemLayout::kSliced}) {
        params.push_back({kind, 1, 2, 200, 37, 5, 9, dtype, layout, 0.0});
        params.push_back({kind, 1, 3, 90, 1, 10, 1, dtype, layout, 0.0});
        params.push_back({kind, 2, 2, 23, 17, 11, 33, dtype, layout, 0.0});
        params.push_back({kind, 1, 2, 12, 71, 25, 60, dtype, layout, 0.0});
        params.push_back({kind, 1, 3, 128, 300, 28, 66, dtype, layout, 0.0});
        params.push_back({kind, 1, 2, 160, 230, 37, 50, dtype, layout, 0.0});
      }
    }
  }
  return SampledCases(params);
}

void PrintTo(const RowsParam &p, std::ostream *os) {
  *os << CubicOpName(p.kind) << " " << p.n << "x" << p.c << "x" << p.inH << "x" << p.inW << " -> " << p.outH
      << "x" << p.outW << " " << DtypeName(p.dtype) << " " << LayoutName(p.layout)
      << (p.scalesW > 0 ? " scalesW" : "");
}

std::string RowsName(const ::testing::TestParamInfo<RowsParam> &info) {
  const RowsParam &p = info.param;
  return std::string(CubicOpName(p.kind)) + "_" + std::to_string(p.inH) + "x" + std::to_string(p.inW) +
         "_to_" + std::to_string(p.outH) + "x" + std::to_string(p.outW) + "_" + DtypeName(p.dtype) + "_" +
         LayoutName(p.layout) + (p.scalesW > 0 ? "_ScalesW" : "") + "_" + std::to_string(info.index);
}

class CubicForwardRows : public ::testing::TestWithParam<RowsParam> {};

TEST_P(CubicForwardRows, MatchesFloat64Reference) {
  const RowsParam &s = GetParam();
  FilterProblem p{s.kind, s.n, s.c, s.inH, s.inW, s.outH, s.outW, false, 0.0, s.scalesW};
  TracedRng rng;
  ExpectCubicOpAccurate(p, false, s.dtype, ACL_FORMAT_NCHW, rng, s.layout);
}

INSTANTIATE_TEST_SUITE_P(Sweep, CubicForwardRows, ::testing::ValuesIn(Sweep()), RowsName);

// A destination the tiling streams by itself (over 4 MiB), bicubic exact 2x with rows of 128: the
// streamed W rows under the default setting, with items of whole H chunks.
TEST(CubicForwardRowsLarge, StreamedExact2xMatchesReference) {
  FilterProblem p{FilterKind::kBicubic, 2, 20, 64, 128, 128, 256, false, 0.0, 0.0};
  TracedRng rng;
  ExpectCubicOpAccurate(p, false, ACL_FLOAT, ACL_FORMAT_NCHW, rng);
}

}  // namespace
}  // namespace trilinear3d::test
