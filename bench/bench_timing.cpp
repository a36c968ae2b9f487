#include "bench_timing.h"

#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>
#include <utility>

namespace bench {

double NowMs() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

namespace {

// Twice the last-level cache of the bench machine (32 MiB): reading it evicts every line the last
// run left dirty, so that no side pays for writing back the previous side's output.
constexpr size_t kCacheCleanBytes = 64u << 20;

unsigned char *HugePageBuffer(size_t bytes) {
  constexpr size_t kHugePage = 2u << 20;
  void *memory = std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
  if (memory == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  madvise(memory, bytes, MADV_HUGEPAGE);  // as aclrtMalloc(HUGE_FIRST) does for the operands
#endif
  return static_cast<unsigned char *>(memory);
}

volatile uint64_t g_cleanSink = 0;  // keeps the cleaning reads

}  // namespace

void Settle() {
  static unsigned char *clean = [] {
    unsigned char *buffer = HugePageBuffer(kCacheCleanBytes);
    std::memset(buffer, 1, kCacheCleanBytes);
    return buffer;
  }();
  uint64_t sum = 0;
  for (size_t i = 0; i < kCacheCleanBytes; i += 64) sum += clean[i];
  g_cleanSink = sum;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

MemcpyReference::MemcpyReference(std::vector<Segment> sources, int threads)
    : sources_(std::move(sources)), threads_(std::max(1, threads)) {
  for (const Segment &segment : sources_) bytes_ += segment.bytes;
  // Huge pages like the operands it copies from: the reference measures memory, not the TLB.
  dst_ = HugePageBuffer(bytes_);
  // Touch every page so that the timed copies measure memory, not page faults.
  std::memset(dst_, 0, bytes_);
  for (int t = 1; t < threads_; ++t) helpers_.emplace_back(&MemcpyReference::Helper, this, t);
  // One untimed copy, checked, so that a wrong split can never report a bandwidth.
  RunMs();
  size_t offset = 0;
  for (const Segment &segment : sources_) {
    if (std::memcmp(dst_ + offset, segment.data, segment.bytes) != 0) {
      StopHelpers();
      std::free(dst_);
      throw std::runtime_error("MemcpyReference: the copy differs from its source");
    }
    offset += segment.bytes;
  }
}

MemcpyReference::~MemcpyReference() {
  StopHelpers();
  std::free(dst_);
}

void MemcpyReference::StopHelpers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread &helper : helpers_) helper.join();
  helpers_.clear();
}

void MemcpyReference::Helper(int index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    CopyChunk(index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --pending_;
    }
    done_.notify_one();
  }
}

void MemcpyReference::CopyChunk(int index) {
  const size_t chunk = (bytes_ / threads_ + 63) / 64 * 64;
  const size_t begin = std::min(bytes_, chunk * index);
  const size_t end = index + 1 == threads_ ? bytes_ : std::min(bytes_, begin + chunk);
  CopyRange(begin, end);
}

void MemcpyReference::CopyRange(size_t begin, size_t end) {
  size_t segmentStart = 0;
  for (const Segment &segment : sources_) {
    const size_t segmentEnd = segmentStart + segment.bytes;
    const size_t from = std::max(begin, segmentStart);
    const size_t to = std::min(end, segmentEnd);
    if (to > from) {
      std::memcpy(dst_ + from, static_cast<const unsigned char *>(segment.data) + (from - segmentStart),
                  to - from);
    }
    segmentStart = segmentEnd;
  }
}

double MemcpyReference::RunMs() {
  const double start = NowMs();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
    pending_ = threads_ - 1;
  }
  start_.notify_all();
  CopyChunk(0);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }
  return NowMs() - start;
}

}  // namespace bench
