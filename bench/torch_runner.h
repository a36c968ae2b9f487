// PyTorch's CPU kernel (libtorch) on the same bytes as ours, plus the torch-side helpers: filling the
// source with random values and checking our result against PyTorch's.
#ifndef TRILINEAR3D_BENCH_TORCH_RUNNER_H_
#define TRILINEAR3D_BENCH_TORCH_RUNNER_H_

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "bench_cases.h"

namespace bench {

void SetTorchThreads(int threads);
std::string TorchVersion();

// Fills `bytes` bytes at `data` with uniform [-1, 1) values of the case's dtype (a random tile, repeated).
void FillRandom(const BenchCase &benchCase, void *data, uint64_t bytes);

// A tensor over caller-owned memory (no copy): channels-first sizes (N, C, spatial...), contiguous or
// channels-last (channels_last, channels_last_3d) strides as the case says.
at::Tensor WrapMemory(const BenchCase &benchCase, const std::vector<int64_t> &sizes, void *data);

struct CheckResult {
  double relativeError = 0;  // max |ours - reference| / max |reference| (NaN or inf in ours: +inf)
  int64_t badElements = 0;   // elements whose |ours - reference| > tolerance * max |reference|
  int64_t elements = 0;
};
class TorchRunner {
 public:
  // source: the case's gradOut (backward) or x (forward), shared with our runner, read only.
  TorchRunner(const BenchCase &benchCase, void *source);

  // Whether PyTorch has a CPU kernel for this dtype (PyTorch 1.13 has none for fp16); found by trying.
  bool available();
  const std::string &unavailableReason() const { return reason_; }

  double RunMs();  // one timed call (output allocation included, as in PyTorch's normal use)
  std::string resultLayout() const;  // "contiguous", "channels_last", "channels_last_3d" or "strided"

  // Checks ours (the case's destination) against PyTorch in fp32: for fp32 PyTorch's last timed result;
  // for bf16 and fp16 PyTorch's fp32 kernel on the same values converted to fp32 (PyTorch's own bf16
  // kernel accumulates in bf16 and is itself ~2.5 % off on B2; it has no fp16 kernel), computed a few
  // channels at a time so that B4 needs no fp32 copy of its 2 GiB gradOut.
  CheckResult Check(void *oursDestination, double tolerance);

 private:
  at::Tensor Call(const at::Tensor &source) const;       // source: any channel count (sizes from the tensor)
  at::Tensor CallCubic(const at::Tensor &source) const;  // Call for the cubic group's 2-D operators

  BenchCase case_;
  at::Tensor source_;
  at::Tensor result_;
  int availability_ = -1;  // -1 unknown, 0 no, 1 yes
  std::string reason_;
};

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_TORCH_RUNNER_H_
