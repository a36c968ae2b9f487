#include "bench_report.h"

#include "bench_targets.h"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <thread>

#include "trilinear3d/isa.h"

// Where the rival libtorch comes from (bench/CMakeLists.txt sets it for the bench; the report's unit
// test, tests/ut/bench/test_bench_targets.cpp, builds this file without a torch).
#ifndef TRILINEAR3D_BENCH_TORCH_ORIGIN
#define TRILINEAR3D_BENCH_TORCH_ORIGIN "no libtorch linked"
#endif

namespace bench {
namespace {

std::string Trim(const std::string &text) {
  const size_t begin = text.find_first_not_of(" \t");
  const size_t end = text.find_last_not_of(" \t\n");
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

// The value of the first "key : value" line of /proc/cpuinfo.
std::string CpuInfoField(const std::string &key) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon != std::string::npos && Trim(line.substr(0, colon)) == key) return Trim(line.substr(colon + 1));
  }
  return "";
}

bool HasFlag(const std::string &flags, const char *flag) {
  std::istringstream words(flags);
  std::string word;
  while (words >> word) {
    if (word == flag) return true;
  }
  return false;
}

// The tier the library runs, as it says itself (trilinear3d/isa.h), and how it was asked for: the
// library's tier and PyTorch's (ATEN_CPU_CAPABILITY) should match in a comparison of one tier.
std::string LibraryIsa() {
  std::string isa = trilinear3dKernelIsa();
  if (const char *forced = std::getenv("TRILINEAR3D_ISA"))
    isa += std::string(" (TRILINEAR3D_ISA=") + forced + ")";
  if (const char *aten = std::getenv("ATEN_CPU_CAPABILITY"))
    isa += std::string(", PyTorch ATEN_CPU_CAPABILITY=") + aten;
  return isa;
}

std::string JsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string JsonNumber(double value) {
  if (!(value == value) || value > 1e308 || value < -1e308) return "null";
  std::ostringstream text;
  text << std::setprecision(6) << value;
  return text.str();
}

std::string JsonArray(const std::vector<double> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + JsonNumber(values[i]);
  return out + "]";
}

std::string JsonShape(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

std::string Fixed(double value, int digits) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

std::string Ms(double ms) { return Fixed(ms, ms >= 100 ? 0 : ms >= 10 ? 1 : ms >= 1 ? 2 : 3); }

MachineInfo ReadMachineInfo(int threads, int reps, int warmup, const std::string &torchVersion) {
  MachineInfo machine;
  machine.cpuModel = CpuInfoField("model name");
  machine.logicalCpus = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  machine.usableCpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : machine.logicalCpus;
  machine.threads = threads;
  const std::string flags = CpuInfoField("flags");
  machine.tier = trilinear3dKernelIsa();
  machine.isa = LibraryIsa();
  for (const char *flag : {"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
                           "avx512dq", "avx512_bf16", "avx512_fp16"}) {
    if (HasFlag(flags, flag)) machine.cpuFlags += (machine.cpuFlags.empty() ? "" : " ") + std::string(flag);
  }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  machine.date = date;
  machine.torchVersion = torchVersion;
#ifdef __VERSION__
  machine.compiler = std::string("g++ ") + __VERSION__;
#endif
  machine.reps = reps;
  machine.warmup = warmup;
  return machine;
}

double CaseResult::OursGBs() const { return oursMs > 0 ? benchCase.TotalBytes() / (oursMs * 1e6) : 0; }
double CaseResult::TorchGBs() const {
  return torchAvailable && torchMs > 0 ? benchCase.TotalBytes() / (torchMs * 1e6) : 0;
}
double CaseResult::MemcpyGBs() const {
  return memcpyMs > 0 ? 2.0 * benchCase.TotalBytes() / (memcpyMs * 1e6) : 0;
}
double CaseResult::OfFloor() const { return oursMs > 0 ? floorMs / oursMs : 0; }
double CaseResult::SpeedUp() const { return torchAvailable && oursMs > 0 ? torchMs / oursMs : 0; }

std::string MachineLine(const MachineInfo &m) {
  std::ostringstream line;
  line << "Machine: " << m.cpuModel << ", " << m.logicalCpus << " hardware threads (" << m.usableCpus
       << " usable); " << m.threads << " threads for each side (ours: TRILINEAR3D_CORES=" << m.threads
       << ", PyTorch: at::set_num_threads(" << m.threads << ")); library ISA: " << m.isa
       << " (CPU flags: " << m.cpuFlags << "); " << m.date << "; PyTorch " << m.torchVersion
       << " (" TRILINEAR3D_BENCH_TORCH_ORIGIN "); " << m.compiler
       << " -O2 bench, Release library; medians of " << m.reps << " alternating runs after " << m.warmup
       << " warm-up.";
  return line.str();
}

namespace {

// The targets section: a count, and a row per target (unmet ones say what time they needed).
void WriteTargets(std::ostream &out, const std::vector<TargetCheck> &checks) {
  if (checks.empty()) return;
  int met = 0, belowFloor = 0;
  for (const TargetCheck &c : checks) {
    met += c.met ? 1 : 0;
    belowFloor += c.belowFloor ? 1 : 0;
  }
  out << "Targets: " << met << " of " << checks.size() << " met in this run";
  if (belowFloor > 0) {
    out << "; " << belowFloor << " of the unmet needed a time below this run's streaming floor";
  }
  out << ".\n\n| target | measured | met | note |\n|---|---|---|---|\n";
  for (const TargetCheck &c : checks) {
    out << "| " << c.target << " | " << c.measured << " | " << (c.met ? "yes" : "**no**") << " | " << c.note
        << " |\n";
  }
  out << "\n";
}

}  // namespace

void WriteMarkdown(std::ostream &out, const MachineInfo &machine, const std::vector<CaseResult> &results,
                   const ScalingResult &scaling) {
  out << MachineLine(machine) << "\n\n";
  out << "| case | shape | dtype/format | ours ms | PyTorch ms | speed-up | ours GB/s | memcpy GB/s | % of "
         "memcpy | floor ms | % of floor | workspace bytes | check |\n";
  out << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  bool shortTorch = false;
  for (const CaseResult &r : results) {
    const BenchCase &c = r.benchCase;
    if (!r.error.empty()) {
      out << "| " << c.id << " | " << c.ShapeText() << " | " << c.FormatText() << " | **ERROR: " << r.error
          << "** | | | | | | | | | |\n";
      continue;
    }
    std::string torchMs = "n/a", speedUp = "n/a";
    if (r.torchAvailable) {
      torchMs = Ms(r.torchMs);
      if (static_cast<int>(r.torchRuns.size()) < machine.reps) {
        torchMs += " (" + std::to_string(r.torchRuns.size()) + (r.torchRuns.size() == 1 ? " run)" : " runs)");
        shortTorch = true;
      }
      speedUp = Fixed(r.SpeedUp(), 1) + "×";
    }
    std::string check = !r.checked ? "not checked"
                        : r.Ok()   ? "ok (" + Fixed(r.relativeError, 7) + ")"
                                   : "**WARNING: mismatch " + Fixed(r.relativeError, 7) + " in " +
                                       std::to_string(r.badElements) + " of " +
                                       std::to_string(r.checkedElements) + " elements**";
    out << "| " << c.id << (c.forward ? " (fwd)" : "") << " | " << c.ShapeText() << " | " << c.FormatText()
        << " | " << Ms(r.oursMs) << " | " << torchMs << " | " << speedUp << " | " << Fixed(r.OursGBs(), 1)
        << " | " << Fixed(r.MemcpyGBs(), 1) << " | " << Fixed(100.0 * r.OursGBs() / r.MemcpyGBs(), 0)
        << " % | " << Ms(r.floorMs) << " | " << Fixed(100.0 * r.OfFloor(), 0) << " % | " << r.workspaceBytes
        << " | " << check << " |\n";
  }
  out << "\n";
  if (scaling.measured) {
    out << "2 cores vs 1 core on B1 (ours, separate processes in alternating rounds, "
        << scaling.oneThreadRuns.size() << " runs each, median): 1 thread " << Ms(scaling.oneThreadMs)
        << " ms, " << scaling.threads << " threads " << Ms(scaling.manyThreadMs) << " ms → "
        << Fixed(scaling.Ratio(), 2) << "×";
    if (scaling.FloorRatio() > 0) {
      out << "; B1's streaming floor in the same processes: 1 thread " << Ms(scaling.oneThreadFloorMs)
          << " ms, " << scaling.threads << " threads " << Ms(scaling.manyThreadFloorMs) << " ms → "
          << Fixed(scaling.FloorRatio(), 2) << "× (the memory traffic alone)";
    }
    out << "\n\n";
  }
  WriteTargets(out, CheckTargets(results, scaling, machine.tier));
  out << "Definitions: shape is gradInput ← gradOut (backward) or x → y (forward, marked fwd), "
         "channels-first "
         "sizes (N, C, then L; H, W; or D, H, W) whatever the layout. "
         "ours ms: median wall time of GetWorkspaceSize + run + aclrtSynchronizeStream through the public C "
         "API "
         "(GetWorkspaceSize's plan comes from the library's plan cache after the warm-up call, as in a "
         "training loop; workspace from a caching allocator). PyTorch ms: median of "
         "the case's ATen operator (at::upsample_trilinear3d, at::upsample_bilinear2d, "
         "at::upsample_linear1d, "
         "at::upsample_nearest2d/3d, at::_upsample_nearest_exact2d or its _backward; ours: "
         "aclnnUpsampleTrilinear3d(Backward), aclnnUpsampleBilinear2d / aclnnUpsampleBilinear2dBackwardV2, "
         "aclnnUpsampleLinear1d(Backward), aclnnUpsampleNearest2dV2 / aclnnUpsampleNearest2dBackward, "
         "aclnnUpsampleNearest3dBackward, aclnnUpsampleNearestExact2dBackward) on the same memory, dtype and "
         "layout "
         "(output allocation included); n/a where PyTorch has no CPU kernel for the dtype (1.13: fp16). "
         "GB/s: (gradOut + gradInput bytes, or x + y) / time. memcpy GB/s: the case's two buffers "
         "(gradOut and gradInput, or x and y) copied with memcpy into a scratch buffer of the same total "
         "size by "
         "the same number of threads, counted as read + write = 2 × bytes / time; % of memcpy = "
         "ours GB/s / memcpy GB/s. floor ms: the streaming floor, the same threads reading the source "
         "(gradOut, or x) once and writing a buffer of the destination's size once with non-temporal "
         "stores, no arithmetic: what the case's memory traffic alone costs on this machine at that moment; "
         "% of floor = floor ms / ours ms. check: max |ours − PyTorch| / max |PyTorch|, against PyTorch's "
         "result for "
         "fp32 "
         "and against PyTorch's fp32 kernel on the same values for bf16 and fp16 (PyTorch's bf16 kernel "
         "accumulates "
         "in bf16: itself ~2.5 % off on B2), warned when above 1e-4 (fp32) or 1e-2 (bf16, fp16), with the "
         "number of "
         "elements off by more.";
  if (shortTorch) {
    out << " PyTorch times marked (n runs) are the median of fewer runs: K of them would not fit the "
           "per-case --torch-budget.";
  }
  out << "\n";
}

void WriteJson(std::ostream &out, const MachineInfo &m, const std::vector<CaseResult> &results,
               const ScalingResult &scaling) {
  out << "{\n  \"machine\": {\"cpu_model\": " << JsonString(m.cpuModel)
      << ", \"logical_cpus\": " << m.logicalCpus << ", \"usable_cpus\": " << m.usableCpus
      << ", \"threads\": " << m.threads << ", \"isa\": " << JsonString(m.isa)
      << ", \"cpu_flags\": " << JsonString(m.cpuFlags) << ", \"date\": " << JsonString(m.date)
      << ", \"torch_version\": " << JsonString(m.torchVersion) << ", \"compiler\": " << JsonString(m.compiler)
      << ", \"reps\": " << m.reps << ", \"warmup\": " << m.warmup << "},\n";
  out << "  \"machine_line\": " << JsonString(MachineLine(m)) << ",\n";
  out << "  \"definitions\": {\"bytes\": \"gradOut + gradInput bytes (forward: x + y)\", "
         "\"ours_gbs\": \"bytes / ours time\", \"torch_gbs\": \"bytes / PyTorch time\", "
         "\"memcpy_gbs\": \"2 * bytes / time of a threads-way memcpy of the case's two buffers into scratch "
         "(read + write)\", \"floor_ms\": \"time of the same threads reading the source once and writing "
         "the destination's bytes once (non-temporal), no arithmetic\"},\n";
  out << "  \"cases\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult &r = results[i];
    const BenchCase &c = r.benchCase;
    out << "    {\"id\": " << JsonString(c.id)
        << ", \"direction\": " << JsonString(c.forward ? "forward" : "backward")
        << ", \"input_shape\": " << JsonShape(c.input) << ", \"output_shape\": " << JsonShape(c.Output())
        << ", \"dtype\": " << JsonString(DTypeName(c.dtype))
        << ", \"operator\": " << JsonString(c.OperatorName()) << ", \"format\": " << JsonString(c.Layout())
        << ", \"align_corners\": " << (c.alignCorners ? "true" : "false") << ", \"bytes\": " << c.TotalBytes()
        << ",\n     \"ours_ms\": " << JsonNumber(r.oursMs) << ", \"ours_runs_ms\": " << JsonArray(r.oursRuns)
        << ",\n     \"torch_available\": " << (r.torchAvailable ? "true" : "false")
        << ", \"torch_note\": " << JsonString(r.torchNote)
        << ", \"torch_ms\": " << (r.torchAvailable ? JsonNumber(r.torchMs) : "null")
        << ", \"torch_runs_ms\": " << JsonArray(r.torchRuns)
        << ",\n     \"memcpy_ms\": " << JsonNumber(r.memcpyMs)
        << ", \"memcpy_runs_ms\": " << JsonArray(r.memcpyRuns) << ", \"floor_ms\": " << JsonNumber(r.floorMs)
        << ", \"floor_runs_ms\": " << JsonArray(r.floorRuns)
        << ",\n     \"speed_up\": " << (r.torchAvailable ? JsonNumber(r.SpeedUp()) : "null")
        << ", \"ours_gbs\": " << JsonNumber(r.OursGBs())
        << ", \"torch_gbs\": " << (r.torchAvailable ? JsonNumber(r.TorchGBs()) : "null")
        << ", \"memcpy_gbs\": " << JsonNumber(r.MemcpyGBs())
        << ", \"fraction_of_memcpy\": " << JsonNumber(r.OursGBs() / r.MemcpyGBs())
        << ", \"fraction_of_floor\": " << JsonNumber(r.OfFloor())
        << ", \"workspace_bytes\": " << r.workspaceBytes << ", \"error\": " << JsonString(r.error)
        << ",\n     \"check\": {\"checked\": " << (r.checked ? "true" : "false")
        << ", \"relative_error\": " << JsonNumber(r.relativeError)
        << ", \"tolerance\": " << JsonNumber(r.tolerance) << ", \"bad_elements\": " << r.badElements
        << ", \"elements\": " << r.checkedElements << ", \"ok\": " << (r.Ok() ? "true" : "false") << "}}"
        << (i + 1 < results.size() ? "," : "") << "\n";
  }
  out << "  ],\n  \"scaling_b1\": ";
  if (scaling.measured) {
    out << "{\"threads\": " << scaling.threads << ", \"one_thread_ms\": " << JsonNumber(scaling.oneThreadMs)
        << ", \"threads_ms\": " << JsonNumber(scaling.manyThreadMs)
        << ", \"ratio\": " << JsonNumber(scaling.Ratio())
        << ", \"one_thread_runs_ms\": " << JsonArray(scaling.oneThreadRuns)
        << ", \"threads_runs_ms\": " << JsonArray(scaling.manyThreadRuns)
        << ", \"one_thread_floor_ms\": " << JsonNumber(scaling.oneThreadFloorMs)
        << ", \"threads_floor_ms\": " << JsonNumber(scaling.manyThreadFloorMs)
        << ", \"floor_ratio\": " << JsonNumber(scaling.FloorRatio())
        << ", \"one_thread_floor_runs_ms\": " << JsonArray(scaling.oneThreadFloorRuns)
        << ", \"threads_floor_runs_ms\": " << JsonArray(scaling.manyThreadFloorRuns) << "}";
  } else {
    out << "null";
  }
  out << ",\n  \"targets\": [";
  const std::vector<TargetCheck> checks = CheckTargets(results, scaling, m.tier);
  for (size_t i = 0; i < checks.size(); ++i) {
    const TargetCheck &c = checks[i];
    out << (i ? ",\n    " : "\n    ") << "{\"target\": " << JsonString(c.target)
        << ", \"measured\": " << JsonString(c.measured) << ", \"met\": " << (c.met ? "true" : "false")
        << ", \"below_floor\": " << (c.belowFloor ? "true" : "false") << ", \"note\": " << JsonString(c.note)
        << "}";
  }
  out << (checks.empty() ? "]" : "\n  ]") << "\n}\n";
}

}  // namespace bench
