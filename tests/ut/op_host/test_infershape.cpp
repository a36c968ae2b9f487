// InferShape of UpsampleTrilinear3dGrad and UpsampleTrilinear3d (the seed's *_infershape.cpp):
// 5-D rule, input_size of 5, exactly one of output_size / scales, each checked against grad_output,
// and messages naming the offending values. Plus ScaledSize, the floor(size * scale) they share.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_host/upsample_trilinear3d_infershape.h"

namespace trilinear3d::op_host {
namespace {

using Shape = std::vector<int64_t>;
using Scales = std::vector<double>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct GradResult {
  bool ok = false;
  Shape shape;
  std::string error;
};

GradResult Grad(const Shape &gradOutput, const Shape &outputSize, const Shape &inputSize,
                const Scales &scales) {
  GradResult r;
  r.shape = {-7};  // sentinel: must be replaced on success
  r.ok = InferShapeUpsampleTrilinear3dGrad(gradOutput, outputSize, inputSize, scales, &r.shape, &r.error);
  return r;
}

GradResult Forward(const Shape &x, const Shape &outputSize, const Scales &scales = {}) {
  GradResult r;
  r.shape = {-7};
  r.ok = InferShapeUpsampleTrilinear3d(x, outputSize, scales, &r.shape, &r.error);
  return r;
}

// The error mentions every fragment (the offending values, as the implementation prints them).
void ExpectErrorMentions(const GradResult &r, const std::vector<std::string> &fragments) {
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
  for (const std::string &f : fragments)
    EXPECT_NE(r.error.find(f), std::string::npos) << "'" << f << "' not in: " << r.error;
}

// ---------------------------------------------------------------------------------------------
// ScaledSize: floor(size * scale), -1 when that is not a representable size.

TEST(ScaledSize, FloorsTheProduct) {
  EXPECT_EQ(ScaledSize(4, 2.0), 8);
  EXPECT_EQ(ScaledSize(3, 2.5), 7);  // 7.5 -> 7
  EXPECT_EQ(ScaledSize(5, 0.5), 2);  // 2.5 -> 2
  EXPECT_EQ(ScaledSize(7, 1.0), 7);
  EXPECT_EQ(ScaledSize(6, 0.25), 1);  // 1.5 -> 1
  EXPECT_EQ(ScaledSize(64, 1.0 / 64.0), 1);
  EXPECT_EQ(ScaledSize(1, 64.0), 64);
  EXPECT_EQ(ScaledSize(3, 0.3), 0);  // 0.9 -> 0: a valid floor, rejected later as non-positive
}

TEST(ScaledSize, ZeroSizeOrZeroScaleIsZero) {
  EXPECT_EQ(ScaledSize(0, 2.0), 0);
  EXPECT_EQ(ScaledSize(5, 0.0), 0);
  EXPECT_EQ(ScaledSize(5, -0.0), 0);  // -0.0 >= 0: still zero, not an error
}

TEST(ScaledSize, NaNIsRejected) {
  EXPECT_EQ(ScaledSize(4, kNaN), -1);
  EXPECT_EQ(ScaledSize(0, kInf), -1);  // 0 * inf = NaN
}

TEST(ScaledSize, NegativeIsRejected) {
  EXPECT_EQ(ScaledSize(4, -2.0), -1);
  EXPECT_EQ(ScaledSize(4, -1e-300), -1);  // floor(-4e-300) = -1
  EXPECT_EQ(ScaledSize(-3, 2.0), -1);
  EXPECT_EQ(ScaledSize(4, -kInf), -1);
}

TEST(ScaledSize, HugeIsRejectedNeverUndefined) {
  EXPECT_EQ(ScaledSize(4, kInf), -1);
  EXPECT_EQ(ScaledSize(4, 1e300), -1);
  EXPECT_EQ(ScaledSize(std::numeric_limits<int64_t>::max(), 2.0), -1);
  EXPECT_EQ(ScaledSize(int64_t{1} << 40, 1e7), -1);  // 1.1e19 > INT64_MAX
  EXPECT_EQ(ScaledSize(4, std::numeric_limits<double>::max()), -1);
}

TEST(ScaledSize, LargeButRepresentable) {
  // 1e9 * 1e9 = 1e18 = 2^18 * 5^18 is exact in double (5^18 < 2^53).
  EXPECT_EQ(ScaledSize(1000000000, 1e9), int64_t{1000000000000000000});
  EXPECT_EQ(ScaledSize(int64_t{1} << 20, 1024.0), int64_t{1} << 30);
  EXPECT_EQ(ScaledSize(1, 1e-300), 0);  // tiny positive product floors to 0
}

// ---------------------------------------------------------------------------------------------
// Backward: UpsampleTrilinear3dGrad.

TEST(InferShapeGrad, OutputSizePathGivesInputSize) {
  const GradResult r = Grad({2, 3, 8, 16, 32}, {8, 16, 32}, {2, 3, 4, 8, 16}, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.shape, Shape({2, 3, 4, 8, 16}));
}

TEST(InferShapeGrad, OddSizesAndDownsample) {
  // 37 -> 13 etc.: nothing in InferShape cares about the ratio.
  const GradResult r = Grad({1, 5, 13, 1, 75}, {13, 1, 75}, {1, 5, 37, 64, 7}, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.shape, Shape({1, 5, 37, 64, 7}));
}

TEST(InferShapeGrad, NAndCComeFromInputSize) {
  // The seed checks only grad_output's D, H, W; the output's N, C, D, H, W all come from input_size.
  const GradResult r = Grad({9, 9, 2, 2, 2}, {2, 2, 2}, {2, 2, 1, 1, 1}, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.shape, Shape({2, 2, 1, 1, 1}));
}

TEST(InferShapeGrad, GradOutputMustBe5D) {
  ExpectErrorMentions(Grad({2, 3, 8, 16}, {8, 16, 32}, {2, 3, 4, 8, 16}, {}), {"5-D", "[2,3,8,16]"});
  ExpectErrorMentions(Grad({1, 2, 3, 8, 16, 32}, {8, 16, 32}, {2, 3, 4, 8, 16}, {}),
                      {"5-D", "[1,2,3,8,16,32]"});
  ExpectErrorMentions(Grad({}, {8, 16, 32}, {2, 3, 4, 8, 16}, {}), {"5-D", "[]"});
}

TEST(InferShapeGrad, InputSizeMustHave5Elements) {
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 16, 32}, {3, 4, 8, 16}, {}), {"input_size", "[3,4,8,16]"});
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 16, 32}, {2, 3, 4, 8, 16, 1}, {}),
                      {"input_size", "[2,3,4,8,16,1]"});
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 16, 32}, {}, {}), {"input_size", "[]"});
}

TEST(InferShapeGrad, BothEmptyIsAnError) {
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {}, {2, 3, 4, 8, 16}, {}),
                      {"exactly one", "output_size", "scales", "[]"});
}

TEST(InferShapeGrad, BothSetIsAnError) {
  // Even when both agree with grad_output.
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 16, 32}, {2, 3, 4, 8, 16}, {2.0, 2.0, 2.0}),
                      {"exactly one", "[8,16,32]", "[2,2,2]"});
}

TEST(InferShapeGrad, OutputSizeMustHave3Elements) {
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 16}, {2, 3, 4, 8, 16}, {}), {"output_size", "[8,16]"});
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 16, 32, 1}, {2, 3, 4, 8, 16}, {}),
                      {"output_size", "[8,16,32,1]"});
}

TEST(InferShapeGrad, OutputSizeMismatchNamesBoth) {
  // W differs (31 vs 32).
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 16, 31}, {2, 3, 4, 8, 16}, {}),
                      {"[2,3,8,16,32]", "[8,16,31]", "output_size"});
  // D differs.
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {9, 16, 32}, {2, 3, 4, 8, 16}, {}),
                      {"[2,3,8,16,32]", "[9,16,32]"});
  // H differs.
  ExpectErrorMentions(Grad({2, 3, 8, 16, 32}, {8, 15, 32}, {2, 3, 4, 8, 16}, {}),
                      {"[2,3,8,16,32]", "[8,15,32]"});
}

TEST(InferShapeGrad, ScalesPathMatching) {
  // floor(4 * 2) = 8, floor(5 * 2.5) = 12 (12.5), floor(6 * 1.5) = 9.
  const GradResult r = Grad({1, 2, 8, 12, 9}, {}, {1, 2, 4, 5, 6}, {2.0, 2.5, 1.5});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.shape, Shape({1, 2, 4, 5, 6}));
}

TEST(InferShapeGrad, ScalesPathDownsample) {
  // floor(37 * 0.5) = 18 (18.5), floor(16 * 0.25) = 4, floor(9 * 0.7) = 6 (6.3).
  const GradResult r = Grad({3, 1, 18, 4, 6}, {}, {3, 1, 37, 16, 9}, {0.5, 0.25, 0.7});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.shape, Shape({3, 1, 37, 16, 9}));
}

TEST(InferShapeGrad, ScalesPathMismatchNamesTheFloor) {
  // floor(6 * 1.5) = 9, but grad_output's W is 10.
  ExpectErrorMentions(Grad({1, 2, 8, 12, 10}, {}, {1, 2, 4, 5, 6}, {2.0, 2.5, 1.5}),
                      {"[1,2,8,12,10]", "[8,12,9]", "floor(input_size * scales)"});
  // The rounding must be a floor: floor(5 * 2.5) = 12, not 13.
  ExpectErrorMentions(Grad({1, 2, 8, 13, 9}, {}, {1, 2, 4, 5, 6}, {2.0, 2.5, 1.5}),
                      {"[1,2,8,13,9]", "[8,12,9]"});
}

TEST(InferShapeGrad, ScalesMustHave3Elements) {
  ExpectErrorMentions(Grad({1, 2, 8, 12, 9}, {}, {1, 2, 4, 5, 6}, {2.0, 2.5}), {"scales", "[2,2.5]"});
  ExpectErrorMentions(Grad({1, 2, 8, 12, 9}, {}, {1, 2, 4, 5, 6}, {2.0, 2.5, 1.5, 1.0}),
                      {"scales", "[2,2.5,1.5,1]"});
}

TEST(InferShapeGrad, ScalesGivingNonPositiveSizeAreRejected) {
  // floor(4 * 0.1) = 0.
  ExpectErrorMentions(Grad({1, 2, 0, 12, 9}, {}, {1, 2, 4, 5, 6}, {0.1, 2.5, 1.5}),
                      {"non-positive", "[0.1,2.5,1.5]", "[4,5,6]"});
  // Zero, negative and NaN scales.
  ExpectErrorMentions(Grad({1, 2, 8, 12, 9}, {}, {1, 2, 4, 5, 6}, {2.0, 0.0, 1.5}),
                      {"non-positive", "[2,0,1.5]"});
  ExpectErrorMentions(Grad({1, 2, 8, 12, 9}, {}, {1, 2, 4, 5, 6}, {2.0, 2.5, -1.5}),
                      {"non-positive", "[2,2.5,-1.5]"});
  ExpectErrorMentions(Grad({1, 2, 8, 12, 9}, {}, {1, 2, 4, 5, 6}, {kNaN, 2.5, 1.5}), {"non-positive"});
  ExpectErrorMentions(Grad({1, 2, 8, 12, 9}, {}, {1, 2, 4, 5, 6}, {kInf, 2.5, 1.5}), {"non-positive"});
}

TEST(InferShapeGrad, FailureLeavesOutputUntouched) {
  const GradResult r = Grad({2, 3, 8, 16, 32}, {8, 16, 31}, {2, 3, 4, 8, 16}, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.shape, Shape({-7}));
}

// ---------------------------------------------------------------------------------------------
// Forward: UpsampleTrilinear3d.

TEST(InferShapeForward, OutputSizePath) {
  const GradResult r = Forward({2, 3, 4, 8, 16}, {8, 16, 31});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.shape, Shape({2, 3, 8, 16, 31}));
}

TEST(InferShapeForward, ScalesPathFloors) {
  // floor(4 * 2) = 8, floor(5 * 2.5) = 12, floor(37 * 0.5) = 18.
  const GradResult r = Forward({2, 3, 4, 5, 37}, {}, {2.0, 2.5, 0.5});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.shape, Shape({2, 3, 8, 12, 18}));
}

TEST(InferShapeForward, XMustBe5D) {
  ExpectErrorMentions(Forward({2, 3, 4, 8}, {8, 16, 32}, {}), {"5-D", "[2,3,4,8]"});
  ExpectErrorMentions(Forward({1, 2, 3, 4, 8, 9}, {8, 16, 32}, {}), {"5-D", "[1,2,3,4,8,9]"});
}

TEST(InferShapeForward, ExactlyOneOfOutputSizeAndScales) {
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {}, {}), {"exactly one"});
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {8, 16, 32}, {2.0, 2.0, 2.0}),
                      {"exactly one", "[8,16,32]", "[2,2,2]"});
}

TEST(InferShapeForward, OutputSizeAndScalesMustHave3Elements) {
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {8, 16}, {}), {"output_size", "[8,16]"});
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {}, {2.0}), {"scales", "[2]"});
}

TEST(InferShapeForward, ScalesGivingNonPositiveSizeAreRejected) {
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {}, {0.2, 2.0, 2.0}),
                      {"non-positive", "[0.2,2,2]", "[4,8,16]"});
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {}, {2.0, -2.0, 2.0}), {"non-positive"});
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {}, {2.0, 2.0, kNaN}), {"non-positive"});
}

TEST(InferShapeForward, NonPositiveOutputSizeIsRejected) {
  // The header's contract: output_size is 3 elements > 0.
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {0, 16, 32}, {}), {"[0,16,32]"});
  ExpectErrorMentions(Forward({2, 3, 4, 8, 16}, {8, -1, 32}, {}), {"[8,-1,32]"});
}

}  // namespace
}  // namespace trilinear3d::op_host
