#include "bench_timing.h"

#include <immintrin.h>
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

namespace {

// The streaming floor's loops, in the widest vectors the CPU has (chosen at run time: the bench is
// built without -march, like the library), so that neither loop is bound by instruction count.
// 64-byte non-temporal stores, since 16-byte ones are far slower (partial write-combining).
// Each returns a sum of what it read (kept by the caller) and fills [dst, dst + n) with `value`.
__attribute__((target("avx512f"))) uint64_t ReadSumAvx512(const unsigned char *src, size_t n) {
  __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
  size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    a = _mm512_add_epi64(a, _mm512_loadu_si512(src + i));
    b = _mm512_add_epi64(b, _mm512_loadu_si512(src + i + 64));
    c = _mm512_add_epi64(c, _mm512_loadu_si512(src + i + 128));
    d = _mm512_add_epi64(d, _mm512_loadu_si512(src + i + 192));
  }
  // Stored and summed by hand: GCC 12's _mm512_reduce_add_epi64 warns (-Wuninitialized) in its header.
  alignas(64) uint64_t lanes[8];
  _mm512_store_si512(lanes, _mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d)));
  uint64_t sum = 0;
  for (uint64_t lane : lanes) sum += lane;
  for (; i < n; ++i) sum += src[i];
  return sum;
}

__attribute__((target("avx512f"))) void StreamFillAvx512(unsigned char *dst, size_t n, int value) {
  const __m512i v = _mm512_set1_epi32(value);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + i), v);
  _mm_sfence();
  for (; i < n; ++i) dst[i] = static_cast<unsigned char>(value);
}

__attribute__((target("avx2"))) uint64_t ReadSumAvx2(const unsigned char *src, size_t n) {
  __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    a = _mm256_add_epi64(a, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i)));
    b = _mm256_add_epi64(b, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 32)));
    c = _mm256_add_epi64(c, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 64)));
    d = _mm256_add_epi64(d, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 96)));
  }
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i *>(lanes),
                     _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)));
  uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < n; ++i) sum += src[i];
  return sum;
}

__attribute__((target("avx2"))) void StreamFillAvx2(unsigned char *dst, size_t n, int value) {
  const __m256i v = _mm256_set1_epi32(value);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i), v);
  _mm_sfence();
  for (; i < n; ++i) dst[i] = static_cast<unsigned char>(value);
}

uint64_t ReadSumSse2(const unsigned char *src, size_t n) {
  __m128i a = _mm_setzero_si128(), b = a;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a = _mm_add_epi64(a, _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
    b = _mm_add_epi64(b, _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 16)));
  }
  alignas(16) uint64_t lanes[2];
  _mm_store_si128(reinterpret_cast<__m128i *>(lanes), _mm_add_epi64(a, b));
  uint64_t sum = lanes[0] + lanes[1];
  for (; i < n; ++i) sum += src[i];
  return sum;
}

void StreamFillSse2(unsigned char *dst, size_t n, int value) {
  const __m128i v = _mm_set1_epi32(value);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i), v);
  _mm_sfence();
  for (; i < n; ++i) dst[i] = static_cast<unsigned char>(value);
}

}  // namespace

void StreamFloorReference::Part(int index) {
  static const int level = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
  // Read this thread's part of the source, then write its part of the destination (64-byte aligned
  // parts of 64-byte aligned buffers).
  const auto [readBegin, readEnd] = PartOf(sourceBytes_, team_.threads(), index);
  const auto [writeBegin, writeEnd] = PartOf(destinationBytes_, team_.threads(), index);
  const unsigned char *src = source_ + readBegin;
  unsigned char *dst = scratch_ + writeBegin;
  const size_t readBytes = readEnd - readBegin, writeBytes = writeEnd - writeBegin;
  uint64_t sum = 0;
  if (level == 2) {
    sum = ReadSumAvx512(src, readBytes);
    StreamFillAvx512(dst, writeBytes, index + 1);
  } else if (level == 1) {
    sum = ReadSumAvx2(src, readBytes);
    StreamFillAvx2(dst, writeBytes, index + 1);
  } else {
    sum = ReadSumSse2(src, readBytes);
    StreamFillSse2(dst, writeBytes, index + 1);
  }
  g_floorSink.fetch_add(sum, std::memory_order_relaxed);
}

double StreamFloorReference::RunMs() {
  return team_.RunMs([this](int index) { Part(index); });
}

}  // namespace bench
