// trilinear3d_bench: docs/spec.md §8's cases (the trilinear B1-B8, F1, F3, F5, the linear group's L1-L6
// and the nearest group's N1-N6) through the library's public C API against PyTorch's CPU kernel (libtorch)
// and a memcpy of the same bytes, in one process with the same thread count, alternating runs, medians. See
// --help.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_cases.h"
#include "bench_report.h"
#include "bench_timing.h"
#include "ours_runner.h"
#include "torch_runner.h"

namespace bench {
namespace {

struct Options {
  int threads = 2;
  int reps = 5;
  int warmup = 1;
  std::string cases;
  std::string jsonPath;
  std::string markdownPath;
  double torchBudgetS = 40.0;  // at most this many seconds of timed PyTorch runs per case (at least 1 run)
  bool scaling = true;
  bool torch = true;   // false (--no-torch): ours, memcpy and the floor only, unchecked (A/B of two builds)
  bool child = false;  // internal: print "RUN_MS <ms>" and "FLOOR_MS <ms>" lines (the scaling measurement)
};

void Usage(const char *program) {
  std::printf(
      "usage: %s [--threads T] [--reps K] [--warmup W] [--cases B1,B3,F1] [--json PATH] [--md PATH]\n"
      "          [--torch-budget SECONDS] [--no-scaling] [--no-torch]\n"
      "  --threads T       threads for ours (TRILINEAR3D_CORES) and PyTorch (at::set_num_threads); default "
      "2\n"
      "  --reps K          timed runs per side and case, median reported; default 5\n"
      "  --warmup W        untimed runs per side and case first; default 1\n"
      "  --cases LIST      comma-separated ids of B1..B8, F1, F3, F5, L1..L6, N1..N6; default all\n"
      "  --json PATH       also write the results as JSON\n"
      "  --md PATH         also write the markdown report to PATH\n"
      "  --torch-budget S  fewer PyTorch runs where K would take longer than S seconds; default 40\n"
      "  --no-scaling      skip the 1-thread vs T-thread measurement on B1 (two child processes)\n"
      "  --no-torch        no PyTorch runs and no result check: ours, memcpy and the floor only (for\n"
      "                    comparing two builds of the library, e.g. by LD_LIBRARY_PATH; bench/ab_libs.sh)\n",
      program);
}

bool ParseInt(const char *text, int minimum, int *value) {
  char *end = nullptr;
  const long parsed = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed < minimum || parsed > 1 << 20) return false;
  *value = static_cast<int>(parsed);
  return true;
}

bool ParseOptions(int argc, char **argv, Options *options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      Usage(argv[0]);
      std::exit(0);
    } else if (arg == "--threads" && hasValue) {
      if (!ParseInt(argv[++i], 1, &options->threads)) return false;
    } else if (arg == "--reps" && hasValue) {
      if (!ParseInt(argv[++i], 1, &options->reps)) return false;
    } else if (arg == "--warmup" && hasValue) {
      if (!ParseInt(argv[++i], 0, &options->warmup)) return false;
    } else if (arg == "--cases" && hasValue) {
      options->cases = argv[++i];
    } else if (arg == "--json" && hasValue) {
      options->jsonPath = argv[++i];
    } else if (arg == "--md" && hasValue) {
      options->markdownPath = argv[++i];
    } else if (arg == "--torch-budget" && hasValue) {
      options->torchBudgetS = std::atof(argv[++i]);
    } else if (arg == "--no-scaling") {
      options->scaling = false;
    } else if (arg == "--no-torch") {
      options->torch = false;
    } else if (arg == "--child-ours-only") {
      options->child = true;
    } else {
      std::fprintf(stderr, "unknown or incomplete argument: %s\n", arg.c_str());
      return false;
    }
  }
  return true;
}

double Tolerance(DType dtype) { return dtype == DType::kFloat32 ? 1e-4 : 1e-2; }

// The streaming floor of the case ours runs: its source read and a destination-sized buffer written.
std::unique_ptr<StreamFloorReference> FloorOf(const OursRunner &ours, int threads) {
  return std::make_unique<StreamFloorReference>(ours.source(), static_cast<size_t>(ours.sourceBytes()),
                                                static_cast<size_t>(ours.destinationBytes()), threads);
}

// Warm-up, then K rounds of ours / PyTorch / memcpy / streaming floor, each followed by a pause so
// that the previous side's spinning threads are asleep before the next one starts.
CaseResult RunCase(const BenchCase &c, const Options &options) {
  CaseResult result;
  result.benchCase = c;
  OursRunner ours(c);
  FillRandom(c, ours.source(), ours.sourceBytes());
  TorchRunner torch(c, ours.source());  // shares ours's source memory; destroyed before ours
  result.torchAvailable = options.torch && torch.available();
  if (!options.torch) {
    result.torchNote = "n/a: --no-torch";
  } else if (!result.torchAvailable) {
    result.torchNote = "n/a: " + torch.unavailableReason();
  }
  auto memcpyReference = std::make_unique<MemcpyReference>(
      std::vector<MemcpyReference::Segment>{
          {ours.source(), static_cast<size_t>(ours.sourceBytes())},
          {ours.destination(), static_cast<size_t>(ours.destinationBytes())}},
      options.threads);
  auto floorReference = FloorOf(ours, options.threads);

  int torchReps = options.reps;
  for (int w = 0; w < options.warmup; ++w) {
    ours.RunMs();
    Settle();
    if (result.torchAvailable) {
      const double ms = torch.RunMs();
      torchReps = std::clamp(static_cast<int>(options.torchBudgetS * 1e3 / ms), 1, options.reps);
      Settle();
    }
    memcpyReference->RunMs();
    Settle();
    floorReference->RunMs();
    Settle();
  }
  for (int rep = 0; rep < options.reps; ++rep) {
    result.oursRuns.push_back(ours.RunMs());
    Settle();
    if (result.torchAvailable && rep < torchReps) {
      result.torchRuns.push_back(torch.RunMs());
      Settle();
    }
    result.memcpyRuns.push_back(memcpyReference->RunMs());
    Settle();
    result.floorRuns.push_back(floorReference->RunMs());
    Settle();
  }
  result.oursMs = Median(result.oursRuns);
  result.torchMs = Median(result.torchRuns);
  result.memcpyMs = Median(result.memcpyRuns);
  result.floorMs = Median(result.floorRuns);
  result.workspaceBytes = ours.workspaceBytes();
  if (result.torchAvailable) result.torchNote = "PyTorch result " + torch.resultLayout();

  memcpyReference.reset();  // its scratch buffer (as large as the case) is not needed for the check
  floorReference.reset();

  // ours's destination holds its last timed result.
  result.tolerance = Tolerance(c.dtype);
  if (!options.torch) return result;  // not checked
  const CheckResult check = torch.Check(ours.destination(), result.tolerance);
  result.relativeError = check.relativeError;
  result.badElements = check.badElements;
  result.checkedElements = check.elements;
  result.checked = true;
  return result;
}

// The child of the scaling measurement: ours and the case's streaming floor (same thread count)
// alternately, one "RUN_MS <ms>" and one "FLOOR_MS <ms>" line per timed round.
int RunChild(const Options &options) {
  for (const BenchCase &c : SelectCases(options.cases, nullptr)) {
    OursRunner ours(c);
    FillRandom(c, ours.source(), ours.sourceBytes());
    const std::unique_ptr<StreamFloorReference> floor = FloorOf(ours, options.threads);
    for (int w = 0; w < options.warmup; ++w) {
      ours.RunMs();
      Settle();
      floor->RunMs();
      Settle();
    }
    for (int rep = 0; rep < options.reps; ++rep) {
      std::printf("RUN_MS %.6f\n", ours.RunMs());
      Settle();
      std::printf("FLOOR_MS %.6f\n", floor->RunMs());
      Settle();
    }
  }
  std::fflush(stdout);
  return 0;
}

// Times of one scaling child: ours and the streaming floor.
struct ChildRuns {
  std::vector<double> ours, floor;
};

// Re-executes this program with --threads `threads` --cases B1 --child-ours-only and returns its times.
ChildRuns RunChildProcess(int threads, int reps, const Options &options) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const std::vector<std::string> args = {"trilinear3d_bench",
                                         "--threads",
                                         std::to_string(threads),
                                         "--cases",
                                         "B1",
                                         "--reps",
                                         std::to_string(reps),
                                         "--warmup",
                                         std::to_string(std::max(1, options.warmup)),
                                         "--child-ours-only"};
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return {};
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char *> argv;
    for (const std::string &arg : args) argv.push_back(const_cast<char *>(arg.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string output;
  char buffer[4096];
  ssize_t got;
  while ((got = read(fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<size_t>(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ChildRuns runs;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "scaling: the %d-thread child failed\n", threads);
    return runs;
  }
  std::istringstream lines(output);
  std::string word;
  double ms;
  while (lines >> word >> ms) {
    if (word == "RUN_MS") runs.ours.push_back(ms);
    if (word == "FLOOR_MS") runs.floor.push_back(ms);
  }
  return runs;
}

// 1 thread vs options.threads on B1, ours and the streaming floor (no PyTorch), each in a fresh process (the
// core count is read once per process). The machine's memory bandwidth drifts over seconds, so the sides
// alternate in short rounds (kRunsPerRound timed runs per child) rather than in two long ones; 2 x reps runs
// per side in all, pooled into one median per side. Each child also times B1's streaming floor with its
// thread count: how much the memory traffic alone speeds up with the threads.
ScalingResult MeasureScaling(const Options &options) {
  constexpr int kRunsPerRound = 2;
  ScalingResult scaling;
  scaling.threads = options.threads;
  auto append = [](const std::vector<double> &from, std::vector<double> *to) {
    to->insert(to->end(), from.begin(), from.end());
  };
  for (int round = 0; round < options.reps; ++round) {
    const ChildRuns one = RunChildProcess(1, kRunsPerRound, options);
    append(one.ours, &scaling.oneThreadRuns);
    append(one.floor, &scaling.oneThreadFloorRuns);
    const ChildRuns many = RunChildProcess(options.threads, kRunsPerRound, options);
    append(many.ours, &scaling.manyThreadRuns);
    append(many.floor, &scaling.manyThreadFloorRuns);
  }
  scaling.measured = !scaling.oneThreadRuns.empty() && !scaling.manyThreadRuns.empty();
  scaling.oneThreadMs = Median(scaling.oneThreadRuns);
  scaling.manyThreadMs = Median(scaling.manyThreadRuns);
  scaling.oneThreadFloorMs = Median(scaling.oneThreadFloorRuns);
  scaling.manyThreadFloorMs = Median(scaling.manyThreadFloorRuns);
  return scaling;
}

// Writes a report to path with write, unless path is empty; false when the file cannot be written.
template <typename Write>
bool WriteReportFile(const std::string &path, const Write &write) {
  if (path.empty()) return true;
  std::ofstream file(path);
  write(file);
  if (!file) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

int Main(int argc, char **argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    Usage(argv[0]);
    return 2;
  }
  // Before the library is first used: it reads its core count once per process.
  setenv("TRILINEAR3D_CORES", std::to_string(options.threads).c_str(), 1);
  SetTorchThreads(options.threads);
  if (options.child) return RunChild(options);

  std::string unknown;
  const std::vector<BenchCase> cases = SelectCases(options.cases, &unknown);
  if (!unknown.empty() || cases.empty()) {
    std::fprintf(stderr, "unknown case ids: %s (known: B1..B8, F1, F3, F5, L1..L6, N1..N6)\n",
                 unknown.c_str());
    return 2;
  }

  const double start = NowMs();
  std::vector<CaseResult> results;
  bool failed = false;
  for (const BenchCase &c : cases) {
    std::fprintf(stderr, "[%6.1f s] %s %s %s ...\n", (NowMs() - start) / 1e3, c.id.c_str(),
                 c.ShapeText().c_str(), c.FormatText().c_str());
    CaseResult result;
    try {
      result = RunCase(c, options);
    } catch (const std::exception &error) {
      result.benchCase = c;
      result.error = error.what();
      failed = true;
    }
    if (result.error.empty()) {
      std::fprintf(stderr,
                   "           ours %.3f ms, PyTorch %s ms, memcpy %.3f ms, floor %.3f ms, check %.2g",
                   result.oursMs, result.torchAvailable ? std::to_string(result.torchMs).c_str() : "n/a",
                   result.memcpyMs, result.floorMs, result.relativeError);
      if (result.checked && !result.Ok()) {
        std::fprintf(stderr, "  WARNING: MISMATCH in %lld of %lld elements",
                     static_cast<long long>(result.badElements),
                     static_cast<long long>(result.checkedElements));
      }
      std::fprintf(stderr, "\n");
    } else {
      std::fprintf(stderr, "           ERROR: %s\n", result.error.c_str());
    }
    results.push_back(result);
  }

  ScalingResult scaling;
  const bool hasB1 = std::any_of(cases.begin(), cases.end(), [](const BenchCase &c) { return c.id == "B1"; });
  if (options.scaling && hasB1 && options.threads > 1) {
    std::fprintf(stderr, "[%6.1f s] scaling on B1: 1 vs %d threads ...\n", (NowMs() - start) / 1e3,
                 options.threads);
    scaling = MeasureScaling(options);
  }
  std::fprintf(stderr, "[%6.1f s] done\n", (NowMs() - start) / 1e3);

  const MachineInfo machine = ReadMachineInfo(options.threads, options.reps, options.warmup, TorchVersion());
  WriteMarkdown(std::cout, machine, results, scaling);
  const auto markdown = [&](std::ostream &out) { WriteMarkdown(out, machine, results, scaling); };
  const auto json = [&](std::ostream &out) { WriteJson(out, machine, results, scaling); };
  failed = !WriteReportFile(options.markdownPath, markdown) || failed;
  failed = !WriteReportFile(options.jsonPath, json) || failed;
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char **argv) {
  try {
    return bench::Main(argc, argv);
  } catch (const std::exception &error) {
    std::fprintf(stderr, "trilinear3d_bench: %s\n", error.what());
    return 1;
  }
}
