// What a bench run measured, and its two renderings: a markdown table and JSON.
#ifndef TRILINEAR3D_BENCH_BENCH_REPORT_H_
#define TRILINEAR3D_BENCH_BENCH_REPORT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench_cases.h"

namespace bench {

struct MachineInfo {
  std::string cpuModel;
  int logicalCpus = 0;   // hardware threads of the machine
  int usableCpus = 0;    // in this process's affinity mask
  int threads = 0;       // used by ours and by PyTorch
  std::string tier;      // the kernel tier the library runs, as trilinear3dKernelIsa() names it
  std::string isa;       // that tier and how it was forced (TRILINEAR3D_ISA, ATEN_CPU_CAPABILITY)
  std::string cpuFlags;  // the vector-ISA flags of /proc/cpuinfo
  std::string date;      // UTC, ISO 8601
  std::string torchVersion;
  std::string compiler;
  int reps = 0;
  int warmup = 0;
};

MachineInfo ReadMachineInfo(int threads, int reps, int warmup, const std::string &torchVersion);

struct CaseResult {
  BenchCase benchCase;
  std::vector<double> oursRuns, torchRuns, memcpyRuns, floorRuns;  // ms, timed runs only
  double oursMs = 0, torchMs = 0, memcpyMs = 0, floorMs = 0;       // medians
  bool torchAvailable = false;
  std::string torchNote;  // why PyTorch is n/a, or its result layout
  uint64_t workspaceBytes = 0;
  double relativeError = 0;  // max |ours - PyTorch| / max |PyTorch|
  double tolerance = 0;
  int64_t badElements = 0;  // elements off by more than tolerance * max |PyTorch|
  int64_t checkedElements = 0;
  bool checked = false;
  std::string error;  // non-empty: the case could not be run

  double OursGBs() const;    // (source + destination bytes) / ours time
  double TorchGBs() const;   // the same bytes / PyTorch's time
  double MemcpyGBs() const;  // 2 * (the same bytes) / memcpy time: read + write
  double OfFloor() const;    // streaming floor time / ours time (1: at the floor)
  double SpeedUp() const;    // PyTorch time / ours time
  bool Ok() const { return checked && relativeError <= tolerance; }
};

struct ScalingResult {
  bool measured = false;
  int threads = 0;
  std::vector<double> oneThreadRuns, manyThreadRuns;
  double oneThreadMs = 0, manyThreadMs = 0;
  // B1's streaming floor timed in the same children (1 thread, `threads` threads).
  std::vector<double> oneThreadFloorRuns, manyThreadFloorRuns;
  double oneThreadFloorMs = 0, manyThreadFloorMs = 0;
  double Ratio() const { return manyThreadMs > 0 ? oneThreadMs / manyThreadMs : 0; }
  double FloorRatio() const { return manyThreadFloorMs > 0 ? oneThreadFloorMs / manyThreadFloorMs : 0; }
};

// value with `digits` decimals; milliseconds with about three significant digits.
std::string Fixed(double value, int digits);
std::string Ms(double ms);

std::string MachineLine(const MachineInfo &machine);
void WriteMarkdown(std::ostream &out, const MachineInfo &machine, const std::vector<CaseResult> &results,
                   const ScalingResult &scaling);
void WriteJson(std::ostream &out, const MachineInfo &machine, const std::vector<CaseResult> &results,
               const ScalingResult &scaling);

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_BENCH_REPORT_H_
