// The adjoint identity <forward(x), g> = <x, backward(g)> in double, both sides computed
// by the library (aclnnUpsampleTrilinear3d and aclnnUpsampleTrilinear3dBackward) on random
// shapes, to 1e-12 relative to sum |forward(x)| * |g|. The two operators share only the weight
// math, so the identity ties the forward's gather to the backward's scatter element by element;
// each side is also checked against its own float64 reference.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"
#include "reference/forward_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {
namespace {

constexpr int kShapeCount = 36;  // every (self format, out format, alignCorners, sizes | scales) >= twice
constexpr double kRelativeTolerance = 1e-12;

// A random problem: N 1..2, C 1..3, each spatial size of self and out 1..20; with scales, all
// three consistent with the sizes (floor(in * s) == out) and != out / in where that is possible.
ForwardProblem RandomProblem(std::mt19937_64 &rng, bool alignCorners, bool withScales) {
  std::uniform_int_distribution<int64_t> batch(1, 2), channels(1, 3), spatial(1, 20);
  std::uniform_real_distribution<double> fraction(0.05, 0.95);
  ForwardProblem p{{batch(rng), channels(rng), spatial(rng), spatial(rng), spatial(rng)},
                   {spatial(rng), spatial(rng), spatial(rng)},
                   alignCorners};
  if (withScales) {
    for (int a = 0; a < 3; ++a) {
      const double in = static_cast<double>(p.selfSize[2 + a]);
      const double out = static_cast<double>(p.outputSize[a]);
      double s = (out + fraction(rng)) / in;
      if (static_cast<int64_t>(std::floor(in * s)) != p.outputSize[a]) s = (out + 0.5) / in;
      p.scales[a] = s;
    }
  }
  return p;
}

// sum a[i] * b[i] and sum |a[i]| * |b[i]| in long double (the test's own rounding stays far below
// the tolerance).
struct Dot {
  long double value = 0.0L;
  long double magnitude = 0.0L;
};

Dot DotProduct(const std::vector<double> &a, const std::vector<double> &b) {
  Dot d;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const long double p = static_cast<long double>(a[i]) * static_cast<long double>(b[i]);
    d.value += p;
    d.magnitude += std::fabs(p);
  }
  return d;
}

class Adjoint : public ::testing::TestWithParam<int> {};

TEST_P(Adjoint, ForwardAndBackwardAreTransposes) {
  const int index = GetParam();
  const aclFormat selfFormat = (index & 1) != 0 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  const aclFormat outFormat = (index & 2) != 0 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  const bool alignCorners = (index & 4) != 0;
  const bool withScales = (index & 8) != 0;
  TracedRng rng;
  const ForwardProblem problem = RandomProblem(rng, alignCorners, withScales);
  const BackwardProblem transposed = problem.Transposed();
  SCOPED_TRACE(problem.Describe() + " self " + FormatName(selfFormat) + ", out " + FormatName(outFormat));
  for (int a = 0; a < 3; ++a) {
    if (withScales) {
      ASSERT_EQ(
          static_cast<int64_t>(std::floor(static_cast<double>(problem.selfSize[2 + a]) * problem.scales[a])),
          problem.outputSize[a])
          << "test setup: scales must be consistent with the sizes";
    }
  }

  // y = forward(x): self in selfFormat, out in outFormat.
  DeviceTensor self(problem.selfSize, ACL_DOUBLE, selfFormat);
  DeviceTensor out(problem.OutShape(), ACL_DOUBLE, outFormat);
  const std::vector<double> x = self.UploadRandom(rng);
  ASSERT_TRUE(RunForward(self, problem, out));
  const std::vector<double> y = out.Download();

  // b = backward(g): gradOut shaped (and formatted) like out, gradInput like self.
  DeviceTensor gradOut(problem.OutShape(), ACL_DOUBLE, outFormat);
  DeviceTensor gradInput(problem.selfSize, ACL_DOUBLE, selfFormat);
  const std::vector<double> g = gradOut.UploadRandom(rng);
  ASSERT_TRUE(RunBackward(gradOut, transposed, gradInput));
  const std::vector<double> b = gradInput.Download();

  const Dot lhs = DotProduct(y, g);  // <forward(x), g>
  const Dot rhs = DotProduct(x, b);  // <x, backward(g)>
  const long double difference = std::fabs(lhs.value - rhs.value);
  std::ostringstream detail;
  detail.precision(17);
  detail << "<forward(x), g> = " << static_cast<double>(lhs.value)
         << ", <x, backward(g)> = " << static_cast<double>(rhs.value)
         << ", |difference| = " << static_cast<double>(difference)
         << ", sum |forward(x)|*|g| = " << static_cast<double>(lhs.magnitude);
  EXPECT_LE(difference, kRelativeTolerance * lhs.magnitude) << detail.str();
  EXPECT_GT(lhs.magnitude, 0.0L) << "degenerate problem: nothing was compared";

  // Each side against its own float64 reference.
  EXPECT_TRUE(ForwardMatchesReference(x, problem, ACL_DOUBLE, y)) << "forward";
  EXPECT_TRUE(ResultMatchesReference(g, transposed, ACL_DOUBLE, b)) << "backward";
}

INSTANTIATE_TEST_SUITE_P(RandomShapes, Adjoint, ::testing::Range(0, kShapeCount),
                         [](const ::testing::TestParamInfo<int> &info) {
                           const int i = info.param;
                           return std::string("Shape") + std::to_string(i) +
                                  ((i & 1) ? "_SelfNdhwc" : "_SelfNcdhw") +
                                  ((i & 2) ? "_OutNdhwc" : "_OutNcdhw") + ((i & 4) ? "_Align" : "_NoAlign") +
                                  ((i & 8) ? "_Scales" : "_Sizes");
                         });

// The identity also holds exactly for the float64 references (a check of the references
// themselves: the forward reference's gather is the transpose of the backward reference's scatter).
TEST(AdjointReferences, ReferencesAreTransposes) {
  TracedRng rng;
  for (int i = 0; i < 8; ++i) {
    const ForwardProblem problem = RandomProblem(rng, (i & 1) != 0, (i & 2) != 0);
    SCOPED_TRACE(problem.Describe());
    const std::vector<double> x =
        RandomValues(rng, ElementCount(problem.selfSize), Distribution::kUnitNormal);
    const std::vector<double> g =
        RandomValues(rng, ElementCount(problem.OutShape()), Distribution::kUnitNormal);
    const Dot lhs = DotProduct(ForwardReference(problem, x).golden, g);
    const Dot rhs = DotProduct(x, BackwardReference(problem.Transposed(), g).golden);
    EXPECT_LE(std::fabs(lhs.value - rhs.value), kRelativeTolerance * lhs.magnitude);
  }
}

}  // namespace
}  // namespace trilinear3d::test
