// The benchmark's cases: docs/spec.md §8 (B1-B8, backward) and the forward cases (F1, F3, F5).
#ifndef TRILINEAR3D_BENCH_BENCH_CASES_H_
#define TRILINEAR3D_BENCH_BENCH_CASES_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

enum class DType { kFloat32, kFloat16, kBFloat16 };

struct BenchCase {
  std::string id;
  bool forward = false;              // false: backward (gradInput <- gradOut); true: forward (x -> y)
  std::array<int64_t, 5> input{};    // NCDHW: gradInput, or the forward's x
  std::array<int64_t, 3> outSize{};  // D, H, W of gradOut, or of the forward's y
  DType dtype = DType::kFloat32;
  bool channelsLast = false;  // NDHWC (PyTorch channels_last_3d) for both tensors
  bool alignCorners = false;

  std::array<int64_t, 5> Output() const { return {input[0], input[1], outSize[0], outSize[1], outSize[2]}; }
  int64_t InputElements() const;
  int64_t OutputElements() const;
  // Bytes the operator must move: gradOut + gradInput (backward), x + y (forward).
  int64_t TotalBytes() const;
  std::string ShapeText() const;   // "gradInput <- gradOut" or "x -> y"
  std::string FormatText() const;  // "fp32 NCDHW", "bf16 NDHWC, align_corners"
};

int64_t ElementSize(DType dtype);
const char *DTypeName(DType dtype);

const std::vector<BenchCase> &AllCases();
// Selects cases by a comma-separated list of ids ("B1,B3,F1"); empty: all. Unknown ids are reported
// in *unknown.
std::vector<BenchCase> SelectCases(const std::string &list, std::string *unknown);

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_BENCH_CASES_H_
