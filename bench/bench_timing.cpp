#include "bench_timing.h"

#include <emmintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
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

volatile uint64_t g_cleanSink = 0;     // keeps the cleaning reads
std::atomic<uint64_t> g_floorSink{0};  // keeps the streaming floor's reads

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

ThreadTeam::ThreadTeam(int threads) : threads_(std::max(1, threads)) {
  for (int t = 1; t < threads_; ++t) helpers_.emplace_back(&ThreadTeam::Helper, this, t);
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread &helper : helpers_) helper.join();
}

void ThreadTeam::Helper(int index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)> *work = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      work = work_;
    }
    (*work)(index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --pending_;
    }
    done_.notify_one();
  }
}

double ThreadTeam::RunMs(const std::function<void(int)> &work) {
  const double start = NowMs();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work_ = &work;
    ++generation_;
    pending_ = threads_ - 1;
  }
  start_.notify_all();
  work(0);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }
  return NowMs() - start;
}

std::pair<size_t, size_t> PartOf(size_t bytes, int parts, int index) {
  const size_t chunk = (bytes / static_cast<size_t>(parts) + 63) / 64 * 64;
  const size_t begin = std::min(bytes, chunk * static_cast<size_t>(index));
  const size_t end = index + 1 == parts ? bytes : std::min(bytes, begin + chunk);
  return {begin, end};
}

MemcpyReference::MemcpyReference(std::vector<Segment> sources, int threads)
    : sources_(std::move(sources)), team_(threads) {
  for (const Segment &segment : sources_) bytes_ += segment.bytes;
  // Huge pages like the operands it copies from: the reference measures memory, not the TLB.
  dst_ = HugePageBuffer(bytes_);
  // Touch every page so that the timed copies measure memory, not page faults.
  std::memset(dst_, 0, bytes_);
  // One untimed copy, checked, so that a wrong split can never report a bandwidth.
  RunMs();
  size_t offset = 0;
  for (const Segment &segment : sources_) {
    if (std::memcmp(dst_ + offset, segment.data, segment.bytes) != 0) {
      std::free(dst_);
      throw std::runtime_error("MemcpyReference: the copy differs from its source");
    }
    offset += segment.bytes;
  }
}

MemcpyReference::~MemcpyReference() { std::free(dst_); }

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
  return team_.RunMs([this](int index) {
    const auto [begin, end] = PartOf(bytes_, team_.threads(), index);
    CopyRange(begin, end);
  });
}

StreamFloorReference::StreamFloorReference(const void *source, size_t sourceBytes, size_t destinationBytes,
                                           int threads)
    : source_(static_cast<const unsigned char *>(source)),
      sourceBytes_(sourceBytes),
      destinationBytes_(destinationBytes),
      team_(threads) {
  scratch_ = HugePageBuffer(destinationBytes_);
  std::memset(scratch_, 0, destinationBytes_);  // fault the pages in, as the operator's are
}

StreamFloorReference::~StreamFloorReference() { std::free(scratch_); }

void StreamFloorReference::Part(int index) {
  // Read: 64-bit words, four sums (the compiler vectorises them), a byte tail.
  const auto [readBegin, readEnd] = PartOf(sourceBytes_, team_.threads(), index);
  uint64_t sums[4] = {0, 0, 0, 0};
  size_t at = readBegin;
  for (; at + 32 <= readEnd; at += 32) {
    uint64_t words[4];
    std::memcpy(words, source_ + at, 32);
    for (int k = 0; k < 4; ++k) sums[k] += words[k];
  }
  for (; at < readEnd; ++at) sums[0] += source_[at];
  g_floorSink.fetch_add(sums[0] + sums[1] + sums[2] + sums[3], std::memory_order_relaxed);
  // Write: non-temporal 16-byte stores (SSE2, in every x86-64), then a fence; a byte tail.
  const auto [writeBegin, writeEnd] = PartOf(destinationBytes_, team_.threads(), index);
  size_t w = writeBegin;
  const __m128i value = _mm_set1_epi32(index + 1);
  for (; w + 16 <= writeEnd; w += 16) _mm_stream_si128(reinterpret_cast<__m128i *>(scratch_ + w), value);
  _mm_sfence();
  for (; w < writeEnd; ++w) scratch_[w] = static_cast<unsigned char>(index + 1);
}

double StreamFloorReference::RunMs() {
  return team_.RunMs([this](int index) { Part(index); });
}

}  // namespace bench
