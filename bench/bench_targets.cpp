#include "bench_targets.h"

#include <cstdint>

namespace bench {
namespace {

// The backward targets: every backward case >= 5x PyTorch (where PyTorch has the dtype) and >= 30 %
// of memcpy bandwidth, with higher bars on B1, B2 and B4, and B3 against PyTorch's channels_last
// kernel at 4x. The forward targets: the forward of B1 (F1) >= 3x and >= 50 %. The linear group's
// targets: every L case >= 60 % of its streaming floor on the vector tiers (AVX2, AVX-512) and >= 30 % on
// the baseline tier; L1 and L4 (the 2x backwards) >= 5x PyTorch. The nearest group's targets: every N case
// >= 70 % of its streaming floor on the vector tiers and >= 40 % on the baseline tier, and never slower than
// PyTorch (>= 1x). A bar of 0 is no target.
struct CaseTarget {
  const char *id;
  double speedUp;          // PyTorch time / ours
  double ofMemcpy;         // ours GB/s / memcpy GB/s
  double ofFloor;          // streaming floor time / ours, on a vector tier
  double ofFloorBaseline;  // the same on the baseline tier
  const char *group;       // which target set: "backward targets", "forward targets", ...
};

constexpr const char *kBackward = "backward targets";
constexpr const char *kForward = "forward targets";
constexpr const char *kLinear = "linear-group targets";
constexpr const char *kCubic = "cubic-group targets";
constexpr const char *kNearest = "nearest-group targets";

constexpr CaseTarget kCaseTargets[] = {
    {"B1", 25, 0.60, 0, 0, kBackward},
    {"B2", 100, 0.30, 0, 0, kBackward},
    {"B3", 4, 0.30, 0, 0, kBackward},
    {"B4", 100, 0.30, 0, 0, kBackward},
    {"B5", 5, 0.30, 0, 0, kBackward},
    {"B6", 5, 0.30, 0, 0, kBackward},
    {"B7", 5, 0.30, 0, 0, kBackward},
    {"B8", 5, 0.30, 0, 0, kBackward},
    {"F1", 3, 0.50, 0, 0, kForward},
    {"L1", 5, 0, 0.60, 0.30, kLinear},
    {"L2", 0, 0, 0.60, 0.30, kLinear},
    {"L3", 0, 0, 0.60, 0.30, kLinear},
    {"L4", 5, 0, 0.60, 0.30, kLinear},
    {"L5", 0, 0, 0.60, 0.30, kLinear},
    {"L6", 0, 0, 0.60, 0.30, kLinear},
    // The cubic group: C1 >= 10x PyTorch; every C case >= 50 % of its streaming floor on the vector tiers,
    // >= 30 % on the baseline tier.
    {"C1", 10, 0, 0.50, 0.30, kCubic},
    {"C2", 0, 0, 0.50, 0.30, kCubic},
    {"C3", 0, 0, 0.50, 0.30, kCubic},
    {"C4", 0, 0, 0.50, 0.30, kCubic},
    {"C5", 0, 0, 0.50, 0.30, kCubic},
    // The nearest group: never slower than PyTorch; >= 70 % of the streaming floor on the vector tiers, >= 40
    // % on the baseline tier.
    {"N1", 1, 0, 0.70, 0.40, kNearest},
    {"N2", 1, 0, 0.70, 0.40, kNearest},
    {"N3", 1, 0, 0.70, 0.40, kNearest},
    {"N4", 1, 0, 0.70, 0.40, kNearest},
    {"N5", 1, 0, 0.70, 0.40, kNearest},
    {"N6", 1, 0, 0.70, 0.40, kNearest},
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

void CheckCase(const CaseResult &r, const CaseTarget &t, bool baselineTier,
               std::vector<TargetCheck> *checks) {
  const std::string id = r.benchCase.id;
  const std::string suffix = std::string(" (") + t.group + ")";
  if (!r.error.empty()) {
    checks->push_back({id + " runs" + suffix, "error: " + r.error, false, "", false});
    return;
  }
  if (r.torchAvailable && t.speedUp > 0) {
    TargetCheck speed;
    speed.target = id + " speed-up >= " + Fixed(t.speedUp, 0) + "x" + suffix;
    speed.measured = Fixed(r.SpeedUp(), 1) + "x (" + Ms(r.oursMs) + " vs " + Ms(r.torchMs) + " ms)";
    speed.met = r.SpeedUp() >= t.speedUp;
    if (!speed.met) NoteNeededTime(r.torchMs / t.speedUp, r, &speed);
    checks->push_back(speed);
  }
  if (t.ofMemcpy > 0) {
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
  const double ofFloor = baselineTier ? t.ofFloorBaseline : t.ofFloor;
  if (ofFloor > 0) {
    TargetCheck floor;
    floor.target = id + " >= " + Fixed(100.0 * ofFloor, 0) + " % of its streaming floor on the " +
                   (baselineTier ? "baseline tier" : "vector tiers") + suffix;
    floor.measured =
        Fixed(100.0 * r.OfFloor(), 0) + " % (" + Ms(r.oursMs) + " vs floor " + Ms(r.floorMs) + " ms)";
    floor.met = r.OfFloor() >= ofFloor;
    if (!floor.met) NoteNeededTime(r.floorMs / ofFloor, r, &floor);
    checks->push_back(floor);
  }
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

std::vector<TargetCheck> CheckTargets(const std::vector<CaseResult> &results, const ScalingResult &scaling,
                                      const std::string &tier) {
  std::vector<TargetCheck> checks;
  const bool baselineTier = tier == "baseline";
  for (const CaseResult &r : results) {
    if (const CaseTarget *t = TargetOf(r.benchCase.id)) CheckCase(r, *t, baselineTier, &checks);
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
