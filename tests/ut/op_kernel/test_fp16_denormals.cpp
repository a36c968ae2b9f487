// fp16 operands whose subnormal values must count whatever the caller's floating-point state: a
// program (or torch.set_flush_denormal(True)) may set MXCSR's denormals-are-zero (DAZ) and
// flush-to-zero (FTZ) bits, and the kernels widen fp16 exactly under them too. An fp16 subnormal is a
// normal fp32, so a call under DAZ | FTZ gives the bits of the same call without them, and both match
// the float64 reference. The baseline tier (rerun with TRILINEAR3D_ISA=baseline) widens fp16 by a float
// multiply only while DAZ is clear; this is the test that its fallback takes over when DAZ is set.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace trilinear3d::test {
namespace {

#if defined(__SSE2__)
// Sets bits of MXCSR for its lifetime.
class MxcsrBits {
 public:
  explicit MxcsrBits(unsigned bits) : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | bits); }
  ~MxcsrBits() { _mm_setcsr(saved_); }
  MxcsrBits(const MxcsrBits &) = delete;
  MxcsrBits &operator=(const MxcsrBits &) = delete;

 private:
  unsigned saved_;
};
constexpr unsigned kDenormalsAreZero = 1u << 6, kFlushToZero = 1u << 15;
#endif

// Random fp16 values at the bottom of its range, each exactly representable: subnormals
// (magnitude m * 2^-24, m < 0x400) and the smallest normals, either sign.
std::vector<double> SmallHalfValues(std::mt19937_64 &rng, int64_t n) {
  std::uniform_int_distribution<int> bits(1, 0x05ff);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> values(static_cast<size_t>(n));
  for (double &v : values) {
    const int m = bits(rng);
    const double magnitude =
        m < 0x400 ? std::ldexp(m, -24) : std::ldexp(1.0 + (m & 0x3ff) / 1024.0, (m >> 10) - 15);
    v = negative(rng) ? -magnitude : magnitude;
  }
  return values;
}

struct DenormalCase {
  const char *name;
  Shape5 small;                  // gradInput (backward) / self (forward)
  std::array<int64_t, 3> large;  // gradOut's D, H, W (backward) / out's (forward)
  bool alignCorners;
};

// Non-integer scales both ways (the width-last backward reads each gradOut plane for several D
// indices), an exact 2x, and a forward.
const DenormalCase kCases[] = {
    {"ShrinkNonInteger", {2, 3, 16, 16, 8}, {42, 45, 36}, false},
    {"Halving", {1, 4, 6, 20, 24}, {12, 40, 48}, false},
    {"ShrinkAligned", {1, 3, 7, 9, 11}, {20, 25, 30}, true},
};

void PrintTo(const DenormalCase &c, std::ostream *os) { *os << c.name; }

// One run of p on values; the downloaded result.
template <typename Problem>
std::vector<double> RunOn(const Problem &p, const std::vector<double> &values) {
  DeviceTensor read = ReadTensor(p, ACL_FLOAT16, ACL_FORMAT_NCDHW);
  DeviceTensor written = WrittenTensor(p, ACL_FLOAT16, ACL_FORMAT_NCDHW);
  const std::vector<double> uploaded = read.Upload(values);
  EXPECT_EQ(uploaded, values) << "test setup: the values are not exact fp16";
  EXPECT_TRUE(Run(read, p, written));
  return written.Download();
}

template <typename Problem>
void ExpectSameUnderDenormalsAreZero(const Problem &p) {
  SCOPED_TRACE(p.Describe());
  TracedRng rng;
  const std::vector<double> values = SmallHalfValues(rng, ElementCount(ReadShape(p)));
  const std::vector<double> plain = RunOn(p, values);
  EXPECT_TRUE(ResultMatchesReference(values, p, ACL_FLOAT16, plain));
  size_t nonZero = 0;
  for (double v : plain) nonZero += v != 0.0 ? 1 : 0;
  EXPECT_GT(nonZero, plain.size() / 2) << "the subnormal inputs must reach the result";
#if defined(__SSE2__)
  std::vector<double> flushed;
  {
    const MxcsrBits daz(kDenormalsAreZero | kFlushToZero);
    flushed = RunOn(p, values);
  }
  ASSERT_EQ(flushed.size(), plain.size());
  size_t differing = 0;
  for (size_t i = 0; i < plain.size(); ++i) differing += flushed[i] != plain[i] ? 1 : 0;
  EXPECT_EQ(differing, 0u) << "elements that differ under DAZ | FTZ, of " << plain.size();
#endif
}

class Fp16Denormals : public ::testing::TestWithParam<DenormalCase> {};

TEST_P(Fp16Denormals, BackwardReadsSubnormalsUnderDaz) {
  const DenormalCase &c = GetParam();
  ExpectSameUnderDenormalsAreZero(BackwardProblem{c.small, c.large, c.alignCorners});
}

TEST_P(Fp16Denormals, ForwardReadsSubnormalsUnderDaz) {
  const DenormalCase &c = GetParam();
  ExpectSameUnderDenormalsAreZero(ForwardProblem{c.small, c.large, c.alignCorners});
}

INSTANTIATE_TEST_SUITE_P(Cases, Fp16Denormals, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<DenormalCase> &info) { return info.param.name; });

}  // namespace
}  // namespace trilinear3d::test
