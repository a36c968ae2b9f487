// The nearest operators' reference, written from PyTorch's definitions (aten/src/ATen/native/UpSample.h:
// compute_scales_value<float>, nearest_idx, nearest_neighbor_exact_compute_source_index) independently of
// src/common/resample_math.h, and the backward's float64 sums with their bound and the order-exact sums
// PyTorch's loop over the output makes (fp32 accumulation for fp32 / fp16 / bf16, fp64 for fp64).
#ifndef TRILINEAR3D_TESTS_SUPPORT_REFERENCE_NEAREST_REFERENCE_H_
#define TRILINEAR3D_TESTS_SUPPORT_REFERENCE_NEAREST_REFERENCE_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace trilinear3d::test {

// PyTorch's source index of output o (scale: the operator's scale for the axis where it counts, else 0).
// sizeCases: nearest_idx's out == in and out == 2 in cases (upsample_nearest2d and the backwards; the
// 1-D and 3-D forwards' generic kernel has none).
inline int64_t TorchNearestIndex(bool exact, int64_t in, int64_t out, double scale, int64_t o,
                                 bool sizeCases = true) {
  // compute_scales_value<float>
  const float r =
      scale > 0.0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  if (!exact) {
    if (sizeCases && out == in) return o;
    if (sizeCases && out == 2 * in) return o >> 1;
    return std::min(static_cast<int64_t>(floorf(static_cast<float>(o) * r)), in - 1);
  }
  const double position = (static_cast<double>(o) + 0.5) * static_cast<double>(r);
  return std::min(static_cast<int64_t>(floorf(static_cast<float>(position))), in - 1);
}

// Logical (N, C, D, H, W) sizes of the small side (forward input / gradInput) and the large side's D, H, W.
struct NearestProblem {
  std::array<int64_t, 5> in{};
  std::array<int64_t, 3> out{};
  std::array<double, 3> scales{0.0, 0.0, 0.0};  // as the operator uses them (0: the sizes decide)
  bool exact = false;
  bool sizeCases = true;  // TorchNearestIndex's

  std::array<int64_t, 5> OutShape() const { return {in[0], in[1], out[0], out[1], out[2]}; }
  std::vector<int64_t> Indices(int axis) const {
    std::vector<int64_t> idx(static_cast<size_t>(out[static_cast<size_t>(axis)]));
    for (int64_t o = 0; o < out[static_cast<size_t>(axis)]; ++o) {
      idx[static_cast<size_t>(o)] = TorchNearestIndex(exact, in[2 + axis], out[static_cast<size_t>(axis)],
                                                      scales[static_cast<size_t>(axis)], o, sizeCases);
    }
    return idx;
  }
};

// The forward: out element = self element at the picked indices (logical NCDHW order in and out).
inline std::vector<double> NearestForwardReference(const NearestProblem &p, const std::vector<double> &self) {
  const auto d = p.Indices(0), h = p.Indices(1), w = p.Indices(2);
  const auto &in = p.in;
  std::vector<double> out;
  out.reserve(static_cast<size_t>(in[0] * in[1] * p.out[0] * p.out[1] * p.out[2]));
  for (int64_t nc = 0; nc < in[0] * in[1]; ++nc)
    for (int64_t od = 0; od < p.out[0]; ++od)
      for (int64_t oh = 0; oh < p.out[1]; ++oh)
        for (int64_t ow = 0; ow < p.out[2]; ++ow) {
          const int64_t i = ((nc * in[2] + d[od]) * in[3] + h[oh]) * in[4] + w[ow];
          out.push_back(self[static_cast<size_t>(i)]);
        }
  return out;
}

// The backward's sums per gradInput element: in float64 (with the sum of magnitudes and the term count
// for the bound), and in PyTorch's order and accumulation type (accumulateInDouble: fp64).
struct NearestBackwardReference {
  std::vector<double> exact64, magnitude, ordered;
  std::vector<int64_t> terms;
};

inline NearestBackwardReference NearestBackwardSums(const NearestProblem &p,
                                                    const std::vector<double> &gradOut,
                                                    bool accumulateInDouble) {
  const auto d = p.Indices(0), h = p.Indices(1), w = p.Indices(2);
  const auto &in = p.in;
  const size_t count = static_cast<size_t>(in[0] * in[1] * in[2] * in[3] * in[4]);
  NearestBackwardReference r;
  r.exact64.assign(count, 0.0);
  r.magnitude.assign(count, 0.0);
  r.terms.assign(count, 0);
  std::vector<float> orderedF(count, 0.0f);
  std::vector<double> orderedD(count, 0.0);
  size_t g = 0;
  for (int64_t nc = 0; nc < in[0] * in[1]; ++nc)
    for (int64_t od = 0; od < p.out[0]; ++od)
      for (int64_t oh = 0; oh < p.out[1]; ++oh)
        for (int64_t ow = 0; ow < p.out[2]; ++ow, ++g) {
          const size_t i = static_cast<size_t>(((nc * in[2] + d[od]) * in[3] + h[oh]) * in[4] + w[ow]);
          const double v = gradOut[g];
          r.exact64[i] += v;
          r.magnitude[i] += std::fabs(v);
          ++r.terms[i];
          orderedF[i] += static_cast<float>(v);
          orderedD[i] += v;
        }
  r.ordered.resize(count);
  for (size_t i = 0; i < count; ++i) r.ordered[i] = accumulateInDouble ? orderedD[i] : orderedF[i];
  return r;
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_REFERENCE_NEAREST_REFERENCE_H_
