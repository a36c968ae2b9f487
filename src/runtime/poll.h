// Bounded polling, the step before a runtime thread sleeps on a condition variable: a futex
// wake-up costs tens of microseconds on a virtual machine, which would dominate a small operator's
// launch-then-synchronize, so the stream worker, the synchronizing caller and the core pool's
// threads poll for a short while first.
//
// Polling must not keep a runnable thread off its CPU. A launch has more threads than a 2-CPU
// machine has CPUs (the caller, the stream worker, a pool worker); with pure PAUSE spinning, a
// caller that a worker's wake-up preempts stays off its CPU until the worker's spin ends, which
// slows small launches the longer the spin. So every kYieldEvery-th poll offers
// the CPU to another runnable thread (sched_yield: about 0.5 us when there is none).
#ifndef TRILINEAR3D_RUNTIME_POLL_H_
#define TRILINEAR3D_RUNTIME_POLL_H_

#include <sched.h>

#include <thread>

namespace trilinear3d::runtime {

// About 60 microseconds of polling: 100 sched_yield calls and 300 pauses. Long enough to catch
// back-to-back launches of one operator, short enough not to hold a CPU long once the work is done.
constexpr int kPollRounds = 400;
constexpr int kYieldEvery = 4;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::this_thread::yield();
#endif
}

// Polls done() up to `rounds` times; true as soon as it holds, false when the rounds are spent
// (the caller then sleeps, rechecking under its lock).
template <typename Done>
bool PollUntil(int rounds, Done done) {
  for (int i = 1; i <= rounds; ++i) {
    if (done()) return true;
    if (i % kYieldEvery == 0) {
      sched_yield();
    } else {
      CpuRelax();
    }
  }
  return false;
}

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_POLL_H_
