// Software prefetch of memory a kernel reads a little later, issued in small doses between pieces
// of computation. The hardware prefetcher only follows streams the core is already reading, so a
// kernel that alternates "read a block" and "compute on it" leaves DRAM idle while it computes;
// requesting the next block during the computation keeps both busy. A hint only: ranges beyond
// capacity are dropped, and nothing here changes a result.
#ifndef TRILINEAR3D_OP_KERNEL_PREFETCH_QUEUE_H_
#define TRILINEAR3D_OP_KERNEL_PREFETCH_QUEUE_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <cstdint>

namespace trilinear3d::kernel {

class PrefetchQueue {
 public:
  static constexpr int64_t kLineBytes = 64;

  void Clear() {
    count_ = 0;
    at_ = 0;
    offset_ = 0;
    lines_ = 0;
    dose_ = 0;
  }

  void Add(const void *begin, int64_t bytes) {
    if (count_ == kMaxRanges || bytes <= 0) return;
    begin_[count_] = static_cast<const char *>(begin);
    bytes_[count_] = bytes;
    lines_ += (bytes + kLineBytes - 1) / kLineBytes;
    ++count_;
  }

  // Spreads what is queued over `calls` later calls of IssueDose().
  void PlanDoses(int64_t calls) { dose_ = calls > 0 ? (lines_ + calls - 1) / calls : lines_; }

  void IssueDose() { Issue(dose_); }

  // `doses` IssueDose() calls as one.
  void IssueDoses(int64_t doses) { Issue(doses * dose_); }

  // Requests the next `lines` cache lines of the queued ranges, in order. The cursor is kept in
  // locals: as members, every line's update went through memory and the loop cost as much as the
  // prefetches' own work.
  void Issue(int64_t lines) {
    int at = at_;
    int64_t offset = offset_;
    while (lines > 0 && at < count_) {
      const char *begin = begin_[at];
      const int64_t left = (bytes_[at] - offset + kLineBytes - 1) / kLineBytes;
      const int64_t n = lines < left ? lines : left;
#pragma GCC unroll 4
      for (int64_t i = 0; i < n; ++i) {
        // Locality 1 (prefetcht2): into the outer caches only; a T0 prefetch of the next slab
        // evicts the current one from L1 and is slower than no prefetch at all.
        __builtin_prefetch(begin + offset + i * kLineBytes, 0, 1);
      }
      lines -= n;
      offset += n * kLineBytes;
      if (offset >= bytes_[at]) {
        ++at;
        offset = 0;
      }
    }
    at_ = at;
    offset_ = offset;
  }

 private:
  static constexpr int kMaxRanges = 128;
  const char *begin_[kMaxRanges] = {};
  int64_t bytes_[kMaxRanges] = {};
  int count_ = 0;
  int at_ = 0;
  int64_t offset_ = 0;
  int64_t lines_ = 0;
  int64_t dose_ = 0;
};

}  // namespace trilinear3d::kernel

#endif  // TRILINEAR3D_OP_KERNEL_PREFETCH_QUEUE_H_
