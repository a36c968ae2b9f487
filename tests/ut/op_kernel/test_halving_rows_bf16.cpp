// The bf16 exact-2x backward's row routines, through the public API (bilinear2d backward, NCHW, align_corners
// false: the width-last kernel with a direct plane): the H step of up to four gradInput rows at once from
// the gradOut rows they share (CombineHalvingRowsSplit), and the W pass that narrows the split rows straight
// into gradInput (HalvingRowsSplitNarrow). Heights 1 to 13 give batches of every row count and rows outside
// the H run (the first two, the last); widths around one and two vectors of AVX2 and AVX-512 give runs with
// and without a partial last group, and rows whose W run is too short for the vectors (the lists only);
// from 48 outputs the row's ends are vectors too (SplitEnds), 47 is the longest row whose ends are not. Each
// case matches the float64 reference on fresh data with nothing outside gradInput's view written; ±inf / NaN
// keep their classes (the narrowing's NaN); a strided gradInput (no straight narrowing), fp16 (no split
// rows) and trilinear bf16 cases (a D step, whose D indices share planes in several ways) take the other
// paths. TRILINEAR3D_TEST_SAMPLE=k runs every k-th case.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"
#include "test_tensor.h"

namespace trilinear3d::test {
namespace {

struct HalvingCase {
  int64_t planes;  // N x C = 1 x planes
  int64_t h, w;    // gradInput's H, W; gradOut is 2h x 2w
  aclDataType dtype;
  MemLayout layout;  // of both tensors
  Api api;
  int64_t d = 3, dOut = 6;  // trilinear: gradInput's D and gradOut's
};

std::string CaseName(const HalvingCase &c) {
  return std::string(ApiLabel(c.api)) + "_" + DtypeName(c.dtype) + "_" +
         (c.layout == MemLayout::kContiguous ? "Dense" : "Sliced") + "_" + std::to_string(c.planes) + "x" +
         std::to_string(c.h) + "x" + std::to_string(c.w) +
         (c.api == Api::kTrilinear3d ? "_D" + std::to_string(c.d) + "to" + std::to_string(c.dOut) : "");
}

// gtest prints a parameter it has no printer for as its bytes, the struct's padding included (read
// uninitialised: valgrind's error); the case's name instead.
void PrintTo(const HalvingCase &c, std::ostream *os) { *os << CaseName(c); }

BackwardProblem ProblemOf(const HalvingCase &c) {
  const bool threeD = c.api == Api::kTrilinear3d;
  BackwardProblem p{
      {1, c.planes, threeD ? c.d : 1, c.h, c.w}, {threeD ? c.dOut : 1, 2 * c.h, 2 * c.w}, false};
  p.api = c.api;
  return p;
}

std::vector<HalvingCase> Cases() {
  std::vector<HalvingCase> cases;
  const int64_t widths[] = {4, 7, 10, 11, 12, 18, 19, 20, 21, 34, 35, 36, 37, 45, 47, 48, 67, 131};
  for (int64_t h = 1; h <= 13; ++h) {
    for (int64_t w : widths)
      cases.push_back({h % 3 == 0 ? 3 : 1, h, w, ACL_BF16, MemLayout::kContiguous, Api::kBilinear2d});
  }
  // Many planes: items cut in H, so batches start at other rows.
  cases.push_back({24, 64, 64, ACL_BF16, MemLayout::kContiguous, Api::kBilinear2d});
  cases.push_back({5, 29, 200, ACL_BF16, MemLayout::kContiguous, Api::kBilinear2d});
  for (int64_t w : {19, 37}) {
    cases.push_back({2, 9, w, ACL_BF16, MemLayout::kSliced, Api::kBilinear2d});
    cases.push_back({2, 9, w, ACL_FLOAT16, MemLayout::kContiguous, Api::kBilinear2d});
    cases.push_back({2, 9, w, ACL_BF16, MemLayout::kContiguous, Api::kTrilinear3d});
  }
  // D lists that overlap by one plane or two (D 5 -> 9), by about two (4 -> 17) and by 32 (2 -> 64: lists
  // longer than a sweep), and a single index (1 -> 7): the D step's planes shared with the next index.
  for (const auto &[d, dOut] : {std::pair<int64_t, int64_t>{5, 9}, {4, 17}, {2, 64}, {1, 7}}) {
    cases.push_back({2, 9, 37, ACL_BF16, MemLayout::kContiguous, Api::kTrilinear3d, d, dOut});
  }
  return SampledCases(cases);
}

class HalvingRowsBf16 : public ::testing::TestWithParam<HalvingCase> {};

TEST_P(HalvingRowsBf16, MatchesFloat64ReferenceWithinView) {
  const HalvingCase &c = GetParam();
  const BackwardProblem p = ProblemOf(c);
  const aclFormat format = FormatFor(c.api, ACL_FORMAT_NCDHW);
  TracedRng rng;
  SCOPED_TRACE(p.Describe());
  ExpectViewsMatchReference(p, c.dtype, ViewCase{format, c.layout, format, c.layout}, rng);
}

TEST_P(HalvingRowsBf16, NonFiniteClassesMatchGolden) {
  const HalvingCase &c = GetParam();  // dense tensors (a sliced case's problem, dense)
  const BackwardProblem p = ProblemOf(c);
  SCOPED_TRACE(p.Describe());
  ExpectNonFiniteClassesMatchGolden(p, c.dtype, FormatFor(c.api, ACL_FORMAT_NCDHW));
}

INSTANTIATE_TEST_SUITE_P(Shapes, HalvingRowsBf16, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<HalvingCase> &info) {
                           return CaseName(info.param);
                         });

}  // namespace
}  // namespace trilinear3d::test
