// Accuracy of the cubic group's 2-D operators, forward and backward, against the float64 reference
// (reference/filter_reference.h): every dtype x format (NCHW / NHWC / ND) x alignCorners x (sizes | scales)
// on shapes that grow, shrink (antialias: as strongly as 1/7), keep their size or go to and from size 1,
// with rows and channel counts longer than a vector; bicubic's exact 2x in W at run lengths around every
// tier's vector, and its exact 2x backward on channels-inner rows. TRILINEAR3D_TEST_SAMPLE=k runs every
// k-th sweep case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

struct SizeCase {
  const char *name;
  int64_t n, c, inH, inW, outH, outW;
};

const SizeCase kSizes[] = {
    {"Up", 2, 3, 5, 7, 11, 16},          {"Down", 1, 2, 13, 17, 5, 6},      {"Doubling", 1, 3, 6, 20, 12, 40},
    {"Identity", 1, 2, 6, 9, 6, 9},      {"FromOne", 1, 2, 1, 1, 4, 5},     {"ToOne", 1, 2, 6, 7, 1, 1},
    {"Shrink7", 1, 2, 49, 63, 7, 9},     {"WideRows", 1, 19, 4, 37, 7, 53}, {"Mixed", 2, 9, 13, 5, 4, 12},
    {"StrongDown", 1, 1, 90, 130, 3, 2},
};

// CANN's antialiased operators refuse a shrink or a growth by more than 50 on an axis.
bool WithinAntialiasLimits(const SizeCase &s) {
  auto within = [](int64_t in, int64_t out) { return in / out <= 50 && out <= 50 * in; };
  return within(s.inH, s.outH) && within(s.inW, s.outW);
}

struct SweepParam {
  FilterKind kind;
  bool backward;
  SizeCase size;
  aclDataType dtype;
  aclFormat format;
  bool alignCorners;
  bool scales;
};

std::vector<SweepParam> Sweep() {
  std::vector<SweepParam> params;
  for (FilterKind kind : CubicOpsUnderTest()) {
    for (bool backward : {false, true}) {
      for (const SizeCase &size : kSizes) {
        if (kind != FilterKind::kBicubic && !WithinAntialiasLimits(size)) continue;
        for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
          for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND}) {
            if (format == ACL_FORMAT_NHWC && kind != FilterKind::kBicubic) continue;  // CANN's AA: NCHW / ND
            for (bool alignCorners : {false, true}) {
              for (bool scales : {false, true}) {
                if (alignCorners && scales) continue;  // align_corners ignores the scales
                params.push_back({kind, backward, size, dtype, format, alignCorners, scales});
              }
            }
          }
        }
      }
    }
  }
  return SampledCases(params);
}

// gtest prints a parameter it has no printer for as its bytes, padding included: valgrind then reports
// reads of uninitialised bytes in the test's own registration.
void PrintTo(const SweepParam &p, std::ostream *os) {
  *os << CubicOpName(p.kind) << (p.backward ? "Backward " : " ") << p.size.name << " " << DtypeName(p.dtype)
      << " " << FormatName(p.format) << (p.alignCorners ? " align" : "") << (p.scales ? " scales" : "");
}

std::string SweepName(const ::testing::TestParamInfo<SweepParam> &info) {
  const SweepParam &p = info.param;
  return std::string(CubicOpName(p.kind)) + (p.backward ? "Backward_" : "_") + p.size.name + "_" +
         DtypeName(p.dtype) + "_" + FormatName(p.format) + (p.alignCorners ? "_Align" : "") +
         (p.scales ? "_Scales" : "") + "_" + std::to_string(info.index);
}

class CubicAccuracy : public ::testing::TestWithParam<SweepParam> {};

TEST_P(CubicAccuracy, MatchesFloat64Reference) {
  const SweepParam &s = GetParam();
  FilterProblem p;
  p.kind = s.kind;
  p.n = s.size.n;
  p.c = s.size.c;
  p.inH = s.size.inH;
  p.inW = s.size.inW;
  p.outH = s.size.outH;
  p.outW = s.size.outW;
  p.alignCorners = s.alignCorners;
  if (s.scales) {  // scales that give the sizes but differ from out / in
    p.scalesH = (double(p.outH) + 0.4) / double(p.inH);
    p.scalesW = (double(p.outW) + 0.3) / double(p.inW);
  }
  TracedRng rng;
  ExpectCubicOpAccurate(p, s.backward, s.dtype, s.format, rng);
}

INSTANTIATE_TEST_SUITE_P(Sweep, CubicAccuracy, ::testing::ValuesIn(Sweep()), SweepName);

// Bicubic's exact 2x in W (align_corners false), whose interior takes the fixed-phase runs
// (resample_rows_w_cubic2x.h): rows whose run is shorter than any tier's vector (W 5, 7), one vector of
// the baseline tier and less than one of the others (9), a vector and one pair more (21: the run's rest
// recomputed), odd and long runs (37, 150); by sizes and by a W scale of exactly 2.
struct Exact2xParam {
  bool backward;
  int64_t inW;
  aclDataType dtype;
  aclFormat format;
  bool scales;
};

std::vector<Exact2xParam> Exact2xSweep() {
  std::vector<Exact2xParam> params;
  for (bool backward : {false, true}) {
    for (int64_t inW : {5, 7, 9, 21, 37, 150}) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
          for (bool scales : {false, true}) params.push_back({backward, inW, dtype, format, scales});
        }
      }
    }
  }
  return SampledCases(params);
}

void PrintTo(const Exact2xParam &p, std::ostream *os) {
  *os << (p.backward ? "backward " : "forward ") << p.inW << " " << DtypeName(p.dtype) << " "
      << FormatName(p.format) << (p.scales ? " scales" : "");
}

std::string Exact2xName(const ::testing::TestParamInfo<Exact2xParam> &info) {
  const Exact2xParam &p = info.param;
  return std::string(p.backward ? "Backward_" : "Forward_") + std::to_string(p.inW) + "_" +
         DtypeName(p.dtype) + "_" + FormatName(p.format) + (p.scales ? "_Scales" : "") + "_" +
         std::to_string(info.index);
}

class CubicExact2x : public ::testing::TestWithParam<Exact2xParam> {};

TEST_P(CubicExact2x, MatchesFloat64Reference) {
  const Exact2xParam &s = GetParam();
  FilterProblem p{FilterKind::kBicubic, 2, 3, 5, s.inW, 10, 2 * s.inW, false, 0.0, s.scales ? 2.0 : 0.0};
  TracedRng rng;
  ExpectCubicOpAccurate(p, s.backward, s.dtype, s.format, rng);
}

INSTANTIATE_TEST_SUITE_P(Sweep, CubicExact2x, ::testing::ValuesIn(Exact2xSweep()), Exact2xName);

// Bicubic's exact 2x backward on channels-inner rows (NHWC, C from 8 on), whose interior takes the cubic
// halving runs of both axes: the H step of up to four gradInput rows at once from the gradOut rows
// themselves (CombineCubicHalvingRows) and the W pass's fixed eight positions (resample_row_c_inner.h).
// H sizes whose run is one row (5) or starts and ends inside a batch of four rows (11); W with a run of
// a few outputs (9) and rows long enough to be cut into W chunks (150 x 64 channels); C of partial
// vectors only (8 on AVX-512), a tail after whole vectors (17), whole chunks (64) and a tail after one (70).
struct ChannelsInner2xParam {
  int64_t c, inH, inW;
  aclDataType dtype;
};

std::vector<ChannelsInner2xParam> ChannelsInner2xSweep() {
  std::vector<ChannelsInner2xParam> params;
  for (int64_t c : {8, 17, 64, 70}) {
    for (int64_t inH : {5, 11}) {
      for (int64_t inW : {9, 150}) {
        for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE})
          params.push_back({c, inH, inW, dtype});
      }
    }
  }
  return SampledCases(params);
}

void PrintTo(const ChannelsInner2xParam &p, std::ostream *os) {
  *os << "C " << p.c << " " << p.inH << "x" << p.inW << " " << DtypeName(p.dtype);
}

std::string ChannelsInner2xName(const ::testing::TestParamInfo<ChannelsInner2xParam> &info) {
  const ChannelsInner2xParam &p = info.param;
  return "C" + std::to_string(p.c) + "_" + std::to_string(p.inH) + "x" + std::to_string(p.inW) + "_" +
         DtypeName(p.dtype) + "_" + std::to_string(info.index);
}

class CubicChannelsInner2x : public ::testing::TestWithParam<ChannelsInner2xParam> {};

TEST_P(CubicChannelsInner2x, BackwardMatchesFloat64Reference) {
  const ChannelsInner2xParam &s = GetParam();
  FilterProblem p{FilterKind::kBicubic, 1, s.c, s.inH, s.inW, 2 * s.inH, 2 * s.inW, false, 0.0, 0.0};
  TracedRng rng;
  ExpectCubicOpAccurate(p, true, s.dtype, ACL_FORMAT_NHWC, rng);
}

INSTANTIATE_TEST_SUITE_P(Sweep, CubicChannelsInner2x, ::testing::ValuesIn(ChannelsInner2xSweep()),
                         ChannelsInner2xName);

// Strided (sliced) and permuted views of both tensors: the same results, nothing outside the views written.
TEST(CubicViews, StridedViewsMatchReference) {
  for (FilterKind kind : CubicOpsUnderTest()) {
    for (bool backward : {false, true}) {
      for (MemLayout layout : {MemLayout::kSliced, MemLayout::kPermuted}) {
        FilterProblem p{kind, 2, 3, 9, 11, 4, 19, false, 0.0, 0.0};
        TracedRng rng;
        SCOPED_TRACE(std::string(CubicOpName(kind)) + (backward ? " backward " : " forward ") +
                     LayoutName(layout));
        ExpectCubicOpAccurate(p, backward, ACL_FLOAT, ACL_FORMAT_NCHW, rng, layout);
      }
    }
  }
}

// Scales count per axis where they are > 0 (PyTorch's rule for these modes): a result under a scale that
// gives the size but is not out / in differs from the sizes' result, and matches the scale's.
TEST(CubicScales, EachScaleCountsOnItsAxis) {
  for (FilterKind kind : CubicOpsUnderTest()) {
    FilterProblem p{kind, 1, 2, 5, 6, 11, 3, false, 11.7 / 5, 0.0};
    TracedRng rng;
    SCOPED_TRACE(CubicOpName(kind));
    const CubicRun run = ExpectCubicOpAccurate(p, false, ACL_DOUBLE, ACL_FORMAT_NCHW, rng);
    FilterProblem sizes = p;
    sizes.scalesH = 0.0;
    const FilterReferenceResult other = FilterReference(sizes, run.input, false);
    double largest = 0.0;
    for (size_t i = 0; i < run.got.size(); ++i)
      largest = std::max(largest, std::abs(run.got[i] - other.golden[i]));
    EXPECT_GT(largest, 1e-3) << "scalesH was not used";
  }
}

// A user scale may put output centres past the input's end (scales are taken as given, as PyTorch takes
// them): such an output has no input under its support and is the empty sum, 0, and its gradient reaches no
// input. On H, on W and on both; growing and shrinking; both memory orders (the forward's channels-inner
// path blends H rows per chunk); every dtype.
TEST(AntialiasScales, CentresPastTheInputGiveZero) {
  struct Case {
    int64_t inH, inW, outH, outW;
    double scalesH, scalesW;
  };
  const Case kCases[] = {
      {5, 6, 12, 13, 1.5, 0.0},
      {5, 6, 12, 13, 0.0, 1.4},
      {5, 6, 12, 13, 1.5, 1.4},   // centres up to 7.7, 8.9
      {13, 17, 5, 6, 0.2, 0.18},  // shrink: up to 22.5, 30.6
  };
  for (FilterKind kind : CubicOpsUnderTest()) {
    if (kind == FilterKind::kBicubic) continue;  // bicubic clamps its taps into the input
    for (bool backward : {false, true}) {
      for (const Case &c : kCases) {
        for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
          for (MemLayout layout : {MemLayout::kContiguous, MemLayout::kPermuted}) {
            FilterProblem p{kind, 2, 10, c.inH, c.inW, c.outH, c.outW, false, c.scalesH, c.scalesW};
            TracedRng rng;
            SCOPED_TRACE(std::string(CubicOpName(kind)) + (backward ? " backward " : " forward ") +
                         DtypeName(dtype) + " " + LayoutName(layout) + " scales " +
                         std::to_string(c.scalesH) + ", " + std::to_string(c.scalesW));
            const CubicRun run = ExpectCubicOpAccurate(p, backward, dtype, ACL_FORMAT_NCHW, rng, layout);
            if (backward) continue;
            // The reference's zeros are outputs past the input: the case must have some.
            const FilterReferenceResult ref = FilterReference(p, run.input, false);
            EXPECT_GT(std::count(ref.golden.begin(), ref.golden.end(), 0.0), 0) << "no centre past the input";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace trilinear3d::test
