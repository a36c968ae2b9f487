// Reliability of the cubic group's six entry points: every element of the written view written and no byte
// around it (guard bands before and after the storage, gaps of sliced views) for every dtype and memory
// layout; and four threads on two streams each getting the bits of serial runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "acl_test_environment.h"
#include "cubic_ops.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

using GuardParam = std::tuple<FilterKind, bool, aclDataType, MemLayout>;

class CubicGuardBands : public ::testing::TestWithParam<GuardParam> {};

TEST_P(CubicGuardBands, EveryViewElementWrittenNothingElse) {
  const auto &[kind, backward, dtype, layout] = GetParam();
  TracedRng rng;
  // A shrink by more than 4 (antialias: wide tap lists) and a growth, with rows longer than a vector.
  for (const FilterProblem &shape : {FilterProblem{kind, 2, 3, 29, 41, 6, 9, false, 0.0, 0.0},
                                     FilterProblem{kind, 1, 17, 5, 7, 12, 37, true, 0.0, 0.0}}) {
    ExpectCubicOpAccurate(shape, backward, dtype, ACL_FORMAT_NCHW, rng, layout, true, Guard::kBands);
  }
}

std::vector<GuardParam> GuardParams() {
  std::vector<GuardParam> params;
  for (FilterKind kind : CubicOpsUnderTest()) {
    for (bool backward : {false, true}) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
        for (MemLayout layout : {MemLayout::kContiguous, MemLayout::kPermuted, MemLayout::kSliced}) {
          params.emplace_back(kind, backward, dtype, layout);
        }
      }
    }
  }
  return SampledCases(params);
}

std::string GuardName(const ::testing::TestParamInfo<GuardParam> &info) {
  const FilterKind kind = std::get<0>(info.param);
  return std::string(CubicOpName(kind)) + (std::get<1>(info.param) ? "Backward_" : "_") +
         DtypeName(std::get<2>(info.param)) + "_" + LayoutName(std::get<3>(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllOpsDtypesViews, CubicGuardBands, ::testing::ValuesIn(GuardParams()), GuardName);

// Four threads, two streams, each thread running every operator's problem on its own seed: the bits of each
// run equal those of the same run made serially first.
TEST(CubicConcurrency, FourThreadsTwoStreamsGiveTheBitsOfSerialRuns) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  auto runAll = [](uint64_t s, aclrtStream stream) {
    std::mt19937_64 rng(s);
    std::vector<uint8_t> bytes;
    for (FilterKind kind : CubicOpsUnderTest()) {
      for (bool backward : {false, true}) {
        const FilterProblem p{kind, 2, 6, 33, 21, 8, 50, false, 0.0, 0.0};
        const CubicRun run = ExpectCubicOpAccurate(p, backward, ACL_FLOAT, ACL_FORMAT_NCHW, rng,
                                                   MemLayout::kContiguous, false, Guard::kNone, stream);
        bytes.insert(bytes.end(), run.bytes.begin(), run.bytes.end());
      }
    }
    return bytes;
  };
  std::vector<std::vector<uint8_t>> serial;
  for (uint64_t t = 0; t < 4; ++t) serial.push_back(runAll(seed + t, nullptr));
  aclrtStream streams[2] = {nullptr, nullptr};
  for (aclrtStream &stream : streams) ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::vector<std::vector<uint8_t>> concurrent(4);
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { concurrent[t] = runAll(seed + t, streams[t % 2]); });
  }
  for (std::thread &thread : threads) thread.join();
  for (aclrtStream stream : streams) EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  for (size_t t = 0; t < 4; ++t) EXPECT_TRUE(concurrent[t] == serial[t]) << "thread " << t;
}

}  // namespace
}  // namespace trilinear3d::test
