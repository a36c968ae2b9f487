// Streams are real asynchronous in-order queues (docs/spec.md §3): several ops queued per stream
// before one synchronize, the default stream, in-order dependence, and an executor that outlives
// the tensors and arrays it was planned from.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"
#include "runtime/poll.h"

namespace trilinear3d::test {
namespace {

// One queued op with its own tensors (kept alive until the stream is synchronised).
struct QueuedOp {
  BackwardProblem problem;
  aclDataType dtype;
  std::unique_ptr<DeviceTensor> gradOut;
  std::unique_ptr<DeviceTensor> gradInput;
  std::vector<double> values;
  PreparedOp op;
};

std::unique_ptr<QueuedOp> MakeOp(std::mt19937_64 &rng, const BackwardProblem &problem, aclDataType dtype,
                                 aclFormat format) {
  auto q = std::make_unique<QueuedOp>();
  q->problem = problem;
  q->dtype = dtype;
  q->gradOut = std::make_unique<DeviceTensor>(problem.GradOutShape(), dtype, format);
  q->gradInput = std::make_unique<DeviceTensor>(problem.inputSize, dtype, format);
  q->values = q->gradOut->UploadRandom(rng);
  return q;
}

BackwardProblem Problem(Shape5 inputSize, std::array<int64_t, 3> outputSize, bool alignCorners) {
  BackwardProblem p{inputSize, outputSize, alignCorners};
  return p;
}

class Streams : public ::testing::Test {
 protected:
  const uint64_t seed_ = FreshSeed();
  const ::testing::ScopedTrace trace_{__FILE__, __LINE__, SeedTrace(seed_)};
  std::mt19937_64 rng_{seed_};
};

TEST_F(Streams, SeveralOpsOnTwoStreamsBeforeOneSynchronizeEach) {
  aclrtStream streams[2] = {nullptr, nullptr};
  ASSERT_EQ(aclrtCreateStream(&streams[0]), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&streams[1]), ACL_SUCCESS);
  const aclDataType dtypes[] = {ACL_FLOAT, ACL_BF16, ACL_FLOAT16, ACL_DOUBLE};
  std::vector<std::unique_ptr<QueuedOp>> ops;
  for (int i = 0; i < 8; ++i) {
    const BackwardProblem p = Problem({2, 3, 4 + i % 3, 9, 6}, {7, 13 - i, 11}, i % 2 == 0);
    ops.push_back(MakeOp(rng_, p, dtypes[i % 4], i % 3 == 0 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW));
    QueuedOp &q = *ops.back();
    ASSERT_TRUE(PrepareBackward(q.gradOut->get(), q.problem, q.gradInput->get(), &q.op));
    ASSERT_TRUE(Enqueue(&q.op, streams[i % 2]));
  }
  ASSERT_EQ(aclrtSynchronizeStream(streams[0]), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(streams[1]), ACL_SUCCESS);
  for (size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE("op " + std::to_string(i) + ": " + ops[i]->problem.Describe());
    EXPECT_TRUE(ResultMatchesReference(ops[i]->values, ops[i]->problem, ops[i]->dtype,
                                       ops[i]->gradInput->Download()));
  }
  EXPECT_EQ(aclrtDestroyStream(streams[0]), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(streams[1]), ACL_SUCCESS);
}

// The second op reads the first one's output: only in-order execution gives the right answer.
TEST_F(Streams, WorkOnOneStreamRunsInOrder) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const BackwardProblem first = Problem({1, 4, 6, 10, 12}, {11, 19, 23}, false);
  const BackwardProblem second = Problem({1, 4, 3, 5, 7}, {6, 10, 12}, true);
  std::unique_ptr<QueuedOp> a = MakeOp(rng_, first, ACL_DOUBLE, ACL_FORMAT_NCDHW);
  DeviceTensor secondOut(second.inputSize, ACL_DOUBLE, ACL_FORMAT_NCDHW);
  PreparedOp opB;
  ASSERT_TRUE(PrepareBackward(a->gradOut->get(), first, a->gradInput->get(), &a->op));
  ASSERT_TRUE(PrepareBackward(a->gradInput->get(), second, secondOut.get(), &opB));
  ASSERT_TRUE(Enqueue(&a->op, stream));
  ASSERT_TRUE(Enqueue(&opB, stream));
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  const std::vector<double> intermediate = a->gradInput->Download();
  EXPECT_TRUE(ResultMatchesReference(a->values, first, ACL_DOUBLE, intermediate));
  EXPECT_TRUE(ResultMatchesReference(intermediate, second, ACL_DOUBLE, secondOut.Download()));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(Streams, DefaultStreamRunsQueuedOps) {
  std::vector<std::unique_ptr<QueuedOp>> ops;
  for (int i = 0; i < 3; ++i) {
    ops.push_back(MakeOp(rng_, Problem({1, 2, 3 + i, 5, 4}, {5, 5, 9}, i == 1), ACL_FLOAT, ACL_FORMAT_NCDHW));
    ASSERT_TRUE(PrepareBackward(ops.back()->gradOut->get(), ops.back()->problem, ops.back()->gradInput->get(),
                                &ops.back()->op));
    ASSERT_TRUE(Enqueue(&ops.back()->op, nullptr));
  }
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (const auto &q : ops) {
    EXPECT_TRUE(ResultMatchesReference(q->values, q->problem, ACL_FLOAT, q->gradInput->Download()));
  }
}

// The executor copies what it needs at GetWorkspaceSize: the aclTensors and aclIntArrays
// (PrepareBackward destroys the arrays itself) may go right after it returns.
TEST_F(Streams, TensorsDestroyedAfterGetWorkspaceSize) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::unique_ptr<QueuedOp> q =
      MakeOp(rng_, Problem({2, 3, 5, 6, 7}, {9, 4, 15}, false), ACL_BF16, ACL_FORMAT_NDHWC);
  ASSERT_TRUE(PrepareBackward(q->gradOut->get(), q->problem, q->gradInput->get(), &q->op));
  q->gradOut->DestroyAclTensor();
  q->gradInput->DestroyAclTensor();
  // Churn the allocator so that freed metadata is likely reused before the work runs.
  std::vector<std::unique_ptr<DeviceTensor>> churn;
  for (int i = 0; i < 4; ++i) {
    churn.push_back(std::make_unique<DeviceTensor>(Shape5{1, 1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW));
  }
  ASSERT_TRUE(Enqueue(&q->op, stream));
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(ResultMatchesReference(q->values, q->problem, ACL_BF16, q->gradInput->Download()));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// The runtime's bounded polling (stream worker, synchronizer, core pool): it stops as soon as the
// condition holds, and after exactly `rounds` checks when it never does (the thread then sleeps).
TEST(Polling, StopsAtTheFirstCheckThatHolds) {
  for (const int holdsAt : {1, 2, 4, 5, 399, 400}) {
    int checks = 0;
    EXPECT_TRUE(runtime::PollUntil(runtime::kPollRounds, [&] { return ++checks == holdsAt; })) << holdsAt;
    EXPECT_EQ(checks, holdsAt);
  }
}

TEST(Polling, GivesUpAfterItsRounds) {
  for (const int rounds : {0, 1, 4, 7, runtime::kPollRounds}) {
    int checks = 0;
    EXPECT_FALSE(runtime::PollUntil(rounds, [&] {
      ++checks;
      return false;
    })) << rounds;
    EXPECT_EQ(checks, rounds);
  }
}

}  // namespace
}  // namespace trilinear3d::test
