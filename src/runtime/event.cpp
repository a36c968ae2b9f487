// Events: markers enqueued on streams.
//
// aclrtRecordEvent numbers each record of an event and enqueues a marker task; the marker runs once
// the work queued before it on that stream has run (streams are in order), and then marks its record
// complete and, for a timed event, takes the time. So a timestamp is the moment the preceding work
// completed, and aclrtEventElapsedTime measures the work between two markers. A wait (host or stream)
// waits for the record that was latest when it was issued; a later record replaces an earlier one.
//
// Handles are checked against a registry of live events: an unknown or destroyed handle is an error,
// never a dereference. Handle values are never reused (NewHandle), and queued markers and waits hold
// the event's state, so destroying an event with work still queued is safe.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>

#include "acl/acl_rt.h"
#include "runtime/error.h"
#include "runtime/runtime_internal.h"
#include "runtime/stream.h"

namespace trilinear3d::runtime {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kKnownFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE;

struct Event {
  explicit Event(bool timedEvent) : timed(timedEvent) {}
  const bool timed;
  std::mutex mutex;
  std::condition_variable completion;  // signalled when a record completes
  // Records are numbered from 1. All guarded by mutex.
  uint64_t recorded = 0;               // the latest record issued
  uint64_t completed = 0;              // the latest record whose marker has run
  uint64_t resetTo = 0;                // records up to this one were cleared by a reset that has run
  aclrtStream latestStream = nullptr;  // the stream of the latest record
  Clock::time_point timestamp{};       // when the marker of record `completed` ran
};

struct EventRegistry {
  std::mutex mutex;
  std::unordered_map<const void *, std::shared_ptr<Event>> live;  // guarded by mutex
};

// Never destroyed: markers still draining at process exit may outlive static destructors.
EventRegistry &Registry() {
  static EventRegistry *registry = new EventRegistry;
  return *registry;
}

// The event for a live handle, or null (reported, naming function) for a null or unknown one.
std::shared_ptr<Event> Find(const char *function, aclrtEvent handle) {
  if (handle == nullptr) {
    NullArgument(function, "event");
    return nullptr;
  }
  EventRegistry &registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  const auto it = registry.live.find(handle);
  if (it == registry.live.end()) {
    NotLive(function, "event", handle);
    return nullptr;
  }
  return it->second;
}

aclError Create(const char *function, aclrtEvent *event, bool timed) {
  if (event == nullptr) return NullArgument(function, "event");
  *event = nullptr;
  try {
    auto created = std::make_shared<Event>(timed);
    void *handle = NewHandle();
    EventRegistry &registry = Registry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.live.emplace(handle, std::move(created));
    *event = handle;
  } catch (const std::bad_alloc &) {
    ReportError("%s: out of memory", function);
    return ACL_ERROR_BAD_ALLOC;
  }
  return ACL_SUCCESS;
}

// A record is in effect once issued and until a reset issued after it has run.
bool IsRecordedLocked(const Event &event) { return event.recorded > event.resetTo; }
bool IsCompleteLocked(const Event &event) { return event.completed >= event.recorded; }

}  // namespace
}  // namespace trilinear3d::runtime

using trilinear3d::runtime::Event;
using trilinear3d::runtime::NotLive;
using trilinear3d::runtime::NullArgument;
using trilinear3d::runtime::ReportError;

// CANN's events created without flags record timestamps; aclrtEventElapsedTime works on them.
aclError aclrtCreateEvent(aclrtEvent *event) {
  return trilinear3d::runtime::Create("aclrtCreateEvent", event, true);
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
  if ((flag & ~trilinear3d::runtime::kKnownFlags) != 0) {
    if (event != nullptr) *event = nullptr;
    ReportError(
        "aclrtCreateEventWithFlag: unknown flag bits 0x%x (known: ACL_EVENT_SYNC, "
        "ACL_EVENT_CAPTURE_STREAM_PROGRESS, ACL_EVENT_TIME_LINE)",
        static_cast<unsigned>(flag & ~trilinear3d::runtime::kKnownFlags));
    return ACL_ERROR_INVALID_PARAM;
  }
  return trilinear3d::runtime::Create("aclrtCreateEventWithFlag", event, (flag & ACL_EVENT_TIME_LINE) != 0);
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  if (event == nullptr) return NullArgument("aclrtDestroyEvent", "event");
  auto &registry = trilinear3d::runtime::Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (registry.live.erase(event) == 0) return NotLive("aclrtDestroyEvent", "event", event);
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  const std::shared_ptr<Event> target = trilinear3d::runtime::Find("aclrtRecordEvent", event);
  if (!target) return ACL_ERROR_INVALID_PARAM;
  // The number is taken under the event's lock and the marker queued before it is released, so that
  // numbers follow queue order on every stream and a failed enqueue leaves no record behind.
  std::lock_guard<std::mutex> lock(target->mutex);
  const uint64_t number = target->recorded + 1;
  const aclError status = trilinear3d::runtime::Enqueue(stream, [target, number] {
    const auto now = trilinear3d::runtime::Clock::now();
    std::lock_guard<std::mutex> markerLock(target->mutex);
    if (number > target->completed) {  // an older record completing late changes nothing
      target->completed = number;
      target->timestamp = now;
    }
    target->completion.notify_all();
  });
  if (status != ACL_SUCCESS) return status;
  target->recorded = number;
  target->latestStream = stream;
  return ACL_SUCCESS;
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  const std::shared_ptr<Event> target = trilinear3d::runtime::Find("aclrtResetEvent", event);
  if (!target) return ACL_ERROR_INVALID_PARAM;
  std::lock_guard<std::mutex> lock(target->mutex);
  const uint64_t issuedBefore = target->recorded;
  return trilinear3d::runtime::Enqueue(stream, [target, issuedBefore] {
    std::lock_guard<std::mutex> resetLock(target->mutex);
    target->resetTo = std::max(target->resetTo, issuedBefore);
  });
}

// An event that is not recorded counts as complete here, as there is nothing to wait for (the same
// rule as aclrtSynchronizeEvent); aclrtQueryEventStatus reports it as not ready.
aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status) {
  if (status == nullptr) return NullArgument("aclrtQueryEvent", "status");
  const std::shared_ptr<Event> target = trilinear3d::runtime::Find("aclrtQueryEvent", event);
  if (!target) return ACL_ERROR_INVALID_PARAM;
  std::lock_guard<std::mutex> lock(target->mutex);
  *status =
      !trilinear3d::runtime::IsRecordedLocked(*target) || trilinear3d::runtime::IsCompleteLocked(*target)
          ? ACL_EVENT_STATUS_COMPLETE
          : ACL_EVENT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
  if (status == nullptr) return NullArgument("aclrtQueryEventStatus", "status");
  const std::shared_ptr<Event> target = trilinear3d::runtime::Find("aclrtQueryEventStatus", event);
  if (!target) return ACL_ERROR_INVALID_PARAM;
  std::lock_guard<std::mutex> lock(target->mutex);
  *status = trilinear3d::runtime::IsRecordedLocked(*target) && trilinear3d::runtime::IsCompleteLocked(*target)
                ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  const std::shared_ptr<Event> target = trilinear3d::runtime::Find("aclrtSynchronizeEvent", event);
  if (!target) return ACL_ERROR_INVALID_PARAM;
  std::unique_lock<std::mutex> lock(target->mutex);
  if (!trilinear3d::runtime::IsRecordedLocked(*target) || trilinear3d::runtime::IsCompleteLocked(*target)) {
    return ACL_SUCCESS;
  }
  // A task of the recording stream waiting for a marker queued behind itself would never return.
  const aclrtStream recordStream = target->latestStream;
  const uint64_t awaited = target->recorded;
  lock.unlock();
  if (trilinear3d::runtime::IsRunningTaskOf(recordStream)) {
    ReportError(
        "aclrtSynchronizeEvent: a task of stream %p cannot wait for an event recorded after it on "
        "the same stream",
        recordStream);
    return ACL_ERROR_INVALID_PARAM;
  }
  lock.lock();
  target->completion.wait(lock, [&] { return target->completed >= awaited; });
  return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (ms == nullptr) return NullArgument("aclrtEventElapsedTime", "ms");
  const std::shared_ptr<Event> start =
      trilinear3d::runtime::Find("aclrtEventElapsedTime (start)", startEvent);
  if (!start) return ACL_ERROR_INVALID_PARAM;
  const std::shared_ptr<Event> end = trilinear3d::runtime::Find("aclrtEventElapsedTime (end)", endEvent);
  if (!end) return ACL_ERROR_INVALID_PARAM;
  trilinear3d::runtime::Clock::time_point stamps[2];
  Event *events[2] = {start.get(), end.get()};
  const char *names[2] = {"start", "end"};
  for (int i = 0; i < 2; ++i) {
    Event &e = *events[i];
    std::lock_guard<std::mutex> lock(e.mutex);
    if (!e.timed) {
      ReportError("aclrtEventElapsedTime: the %s event was created without ACL_EVENT_TIME_LINE", names[i]);
      return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    }
    if (!trilinear3d::runtime::IsRecordedLocked(e)) {
      ReportError("aclrtEventElapsedTime: the %s event is not recorded", names[i]);
      return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    }
    if (!trilinear3d::runtime::IsCompleteLocked(e)) {
      ReportError("aclrtEventElapsedTime: the %s event has not completed (synchronize it first)", names[i]);
      return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    }
    stamps[i] = e.timestamp;
  }
  const std::chrono::duration<double, std::milli> elapsed = stamps[1] - stamps[0];
  if (elapsed.count() < 0) {
    ReportError("aclrtEventElapsedTime: the end event completed %.3f ms before the start event",
                -elapsed.count());
    return ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL;
  }
  *ms = static_cast<float>(elapsed.count());
  return ACL_SUCCESS;
}

// The wait is a task on `stream` that blocks its queue until the awaited record completes. The record
// was issued before the wait, so no chain of waits can form a cycle.
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  const std::shared_ptr<Event> target = trilinear3d::runtime::Find("aclrtStreamWaitEvent", event);
  if (!target) return ACL_ERROR_INVALID_PARAM;
  uint64_t awaited = 0;
  {
    std::lock_guard<std::mutex> lock(target->mutex);
    if (trilinear3d::runtime::IsRecordedLocked(*target) && !trilinear3d::runtime::IsCompleteLocked(*target)) {
      awaited = target->recorded;
    }
  }
  if (awaited == 0) {  // nothing to wait for; the stream must still be a valid one
    if (trilinear3d::runtime::IsValidStream(stream)) return ACL_SUCCESS;
    return NotLive("aclrtStreamWaitEvent", "stream", stream);
  }
  return trilinear3d::runtime::Enqueue(stream, [target, awaited] {
    std::unique_lock<std::mutex> lock(target->mutex);
    target->completion.wait(lock, [&] { return target->completed >= awaited; });
  });
}
