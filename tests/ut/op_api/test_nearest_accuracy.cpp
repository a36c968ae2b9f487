// The nearest group's accuracy (docs/spec.md §2, §5): every entry point, forward and backward, legacy and
// exact, on odd ratios (7 -> 19, 13 -> 5), 1 -> N, N -> 1, the exact doubling, equal sizes, long axes where
// float rounding decides the index, with and without scales, every dtype (uint8 for the forwards), format
// and memory layout, inf / NaN among the inputs: the forward bitwise equal to the picked elements, the
// backward equal to PyTorch's ordered sums and within the float64 bound (tests/support/nearest_runner.h).
// TRILINEAR3D_TEST_SAMPLE=k runs every k-th case.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "nearest_runner.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

using Pair = std::array<int64_t, 2>;  // in -> out of one axis

// Spatial pairs per rank: W for 1-D, H and W for 2-D, D, H and W for 3-D.
const std::vector<std::vector<Pair>> &ShapesOfRank(int rank) {
  static const std::vector<std::vector<Pair>> k1 = {
      {{7, 19}}, {{13, 5}},    {{1, 9}},        {{9, 1}},       {{8, 16}},    {{5, 5}},    {{6, 13}},
      {{3, 7}},  {{100, 299}}, {{4097, 16411}}, {{2999, 1000}}, {{111, 223}}, {{200, 409}}};
  static const std::vector<std::vector<Pair>> k2 = {
      {{7, 19}, {13, 5}}, {{1, 9}, {9, 1}},  {{8, 16}, {8, 16}},    {{5, 5}, {6, 13}},
      {{13, 5}, {7, 19}}, {{3, 7}, {11, 4}}, {{33, 67}, {129, 31}}, {{5, 9}, {75, 149}}};
  static const std::vector<std::vector<Pair>> k3 = {{{2, 5}, {7, 19}, {13, 5}},
                                                    {{1, 3}, {9, 1}, {8, 16}},
                                                    {{4, 8}, {8, 16}, {8, 16}},
                                                    {{3, 3}, {5, 5}, {6, 13}},
                                                    {{5, 2}, {3, 7}, {11, 4}}};
  return rank == 3 ? k1 : rank == 4 ? k2 : k3;
}

std::vector<aclFormat> FormatsOfRank(int rank) {
  if (rank == 3) return {ACL_FORMAT_ND, ACL_FORMAT_NCL};
  if (rank == 4) return {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND};
  return {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND};
}

struct AccuracyCase {
  NearestCase c;
  std::string name;
};

void PrintTo(const AccuracyCase &c, std::ostream *os) { *os << c.name; }

std::vector<AccuracyCase> AllCases() {
  std::vector<AccuracyCase> cases;
  const MemLayout layouts[] = {MemLayout::kContiguous, MemLayout::kPermuted, MemLayout::kSliced};
  int k = 0;
  for (const NearestEntryInfo &info : kNearestEntries) {
    std::vector<aclDataType> dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
    if (!info.backward) dtypes.push_back(ACL_UINT8);
    const std::vector<aclFormat> formats = FormatsOfRank(info.rank);
    int s = 0;
    for (const std::vector<Pair> &shape : ShapesOfRank(info.rank)) {
      for (aclDataType dtype : dtypes) {
        for (int withScales = 0; withScales < 2; ++withScales, ++k) {
          NearestCase c;
          c.entry = info.entry;
          c.dtype = dtype;
          c.format = formats[static_cast<size_t>(k) % formats.size()];
          c.srcLayout = layouts[static_cast<size_t>(k) % 3];
          c.dstLayout = layouts[static_cast<size_t>(k / 3) % 3];
          // Channels-last with C >= 8 runs the channels-inner rows.
          const int64_t channels = k % 2 == 0 ? 3 : 9;
          c.in = {2, channels, 1, 1, 1};
          c.out = {1, 1, 1};
          const size_t first = static_cast<size_t>(5 - info.rank);
          for (size_t a = 0; a < shape.size(); ++a) {
            c.in[2 + first + a] = shape[a][0];
            c.out[first + a] = shape[a][1];
            // The scale of the sizes (out / in): its float reciprocal may differ from float(in) / float(out).
            if (withScales)
              c.scales[first + a] = static_cast<double>(shape[a][1]) / static_cast<double>(shape[a][0]);
          }
          if (shape[0][0] * shape[0][1] > 100000) c.in[0] = 1;  // the long 1-D axes: one sample
          c.nonFinite = dtype != ACL_UINT8 && k % 2 == 1;
          cases.push_back({c, std::string(info.name) + "_" + std::to_string(s) + "_" + DtypeName(dtype) +
                                  (withScales ? "_scales" : "_sizes") + "_" + FormatName(c.format)});
        }
      }
      ++s;
    }
  }
  return SampledCases(cases);
}

class NearestAccuracy : public ::testing::TestWithParam<AccuracyCase> {};

TEST_P(NearestAccuracy, MatchesTorchRule) {
  TracedRng rng;
  EXPECT_TRUE(NearestCaseMatches(GetParam().c, rng));
}

INSTANTIATE_TEST_SUITE_P(Sweep, NearestAccuracy, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<AccuracyCase> &i) { return i.param.name; });

// Scales that do not give the sizes still set the step where the operator takes them (PyTorch: the
// index is floor(o / scale)), and are ignored where it does not (the 3-D rule's all-or-none, the V1
// forwards).
TEST(NearestScales, UsedWhereTheRuleTakesThemIgnoredElsewhere) {
  TracedRng rng;
  for (const NearestEntryInfo &info : kNearestEntries) {
    for (const std::array<double, 3> &scales :
         {std::array<double, 3>{1.119, 3.174, 2.3}, std::array<double, 3>{0.0, 2.9, 2.3},
          std::array<double, 3>{-1.0, 0.0, 2.3}}) {
      NearestCase c;
      c.entry = info.entry;
      c.in = {1, 2, info.rank == 5 ? 3 : 1, info.rank >= 4 ? 4 : 1, 5};
      c.out = {info.rank == 5 ? 5 : 1, info.rank >= 4 ? 11 : 1, 12};
      c.scales = scales;
      EXPECT_TRUE(NearestCaseMatches(c, rng));
      // Sizes where nearest_idx's cases (out == in, out == 2 in) decide against the scale: PyTorch's
      // 2-D forward and the backwards take them, its 1-D and 3-D forwards do not.
      c.in = {1, 2, info.rank == 5 ? 5 : 1, info.rank >= 4 ? 8 : 1, 8};
      c.out = {info.rank == 5 ? 5 : 1, info.rank >= 4 ? 16 : 1, 16};
      EXPECT_TRUE(NearestCaseMatches(c, rng));
    }
  }
}

// The exact-2x gradient and the replicated forward on a bench-sized plane with several cores' items.
TEST(NearestLarge, DoublingOfLongRows) {
  TracedRng rng;
  for (NearestEntry entry :
       {NearestEntry::kNearest2d, NearestEntry::kNearest2dBackward, NearestEntry::kExact2dBackward}) {
    for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
      NearestCase c;
      c.entry = entry;
      c.format = format;
      c.in = {2, 16, 1, 64, 96};
      c.out = {1, 128, 192};
      EXPECT_TRUE(NearestCaseMatches(c, rng));
    }
  }
}

}  // namespace
}  // namespace trilinear3d::test
