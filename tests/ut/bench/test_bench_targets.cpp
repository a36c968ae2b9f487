// The bench's target checks (bench/bench_targets.h) on made-up runs: which targets a run has, when
// each is met, and the floor note of an unmet ratio.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bench_cases.h"
#include "bench_report.h"
#include "bench_targets.h"

namespace bench {
namespace {

const BenchCase &CaseById(const std::string &id) {
  for (const BenchCase &c : AllCases()) {
    if (c.id == id) return c;
  }
  ADD_FAILURE() << "no bench case " << id;
  return AllCases().front();
}

// A case run: ours, PyTorch (<= 0: no PyTorch kernel), the floor, and a memcpy time chosen so that
// ours reaches `ofMemcpy` of its bandwidth.
CaseResult CaseRun(const std::string &id, double oursMs, double torchMs, double floorMs, double ofMemcpy,
                   uint64_t workspace = 4096) {
  CaseResult r;
  r.benchCase = CaseById(id);
  r.oursMs = oursMs;
  r.torchAvailable = torchMs > 0;
  r.torchMs = torchMs > 0 ? torchMs : 0;
  r.floorMs = floorMs;
  r.memcpyMs = 2.0 * oursMs * ofMemcpy;  // memcpy GB/s = 2 bytes / memcpyMs = ours GB/s / ofMemcpy
  r.workspaceBytes = workspace;
  r.checked = true;
  return r;
}

// A measured 2-thread scaling result (floors 0: not timed).
ScalingResult Scaling(double oneThreadMs, double twoThreadMs, double oneThreadFloorMs = 0,
                      double twoThreadFloorMs = 0) {
  ScalingResult scaling;
  scaling.measured = true;
  scaling.threads = 2;
  scaling.oneThreadMs = oneThreadMs;
  scaling.manyThreadMs = twoThreadMs;
  scaling.oneThreadFloorMs = oneThreadFloorMs;
  scaling.manyThreadFloorMs = twoThreadFloorMs;
  return scaling;
}

const TargetCheck *Find(const std::vector<TargetCheck> &checks, const std::string &prefix) {
  for (const TargetCheck &c : checks) {
    if (c.target.rfind(prefix, 0) == 0) return &c;
  }
  return nullptr;
}

TEST(BenchTargets, EveryTargetOfARunThatMeetsThem) {
  std::vector<CaseResult> results = {CaseRun("B1", 9.0, 260, 8.5, 0.85), CaseRun("B3", 12, 60, 6, 0.5),
                                     CaseRun("B7", 0.4, 0, 0.3, 0.45), CaseRun("F5", 0.7, 7, 0.5, 0.6)};
  const ScalingResult scaling = Scaling(18, 10);
  const std::vector<TargetCheck> checks = CheckTargets(results, scaling);
  // B1: ratio and bandwidth; B3: both; B7 (no PyTorch kernel): bandwidth only; F5: none; scaling;
  // workspace.
  ASSERT_EQ(checks.size(), 7u);
  for (const TargetCheck &c : checks) {
    EXPECT_TRUE(c.met) << c.target << ": " << c.measured;
    EXPECT_TRUE(c.note.empty()) << c.target;
  }
  EXPECT_EQ(Find(checks, "B7 speed-up"), nullptr);
  ASSERT_NE(Find(checks, "B1 speed-up >= 25x"), nullptr);
  EXPECT_NE(Find(checks, "B1 speed-up")->measured.find("28.9x"), std::string::npos);
  EXPECT_NE(Find(checks, "B3 speed-up >= 4x"), nullptr);
  EXPECT_NE(Find(checks, "B1 >= 60 % of memcpy"), nullptr);
  EXPECT_NE(Find(checks, "B1 2 threads >= 1.7x"), nullptr);
}

// The cubic group: C1 against PyTorch (10x) and every C case against its streaming floor (50 % on the vector
// tiers), one check each, met and unmet.
TEST(BenchTargets, TheCubicGroupsSpeedUpAndFloorTargets) {
  std::vector<CaseResult> results = {CaseRun("C1", 30, 400, 16, 0.5), CaseRun("C3", 20, 60, 8, 0.5)};
  const std::vector<TargetCheck> checks = CheckTargets(results, ScalingResult{});
  const TargetCheck *speedUp = Find(checks, "C1 speed-up >= 10x");
  ASSERT_NE(speedUp, nullptr);
  EXPECT_TRUE(speedUp->met);
  const TargetCheck *floorC1 = Find(checks, "C1 >= 50 % of its streaming floor");
  ASSERT_NE(floorC1, nullptr);
  EXPECT_TRUE(floorC1->met) << floorC1->measured;  // 16 / 30 = 53 %
  EXPECT_EQ(Find(checks, "C3 speed-up"), nullptr);
  const TargetCheck *floorC3 = Find(checks, "C3 >= 50 % of its streaming floor");
  ASSERT_NE(floorC3, nullptr);
  EXPECT_FALSE(floorC3->met) << floorC3->measured;  // 8 / 20 = 40 %
}

TEST(BenchTargets, AnUnmetRatioSaysWhetherItsTimeWasBelowTheFloor) {
  // PyTorch 176 ms: 25x needs 7.04 ms, below the 9.39 ms floor.
  std::vector<TargetCheck> checks = CheckTargets({CaseRun("B1", 11.3, 176, 9.39, 0.82)}, ScalingResult{});
  const TargetCheck *speed = Find(checks, "B1 speed-up");
  ASSERT_NE(speed, nullptr);
  EXPECT_FALSE(speed->met);
  EXPECT_TRUE(speed->belowFloor);
  EXPECT_NE(speed->note.find("needs <= 7.04 ms"), std::string::npos) << speed->note;
  EXPECT_NE(speed->note.find("below the floor"), std::string::npos) << speed->note;

  // PyTorch 260 ms: 25x needs 10.4 ms, above the floor: ours fell short.
  checks = CheckTargets({CaseRun("B1", 11.3, 260, 9.39, 0.82)}, ScalingResult{});
  speed = Find(checks, "B1 speed-up");
  ASSERT_NE(speed, nullptr);
  EXPECT_FALSE(speed->met);
  EXPECT_FALSE(speed->belowFloor);
  EXPECT_NE(speed->note.find("needs <= 10.4 ms"), std::string::npos) << speed->note;
  EXPECT_NE(speed->note.find("ours at 83 %"), std::string::npos) << speed->note;
}

TEST(BenchTargets, BandwidthScalingAndWorkspaceFail) {
  const ScalingResult scaling = Scaling(19.7, 12.6);  // 1.56x
  const std::vector<TargetCheck> checks =
      CheckTargets({CaseRun("B6", 1.0, 6.0, 0.9, 0.25, uint64_t{65} << 20)}, scaling);
  const TargetCheck *bandwidth = Find(checks, "B6 >= 30 % of memcpy");
  ASSERT_NE(bandwidth, nullptr);
  EXPECT_FALSE(bandwidth->met);
  EXPECT_NE(bandwidth->note.find("needs <= 0.833 ms"), std::string::npos) << bandwidth->note;
  EXPECT_TRUE(bandwidth->belowFloor);
  const TargetCheck *speed = Find(checks, "B6 speed-up >= 5x");
  ASSERT_NE(speed, nullptr);
  EXPECT_TRUE(speed->met);  // 6x
  const TargetCheck *scale = Find(checks, "B1 2 threads");
  ASSERT_NE(scale, nullptr);
  EXPECT_FALSE(scale->met);
  EXPECT_NE(scale->measured.find("1.56x"), std::string::npos) << scale->measured;
  const TargetCheck *workspace = Find(checks, "workspace");
  ASSERT_NE(workspace, nullptr);
  EXPECT_FALSE(workspace->met);
  EXPECT_NE(workspace->measured.find("(B6)"), std::string::npos) << workspace->measured;
}

// The scaling target's note: the floors' own ratio (timed in the same children), how close one
// thread is to its floor, and, unmet, the time the threads needed and whether it was under their floor.
TEST(BenchTargets, TheScalingNoteSaysHowTheFloorScaled) {
  ScalingResult scaling = Scaling(18.7, 11.1, 10.3, 8.88);  // ours 1.68x, the floors 1.16x
  std::vector<TargetCheck> checks = CheckTargets({}, scaling);
  const TargetCheck *scale = Find(checks, "B1 2 threads");
  ASSERT_NE(scale, nullptr);
  EXPECT_FALSE(scale->met);
  EXPECT_FALSE(scale->belowFloor);  // 18.7 / 1.7 = 11.0 ms, above the 2-thread floor
  EXPECT_EQ(scale->note,
            "floors 10.3 -> 8.88 ms (1.16x); 1 thread at 55 % of its floor; needs 2 threads <= 11.0 ms");

  scaling.oneThreadMs = 14.0;  // needs 8.24 ms: under the 2-thread floor
  checks = CheckTargets({}, scaling);
  scale = Find(checks, "B1 2 threads");
  ASSERT_NE(scale, nullptr);
  EXPECT_TRUE(scale->belowFloor);
  EXPECT_NE(scale->note.find("needs 2 threads <= 8.24 ms, below their floor"), std::string::npos)
      << scale->note;

  scaling.oneThreadMs = 19.0;  // 1.71x: met, the note keeps the floors
  checks = CheckTargets({}, scaling);
  scale = Find(checks, "B1 2 threads");
  ASSERT_NE(scale, nullptr);
  EXPECT_TRUE(scale->met);
  EXPECT_EQ(scale->note, "floors 10.3 -> 8.88 ms (1.16x); 1 thread at 54 % of its floor");

  std::ostringstream markdown, json;
  WriteMarkdown(markdown, MachineInfo{}, {}, scaling);
  WriteJson(json, MachineInfo{}, {}, scaling);
  EXPECT_NE(
      markdown.str().find("B1's streaming floor in the same processes: 1 thread 10.3 ms, 2 threads 8.88 "
                          "ms → 1.16× (the memory traffic alone)"),
      std::string::npos)
      << markdown.str();
  EXPECT_NE(json.str().find("\"floor_ratio\": "), std::string::npos) << json.str();
}

TEST(BenchTargets, ACaseThatFailedToRunFailsItsTarget) {
  CaseResult failed;
  failed.benchCase = CaseById("B4");
  failed.error = "out of memory";
  const std::vector<TargetCheck> checks = CheckTargets({failed}, ScalingResult{});
  ASSERT_EQ(checks.size(), 1u);  // no workspace check: nothing ran
  EXPECT_FALSE(checks[0].met);
  EXPECT_NE(checks[0].measured.find("out of memory"), std::string::npos);
}

TEST(BenchTargets, TheReportsCarryTheChecks) {
  const std::vector<CaseResult> results = {CaseRun("B1", 11.3, 176, 9.39, 0.82)};
  MachineInfo machine;
  machine.reps = 1;
  std::ostringstream markdown, json;
  WriteMarkdown(markdown, machine, results, ScalingResult{});
  WriteJson(json, machine, results, ScalingResult{});
  EXPECT_NE(markdown.str().find("Targets: 2 of 3 met in this run; 1 of the unmet needed a time "
                                "below this run's streaming floor."),
            std::string::npos)
      << markdown.str();
  EXPECT_NE(
      markdown.str().find("| B1 speed-up >= 25x (backward targets) | 15.6x (11.3 vs 176 ms) | **no** |"),
      std::string::npos)
      << markdown.str();
  EXPECT_NE(json.str().find("\"target\": \"B1 speed-up >= 25x (backward targets)\""), std::string::npos)
      << json.str();
  EXPECT_NE(json.str().find("\"below_floor\": true"), std::string::npos) << json.str();
}

}  // namespace
}  // namespace bench
