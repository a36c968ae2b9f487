// Streams: in-order asynchronous queues, each served by its own worker thread.
//
// Lifetime rules (CANN's, made explicit):
//  - aclrtDestroyStream waits for the work already queued on the stream, then destroys it.
//  - aclFinalize waits for the queued work of every stream, then destroys them all.
//  - The default stream (handle null) is created on first use, needs no aclInit, and lives until
//    aclFinalize or process exit. At process exit all streams' queued work is run to completion and
//    their workers are joined; programs should still synchronize before exiting, because by then the
//    memory a task writes may already be gone.
//
// Handles are checked against a registry of live streams before use, so an unknown or destroyed
// handle is an error, never a dereference. Streams are held by shared_ptr: a thread synchronizing a
// stream keeps it alive while another thread destroys it.
#include "runtime/stream.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/error.h"
#include "runtime/poll.h"
#include "runtime/runtime_internal.h"

namespace trilinear3d::runtime {
namespace {

struct Stream {
  std::mutex mutex;
  std::condition_variable workReady;        // signalled on new work and on stop; the worker waits on it
  std::condition_variable progress;         // signalled after each task; synchronizers wait on it
  std::deque<std::function<void()>> queue;  // guarded by mutex
  // Tasks ever queued / ever finished. A synchronize waits for the tasks queued before it, so work
  // queued meanwhile by other threads cannot starve it. Written under mutex (the condition variables
  // rely on that) but atomic so that threads can poll them without the lock before they sleep.
  std::atomic<uint64_t> submitted{0};
  std::atomic<uint64_t> completed{0};
  bool stopping = false;  // guarded by mutex; the worker exits once the queue is empty
  // A task of this stream is running (on the worker or on a synchronizing thread); guarded by
  // mutex. Tasks run one at a time, in order, whichever thread runs them.
  bool running = false;
  std::thread worker;  // written once before the stream is published, joined by its destroyer
};

// Polling is pointless, and harmful, on a single CPU: the thread being waited for needs it.
int SpinBudget() {
  static const int budget = AvailableCpus() > 1 ? kPollRounds : 0;
  return budget;
}

// Polls until `target` tasks have finished (true) or the budget is spent (false).
bool SpinUntilCompleted(const Stream &stream, uint64_t target) {
  return PollUntil(SpinBudget(), [&] { return stream.completed.load(std::memory_order_acquire) >= target; });
}

// Polls until new work arrives (true) or the budget is spent (false). Called by the worker, which
// has finished every task queued so far.
bool SpinForWork(const Stream &stream) {
  const uint64_t finished = stream.completed.load(std::memory_order_relaxed);
  return PollUntil(SpinBudget(),
                   [&] { return stream.submitted.load(std::memory_order_acquire) != finished; });
}

// The stream whose worker is the current thread (null on other threads). Waiting for or joining
// one's own stream from inside one of its tasks would deadlock; this lets us refuse instead.
thread_local const Stream *t_currentWorkerStream = nullptr;

void RunTask(std::function<void()> &task) {
  // A failing task must not take the worker (and with it the whole stream) down.
  try {
    task();
  } catch (const std::exception &e) {
    ReportError("a task on a stream failed: %s", e.what());
  } catch (...) {
    ReportError("a task on a stream failed with an unknown exception");
  }
}

// Runs the queue's front task on the calling thread. Requires stream.mutex held through `lock`
// and no task running; returns with the lock held again.
void RunFrontLocked(Stream &stream, std::unique_lock<std::mutex> &lock) {
  std::function<void()> task = std::move(stream.queue.front());
  stream.queue.pop_front();
  stream.running = true;
  lock.unlock();
  const Stream *outer = t_currentWorkerStream;
  t_currentWorkerStream = &stream;  // the task waiting for its own stream is refused, on any thread
  RunTask(task);
  t_currentWorkerStream = outer;
  // Release what the task captured before reporting it done, so that after a synchronize the
  // caller sees those resources (executors, buffers) already freed.
  task = nullptr;
  lock.lock();
  stream.running = false;
  stream.completed.fetch_add(1, std::memory_order_release);
  stream.progress.notify_all();   // cheap when nobody waits: no system call
  stream.workReady.notify_one();  // the worker may be waiting for this task to end
}

void WorkerLoop(Stream *stream) {
  t_currentWorkerStream = stream;
  std::unique_lock<std::mutex> lock(stream->mutex);
  bool justRan = false;  // poll for more work only right after a task: idle streams just sleep
  for (;;) {
    if (justRan && stream->queue.empty() && !stream->stopping) {
      lock.unlock();
      SpinForWork(*stream);
      lock.lock();
    }
    stream->workReady.wait(lock, [stream] {
      return (!stream->queue.empty() && !stream->running) || (stream->stopping && !stream->running);
    });
    if (stream->queue.empty()) return;  // stopping, and everything queued has run
    RunFrontLocked(*stream, lock);
    justRan = true;
  }
}

// Waits until every task queued before the call has finished. False (nothing waited) when called
// from the stream's own worker, where waiting would deadlock.
// The waiting thread runs queued tasks itself while no task is running: launch-then-synchronize
// then costs no wake-up of the worker thread (tens of microseconds on a virtual machine) before
// the work starts. Order is kept: one task at a time, front first.
bool WaitDrained(Stream &stream) {
  if (t_currentWorkerStream == &stream) return false;
  const uint64_t target = stream.submitted.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(stream.mutex);
  while (stream.completed.load(std::memory_order_acquire) < target && !stream.running &&
         !stream.queue.empty()) {
    RunFrontLocked(stream, lock);
  }
  lock.unlock();
  if (SpinUntilCompleted(stream, target)) return true;
  lock.lock();
  stream.progress.wait(lock, [&] { return stream.completed.load(std::memory_order_acquire) >= target; });
  return true;
}

// Waits until every task queued before the call has finished or the deadline passes; true when they
// have. Leaves the tasks to the worker: a task run here could overrun the deadline without bound.
bool WaitDrainedUntil(Stream &stream, std::chrono::steady_clock::time_point deadline) {
  const uint64_t target = stream.submitted.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(stream.mutex);
  return stream.progress.wait_until(
      lock, deadline, [&] { return stream.completed.load(std::memory_order_acquire) >= target; });
}

// Lets the worker run the remaining queue, then joins it. The stream must already be unreachable
// from the registry (no new work can arrive) and the caller must not be its worker.
void StopAndJoin(Stream &stream) {
  {
    std::lock_guard<std::mutex> lock(stream.mutex);
    stream.stopping = true;
  }
  stream.workReady.notify_one();
  stream.worker.join();
}

struct StreamRegistry {
  std::mutex mutex;
  // Keyed by the handle handed to the user (the Stream's address); guarded by mutex.
  std::unordered_map<const void *, std::shared_ptr<Stream>> live;
  std::shared_ptr<Stream> defaultStream;  // created lazily, guarded by mutex
};

// Never destroyed, so that calls arriving during process exit (from other libraries' static
// destructors, say) still find a valid registry; ExitDrainer below stops the workers instead.
StreamRegistry &Registry() {
  static StreamRegistry *registry = new StreamRegistry;
  return *registry;
}

// At process exit (or library unload) runs all queued work and joins every worker, so that no
// worker is still running while the process tears itself down. The core pool is never destroyed,
// so tasks that launch SPMD work still find it.
struct ExitDrainer {
  ~ExitDrainer() { DestroyAllStreams(); }
};

void EnsureExitDrainer() { static ExitDrainer drainer; }

// Creates a stream and starts its worker. Throws std::system_error (no thread) or std::bad_alloc.
std::shared_ptr<Stream> StartStream() {
  EnsureExitDrainer();
  auto stream = std::make_shared<Stream>();
  stream->worker = std::thread(WorkerLoop, stream.get());
  return stream;
}

// The stream for a handle (null: the default stream, created if needed), or null when the handle
// is unknown. Requires registry.mutex held. Throws like StartStream.
Stream *FindLocked(StreamRegistry &registry, aclrtStream handle) {
  if (handle == nullptr) {
    if (!registry.defaultStream) registry.defaultStream = StartStream();
    return registry.defaultStream.get();
  }
  const auto it = registry.live.find(handle);
  return it == registry.live.end() ? nullptr : it->second.get();
}

// A shared reference to an existing stream (null handle: the default stream, which is not created
// here: there is nothing to wait for when it does not exist). Sets *known to false for an unknown handle.
std::shared_ptr<Stream> Lookup(aclrtStream handle, bool *known) {
  StreamRegistry &registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  *known = true;
  if (handle == nullptr) return registry.defaultStream;
  const auto it = registry.live.find(handle);
  if (it == registry.live.end()) {
    *known = false;
    return nullptr;
  }
  return it->second;
}

}  // namespace

aclError Enqueue(aclrtStream stream, std::function<void()> task) {
  if (!task) {
    ReportError("Enqueue: empty task");
    return ACL_ERROR_INVALID_PARAM;
  }
  StreamRegistry &registry = Registry();
  try {
    // The registry lock is held until the task is queued: a concurrent aclrtDestroyStream either
    // sees the task (and runs it before stopping) or has already made the handle unknown.
    std::lock_guard<std::mutex> registryLock(registry.mutex);
    Stream *target = FindLocked(registry, stream);
    if (target == nullptr) {
      ReportError("stream %p is not a live stream (never created, or already destroyed)", stream);
      return ACL_ERROR_INVALID_PARAM;
    }
    {
      std::lock_guard<std::mutex> lock(target->mutex);
      target->queue.push_back(std::move(task));
      target->submitted.fetch_add(1, std::memory_order_release);
    }
    target->workReady.notify_one();
  } catch (const std::system_error &e) {
    ReportError("cannot start the default stream's worker thread: %s", e.what());
    return ACL_ERROR_RT_FAILURE;
  } catch (const std::bad_alloc &) {
    ReportError("out of memory while queueing a task on stream %p", stream);
    return ACL_ERROR_BAD_ALLOC;
  }
  return ACL_SUCCESS;
}

bool IsValidStream(aclrtStream stream) {
  if (stream == nullptr) return true;
  StreamRegistry &registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.live.count(stream) != 0;
}

bool IsRunningTaskOf(aclrtStream stream) {
  const Stream *current = t_currentWorkerStream;
  if (current == nullptr) return false;
  if (stream != nullptr) return current == stream;
  StreamRegistry &registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return current == registry.defaultStream.get();
}

void DestroyAllStreams() {
  std::vector<std::shared_ptr<Stream>> stopping;
  {
    StreamRegistry &registry = Registry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto take = [&stopping](std::shared_ptr<Stream> &stream) {
      if (t_currentWorkerStream == stream.get()) {
        ReportError("the stream running this task cannot be destroyed from inside it; it is left alive");
        return false;
      }
      stopping.push_back(std::move(stream));
      return true;
    };
    for (auto it = registry.live.begin(); it != registry.live.end();) {
      it = take(it->second) ? registry.live.erase(it) : std::next(it);
    }
    // take() leaves the default stream in place only when it is the caller's own stream.
    if (registry.defaultStream) take(registry.defaultStream);
  }
  // Outside the registry lock: the remaining tasks may themselves queue work on other streams.
  for (const auto &stream : stopping) StopAndJoin(*stream);
}

}  // namespace trilinear3d::runtime

using trilinear3d::runtime::NotLive;
using trilinear3d::runtime::NullArgument;
using trilinear3d::runtime::ReportError;
using trilinear3d::runtime::Stream;

aclError aclrtCreateStream(aclrtStream *stream) {
  if (stream == nullptr) return NullArgument("aclrtCreateStream", "stream");
  *stream = nullptr;
  try {
    std::shared_ptr<Stream> created = trilinear3d::runtime::StartStream();
    auto &registry = trilinear3d::runtime::Registry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    try {
      registry.live.emplace(created.get(), created);
    } catch (...) {
      // Not published: nobody else can reach it, so stop it here (its queue is empty).
      trilinear3d::runtime::StopAndJoin(*created);
      throw;
    }
    *stream = created.get();
  } catch (const std::system_error &e) {
    ReportError("aclrtCreateStream: cannot start a worker thread: %s", e.what());
    return ACL_ERROR_RT_FAILURE;
  } catch (const std::bad_alloc &) {
    ReportError("aclrtCreateStream: out of memory");
    return ACL_ERROR_BAD_ALLOC;
  }
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (stream == nullptr) {
    ReportError("aclrtDestroyStream: stream is null (the default stream cannot be destroyed)");
    return ACL_ERROR_INVALID_PARAM;
  }
  std::shared_ptr<Stream> target;
  {
    auto &registry = trilinear3d::runtime::Registry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    const auto it = registry.live.find(stream);
    if (it == registry.live.end()) return NotLive("aclrtDestroyStream", "stream", stream);
    if (trilinear3d::runtime::t_currentWorkerStream == it->second.get()) {
      ReportError("aclrtDestroyStream: stream %p cannot be destroyed by one of its own tasks", stream);
      return ACL_ERROR_INVALID_PARAM;
    }
    // Unpublished first: from here on no new work can be queued on it.
    target = std::move(it->second);
    registry.live.erase(it);
  }
  trilinear3d::runtime::StopAndJoin(*target);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  bool known = false;
  const std::shared_ptr<Stream> target = trilinear3d::runtime::Lookup(stream, &known);
  if (!known) return NotLive("aclrtSynchronizeStream", "stream", stream);
  if (target && !trilinear3d::runtime::WaitDrained(*target)) {
    ReportError("aclrtSynchronizeStream: a task cannot wait for its own stream %p", stream);
    return ACL_ERROR_INVALID_PARAM;
  }
  return ACL_SUCCESS;
}

// CANN's timeout is -1 (no limit) or a positive number of milliseconds.
aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  if (timeout == -1) return aclrtSynchronizeStream(stream);
  if (timeout <= 0) {
    ReportError("aclrtSynchronizeStreamWithTimeout: timeout %d is neither -1 nor a positive number of ms",
                static_cast<int>(timeout));
    return ACL_ERROR_INVALID_PARAM;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
  bool known = false;
  const std::shared_ptr<Stream> target = trilinear3d::runtime::Lookup(stream, &known);
  if (!known) return NotLive("aclrtSynchronizeStreamWithTimeout", "stream", stream);
  if (!target) return ACL_SUCCESS;
  if (trilinear3d::runtime::t_currentWorkerStream == target.get()) {
    ReportError("aclrtSynchronizeStreamWithTimeout: a task cannot wait for its own stream %p", stream);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (!trilinear3d::runtime::WaitDrainedUntil(*target, deadline)) {
    ReportError("aclrtSynchronizeStreamWithTimeout: stream %p still has work after %d ms", stream,
                static_cast<int>(timeout));
    return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
  }
  return ACL_SUCCESS;
}

// Waits for every stream; called from a task, it waits for all streams but the task's own.
aclError aclrtSynchronizeDevice(void) {
  std::vector<std::shared_ptr<Stream>> streams;
  try {
    auto &registry = trilinear3d::runtime::Registry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    streams.reserve(registry.live.size() + 1);
    for (const auto &entry : registry.live) streams.push_back(entry.second);
    if (registry.defaultStream) streams.push_back(registry.defaultStream);
  } catch (const std::bad_alloc &) {
    ReportError("aclrtSynchronizeDevice: out of memory");
    return ACL_ERROR_BAD_ALLOC;
  }
  for (const auto &stream : streams) trilinear3d::runtime::WaitDrained(*stream);
  return ACL_SUCCESS;
}
