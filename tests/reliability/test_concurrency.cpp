// Concurrency: 4 host threads, each with 2 streams, run random ops of both operators (every dtype,
// format and layout) for TRILINEAR3D_STRESS_SECONDS (default: 10 s, 3 s in sanitizer builds; see
// CMakeLists.txt); each result is then compared,
// bit for bit, with a serial run of the same op. Also the documented lifetime rules of
// src/runtime/stream.cpp and device.cpp: aclrtDestroyStream with queued work runs that work to
// completion before it returns, and so does aclFinalize for every stream (README.md here).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "acl_test_environment.h"
#include "reliability_support.h"

#ifndef TRILINEAR3D_STRESS_DEFAULT_SECONDS
#define TRILINEAR3D_STRESS_DEFAULT_SECONDS 10
#endif

namespace trilinear3d::reliability {
namespace {

constexpr int kThreads = 4;
constexpr int kStreamsPerThread = 2;
constexpr int kMaxOpsInFlight = 6;  // per thread, across its streams, before it synchronizes

struct Outcome {
  OpCase c;
  uint64_t hash = 0;  // of the written tensor's whole allocation: view, gaps and guards
};

// Failures seen by worker threads, reported by the main thread.
class FailureLog {
 public:
  void Add(const std::string &message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (messages_.size() < 20) messages_.push_back(message);
    ++count_;
  }
  void Report() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string &m : messages_) ADD_FAILURE() << m;
    EXPECT_EQ(count_, 0) << "failures in total";
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> messages_;
  int count_ = 0;
};

// The result of a finished op: its hash, after checking that the view holds no NaN left from the
// poison (the sources are finite) and that nothing outside the view changed.
bool Finish(const PreparedCase &p, Outcome *outcome, FailureLog *log) {
  const std::vector<double> values = p.dst->Download();
  for (double v : values) {
    if (std::isnan(v)) {
      log->Add("an element of the written view is still NaN after " + p.c.Describe());
      return false;
    }
  }
  const ::testing::AssertionResult canary = p.dst->CanaryIntact();
  if (!canary) {
    log->Add(std::string(canary.message()) + " after " + p.c.Describe());
    return false;
  }
  outcome->c = p.c;
  outcome->hash = HashBytes(p.dst->StorageBytes());
  return true;
}

// Joins a thread's streams the way host code does with events: streams[0] waits for an event recorded
// on each other stream, then the host waits for an event recorded on streams[0] after those waits.
// False (logged) on any failure.
bool JoinStreamsWithEvents(aclrtStream (&streams)[kStreamsPerThread], FailureLog *log) {
  std::vector<aclrtEvent> events;
  bool ok = true;
  auto fail = [&](const char *what) {
    log->Add(std::string(what) + " failed: " + aclGetRecentErrMsg());
    ok = false;
  };
  for (int i = 1; i < kStreamsPerThread && ok; ++i) {
    aclrtEvent event = nullptr;
    if (aclrtCreateEventWithFlag(&event, ACL_EVENT_SYNC) != ACL_SUCCESS) {
      fail("aclrtCreateEventWithFlag");
      break;
    }
    events.push_back(event);
    if (aclrtRecordEvent(event, streams[i]) != ACL_SUCCESS) {
      fail("aclrtRecordEvent");
    } else if (aclrtStreamWaitEvent(streams[0], event) != ACL_SUCCESS) {
      fail("aclrtStreamWaitEvent");
    }
  }
  aclrtEvent all = nullptr;
  if (ok && aclrtCreateEvent(&all) != ACL_SUCCESS) fail("aclrtCreateEvent");
  if (ok) {
    events.push_back(all);
    if (aclrtRecordEvent(all, streams[0]) != ACL_SUCCESS) {
      fail("aclrtRecordEvent");
    } else if (aclrtSynchronizeEvent(all) != ACL_SUCCESS) {
      fail("aclrtSynchronizeEvent");
    }
  }
  for (aclrtEvent event : events) {
    if (aclrtDestroyEvent(event) != ACL_SUCCESS) fail("aclrtDestroyEvent");
  }
  return ok;
}

// One host thread: batches of random ops spread over its streams, a synchronize of each stream
// (sometimes one stream mid-batch) or a join of the streams through events, then the results are
// recorded.
void StressThread(uint64_t seed, std::chrono::steady_clock::time_point deadline,
                  std::vector<Outcome> *outcomes, FailureLog *log) {
  std::mt19937_64 rng(seed);
  aclrtStream streams[kStreamsPerThread] = {};
  for (aclrtStream &s : streams) {
    if (aclrtCreateStream(&s) != ACL_SUCCESS) {
      log->Add(std::string("aclrtCreateStream failed: ") + aclGetRecentErrMsg());
      return;
    }
  }
  while (std::chrono::steady_clock::now() < deadline) {
    const int count = 1 + static_cast<int>(rng() % kMaxOpsInFlight);
    std::vector<std::unique_ptr<PreparedCase>> batch;
    for (int i = 0; i < count; ++i) {
      auto p = std::make_unique<PreparedCase>();
      const OpCase c = RandomCase(rng);
      ::testing::AssertionResult ok = Prepare(c, p.get());
      if (ok) ok = Enqueue(p.get(), streams[rng() % kStreamsPerThread]);
      if (!ok) {
        log->Add(ok.message());
        return;
      }
      batch.push_back(std::move(p));
      if (rng() % 8 == 0 && aclrtSynchronizeStream(streams[0]) != ACL_SUCCESS) {
        log->Add(std::string("aclrtSynchronizeStream failed: ") + aclGetRecentErrMsg());
      }
    }
    if (rng() % 2 == 0) {
      if (!JoinStreamsWithEvents(streams, log)) return;
    } else {
      for (aclrtStream s : streams) {
        if (aclrtSynchronizeStream(s) != ACL_SUCCESS) {
          log->Add(std::string("aclrtSynchronizeStream failed: ") + aclGetRecentErrMsg());
          return;
        }
      }
    }
    for (const auto &p : batch) {
      Outcome outcome;
      if (Finish(*p, &outcome, log)) outcomes->push_back(outcome);
    }
  }
  for (aclrtStream s : streams) {
    if (aclrtDestroyStream(s) != ACL_SUCCESS)
      log->Add(std::string("aclrtDestroyStream: ") + aclGetRecentErrMsg());
  }
}

// Runs one op alone on the default stream and returns the hash of its result.
::testing::AssertionResult SerialHash(const OpCase &c, uint64_t *hash) {
  PreparedCase p;
  ::testing::AssertionResult ok = Prepare(c, &p);
  if (ok) ok = Enqueue(&p, nullptr);
  if (!ok) return ok;
  if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS)
    return ::testing::AssertionFailure() << aclGetRecentErrMsg();
  *hash = HashBytes(p.dst->StorageBytes());
  return ::testing::AssertionSuccess();
}

TEST(Concurrency, FourThreadsTwoStreamsEachGiveTheBitsOfSerialRuns) {
  const uint64_t seed = test::FreshSeed();
  SCOPED_TRACE(test::SeedTrace(seed));
  const double seconds = StressSeconds(TRILINEAR3D_STRESS_DEFAULT_SECONDS);
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::vector<Outcome>> outcomes(kThreads);
  FailureLog log;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(StressThread, seed + static_cast<uint64_t>(t), deadline, &outcomes[t], &log);
  }
  for (std::thread &t : threads) t.join();
  log.Report();

  size_t compared = 0, mismatched = 0;
  for (const std::vector<Outcome> &list : outcomes) {
    for (const Outcome &o : list) {
      uint64_t serial = 0;
      ASSERT_TRUE(SerialHash(o.c, &serial));
      ++compared;
      if (serial != o.hash && ++mismatched <= 10) {
        ADD_FAILURE() << "concurrent result differs from the serial one for " << o.c.Describe();
      }
    }
  }
  EXPECT_EQ(mismatched, 0u);
  EXPECT_GE(compared, static_cast<size_t>(kThreads));  // every thread finished at least one batch
  std::printf("[ stress   ] %zu ops in %.1f s on %d threads x %d streams, all equal to serial runs\n",
              compared, seconds, kThreads, kStreamsPerThread);
}

// Several ops queued on one stream; destroying it right away runs them all before it returns.
class Lifetime : public ::testing::Test {
 protected:
  // A few cases large enough (some milliseconds each) that the queue is still full when the stream
  // is destroyed, and their serial results.
  void MakeCases(int count) {
    std::mt19937_64 rng(seed_);
    for (int i = 0; i < count; ++i) {
      OpCase c;
      c.backward = i % 2 == 0;
      c.dtype = i % 3 == 0 ? ACL_BF16 : ACL_FLOAT;
      c.problem.inputSize = {2, 4, 6, 24, 24};
      c.problem.outputSize = {11, 47, 45};
      c.dstFormat = i % 4 == 1 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
      c.dataSeed = rng();
      uint64_t hash = 0;
      ASSERT_TRUE(SerialHash(c, &hash));
      cases_.push_back(c);
      serial_.push_back(hash);
    }
  }

  // Prepares and enqueues every case, round robin over streams.
  void EnqueueAll(const std::vector<aclrtStream> &streams) {
    for (size_t i = 0; i < cases_.size(); ++i) {
      auto p = std::make_unique<PreparedCase>();
      ASSERT_TRUE(Prepare(cases_[i], p.get()));
      ASSERT_TRUE(Enqueue(p.get(), streams[i % streams.size()]));
      prepared_.push_back(std::move(p));
    }
  }

  void ExpectAllComplete() {
    ASSERT_EQ(prepared_.size(), serial_.size());
    for (size_t i = 0; i < prepared_.size(); ++i) {
      EXPECT_EQ(HashBytes(prepared_[i]->dst->StorageBytes()), serial_[i])
          << "op " << i << " lost or incomplete";
    }
  }

  const uint64_t seed_ = test::FreshSeed();
  const ::testing::ScopedTrace trace_{__FILE__, __LINE__, test::SeedTrace(seed_)};
  std::vector<OpCase> cases_;
  std::vector<uint64_t> serial_;
  std::vector<std::unique_ptr<PreparedCase>> prepared_;
};

TEST_F(Lifetime, DestroyStreamWithQueuedWorkRunsItFirst) {
  MakeCases(6);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EnqueueAll({stream});
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  ExpectAllComplete();  // no synchronize: destroy waited

  // The handle is dead: synchronize and destroy fail, and a run on it is rejected with 161002
  // while its executor stays usable for a retry on a live stream.
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
  PreparedCase retry;
  ASSERT_TRUE(Prepare(cases_[0], &retry));
  EXPECT_EQ(test::RunPhase(retry.op, stream), ACLNN_ERR_PARAM_INVALID);
  EXPECT_FALSE(std::string(aclGetRecentErrMsg()).empty());
  ASSERT_TRUE(Enqueue(&retry, nullptr));
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(HashBytes(retry.dst->StorageBytes()), serial_[0]);
}

// Ops on one stream, each result copied out on a second stream that waits for an event recorded after
// the op (the event destroyed right away: queued work keeps it alive); only the second stream and the
// end event are synchronized. The copies hold the serial results, and the time between the events
// around all the ops is non-negative.
TEST_F(Lifetime, EventsOrderReadBackOnAnotherStream) {
  MakeCases(4);
  aclrtStream compute = nullptr, readBack = nullptr;
  ASSERT_EQ(aclrtCreateStream(&compute), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&readBack), ACL_SUCCESS);
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(start, compute), ACL_SUCCESS);
  std::vector<std::vector<uint8_t>> copies;
  for (size_t i = 0; i < cases_.size(); ++i) {
    auto p = std::make_unique<PreparedCase>();
    ASSERT_TRUE(Prepare(cases_[i], p.get()));
    ASSERT_TRUE(Enqueue(p.get(), compute));
    aclrtEvent done = nullptr;
    ASSERT_EQ(aclrtCreateEvent(&done), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(done, compute), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(readBack, done), ACL_SUCCESS);
    ASSERT_EQ(aclrtDestroyEvent(done), ACL_SUCCESS);
    copies.emplace_back(p->dst->allocBytes());
    ASSERT_EQ(aclrtMemcpyAsync(copies.back().data(), copies.back().size(), p->dst->base(),
                               p->dst->allocBytes(), ACL_MEMCPY_DEVICE_TO_HOST, readBack),
              ACL_SUCCESS);
    prepared_.push_back(std::move(p));
  }
  ASSERT_EQ(aclrtRecordEvent(end, compute), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(readBack), ACL_SUCCESS);
  for (size_t i = 0; i < copies.size(); ++i) EXPECT_EQ(HashBytes(copies[i]), serial_[i]) << "op " << i;
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  float ms = -1;
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(compute), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(readBack), ACL_SUCCESS);
}

// A thread that synchronizes a stream while another destroys it: both return once the work ran.
TEST_F(Lifetime, SynchronizeRacingDestroy) {
  MakeCases(4);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EnqueueAll({stream});
  std::atomic<aclError> syncStatus{ACL_SUCCESS};
  std::thread synchronizer([&] { syncStatus = aclrtSynchronizeStream(stream); });
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  synchronizer.join();
  // The synchronize either found the stream (and waited) or came after the destroy (and failed).
  EXPECT_TRUE(syncStatus == ACL_SUCCESS || syncStatus == ACL_ERROR_INVALID_PARAM) << syncStatus;
  ExpectAllComplete();
}

TEST_F(Lifetime, FinalizeWithPendingWorkRunsEveryStreamFirst) {
  MakeCases(6);
  std::vector<aclrtStream> streams(2, nullptr);
  ASSERT_EQ(aclrtCreateStream(&streams[0]), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&streams[1]), ACL_SUCCESS);
  streams.push_back(nullptr);  // and the default stream
  EnqueueAll(streams);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  ExpectAllComplete();  // no synchronize: finalize waited

  // Every created stream is gone; a second finalize is CANN's ACL_ERROR_REPEAT_FINALIZE (100037).
  EXPECT_EQ(aclrtSynchronizeStream(streams[0]), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(streams[1]), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclFinalize(), 100037);
  (void)aclGetRecentErrMsg();

  // The runtime starts again; the default stream is recreated on first use.
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  uint64_t hash = 0;
  ASSERT_TRUE(SerialHash(cases_[0], &hash));
  EXPECT_EQ(hash, serial_[0]);
  aclrtStream fresh = nullptr;
  ASSERT_EQ(aclrtCreateStream(&fresh), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(fresh), ACL_SUCCESS);
}

}  // namespace
}  // namespace trilinear3d::reliability
