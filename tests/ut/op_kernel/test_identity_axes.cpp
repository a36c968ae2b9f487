// Non-finite classes on identity axes, as PyTorch computes them. On an axis whose input and output
// sizes are equal, PyTorch's compute_source_index_and_lambda puts both taps of output index o on
// index o (weights 1 and 0), whatever scale was passed; so an inf at o makes NaN at o (1*inf + 0*inf)
// and leaves its neighbours alone. Here every output element's class (finite, NaN, +inf, -inf) must
// equal that of a float64 reference written from PyTorch's per-axis rule (TorchTapOf below, sharing
// nothing with the library, not even common/resample_math.h), on random shapes with identity axes
// and NaN / +inf / -inf sprinkled into the input: both operators, NCDHW and NDHWC (W-inner and
// C-inner rows), every dtype, and every kernel the tiling can choose (width-first and width-last
// backward, the doubling stencil, the forward in either pass order), each checked to be the one the
// tiling picks. ctest reruns this binary with each forced ISA. tests/st/run_st.py checks the same
// classes against torch itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "acl_test_environment.h"
#include "op_host/resample_tiling.h"
#include "op_runner.h"
#include "test_tensor.h"

namespace trilinear3d::test {
namespace {

// The taps of output index o on one axis, from aten/src/ATen/native/UpSample.h
// (area_pixel_compute_scale, area_pixel_compute_source_index, guard_index_and_lambda,
// compute_source_index_and_lambda). userScale: this axis's scale when CANN's rule uses the scales (all
// three > 0), else 0.
struct TorchTap {
  int64_t i0, i1;
  double l0, l1;
};

TorchTap TorchTapOf(int64_t in, int64_t out, bool alignCorners, double userScale, int64_t o) {
  if (in == out) return {o, o, 1.0, 0.0};  // "scale_factor = 1, simply copy": both taps on o
  double scale = 0.0;
  if (alignCorners) {
    scale = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  } else {
    scale = userScale > 0.0 ? 1.0 / userScale : static_cast<double>(in) / static_cast<double>(out);
  }
  const double od = static_cast<double>(o);
  const double src = alignCorners ? scale * od : std::max(0.0, scale * (od + 0.5) - 0.5);
  const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
  const double l1 = std::min(std::max(src - static_cast<double>(i0), 0.0), 1.0);
  return {i0, i0 < in - 1 ? i0 + 1 : i0, 1.0 - l1, l1};
}

enum class Kernel { kWidthFirst, kWidthLast, kStencil2x, kForwardWidthLast, kForwardWidthFirst };

const char *KernelName(Kernel k) {
  static const char *const kNames[] = {"BackwardWidthFirst", "BackwardWidthLast", "BackwardStencil2x",
                                       "ForwardWidthLast", "ForwardWidthFirst"};
  return kNames[static_cast<int>(k)];
}

bool IsBackward(Kernel k) {
  return k == Kernel::kWidthFirst || k == Kernel::kWidthLast || k == Kernel::kStencil2x;
}

// One problem in the backward's terms: `in` is the gradInput / self side, `out` the gradOut / out side.
struct Case {
  bool backward = true;
  Shape5 in{};                   // N, C, iD, iH, iW
  std::array<int64_t, 3> out{};  // oD, oH, oW
  bool alignCorners = false;
  std::array<double, 3> scales{0.0, 0.0, 0.0};

  Shape5 OutShape() const { return {in[0], in[1], out[0], out[1], out[2]}; }
  Shape5 SrcShape() const { return backward ? OutShape() : in; }
  Shape5 DstShape() const { return backward ? in : OutShape(); }
  BackwardProblem Backward() const { return BackwardProblem{in, out, alignCorners, scales}; }
  ForwardProblem Forward() const { return ForwardProblem{in, out, alignCorners, scales}; }
  std::string Describe() const { return backward ? Backward().Describe() : Forward().Describe(); }
};

// The tiling the library computes for c in `format` (contiguous tensors) with `order` requested.
bool TilingFor(const Case &c, aclDataType dtype, aclFormat format, std::optional<tiling::Kernel> forced,
               tiling::TilingData *t) {
  tiling::TilingInput input;
  input.direction = c.backward ? tiling::Direction::kBackward : tiling::Direction::kForward;
  ToDataType(dtype, &input.dataType);
  input.n = c.in[0];
  input.c = c.in[1];
  for (int a = 0; a < 3; ++a) {
    input.inSize[a] = c.in[2 + a];
    input.outSize[a] = c.out[static_cast<size_t>(a)];
  }
  math::AllOrNoScales(c.scales.data(), input.userScales);
  input.alignCorners = c.alignCorners;
  const bool channelsLast = format == ACL_FORMAT_NDHWC;
  input.channelsContiguous = channelsLast && c.in[1] > 1;  // the C stride of a contiguous NDHWC tensor is 1
  input.srcUnitW = !channelsLast || c.in[1] == 1;
  input.cores = 2;
  input.forcedKernel = forced;
  std::string error;
  return tiling::ComputeTiling(input, t, &error);
}

// The registry's id of k.
tiling::Kernel RegistryKernelOf(Kernel k) {
  switch (k) {
    case Kernel::kWidthFirst:
      return tiling::Kernel::kBackwardWidthFirst;
    case Kernel::kWidthLast:
      return tiling::Kernel::kBackwardWidthLast;
    case Kernel::kStencil2x:
      return tiling::Kernel::kBackwardStencil2x;
    case Kernel::kForwardWidthLast:
      return tiling::Kernel::kForwardWidthLast;
    case Kernel::kForwardWidthFirst:
      break;
  }
  return tiling::Kernel::kForwardWidthFirst;
}

// The forced kernel of k's cases: the backward's; the forward's cases are those the registry picks.
std::optional<tiling::Kernel> RequestOf(Kernel k) {
  if (!IsBackward(k)) return std::nullopt;
  return RegistryKernelOf(k);
}

bool TilingPicks(const tiling::TilingData &t, Kernel k) { return t.kernel == RegistryKernelOf(k); }

// A random case the tiling runs with kernel k. Every case but the stencil's has an identity axis of
// size >= 2 (so that a tap on the next index would show); C >= kMinChannelsInner when wideChannels
// (C-inner rows in NDHWC). Scales, a third of the time: an identity axis gets a scale other than 1
// (PyTorch and the library both ignore it there), a resized axis one with floor(in * s) == out.
Case RandomCase(std::mt19937_64 &rng, Kernel k, aclDataType dtype, aclFormat format, bool wideChannels,
                tiling::TilingData *t) {
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Case c;
  for (int attempt = 0; attempt < 100000; ++attempt) {
    c = Case{};
    c.backward = IsBackward(k);
    c.in[0] = uniform(1, 2);
    c.in[1] =
        wideChannels ? uniform(tiling::kMinChannelsInner, tiling::kMinChannelsInner + 4) : uniform(1, 3);
    bool identity = false;
    for (int a = 0; a < 3; ++a) {
      const int64_t in = uniform(1, 7);
      c.in[2 + a] = in;
      if (k == Kernel::kStencil2x) {
        c.out[static_cast<size_t>(a)] = 2 * in;
        continue;
      }
      c.out[static_cast<size_t>(a)] = uniform(0, 9) < 5 ? in : uniform(1, 10);
      identity = identity || (in >= 2 && c.out[static_cast<size_t>(a)] == in);
    }
    if (k != Kernel::kStencil2x && !identity) continue;
    c.alignCorners = k != Kernel::kStencil2x && uniform(0, 1) == 1;
    if (k != Kernel::kStencil2x && uniform(0, 2) == 0) {
      for (int a = 0; a < 3; ++a) {
        const double in = static_cast<double>(c.in[2 + a]),
                     out = static_cast<double>(c.out[static_cast<size_t>(a)]);
        c.scales[static_cast<size_t>(a)] =
            c.in[2 + a] == c.out[static_cast<size_t>(a)] ? (in + 0.5) / in : (out + 0.3) / in;
      }
    }
    if (!TilingFor(c, dtype, format, RequestOf(k), t) || !TilingPicks(*t, k)) continue;
    return c;
  }
  ADD_FAILURE() << "no random case reaches " << KernelName(k);
  return c;
}

// The float64 result by the direct formula: every output element is the sum of all 8 corner terms,
// zero weights included (so 0 * inf gives NaN), the backward as the scatter of the forward's terms.
// x and the result in logical NCDHW.
std::vector<double> TorchStyleReference(const Case &c, const std::vector<double> &x) {
  const bool useScales = c.scales[0] > 0.0 && c.scales[1] > 0.0 && c.scales[2] > 0.0;  // CANN's rule
  std::array<std::vector<TorchTap>, 3> taps;
  for (int a = 0; a < 3; ++a) {
    for (int64_t o = 0; o < c.out[static_cast<size_t>(a)]; ++o) {
      taps[static_cast<size_t>(a)].push_back(
          TorchTapOf(c.in[2 + a], c.out[static_cast<size_t>(a)], c.alignCorners,
                     useScales ? c.scales[static_cast<size_t>(a)] : 0.0, o));
    }
  }
  const int64_t planes = c.in[0] * c.in[1];
  const int64_t iD = c.in[2], iH = c.in[3], iW = c.in[4];
  const int64_t oD = c.out[0], oH = c.out[1], oW = c.out[2];
  std::vector<double> result(static_cast<size_t>(ElementCount(c.DstShape())), 0.0);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t od = 0; od < oD; ++od) {
      for (int64_t oh = 0; oh < oH; ++oh) {
        for (int64_t ow = 0; ow < oW; ++ow) {
          const TorchTap &td = taps[0][static_cast<size_t>(od)], &th = taps[1][static_cast<size_t>(oh)],
                         &tw = taps[2][static_cast<size_t>(ow)];
          const size_t outIndex = static_cast<size_t>(((p * oD + od) * oH + oh) * oW + ow);
          for (int a = 0; a < 8; ++a) {
            const int64_t d = a & 4 ? td.i1 : td.i0, h = a & 2 ? th.i1 : th.i0, w = a & 1 ? tw.i1 : tw.i0;
            const double weight = (a & 4 ? td.l1 : td.l0) * (a & 2 ? th.l1 : th.l0) * (a & 1 ? tw.l1 : tw.l0);
            const size_t inIndex = static_cast<size_t>(((p * iD + d) * iH + h) * iW + w);
            if (c.backward) {
              result[inIndex] += weight * x[outIndex];
            } else {
              result[outIndex] += weight * x[inIndex];
            }
          }
        }
      }
    }
  }
  return result;
}

// Finite values in [-1, 1] (no sum can overflow, whatever the dtype), then about one element in 12
// (at least 3) set to +inf, -inf or NaN in turn.
std::vector<double> ValuesWithSpecials(std::mt19937_64 &rng, int64_t count) {
  std::uniform_real_distribution<double> finite(-1.0, 1.0);
  std::vector<double> values(static_cast<size_t>(count));
  for (double &v : values) v = finite(rng);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  const double specials[] = {INFINITY, -INFINITY, NAN};
  const int64_t sprinkled = std::max<int64_t>(3, count / 12);
  for (int64_t i = 0; i < sprinkled; ++i) values[pick(rng)] = specials[i % 3];
  return values;
}

::testing::AssertionResult ClassesMatch(const std::vector<double> &got, const std::vector<double> &want,
                                        const Shape5 &shape) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << got.size() << " elements, expected " << want.size();
  }
  size_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < got.size(); ++i) {
    if (ClassOf(got[i]) == ClassOf(want[i])) continue;
    if (++bad > 4) continue;
    int64_t rest = static_cast<int64_t>(i), index[5];
    for (int a = 4; a >= 0; --a) {
      index[a] = rest % shape[static_cast<size_t>(a)];
      rest /= shape[static_cast<size_t>(a)];
    }
    first << " (" << index[0] << "," << index[1] << "," << index[2] << "," << index[3] << "," << index[4]
          << "): got " << got[i] << ", PyTorch's rule " << want[i] << ";";
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " elements of another class:" << first.str();
}

using Param = std::tuple<Kernel, aclFormat, aclDataType>;

class IdentityAxes : public ::testing::TestWithParam<Param> {};

constexpr int kTrials = 8;

TEST_P(IdentityAxes, NonFiniteClassesArePyTorchs) {
  const auto &[kernel, format, dtype] = GetParam();
  TracedRng rng;
  const ScopedKernel forcedKernel(kernel == Kernel::kWidthLast   ? BackwardKernel::kWidthLast
                                  : kernel == Kernel::kStencil2x ? BackwardKernel::kStencil2x
                                                                 : BackwardKernel::kWidthFirst);
  bool sawCInner = false;
  size_t nonFinite = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    // Wide channels in every other trial; only NDHWC with them has C-inner rows (never the stencil).
    const bool wide = trial % 2 == 1 && kernel != Kernel::kStencil2x;
    tiling::TilingData t;
    const Case c = RandomCase(rng, kernel, dtype, format, wide, &t);
    SCOPED_TRACE(c.Describe());
    sawCInner = sawCInner || t.layout == tiling::RowLayout::kCInner;
    DeviceTensor src(c.SrcShape(), dtype, format);
    DeviceTensor dst(c.DstShape(), dtype, format);
    const std::vector<double> values = src.Upload(ValuesWithSpecials(rng, ElementCount(c.SrcShape())));
    if (c.backward) {
      ASSERT_TRUE(RunBackward(src, c.Backward(), dst));
    } else {
      ASSERT_TRUE(RunForward(src, c.Forward(), dst));
    }
    const std::vector<double> got = dst.Download();
    EXPECT_TRUE(ClassesMatch(got, TorchStyleReference(c, values), c.DstShape()));
    nonFinite += CountNonFinite(got);
  }
  EXPECT_GT(nonFinite, 0u) << "the non-finite inputs vanished";
  if (format == ACL_FORMAT_NDHWC && kernel != Kernel::kStencil2x) {
    EXPECT_TRUE(sawCInner) << "no trial reached the C-inner rows";
  }
}

std::vector<Param> AllParams() {
  std::vector<Param> params;
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  for (Kernel k :
       {Kernel::kWidthFirst, Kernel::kWidthLast, Kernel::kForwardWidthLast, Kernel::kForwardWidthFirst}) {
    for (aclFormat format : {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}) {
      for (aclDataType dtype : dtypes) params.emplace_back(k, format, dtype);
    }
  }
  // The stencil: fp32, unit-stride gradOut rows (NCDHW), every axis doubled, so no identity axis; the
  // class rule still holds there.
  params.emplace_back(Kernel::kStencil2x, ACL_FORMAT_NCDHW, ACL_FLOAT);
  return params;
}

INSTANTIATE_TEST_SUITE_P(Kernels, IdentityAxes, ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<Param> &info) {
                           return std::string(KernelName(std::get<0>(info.param))) + "_" +
                                  FormatName(std::get<1>(info.param)) + "_" +
                                  DtypeName(std::get<2>(info.param));
                         });

// The rule itself, on one axis of 4 kept as is and one +inf: PyTorch's NaN lands on the inf's own
// index only, in both operators (the other axes have size 1, so their taps coincide too).
TEST(IdentityAxes, InfOnAKeptAxisIsNaNAtItsOwnIndexOnly) {
  for (bool backward : {true, false}) {
    SCOPED_TRACE(backward ? "backward" : "forward");
    Case c;
    c.backward = backward;
    c.in = {1, 1, 1, 1, 4};
    c.out = {1, 1, 4};
    DeviceTensor src(c.SrcShape(), ACL_FLOAT, ACL_FORMAT_NCDHW);
    DeviceTensor dst(c.DstShape(), ACL_FLOAT, ACL_FORMAT_NCDHW);
    const std::vector<double> values = src.Upload({0.5, INFINITY, -0.25, 1.0});
    if (backward) {
      ASSERT_TRUE(RunBackward(src, c.Backward(), dst));
    } else {
      ASSERT_TRUE(RunForward(src, c.Forward(), dst));
    }
    const std::vector<double> got = dst.Download();
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0], 0.5);
    EXPECT_TRUE(std::isnan(got[1])) << got[1];
    EXPECT_EQ(got[2], -0.25);
    EXPECT_EQ(got[3], 1.0);
  }
}

}  // namespace
}  // namespace trilinear3d::test
