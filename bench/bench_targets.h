// The project's performance targets, checked against one bench run: the backward targets (docs/spec.md
// §8's cases B1-B8, 2 threads each side), the forward targets (F1, the forward of B1), the linear
// group's targets (L1-L6: a fraction of the streaming floor that depends on the ISA tier, and L1, L4
// against PyTorch) and the nearest group's (N1-N6: a fraction of the floor per tier, and never slower than
// PyTorch).
//
// A ratio to PyTorch moves with PyTorch's own time, which varies a lot between runs on a shared
// machine. So a failed ratio also says what time it needed and how that compares with the run's
// streaming floor (the same threads only reading the source once and writing the destination once):
// a needed time below the floor could not have been reached by any kernel in that run.
#ifndef TRILINEAR3D_BENCH_BENCH_TARGETS_H_
#define TRILINEAR3D_BENCH_BENCH_TARGETS_H_

#include <string>
#include <vector>

#include "bench_report.h"

namespace bench {

struct TargetCheck {
  std::string target;    // what is required: "B1 speed-up >= 25x (backward targets)"
  std::string measured;  // what the run measured: "15.5x (11.3 vs 176 ms)"
  bool met = false;
  // Unmet ratio: the time ours needed, against the floor ("needs <= 7.04 ms; floor 9.39 ms: below it").
  std::string note;
  bool belowFloor = false;  // unmet, and the time it needed is below this run's streaming floor
};

// The checks for the cases in `results` (targets of cases not run are left out), the B1 scaling
// target when it was measured, and the workspace limit of every case. tier: the library's ISA tier as
// trilinear3dKernelIsa() names it; "baseline" takes the baseline tier's floor bars, any other the vector
// tiers'.
std::vector<TargetCheck> CheckTargets(const std::vector<CaseResult> &results, const ScalingResult &scaling,
                                      const std::string &tier = "");

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_BENCH_TARGETS_H_
