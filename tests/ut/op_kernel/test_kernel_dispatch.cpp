// The run-time ISA choice (src/op_kernel/kernel_dispatch.cpp) through its public query
// (trilinear3d/isa.h). TRILINEAR3D_EXPECT_ISA, where set, names the tier this process must have
// chosen: ctest sets it with TRILINEAR3D_ISA, and the emulated-CPU runs of tools/run_tests.sh set
// it to the tier their CPU has (valgrind: avx2; qemu -cpu Nehalem and aarch64: baseline).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "trilinear3d/isa.h"

namespace {

std::vector<std::string> Split(const char *list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

bool Contains(const std::vector<std::string> &items, const std::string &item) {
  for (const std::string &x : items) {
    if (x == item) return true;
  }
  return false;
}

TEST(KernelDispatch, ChosenTierIsBuiltAndSupported) {
  const std::string chosen = trilinear3dKernelIsa();
  const std::vector<std::string> built = Split(trilinear3dBuiltIsas());
  const std::vector<std::string> supported = Split(trilinear3dSupportedIsas());
  ASSERT_FALSE(built.empty());
  EXPECT_EQ(built.back(), "baseline");  // the tier every CPU runs is always there
  EXPECT_TRUE(Contains(supported, "baseline"));
  EXPECT_TRUE(Contains(built, chosen)) << chosen << " not in " << trilinear3dBuiltIsas();
  EXPECT_TRUE(Contains(supported, chosen)) << chosen << " not in " << trilinear3dSupportedIsas();
  for (const std::string &tier : supported) EXPECT_TRUE(Contains(built, tier)) << tier;
#if defined(__x86_64__)
  EXPECT_EQ(std::string(trilinear3dBuiltIsas()), "avx512,avx2,baseline");
#else
  EXPECT_EQ(std::string(trilinear3dBuiltIsas()), "baseline");
#endif
}

// The best supported tier, or the forced one where the CPU supports it; and, where the run says
// which CPU it emulates, that CPU's tier.
TEST(KernelDispatch, BestSupportedUnlessForced) {
  const char *forced = std::getenv("TRILINEAR3D_ISA");
  const std::vector<std::string> supported = Split(trilinear3dSupportedIsas());
  const std::string chosen = trilinear3dKernelIsa();
  if (forced != nullptr && Contains(supported, forced)) {
    EXPECT_EQ(chosen, forced);
  } else {
    EXPECT_EQ(chosen, supported.front()) << "TRILINEAR3D_ISA=" << (forced ? forced : "(unset)");
  }
  if (const char *expected = std::getenv("TRILINEAR3D_EXPECT_ISA")) {
    EXPECT_EQ(chosen, expected) << "supported: " << trilinear3dSupportedIsas();
  }
}

TEST(KernelDispatch, StableAcrossCalls) {
  const char *first = trilinear3dKernelIsa();
  EXPECT_EQ(first, trilinear3dKernelIsa());  // the same static string: chosen once
}

}  // namespace
