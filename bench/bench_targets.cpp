#include "bench_targets.h"

#include <cstdint>

namespace bench {
namespace {

// The backward targets: every backward case >= 5x PyTorch (where PyTorch has the dtype) and >= 30 %
// of memcpy bandwidth, with higher bars on B1, B2 and B4, and B3 against PyTorch's channels_last
// kernel at 4x. The forward targets: the forward of B1 (F1) >= 3x and >= 50 %.
struct CaseTarget {
  const char *id;
  double speedUp;     // PyTorch time / ours
  double ofMemcpy;    // ours GB/s / memcpy GB/s
  const char *group;  // which target set: "backward targets" or "forward targets"
};

constexpr CaseTarget kCaseTargets[] = {
    {"B1", 25, 0.60, "backward targets"}, {"B2", 100, 0.30, "backward targets"},
    {"B3", 4, 0.30, "backward targets"},  {"B4", 100, 0.30, "backward targets"},
    {"B5", 5, 0.30, "backward targets"},  {"B6", 5, 0.30, "backward targets"},
    {"B7", 5, 0.30, "backward targets"},  {"B8", 5, 0.30, "backward targets"},
    {"F1", 3, 0.50, "forward targets"},
};

constexpr uint64_t kWorkspaceLimitBytes = uint64_t{64} << 20;  // backward targets, every case
constexpr double kScalingTarget = 1.7;                         // backward targets: B1, 2 threads vs 1

const CaseTarget *TargetOf(const std::string &id) {
  for (const CaseTarget &t : kCaseTargets) {
    if (id == t.id) return &t;
  }
  return nullptr;
}

// The note of a failed time-based target: the time ours needed, against the run's floor.
void NoteNeededTime(double neededMs, const CaseResult &r, TargetCheck *check) {
  check->belowFloor = neededMs < r.floorMs;
  check->note = "needs <= " + Ms(neededMs) + " ms; this run's floor " + Ms(r.floorMs) + " ms" +
                (check->belowFloor ? ": below the floor, no kernel could meet it in this run"
                                   : ", ours at " + Fixed(100.0 * r.OfFloor(), 0) + " % of it");
}

void CheckCase(const CaseResult &r, const CaseTarget &t, std::vector<TargetCheck> *checks) {
  const std::string id = r.benchCase.id;
  const std::string suffix = std::string(" (") + t.group + ")";
  if (!r.error.empty()) {
    checks->push_back({id + " runs" + suffix, "error: " + r.error, false, "", false});
    return;
  }
  if (r.torchAvailable) {
    TargetCheck speed;
    speed.target = id + " speed-up >= " + Fixed(t.speedUp, 0) + "x" + suffix;
    speed.measured = Fixed(r.SpeedUp(), 1) + "x (" + Ms(r.oursMs) + " vs " + Ms(r.torchMs) + " ms)";
    speed.met = r.SpeedUp() >= t.speedUp;
    if (!speed.met) NoteNeededTime(r.torchMs / t.speedUp, r, &speed);
    checks->push_back(speed);
  }
  TargetCheck bandwidth;
  bandwidth.target = id + " >= " + Fixed(100.0 * t.ofMemcpy, 0) + " % of memcpy bandwidth" + suffix;
  const double fraction = r.MemcpyGBs() > 0 ? r.OursGBs() / r.MemcpyGBs() : 0;
  bandwidth.measured = Fixed(100.0 * fraction, 0) + " % (" + Fixed(r.OursGBs(), 1) + " of " +
                       Fixed(r.MemcpyGBs(), 1) + " GB/s)";
  bandwidth.met = fraction >= t.ofMemcpy;
  if (!bandwidth.met && r.MemcpyGBs() > 0) {
    NoteNeededTime(static_cast<double>(r.benchCase.TotalBytes()) / (t.ofMemcpy * r.MemcpyGBs() * 1e6), r,
                   &bandwidth);
  }
  checks->push_back(bandwidth);
}

// The note of the scaling target: how the streaming floor itself scaled in the same processes, and
// when unmet, the time the threads needed. With 1 thread already near its floor, no kernel can scale
// past the floors' ratio, so a ratio target caps how fast the 1-thread kernel may be.
void NoteScaling(const ScalingResult &scaling, TargetCheck *check) {
  if (scaling.FloorRatio() <= 0) return;
  check->note = "floors " + Ms(scaling.oneThreadFloorMs) + " -> " + Ms(scaling.manyThreadFloorMs) + " ms (" +
                Fixed(scaling.FloorRatio(), 2) + "x); 1 thread at " +
                Fixed(100.0 * scaling.oneThreadFloorMs / scaling.oneThreadMs, 0) + " % of its floor";
  if (check->met) return;
  const double neededMs = scaling.oneThreadMs / kScalingTarget;
  check->belowFloor = neededMs < scaling.manyThreadFloorMs;
  check->note += "; needs " + std::to_string(scaling.threads) + " threads <= " + Ms(neededMs) + " ms" +
                 (check->belowFloor ? ", below their floor" : "");
}

}  // namespace

std::vector<TargetCheck> CheckTargets(const std::vector<CaseResult> &results, const ScalingResult &scaling) {
  std::vector<TargetCheck> checks;
  for (const CaseResult &r : results) {
    if (const CaseTarget *t = TargetOf(r.benchCase.id)) CheckCase(r, *t, &checks);
  }
  if (scaling.measured) {
    TargetCheck check;
    check.target = "B1 " + std::to_string(scaling.threads) + " threads >= " + Fixed(kScalingTarget, 1) +
                   "x one thread (backward targets)";
    check.measured = Fixed(scaling.Ratio(), 2) + "x (" + Ms(scaling.oneThreadMs) + " -> " +
                     Ms(scaling.manyThreadMs) + " ms)";
    check.met = scaling.Ratio() >= kScalingTarget;
    NoteScaling(scaling, &check);
    checks.push_back(check);
  }
  uint64_t largest = 0;
  std::string largestId;
  bool anyRun = false;
  for (const CaseResult &r : results) {
    if (!r.error.empty()) continue;
    anyRun = true;
    if (r.workspaceBytes >= largest) {
      largest = r.workspaceBytes;
      largestId = r.benchCase.id;
    }
  }
  if (anyRun) {
    TargetCheck check;
    check.target = "workspace <= 64 MiB on every case (backward targets)";
    check.measured = "largest " + std::to_string(largest) + " bytes (" + largestId + ")";
    check.met = largest <= kWorkspaceLimitBytes;
    checks.push_back(check);
  }
  return checks;
}

}  // namespace bench
