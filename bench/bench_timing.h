// Clocks, medians, and the references the benchmark compares against: a memcpy of the same bytes and
// the streaming floor (the operator's reads and writes without its arithmetic).
#ifndef TRILINEAR3D_BENCH_BENCH_TIMING_H_
#define TRILINEAR3D_BENCH_BENCH_TIMING_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace bench {

double NowMs();  // monotonic clock, milliseconds
double Median(std::vector<double> values);
// Lets spinning worker threads (ours and PyTorch's OpenMP) go to sleep before the next timed run.
void Settle();

// `threads` threads that run one piece of work each, at once: the caller (index 0) and threads - 1
// helpers started once, so that a timed run does not include thread creation.
class ThreadTeam {
 public:
  explicit ThreadTeam(int threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam &) = delete;
  ThreadTeam &operator=(const ThreadTeam &) = delete;

  // Runs work(index) for every index in [0, threads) at once; returns the wall time.
  double RunMs(const std::function<void(int index)> &work);
  int threads() const { return threads_; }

 private:
  void Helper(int index);

  int threads_;
  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int)> *work_ = nullptr;  // guarded by mutex_: the current run's work
  uint64_t generation_ = 0;                         // guarded by mutex_: one per run; 0 never runs
  int pending_ = 0;                                 // guarded by mutex_: helpers still working
  bool stop_ = false;                               // guarded by mutex_
};

// The [begin, end) of part `index` of `bytes` cut into `parts` contiguous parts of whole 64-byte lines.
std::pair<size_t, size_t> PartOf(size_t bytes, int parts, int index);

// The memcpy reference of one case: a plain memcpy of the case's bytes (gradOut + gradInput) into a
// scratch buffer of the same size. The sources are the case's own buffers (the operator's source and
// destination, given as segments), so no second copy of a large case is needed. The byte range is split
// into `threads` contiguous chunks copied by a ThreadTeam. Each copy reads `bytes` and writes `bytes`,
// so its bandwidth counts 2 * bytes / time.
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

  std::vector<Segment> sources_;
  size_t bytes_ = 0;
  unsigned char *dst_ = nullptr;
  ThreadTeam team_;
};

// The streaming floor of one case: what the operator's memory traffic alone costs on this machine at
// this moment. The same number of threads read the operator's source once (each a contiguous part,
// summed so the reads are kept) and write a scratch buffer of the destination's size once with
// non-temporal stores, as the kernels write large destinations; no arithmetic beyond that. An
// operator that reads its source and writes its destination once cannot take less time.
class StreamFloorReference {
 public:
  StreamFloorReference(const void *source, size_t sourceBytes, size_t destinationBytes, int threads);
  ~StreamFloorReference();
  StreamFloorReference(const StreamFloorReference &) = delete;
  StreamFloorReference &operator=(const StreamFloorReference &) = delete;

  double RunMs();  // one timed read + write

 private:
  void Part(int index);

  const unsigned char *source_;
  size_t sourceBytes_;
  size_t destinationBytes_;
  unsigned char *scratch_ = nullptr;
  ThreadTeam team_;
};

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_BENCH_TIMING_H_
