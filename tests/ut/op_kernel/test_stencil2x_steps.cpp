// StencilSteps (op_kernel/stencil2x_steps.h), the doubling stencil kernel's schedule, against the
// shared math: for every chunk of every small axis, each gradInput index must receive from each
// gradOut index the total weight math::BackwardTable lists for it, with a zero-weight term where the
// table has one (0 * inf must still give NaN), the first term assigning and the rest adding, in
// increasing gradOut order, finished at its last term; and no two open indices may share a parity
// (the kernels keep two accumulators, chosen by dst & 1). (The table's weight 1 of gradOut 0 on
// index 0 comes as 1/4 + 3/4 in the stencil, which sums to the same value exactly.)
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/resample_math.h"
#include "op_kernel/stencil2x_steps.h"

namespace trilinear3d::kernel {
namespace {

struct Term {
  int64_t o;
  double w;
};

// The doubling axis as docs/spec.md §2 defines it: out = 2 in, align_corners false, sizes only.
math::AxisSpec DoublingAxis(int64_t in) { return math::MakeAxis(in, 2 * in, false, 0.0); }

void CheckChunk(int64_t in, int64_t i0, int64_t i1) {
  SCOPED_TRACE("in " + std::to_string(in) + " chunk [" + std::to_string(i0) + ", " + std::to_string(i1) +
               ")");
  const math::AxisSpec axis = DoublingAxis(in);
  ASSERT_EQ(axis.scale, 0.5);
  const math::GatherTable table = math::BackwardTable(axis);
  std::vector<StencilStep> steps;
  StencilSteps(i0, i1, in, &steps);

  std::map<int64_t, std::vector<Term>> got;
  std::set<int64_t> open, finished;
  int64_t lastSrc = -1;
  for (const StencilStep &s : steps) {
    EXPECT_GT(s.src, lastSrc) << "gradOut indices must increase";
    lastSrc = s.src;
    EXPECT_GE(s.src, 0);
    EXPECT_LT(s.src, 2 * in);
    ASSERT_GE(s.count, 1);
    ASSERT_LE(s.count, 3);
    for (int e = 0; e < s.count; ++e) {
      const StencilEntry &en = s.e[e];
      ASSERT_GE(en.dst, i0);
      ASSERT_LT(en.dst, i1);
      EXPECT_EQ(finished.count(en.dst), 0u) << "a term after index " << en.dst << " was finished";
      const bool first = got[en.dst].empty();
      EXPECT_EQ(en.assign, first) << "index " << en.dst << " at gradOut " << s.src;
      got[en.dst].push_back(Term{s.src, en.w});
      open.insert(en.dst);
    }
    // The two accumulators: every open index has its own parity.
    std::set<int64_t> parities;
    for (int64_t i : open) parities.insert(i & 1);
    EXPECT_EQ(parities.size(), open.size()) << "open indices share a parity at gradOut " << s.src;
    if (s.finish >= 0) {
      EXPECT_EQ(open.count(s.finish), 1u);
      open.erase(s.finish);
      finished.insert(s.finish);
    }
  }
  EXPECT_TRUE(open.empty()) << "indices left unfinished";
  for (int64_t i = i0; i < i1; ++i) {
    SCOPED_TRACE("index " + std::to_string(i));
    EXPECT_EQ(finished.count(i), 1u);
    // gradOut index -> (total weight, number of zero-weight terms).
    std::map<int64_t, std::pair<double, int>> want, have;
    for (int64_t k = 0; k < table.Count(i); ++k) {
      const math::GatherEntry &g = table.Of(i)[k];
      want[g.o].first += g.w;
      want[g.o].second += g.w == 0.0 ? 1 : 0;
    }
    int64_t previous = -1;
    for (const Term &t : got[i]) {
      EXPECT_GE(t.o, previous) << "terms must come in increasing gradOut order";
      previous = t.o;
      have[t.o].first += t.w;
      have[t.o].second += t.w == 0.0 ? 1 : 0;
    }
    EXPECT_TRUE(have == want);
  }
  // Only the gradOut indices the chunk needs are read.
  std::set<int64_t> needed;
  for (int64_t i = i0; i < i1; ++i) {
    for (int64_t k = 0; k < table.Count(i); ++k) needed.insert(table.Of(i)[k].o);
  }
  std::set<int64_t> read;
  for (const StencilStep &s : steps) read.insert(s.src);
  EXPECT_TRUE(read == needed);
}

TEST(StencilSteps, EveryChunkOfSmallAxesMatchesTheBackwardTable) {
  for (int64_t in : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 33}) {
    for (int64_t i0 = 0; i0 < in; ++i0) {
      for (int64_t i1 = i0 + 1; i1 <= in; ++i1) CheckChunk(in, i0, i1);
    }
  }
}

// Hand-worked: in = 3 (gradOut 0..5). o = 0 has taps (0: 1, 1: 0), o = 5 taps (2: 1/4, 2: 3/4).
TEST(StencilSteps, HandWorkedWholeAxisOfThree) {
  std::vector<StencilStep> steps;
  StencilSteps(0, 3, 3, &steps);
  ASSERT_EQ(steps.size(), 6u);
  // o = 0: index 0 takes 1/4 (its clamped 2i - 1) then 3/4; index 1 starts with the zero tap.
  EXPECT_EQ(steps[0].count, 3);
  EXPECT_EQ(steps[0].e[0].dst, 0);
  EXPECT_FLOAT_EQ(steps[0].e[0].w, 0.25f);
  EXPECT_TRUE(steps[0].e[0].assign);
  EXPECT_EQ(steps[0].e[1].dst, 0);
  EXPECT_FLOAT_EQ(steps[0].e[1].w, 0.75f);
  EXPECT_FALSE(steps[0].e[1].assign);
  EXPECT_EQ(steps[0].e[2].dst, 1);
  EXPECT_EQ(steps[0].e[2].w, 0.0f);
  EXPECT_TRUE(steps[0].e[2].assign);
  EXPECT_EQ(steps[0].finish, -1);
  // o = 2 finishes index 0.
  EXPECT_EQ(steps[2].finish, 0);
  // o = 4 finishes index 1; o = 5 gives index 2 its 3/4 and its clamped 1/4, and finishes it.
  EXPECT_EQ(steps[4].finish, 1);
  EXPECT_EQ(steps[5].count, 2);
  EXPECT_EQ(steps[5].e[0].dst, 2);
  EXPECT_FLOAT_EQ(steps[5].e[0].w, 0.75f);
  EXPECT_EQ(steps[5].e[1].dst, 2);
  EXPECT_FLOAT_EQ(steps[5].e[1].w, 0.25f);
  EXPECT_EQ(steps[5].finish, 2);
}

// A chunk that starts at index 1 reads gradOut from 0: index 1's first term is o = 0's zero tap.
TEST(StencilSteps, ChunkFromIndexOneStartsAtGradOutZero) {
  std::vector<StencilStep> steps;
  StencilSteps(1, 2, 4, &steps);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front().src, 0);
  EXPECT_EQ(steps.front().count, 1);
  EXPECT_EQ(steps.front().e[0].dst, 1);
  EXPECT_TRUE(steps.front().e[0].assign);
  EXPECT_EQ(steps.back().src, 4);
  EXPECT_EQ(steps.back().finish, 1);
}

}  // namespace
}  // namespace trilinear3d::kernel
