// Clocks, medians, and the memcpy reference the benchmark compares against.
#ifndef TRILINEAR3D_BENCH_BENCH_TIMING_H_
#define TRILINEAR3D_BENCH_BENCH_TIMING_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace bench {

double NowMs();  // monotonic clock, milliseconds
double Median(std::vector<double> values);
// Lets spinning worker threads (ours and PyTorch's OpenMP) go to sleep before the next timed run.
void Settle();

// The memcpy reference of one case: a plain memcpy of the case's bytes (gradOut + gradInput) into a
// scratch buffer of the same size. The sources are the case's own buffers (the operator's source and
// destination, given as segments), so no second copy of a large case is needed. The byte range is split
// into `threads` contiguous chunks copied by `threads` threads at once: the caller and threads - 1 helpers
// started once (so a timed copy does not include thread creation). Each copy reads `bytes` and
// writes `bytes`, so its bandwidth counts 2 * bytes / time.
class MemcpyReference {
 public:
  struct Segment {
    const void *data;
    size_t bytes;
  };
  MemcpyReference(std::vector<Segment> sources, int threads);
  ~MemcpyReference();
  MemcpyReference(const MemcpyReference &) = delete;
  MemcpyReference &operator=(const MemcpyReference &) = delete;

  double RunMs();  // one timed copy
  size_t bytes() const { return bytes_; }

 private:
  void CopyRange(size_t begin, size_t end);  // [begin, end) of the concatenated sources
  void CopyChunk(int index);                 // the index-th of threads_ chunks
  void Helper(int index);
  void StopHelpers();

  std::vector<Segment> sources_;
  size_t bytes_ = 0;
  int threads_;
  unsigned char *dst_ = nullptr;

  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  uint64_t generation_ = 0;  // guarded by mutex_: one per copy; 0 never runs
  int pending_ = 0;          // guarded by mutex_: helpers still copying
  bool stop_ = false;        // guarded by mutex_
};

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_BENCH_TIMING_H_
