// The worker "cores": a persistent pool of threads that runs SPMD launches (blockDim, blockIdx).
//
// A launch publishes (body, blockDim) and bumps a generation counter; worker i runs blocks i + 1,
// i + 1 + P, ... where P is the number of participants (the caller, which runs block 0, plus the
// workers taking part). The pool grows to blockDim - 1 workers, so normally every block has its own
// thread and all blocks run concurrently (a body may then synchronise its blocks with each other).
// Only past kMaxWorkers, or when no thread can be created, do participants run several blocks.
//
// Small operators are launched often, so a launch must be cheap: no thread is created per launch,
// workers poll briefly for the next generation before sleeping on a condition variable, and the
// caller polls briefly for the last worker before sleeping (runtime/poll.h).
#include "runtime/core_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "runtime/error.h"
#include "runtime/poll.h"
#include "runtime/runtime_internal.h"

namespace trilinear3d::runtime {
namespace {

constexpr int kMaxCores = 1024;
// Participants are the caller plus at most this many workers; the worker count must fit kActiveMask.
constexpr int kMaxWorkers = kMaxCores - 1;
constexpr int kActiveBits = 16;
constexpr uint64_t kActiveMask = (uint64_t{1} << kActiveBits) - 1;

// Set while this thread runs blocks of a launch (as caller or as worker). A launch from inside a
// body cannot use the pool, whose workers are busy with the outer launch: it runs inline instead.
thread_local bool t_insideLaunch = false;

void RunBlock(const std::function<void(int)> &body, int blockIdx) {
  // An escaping exception would terminate a worker (and the process): report it instead.
  try {
    body(blockIdx);
  } catch (const std::exception &e) {
    ReportError("SPMD block %d failed: %s", blockIdx, e.what());
  } catch (...) {
    ReportError("SPMD block %d failed with an unknown exception", blockIdx);
  }
}

void RunBlocksInline(int blockDim, const std::function<void(int)> &body) {
  const bool wasInside = t_insideLaunch;
  t_insideLaunch = true;
  for (int blockIdx = 0; blockIdx < blockDim; ++blockIdx) RunBlock(body, blockIdx);
  t_insideLaunch = wasInside;
}

class CorePool {
 public:
  // Holds launchMutex_ while the blocks run: a body must not wait for other work that itself
  // launches on the pool (it would wait for this launch to end).
  void Launch(int blockDim, const std::function<void(int)> &body) {
    std::lock_guard<std::mutex> launchLock(launchMutex_);  // one launch at a time, whatever the thread
    const int active = GrowTo(std::min(blockDim - 1, kMaxWorkers));
    if (active == 0) {
      RunBlocksInline(blockDim, body);
      return;
    }
    // Plain fields, read only by participating workers: they are published by the release store
    // of state_ below, and no participant reads them after its decrement of remaining_, which this
    // launch waits for before the next one rewrites them.
    body_ = &body;
    blockDim_ = blockDim;
    participants_ = active + 1;
    remaining_.store(active, std::memory_order_relaxed);
    ++generation_;
    {
      // Stored under sleepMutex_ so that a worker checking state_ before sleeping cannot miss it.
      std::lock_guard<std::mutex> lock(sleepMutex_);
      state_.store((generation_ << kActiveBits) | static_cast<uint64_t>(active), std::memory_order_release);
    }
    wake_.notify_all();

    t_insideLaunch = true;
    for (int blockIdx = 0; blockIdx < blockDim; blockIdx += participants_) RunBlock(body, blockIdx);
    t_insideLaunch = false;

    if (ShouldSpin(active) &&
        PollUntil(kPollRounds, [this] { return remaining_.load(std::memory_order_acquire) == 0; })) {
      return;
    }
    std::unique_lock<std::mutex> lock(sleepMutex_);
    done_.wait(lock, [this] { return remaining_.load(std::memory_order_acquire) == 0; });
  }

 private:
  // Polling only pays when every participant has a CPU of its own; with more participants than CPUs
  // (TRILINEAR3D_CORES above the CPU count, a pinned process) a polling thread takes the CPU away
  // from a participant that still has work.
  bool ShouldSpin(int activeWorkers) const { return activeWorkers + 1 <= availableCpus_; }

  // Starts workers until there are `wanted` (or thread creation fails); returns how many exist.
  // Requires launchMutex_ held.
  int GrowTo(int wanted) {
    while (static_cast<int>(workers_.size()) < wanted) {
      const int index = static_cast<int>(workers_.size());
      try {
        // The new worker starts from the current generation: it takes part from the next launch.
        workers_.emplace_back(&CorePool::WorkerLoop, this, index, generation_);
      } catch (const std::exception &e) {  // std::system_error (no thread) or std::bad_alloc
        if (!growthFailureReported_) {
          ReportError("core pool: cannot start worker %d (%s); running the extra blocks on fewer threads",
                      index, e.what());
          growthFailureReported_ = true;
        }
        break;
      }
    }
    return std::min(wanted, static_cast<int>(workers_.size()));
  }

  void WorkerLoop(int index, uint64_t seenGeneration) {
    bool spin = false;  // only workers that just took part may poll: idle ones would only waste CPU
    for (;;) {
      const uint64_t state = WaitForGeneration(seenGeneration, spin);
      seenGeneration = state >> kActiveBits;
      const int active = static_cast<int>(state & kActiveMask);
      if (index >= active) {
        spin = false;
        continue;
      }
      spin = ShouldSpin(active);
      t_insideLaunch = true;
      for (int blockIdx = index + 1; blockIdx < blockDim_; blockIdx += participants_) {
        RunBlock(*body_, blockIdx);
      }
      t_insideLaunch = false;
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // Lock then notify: the caller checks remaining_ under sleepMutex_, so it cannot miss this.
        { std::lock_guard<std::mutex> lock(sleepMutex_); }
        done_.notify_one();
      }
    }
  }

  // Returns the first state whose generation differs from seenGeneration.
  uint64_t WaitForGeneration(uint64_t seenGeneration, bool spin) {
    uint64_t state = 0;
    const auto published = [&] {
      state = state_.load(std::memory_order_acquire);
      return (state >> kActiveBits) != seenGeneration;
    };
    if (spin && PollUntil(kPollRounds, published)) return state;
    std::unique_lock<std::mutex> lock(sleepMutex_);
    wake_.wait(lock, published);
    return state;
  }

  const int availableCpus_ = AvailableCpus();

  std::mutex launchMutex_;
  // Guarded by launchMutex_. Never joined: the pool lives until the process ends (see Pool()).
  std::vector<std::thread> workers_;
  uint64_t generation_ = 0;             // guarded by launchMutex_; the published copy is in state_
  bool growthFailureReported_ = false;  // guarded by launchMutex_

  // The current launch (see Launch for how they are published).
  const std::function<void(int)> *body_ = nullptr;
  int blockDim_ = 0;
  int participants_ = 0;
  std::atomic<uint64_t> state_{0};  // generation << kActiveBits | number of participating workers
  std::atomic<int> remaining_{0};   // participating workers still running blocks

  std::mutex sleepMutex_;
  std::condition_variable wake_;  // workers wait here for a new generation
  std::condition_variable done_;  // the caller waits here for remaining_ == 0
};

// Never destroyed: stream tasks, which launch SPMD work, may still run while static objects are
// destroyed at process exit (stream.cpp drains the streams then). The idle workers are parked on a
// condition variable and simply end with the process.
CorePool &Pool() {
  static CorePool *pool = new CorePool;
  return *pool;
}

int ReadConfiguredCores() {
  if (const char *text = std::getenv("TRILINEAR3D_CORES")) {
    // A positive integer, optionally surrounded by blanks; anything else (garbage, 0, negative,
    // trailing characters) is ignored. Too large to represent counts as the cap.
    char *end = nullptr;
    errno = 0;
    const long value = std::strtol(text, &end, 10);
    while (end != text && (*end == ' ' || *end == '\t' || *end == '\n')) ++end;
    const bool parsed = end != text && *end == '\0';
    if (parsed && value > 0) {
      return (errno == ERANGE || value > kMaxCores) ? kMaxCores : static_cast<int>(value);
    }
  }
  return std::clamp(AvailableCpus(), 1, kMaxCores);
}

}  // namespace

// The affinity mask rather than hardware_concurrency(), which counts every CPU of the machine: a
// process pinned with taskset or a cgroup cpuset should size its pool by the CPUs it may use.
int AvailableCpus() {
  static const int cpus = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    // No mask (or more CPUs than cpu_set_t holds): fall back to the machine's count.
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return cpus;
}

int ConfiguredCores() {
  static const int cores = ReadConfiguredCores();
  return cores;
}

void LaunchSpmd(int blockDim, const std::function<void(int blockIdx)> &body) {
  if (blockDim <= 0) return;
  // One block, or a launch nested in a body (whose pool is busy): no other thread is needed.
  if (blockDim == 1 || t_insideLaunch) {
    RunBlocksInline(blockDim, body);
    return;
  }
  Pool().Launch(blockDim, body);
}

}  // namespace trilinear3d::runtime
