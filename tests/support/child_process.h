// Re-runs the current test binary as a child process with a given core count: the core count is
// read once per process, so determinism across core counts is checked across processes.
#ifndef TRILINEAR3D_TESTS_SUPPORT_CHILD_PROCESS_H_
#define TRILINEAR3D_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "test_tensor.h"

namespace trilinear3d::test {

constexpr char kCoresEnv[] = "TRILINEAR3D_CORES";

// Re-executes this binary (fork + execve of /proc/self/exe, no shell) running only the test
// childFilter, with TRILINEAR3D_CORES=cores, outputEnv naming a fresh temporary file and seedEnv=seed;
// returns what the child wrote to that file.
inline ::testing::AssertionResult RunChildWithCores(int cores, uint64_t seed, const char *outputEnv,
                                                    const char *seedEnv, const char *childFilter,
                                                    std::vector<uint8_t> *bytes) {
  char path[] = "/tmp/trilinear3d_determinism_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return ::testing::AssertionFailure() << "mkstemp failed";
  close(fd);

  // Everything execve needs is built before fork: the child only calls async-signal-safe functions.
  std::vector<std::string> env;
  for (char **e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind(std::string(kCoresEnv) + "=", 0) == 0 ||
        entry.rfind(std::string(outputEnv) + "=", 0) == 0 ||
        entry.rfind(std::string(seedEnv) + "=", 0) == 0) {
      continue;
    }
    env.push_back(entry);
  }
  env.push_back(std::string(kCoresEnv) + "=" + std::to_string(cores));
  env.push_back(std::string(outputEnv) + "=" + path);
  env.push_back(std::string(seedEnv) + "=" + std::to_string(seed));
  std::vector<char *> envp;
  for (std::string &entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);
  // The binary's own path: under valgrind or qemu, /proc/self/exe names the emulator, while readlink
  // of it answers the program's path (both tools intercept it).
  std::string exe(4096, '\0');
  const ssize_t length = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (length <= 0) return ::testing::AssertionFailure() << "readlink /proc/self/exe failed";
  exe.resize(static_cast<size_t>(length));
  std::string filter = std::string("--gtest_filter=") + childFilter;
  // TRILINEAR3D_TEST_CHILD_LAUNCHER: an emulator's absolute path and its options, separated by
  // spaces (tools/run_tests.sh sets it for qemu), which run the child on the parent's emulated CPU.
  std::vector<std::string> words;
  if (const char *launcher = std::getenv("TRILINEAR3D_TEST_CHILD_LAUNCHER"); launcher != nullptr) {
    std::istringstream in(launcher);
    for (std::string word; in >> word;) words.push_back(word);
  }
  words.push_back(exe);
  words.push_back(filter);
  std::vector<char *> argv;
  for (std::string &word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) return ::testing::AssertionFailure() << "fork failed";
  if (pid == 0) {
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return ::testing::AssertionFailure() << "waitpid failed";
  std::ifstream file(path, std::ios::binary);
  bytes->assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  std::remove(path);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return ::testing::AssertionFailure()
           << "child with " << kCoresEnv << "=" << cores << " failed, status " << status;
  }
  if (bytes->empty())
    return ::testing::AssertionFailure() << "child with " << cores << " cores wrote nothing";
  return ::testing::AssertionSuccess();
}

// Raw result bytes of a determinism test's cases, computed from seed alone (so that every process
// computes the same problems); with checkAccuracy each result's values are checked too.
using CasesCompute = std::vector<uint8_t> (*)(uint64_t seed, bool checkAccuracy);

// The variables that hand a child its output file and seed, and its test's name: a binary holds one
// determinism test across processes, and its children are the same binary.
constexpr char kChildOutputEnv[] = "TRILINEAR3D_UT_CHILD_OUTPUT";
constexpr char kChildSeedEnv[] = "TRILINEAR3D_UT_CHILD_SEED";
constexpr char kChildTest[] = "DeterminismChild.WriteResults";

// The child's side: the test DeterminismChild.WriteResults, registered only when kChildOutputEnv is set
// (so it never shows up in a normal run or in test discovery), that computes the cases on the seed from
// kChildSeedEnv (accuracy is the parent's to check) and writes the bytes to the file kChildOutputEnv
// names for the parent. Called at namespace scope (before main runs the tests); returns whether it
// registered the test.
inline bool RegisterChildWriter(CasesCompute compute) {
  if (std::getenv(kChildOutputEnv) == nullptr) return false;
  class Writer : public ::testing::Test {
   public:
    explicit Writer(CasesCompute compute) : compute_(compute) {}
    void TestBody() override {
      const char *seed = std::getenv(kChildSeedEnv);
      ASSERT_NE(seed, nullptr);
      const std::vector<uint8_t> bytes = compute_(std::strtoull(seed, nullptr, 10), false);
      std::ofstream file(std::getenv(kChildOutputEnv), std::ios::binary);
      file.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      ASSERT_TRUE(file.good());
    }

   private:
    CasesCompute compute_;
  };
  ::testing::RegisterTest("DeterminismChild", "WriteResults", nullptr, nullptr, __FILE__, __LINE__,
                          [=]() -> ::testing::Test * { return new Writer(compute); });
  return true;
}

// The parent's side of a determinism test, on a fresh seed (reported, replayable): the cases in process
// (the default core count), checked against the reference so that the comparison is between correct
// results, then in a child per core count of `cores`, whose bytes must all be equal.
inline void ExpectSameBitsForCoreCounts(CasesCompute compute, std::initializer_list<int> cores = {1, 2, 3}) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  const std::vector<uint8_t> inProcess = compute(seed, true);
  for (int n : cores) {
    SCOPED_TRACE(std::string(kCoresEnv) + "=" + std::to_string(n));
    std::vector<uint8_t> child;
    ASSERT_TRUE(RunChildWithCores(n, seed, kChildOutputEnv, kChildSeedEnv, kChildTest, &child));
    ASSERT_EQ(child.size(), inProcess.size());
    size_t differing = 0, first = child.size();
    for (size_t i = 0; i < child.size(); ++i) {
      if (child[i] != inProcess[i]) {
        ++differing;
        first = std::min(first, i);
      }
    }
    EXPECT_EQ(differing, 0u) << "result bits differ from the in-process run; first differing byte " << first;
  }
}

// The same bits in repeated runs in one process, on a fresh seed (reported, replayable).
inline void ExpectRepeatedRunsIdentical(CasesCompute compute) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(SeedTrace(seed));
  const std::vector<uint8_t> first = compute(seed, false);
  for (int run = 0; run < 3; ++run) EXPECT_TRUE(compute(seed, false) == first) << "run " << run;
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_CHILD_PROCESS_H_
