// Events: records ordered on their stream, host and cross-stream waits, status queries, elapsed time,
// resets, and every error path (null, unknown and destroyed handles). No assertion depends on how fast
// the machine is: elapsed times are checked against sleeps that separate the records for certain and
// against wall time measured around them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acl_test_environment.h"
#include "runtime_test_util.h"

// aclrtQueryEvent is deprecated in CANN's header, and so in ours; it is still tested.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace trilinear3d::test {
namespace {

using Clock = std::chrono::steady_clock;

class Events : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclrtCreateStream(&a_), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&b_), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
    for (aclrtEvent event : events_) EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(a_), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(b_), ACL_SUCCESS);
  }

  // A new event from aclrtCreateEvent, or from aclrtCreateEventWithFlag when a flag is given; it is
  // destroyed when the test ends, and that destroy must succeed.
  aclrtEvent NewEvent(std::optional<uint32_t> flag = std::nullopt) {
    aclrtEvent event = nullptr;
    EXPECT_EQ(flag ? aclrtCreateEventWithFlag(&event, *flag) : aclrtCreateEvent(&event), ACL_SUCCESS);
    EXPECT_NE(event, nullptr);
    if (event != nullptr) events_.push_back(event);
    return event;
  }

  // The hand-off through event: behind some busy work, a_ fills a device buffer with value and records
  // event; b_ waits for event and, once beforeCopy has run on the host, copies the buffer to the host.
  // Synchronizing b_ alone must give the host copy.
  template <typename BeforeCopy>
  void ExpectHandOffThroughEvent(aclrtEvent event, unsigned char value, BeforeCopy beforeCopy) {
    BusyWork busy;
    DeviceBuffer produced(4096);
    std::vector<unsigned char> host(4096, 0);
    std::memset(produced.data(), 0, produced.size());
    busy.Enqueue(a_, 4);
    ASSERT_EQ(aclrtMemsetAsync(produced.data(), produced.size(), value, produced.size(), a_), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(event, a_), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(b_, event), ACL_SUCCESS);
    beforeCopy();
    ASSERT_EQ(aclrtMemcpyAsync(host.data(), host.size(), produced.data(), produced.size(),
                               ACL_MEMCPY_DEVICE_TO_HOST, b_),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(b_), ACL_SUCCESS);
    EXPECT_TRUE(AllBytesAre(host.data(), host.size(), value));
  }

  aclrtStream a_ = nullptr;
  aclrtStream b_ = nullptr;
  std::vector<aclrtEvent> events_;
};

aclrtEventRecordedStatus RecordedStatus(aclrtEvent event) {
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  EXPECT_EQ(aclrtQueryEventStatus(event, &status), ACL_SUCCESS);
  return status;
}

double MillisecondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

TEST_F(Events, CreateWithEveryFlagCombination) {
  const uint32_t flags[] = {0u,
                            ACL_EVENT_SYNC,
                            ACL_EVENT_TIME_LINE,
                            ACL_EVENT_CAPTURE_STREAM_PROGRESS,
                            ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE,
                            ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE | ACL_EVENT_CAPTURE_STREAM_PROGRESS};
  for (const uint32_t flag : flags) {
    aclrtEvent event = nullptr;
    ASSERT_EQ(aclrtCreateEventWithFlag(&event, flag), ACL_SUCCESS) << flag;
    EXPECT_NE(event, nullptr);
    EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  }
  EXPECT_EQ(ACL_EVENT_SYNC, 0x1u);
  EXPECT_EQ(ACL_EVENT_CAPTURE_STREAM_PROGRESS, 0x2u);
  EXPECT_EQ(ACL_EVENT_TIME_LINE, 0x8u);
}

TEST_F(Events, UnknownFlagBitsAreRejected) {
  aclrtEvent event = reinterpret_cast<aclrtEvent>(0x1);
  EXPECT_EQ(aclrtCreateEventWithFlag(&event, 0x4u), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(event, nullptr);
  EXPECT_EQ(aclrtCreateEventWithFlag(&event, ACL_EVENT_TIME_LINE | 0x100u), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEventWithFlag(nullptr, ACL_EVENT_TIME_LINE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Events, NeverRecordedEvent) {
  const aclrtEvent event = NewEvent();
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
  aclrtEventStatus old = ACL_EVENT_STATUS_NOT_READY;
  EXPECT_EQ(aclrtQueryEvent(event, &old), ACL_SUCCESS);
  EXPECT_EQ(old, ACL_EVENT_STATUS_COMPLETE);  // nothing to wait for
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtStreamWaitEvent(a_, event), ACL_SUCCESS);
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, event, event), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
}

// The event completes only after the work queued before it: once it reports complete, that work's
// result is there (checked whatever the status was at the first query).
TEST_F(Events, CompletesAfterThePrecedingWork) {
  BusyWork busy;
  DeviceBuffer flag(4096);
  std::memset(flag.data(), 0, flag.size());
  const aclrtEvent event = NewEvent();
  busy.Enqueue(a_, 4);
  ASSERT_EQ(aclrtMemsetAsync(flag.data(), flag.size(), 0x5a, flag.size(), a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, a_), ACL_SUCCESS);
  if (RecordedStatus(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE) {
    EXPECT_TRUE(AllBytesAre(flag.bytes(), flag.size(), 0x5a));
  }
  ASSERT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  aclrtEventStatus old = ACL_EVENT_STATUS_NOT_READY;
  EXPECT_EQ(aclrtQueryEvent(event, &old), ACL_SUCCESS);
  EXPECT_EQ(old, ACL_EVENT_STATUS_COMPLETE);
  EXPECT_TRUE(AllBytesAre(flag.bytes(), flag.size(), 0x5a));
}

// start is synchronized before the sleep, so end's marker runs at least the sleep after start's; both
// markers run between the two wall-clock readings.
TEST_F(Events, ElapsedTimeCoversASleepBetweenAndStaysWithinWallTime) {
  constexpr double kSleepMs = 20.0;
  const aclrtEvent start = NewEvent(ACL_EVENT_TIME_LINE);
  const aclrtEvent end = NewEvent(ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC);
  const Clock::time_point before = Clock::now();
  ASSERT_EQ(aclrtRecordEvent(start, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(start), ACL_SUCCESS);
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(kSleepMs));
  ASSERT_EQ(aclrtRecordEvent(end, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  const Clock::time_point after = Clock::now();
  float ms = -1;
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, kSleepMs - 0.01);
  EXPECT_LE(ms, MillisecondsBetween(before, after) + 0.01);
  float same = -1;
  ASSERT_EQ(aclrtEventElapsedTime(&same, end, end), ACL_SUCCESS);
  EXPECT_EQ(same, 0.0f);
}

// Around an operator and copies: non-negative, and no longer than the host waited for it.
TEST_F(Events, ElapsedTimeAroundWorkIsNonNegativeAndBoundedByWallTime) {
  BusyWork busy;
  const aclrtEvent start = NewEvent();
  const aclrtEvent end = NewEvent();
  const std::vector<float> host = SeedGradOut();
  DeviceBuffer gradOut(kSeedGradOutCount * sizeof(float)), gradInput(kSeedGradInputCount * sizeof(float));
  Workspace workspace;
  const Clock::time_point before = Clock::now();
  ASSERT_EQ(aclrtRecordEvent(start, a_), ACL_SUCCESS);
  busy.Enqueue(a_, 2);
  ASSERT_EQ(aclrtMemcpyAsync(gradOut.data(), gradOut.size(), host.data(), gradOut.size(),
                             ACL_MEMCPY_HOST_TO_DEVICE, a_),
            ACL_SUCCESS);
  ASSERT_EQ(EnqueueSeedBackward(a_, gradOut.data(), gradInput.data(), workspace), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS);
  const Clock::time_point after = Clock::now();
  float ms = -1;
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  EXPECT_LE(ms, MillisecondsBetween(before, after) + 0.01);
}

TEST_F(Events, ElapsedTimeReversalAndPendingAndUntimedEvents) {
  const aclrtEvent first = NewEvent();
  const aclrtEvent second = NewEvent();
  const aclrtEvent untimed = NewEvent(ACL_EVENT_SYNC);
  ASSERT_EQ(aclrtRecordEvent(first, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(first), ACL_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(aclrtRecordEvent(second, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(untimed, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS);
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, second, first), ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, first, untimed), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, untimed, second), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, first, second), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(ms, -1.0f);  // untouched by the failures

  // A record still queued behind work: not complete, unless the work has already run.
  BusyWork busy;
  busy.Enqueue(a_, 8);
  ASSERT_EQ(aclrtRecordEvent(second, a_), ACL_SUCCESS);
  const aclError pending = aclrtEventElapsedTime(&ms, first, second);
  EXPECT_TRUE(pending == ACL_ERROR_RT_EVENT_NOT_COMPLETE || pending == ACL_SUCCESS) << pending;
  ASSERT_EQ(aclrtSynchronizeEvent(second), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, first, second), ACL_SUCCESS);
  EXPECT_GE(ms, 2.0f - 0.01f);
}

// b copies what a wrote, waiting only through the event: the host synchronizes b alone.
TEST_F(Events, StreamWaitEventOrdersWorkAcrossStreams) {
  const aclrtEvent ready = NewEvent(ACL_EVENT_SYNC);
  ExpectHandOffThroughEvent(ready, 0x5a, [] {});
  EXPECT_EQ(RecordedStatus(ready), ACL_EVENT_RECORDED_STATUS_COMPLETE);
}

TEST_F(Events, OperatorResultReadOnAnotherStreamAndTheDefaultStream) {
  const std::vector<float> hostIn = SeedGradOut();
  DeviceBuffer gradOut(kSeedGradOutCount * sizeof(float)), gradInput(kSeedGradInputCount * sizeof(float));
  Workspace workspace;
  std::vector<float> onB(kSeedGradInputCount, -1.0f), onDefault(kSeedGradInputCount, -1.0f);
  const aclrtEvent done = NewEvent();
  ASSERT_EQ(aclrtMemcpyAsync(gradOut.data(), gradOut.size(), hostIn.data(), gradOut.size(),
                             ACL_MEMCPY_HOST_TO_DEVICE, a_),
            ACL_SUCCESS);
  ASSERT_EQ(EnqueueSeedBackward(a_, gradOut.data(), gradInput.data(), workspace), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(done, a_), ACL_SUCCESS);
  // Two streams wait for the same event.
  ASSERT_EQ(aclrtStreamWaitEvent(b_, done), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(nullptr, done), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(onB.data(), onB.size() * sizeof(float), gradInput.data(), gradInput.size(),
                             ACL_MEMCPY_DEVICE_TO_HOST, b_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(onDefault.data(), onDefault.size() * sizeof(float), gradInput.data(),
                             gradInput.size(), ACL_MEMCPY_DEVICE_TO_HOST, nullptr),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(b_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (size_t i = 0; i < kSeedGradInputCount; ++i) {
    EXPECT_EQ(onB[i], kSeedExpected[i]) << i;
    EXPECT_EQ(onDefault[i], kSeedExpected[i]) << i;
  }
}

TEST_F(Events, ResetReturnsToNeverRecorded) {
  const aclrtEvent event = NewEvent();
  ASSERT_EQ(aclrtRecordEvent(event, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_EQ(aclrtResetEvent(event, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, event, event), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtStreamWaitEvent(b_, event), ACL_SUCCESS);
  // Recorded again after the reset: complete again.
  ASSERT_EQ(aclrtRecordEvent(event, b_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, event, event), ACL_SUCCESS);
}

TEST_F(Events, DestroyedNullAndUnknownHandlesAreRejected) {
  aclrtEvent gone = nullptr;  // destroyed below, so not one of the test's events
  ASSERT_EQ(aclrtCreateEvent(&gone), ACL_SUCCESS);
  const aclrtEvent live = NewEvent();
  ASSERT_EQ(aclrtDestroyEvent(gone), ACL_SUCCESS);
  int notAnEvent = 0;
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  aclrtEventStatus old = ACL_EVENT_STATUS_NOT_READY;
  float ms = 0;
  for (aclrtEvent bad : {gone, static_cast<aclrtEvent>(nullptr), static_cast<aclrtEvent>(&notAnEvent), a_}) {
    EXPECT_EQ(aclrtRecordEvent(bad, a_), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtResetEvent(bad, a_), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtQueryEventStatus(bad, &status), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtQueryEvent(bad, &old), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtSynchronizeEvent(bad), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtEventElapsedTime(&ms, bad, live), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtEventElapsedTime(&ms, live, bad), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtStreamWaitEvent(a_, bad), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtDestroyEvent(bad), ACL_ERROR_INVALID_PARAM);
  }
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclrtDestroyEvent"), std::string::npos);
  EXPECT_EQ(aclrtQueryEventStatus(live, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtQueryEvent(live, nullptr), ACL_ERROR_INVALID_PARAM);
  // A new event never gets a destroyed one's handle.
  EXPECT_NE(NewEvent(), gone);
  EXPECT_EQ(aclrtSynchronizeEvent(gone), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Events, BadStreamsAreRejectedAndLeaveTheEventAlone) {
  aclrtStream gone = nullptr;
  ASSERT_EQ(aclrtCreateStream(&gone), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(gone), ACL_SUCCESS);
  const aclrtEvent event = NewEvent();
  EXPECT_EQ(aclrtRecordEvent(event, gone), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);  // no record was made
  EXPECT_EQ(aclrtResetEvent(event, gone), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtStreamWaitEvent(gone, event), ACL_ERROR_INVALID_PARAM);  // never recorded
  BusyWork busy;
  busy.Enqueue(a_, 2);
  ASSERT_EQ(aclrtRecordEvent(event, a_), ACL_SUCCESS);
  EXPECT_EQ(aclrtStreamWaitEvent(gone, event), ACL_ERROR_INVALID_PARAM);  // recorded, maybe pending
  ASSERT_EQ(aclrtSynchronizeEvent(event), ACL_SUCCESS);
}

// Destroying an event does not cancel the work queued with it: the marker still runs and the waiting
// stream is released.
TEST_F(Events, DestroyedWhileRecordsAndWaitsAreQueued) {
  aclrtEvent event = nullptr;  // destroyed below, so not one of the test's events
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  ExpectHandOffThroughEvent(event, 0x33, [&] { EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS); });
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_ERROR_INVALID_PARAM);
}

// A stream destroyed with a wait queued on it finishes the wait (the recording stream keeps running).
TEST_F(Events, StreamDestroyedWhileItWaits) {
  BusyWork busy;
  aclrtStream waiting = nullptr;
  ASSERT_EQ(aclrtCreateStream(&waiting), ACL_SUCCESS);
  const aclrtEvent event = NewEvent();
  busy.Enqueue(a_, 4);
  ASSERT_EQ(aclrtRecordEvent(event, a_), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(waiting, event), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(waiting), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
}

// Producer and consumers on their own threads and streams, events shared: every consumer copy sees the
// round its wait was issued for, or a later one. ThreadSanitizer checks the hand-offs.
TEST_F(Events, ThreadsShareEventsAcrossStreams) {
  constexpr int kRounds = 50;
  constexpr int kConsumers = 3;
  constexpr size_t kBytes = 1024;
  DeviceBuffer produced(kBytes);
  std::memset(produced.data(), 0, kBytes);
  const aclrtEvent event = NewEvent();
  std::atomic<int> roundsRecorded{0};
  std::atomic<int> failures{0};
  std::thread producer([&] {
    for (int round = 1; round <= kRounds; ++round) {
      // The previous round's readers may still copy: a new fill waits for nothing but the stream order,
      // so each round's fill is recorded before the next is queued and readers accept later rounds.
      if (aclrtMemsetAsync(produced.data(), kBytes, round, kBytes, a_) != ACL_SUCCESS) ++failures;
      if (aclrtRecordEvent(event, a_) != ACL_SUCCESS) ++failures;
      if (aclrtSynchronizeEvent(event) != ACL_SUCCESS) ++failures;
      roundsRecorded.store(round, std::memory_order_release);
    }
  });
  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      aclrtStream stream = nullptr;
      if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
        ++failures;
        return;
      }
      std::vector<unsigned char> host(kBytes);
      int seen = 0;
      while (seen < kRounds) {
        const int round = roundsRecorded.load(std::memory_order_acquire);
        if (round == 0) {
          std::this_thread::yield();
          continue;
        }
        aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        if (aclrtQueryEventStatus(event, &status) != ACL_SUCCESS) ++failures;
        if (aclrtStreamWaitEvent(stream, event) != ACL_SUCCESS) ++failures;
        if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) ++failures;
        seen = round;
        // Reads after the producer finished every round are exact.
        if (round == kRounds) {
          if (aclrtMemcpyAsync(host.data(), kBytes, produced.data(), kBytes, ACL_MEMCPY_DEVICE_TO_HOST,
                               stream) != ACL_SUCCESS ||
              aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
            ++failures;
          } else if (!AllBytesAre(host.data(), kBytes, static_cast<unsigned char>(kRounds))) {
            ++failures;
          }
        }
      }
      if (aclrtDestroyStream(stream) != ACL_SUCCESS) ++failures;
    });
  }
  producer.join();
  for (auto &consumer : consumers) consumer.join();
  EXPECT_EQ(failures.load(), 0);
}

// Events created, recorded, waited on and destroyed from several threads at once, some handles used
// after another thread destroyed them: errors, never crashes.
TEST_F(Events, ConcurrentCreateRecordDestroy) {
  constexpr int kThreads = 4;
  constexpr int kIterations = 200;
  std::vector<aclrtEvent> shared(kThreads, nullptr);
  for (auto &event : shared) ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      aclrtStream stream = nullptr;
      if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
        ++unexpected;
        return;
      }
      for (int i = 0; i < kIterations; ++i) {
        aclrtEvent own = nullptr;
        if (aclrtCreateEvent(&own) != ACL_SUCCESS) ++unexpected;
        if (aclrtRecordEvent(own, stream) != ACL_SUCCESS) ++unexpected;
        if (aclrtStreamWaitEvent(stream, own) != ACL_SUCCESS) ++unexpected;
        // Another thread's shared event: live or destroyed, either answer is a valid one.
        aclrtEvent other = shared[(t + 1) % kThreads];
        const aclError recorded = aclrtRecordEvent(other, stream);
        if (recorded != ACL_SUCCESS && recorded != ACL_ERROR_INVALID_PARAM) ++unexpected;
        const aclError waited = aclrtStreamWaitEvent(stream, other);
        if (waited != ACL_SUCCESS && waited != ACL_ERROR_INVALID_PARAM) ++unexpected;
        if (i == kIterations / 2 && aclrtDestroyEvent(shared[t]) != ACL_SUCCESS) ++unexpected;
        if (aclrtDestroyEvent(own) != ACL_SUCCESS) ++unexpected;
      }
      if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) ++unexpected;
      if (aclrtDestroyStream(stream) != ACL_SUCCESS) ++unexpected;
    });
  }
  for (auto &thread : threads) thread.join();
  EXPECT_EQ(unexpected.load(), 0);
}

}  // namespace
}  // namespace trilinear3d::test
