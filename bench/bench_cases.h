// The benchmark's cases: docs/spec.md §8 (B1-B8, backward; F1, F3, F5, forward: the trilinear 3-D
// operators), the linear group's L1-L6 (linear 1-D and bilinear 2-D, forward and backward) and the
// nearest group's N1-N6 (nearest 2-D and 3-D, nearest-exact 2-D).
#ifndef TRILINEAR3D_BENCH_BENCH_CASES_H_
#define TRILINEAR3D_BENCH_BENCH_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

enum class DType { kFloat32, kFloat16, kBFloat16 };

// The 2-D cases' filter: bilinear (the linear group), or the cubic group's bicubic and antialiased ones.
enum class Filter2d { kLinear, kBicubic, kBilinearAntialias, kBicubicAntialias };

// The operator group: linear (linear1d, bilinear2d, trilinear3d, or the 2-D cases' Filter2d), nearest or
// nearest-exact.
enum class Mode { kLinear, kNearest, kNearestExact };

// One case of any of the family's ranks: the mode and the spatial axes (1: L, 2: H, W, 3: D, H, W) pick
// the operator (upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d; upsample_nearest1d/2d/3d;
// _upsample_nearest_exact1d/2d/3d; with a 2-D filter the cubic group's), the direction its forward or
// backward.
struct BenchCase {
  std::string id;
  bool forward = false;          // false: backward (gradInput <- gradOut); true: forward (x -> y)
  std::vector<int64_t> input;    // N, C, then the spatial sizes: gradInput, or the forward's x
  std::vector<int64_t> outSize;  // the spatial sizes of gradOut, or of the forward's y
  DType dtype = DType::kFloat32;
  bool channelsLast = false;  // channels last (NHWC, NDHWC; PyTorch channels_last(_3d)) for both tensors
  bool alignCorners = false;
  Mode mode = Mode::kLinear;
  Filter2d filter = Filter2d::kLinear;  // 2-D cases of Mode::kLinear only

  int SpatialRank() const { return static_cast<int>(input.size()) - 2; }
  std::vector<int64_t> Output() const;  // N, C, outSize: gradOut, or the forward's y
  int64_t InputElements() const;
  int64_t OutputElements() const;
  // Bytes the operator must move: gradOut + gradInput (backward), x + y (forward).
  int64_t TotalBytes() const;
  const char *Layout() const;        // the memory order: "NCL", "NCHW", "NHWC", "NCDHW" or "NDHWC"
  const char *OperatorName() const;  // PyTorch's name: "upsample_bilinear2d_backward", ...
  std::string ShapeText() const;     // "gradInput <- gradOut" or "x -> y", channels-first sizes
  std::string FormatText() const;    // "fp32 NCDHW", "bf16 NHWC, align_corners", "fp32 NCHW, nearest"
};

int64_t ElementSize(DType dtype);
const char *DTypeName(DType dtype);
// Channels-first sizes (N, C, spatial...) in the memory order of `channelsLast`: (N, spatial..., C).
std::vector<int64_t> InMemoryOrder(const std::vector<int64_t> &sizes, bool channelsLast);
// Contiguous strides of `sizes` (channels first) for the memory order of `channelsLast`, in sizes' order.
std::vector<int64_t> StridesOf(const std::vector<int64_t> &sizes, bool channelsLast);

const std::vector<BenchCase> &AllCases();
// Selects cases by a comma-separated list of ids ("B1,B3,F1,L1"); empty or "all": all. Unknown ids are
// reported in *unknown.
std::vector<BenchCase> SelectCases(const std::string &list, std::string *unknown);

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_BENCH_CASES_H_
