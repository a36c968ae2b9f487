// The kernels' plan tables (op_kernel/kernel_plan.h) against brute force over math::ComputeTap:
// BuildTapTable, the backward row gather as the transpose of the forward taps, the forward row
// gather, and BuildRowSteps replayed by a scalar emulation of the step semantics (window
// [base, base + 2V), idx, mask, weights) for lane widths 4, 8 and 16.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "brute_force.h"
#include "op_kernel/kernel_plan.h"

namespace trilinear3d::kernel {
namespace {

using test::BruteAxis;
using test::MakeBruteAxis;

struct AxisCase {
  int64_t in;
  int64_t out;
  bool alignCorners;
  double userScale;
};

std::string Name(const AxisCase &c) {
  return "in " + std::to_string(c.in) + " out " + std::to_string(c.out) + (c.alignCorners ? " ac" : "") +
         (c.userScale > 0.0 ? " s " + std::to_string(c.userScale) : "");
}

math::AxisSpec Spec(const BruteAxis &a) { return math::AxisSpec{a.in, a.out, a.alignCorners, a.scale}; }

// Ratios from 1/64 to 64, tails (sizes that are no multiple of the lane width), identity, size 1,
// both align modes, a user scale.
std::vector<AxisCase> Axes() {
  std::vector<AxisCase> cases = {
      {1, 64, false, 0.0},   {1, 64, true, 0.0},     {64, 1, false, 0.0},  {64, 1, true, 0.0},
      {3, 192, false, 0.0},  {192, 3, false, 0.0},   {5, 320, true, 0.0},  {320, 5, false, 0.0},
      {17, 37, false, 0.0},  {37, 17, false, 0.0},   {37, 17, true, 0.0},  {19, 38, false, 0.0},
      {38, 19, false, 0.0},  {100, 100, false, 0.0}, {1, 1, false, 0.0},   {2, 1, false, 0.0},
      {1, 2, false, 0.0},    {16, 16, true, 0.0},    {33, 99, false, 0.0}, {99, 33, true, 0.0},
      {23, 41, false, 0.0},  {41, 23, false, 0.0},   {9, 200, false, 0.0}, {200, 9, true, 0.0},
      {12, 31, false, 2.6},  {31, 12, false, 0.4},   {7, 8, false, 0.0},   {8, 7, false, 0.0},
      {129, 37, false, 0.0}, {37, 129, true, 0.0},   {40, 80, false, 0.0}, {40, 80, true, 0.0},
      {33, 66, false, 2.0},
  };
  return cases;
}

BruteAxis Brute(const AxisCase &c) { return MakeBruteAxis(c.in, c.out, c.alignCorners, c.userScale); }

// check(the brute-force axis) for every case of Axes(), each failure traced to its case.
template <typename Check>
void ForEachAxis(Check check) {
  for (const AxisCase &c : Axes()) {
    SCOPED_TRACE(Name(c));
    check(Brute(c));
  }
}

// ---------------------------------------------------------------------------------------------
// BuildTapTable.

template <typename Acc>
void CheckTapTable(const BruteAxis &a) {
  const TapTable<Acc> t = BuildTapTable<Acc>(Spec(a));
  ASSERT_EQ(t.i0.size(), static_cast<size_t>(a.out));
  ASSERT_EQ(t.i1.size(), static_cast<size_t>(a.out));
  ASSERT_EQ(t.l0.size(), static_cast<size_t>(a.out));
  ASSERT_EQ(t.l1.size(), static_cast<size_t>(a.out));
  ASSERT_EQ(t.firstO.size(), static_cast<size_t>(a.in));
  ASSERT_EQ(t.lastO.size(), static_cast<size_t>(a.in));
  for (int64_t o = 0; o < a.out; ++o) {
    const math::Tap tap = a.Tap(o);
    const size_t k = static_cast<size_t>(o);
    EXPECT_EQ(t.i0[k], tap.i0) << "o " << o;
    EXPECT_EQ(t.i1[k], tap.i1) << "o " << o;
    EXPECT_EQ(t.l0[k], static_cast<Acc>(tap.l0)) << "o " << o;
    EXPECT_EQ(t.l1[k], static_cast<Acc>(tap.l1)) << "o " << o;
  }
  for (int64_t i = 0; i < a.in; ++i) {
    int64_t first = -1;
    int64_t last = -1;
    for (int64_t o = 0; o < a.out; ++o) {
      if (!a.Reaches(o, i)) continue;
      if (first < 0) first = o;
      last = o;
    }
    EXPECT_EQ(t.firstO[static_cast<size_t>(i)], first) << "i " << i;
    EXPECT_EQ(t.lastO[static_cast<size_t>(i)], last) << "i " << i;
  }
}

TEST(TapTable, MatchesBruteForceFloat) { ForEachAxis(CheckTapTable<float>); }

TEST(TapTable, MatchesBruteForceDouble) { ForEachAxis(CheckTapTable<double>); }

TEST(TapTable, HandWorkedDownsampleSkipsSources) {
  // 8 -> 2, scale 4: src(0) = 1.5 -> (1, 2); src(1) = 5.5 -> (5, 6). Sources 0, 3, 4, 7 unreached.
  const TapTable<float> t = BuildTapTable<float>(math::AxisSpec{8, 2, false, 4.0});
  EXPECT_EQ(t.i0, std::vector<int64_t>({1, 5}));
  EXPECT_EQ(t.i1, std::vector<int64_t>({2, 6}));
  EXPECT_EQ(t.l0, std::vector<float>({0.5f, 0.5f}));
  EXPECT_EQ(t.l1, std::vector<float>({0.5f, 0.5f}));
  EXPECT_EQ(t.firstO, std::vector<int64_t>({-1, 0, 0, -1, -1, 1, 1, -1}));
  EXPECT_EQ(t.lastO, std::vector<int64_t>({-1, 0, 0, -1, -1, 1, 1, -1}));
}

// ---------------------------------------------------------------------------------------------
// Row gathers.

template <typename Acc>
struct Entry {
  int64_t src;
  Acc w;
  bool operator==(const Entry &o) const { return src == o.src && std::memcmp(&w, &o.w, sizeof(Acc)) == 0; }
};

template <typename Acc>
std::vector<std::vector<Entry<Acc>>> Lists(const RowGather<Acc> &g) {
  std::vector<std::vector<Entry<Acc>>> lists(static_cast<size_t>(g.dstLen));
  for (int64_t j = 0; j < g.dstLen; ++j) {
    for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
      lists[static_cast<size_t>(j)].push_back({g.src[static_cast<size_t>(e)], g.w[static_cast<size_t>(e)]});
    }
  }
  return lists;
}

template <typename Acc>
void ExpectWellFormedCsr(const RowGather<Acc> &g) {
  ASSERT_EQ(g.begin.size(), static_cast<size_t>(g.dstLen) + 1);
  EXPECT_EQ(g.begin.front(), 0);
  for (size_t j = 1; j < g.begin.size(); ++j) EXPECT_LE(g.begin[j - 1], g.begin[j]);
  EXPECT_EQ(static_cast<size_t>(g.begin.back()), g.src.size());
  EXPECT_EQ(g.src.size(), g.w.size());
  for (int32_t s : g.src) {
    EXPECT_GE(s, 0);
    EXPECT_LT(s, g.srcLen);
  }
}

// The transpose of the forward taps, built the slow way: source i's list holds (o, l0) for every o
// with i0 == i and (o, l1) for every o with i1 == i, in increasing o, l0 before l1 for one o.
template <typename Acc>
std::vector<std::vector<Entry<Acc>>> BruteTranspose(const BruteAxis &a) {
  std::vector<std::vector<Entry<Acc>>> lists(static_cast<size_t>(a.in));
  for (int64_t i = 0; i < a.in; ++i) {
    for (int64_t o = 0; o < a.out; ++o) {
      const math::Tap t = a.Tap(o);
      if (t.i0 == i) lists[static_cast<size_t>(i)].push_back({o, static_cast<Acc>(t.l0)});
      if (t.i1 == i) lists[static_cast<size_t>(i)].push_back({o, static_cast<Acc>(t.l1)});
    }
  }
  return lists;
}

template <typename Acc>
void CheckBackwardGather(const BruteAxis &a) {
  const RowGather<Acc> g = BuildBackwardRowGather<Acc>(Spec(a));
  EXPECT_EQ(g.dstLen, a.in);
  EXPECT_EQ(g.srcLen, a.out);
  EXPECT_EQ(g.lanes, 0);  // no steps until BuildRowSteps
  ExpectWellFormedCsr(g);
  EXPECT_EQ(g.src.size(), static_cast<size_t>(2 * a.out));  // every o contributes exactly two terms
  EXPECT_TRUE(Lists(g) == BruteTranspose<Acc>(a));

  // And it is the transpose of the forward gather the kernels use.
  const RowGather<Acc> f = BuildForwardRowGather<Acc>(Spec(a));
  std::vector<std::vector<Entry<Acc>>> transposed(static_cast<size_t>(a.in));
  const auto forward = Lists(f);
  for (int64_t o = 0; o < a.out; ++o) {
    for (const Entry<Acc> &e : forward[static_cast<size_t>(o)]) {
      transposed[static_cast<size_t>(e.src)].push_back({o, e.w});
    }
  }
  EXPECT_TRUE(Lists(g) == transposed);
}

TEST(BackwardRowGather, IsTheTransposeOfTheForwardTapsFloat) { ForEachAxis(CheckBackwardGather<float>); }

TEST(BackwardRowGather, IsTheTransposeOfTheForwardTapsDouble) { ForEachAxis(CheckBackwardGather<double>); }

TEST(BackwardRowGather, HandWorkedUpsample) {
  // 2 -> 4, scale 0.5: src = o/2 - 0.25 -> o0: (0, 1) w (1, 0); o1: 0.25 -> (0, 1) w (0.75, 0.25);
  // o2: 0.75 -> (0, 1) w (0.25, 0.75); o3: 1.25 -> (1, 1) w (0.75, 0.25) (i1 clamped).
  const RowGather<float> g = BuildBackwardRowGather<float>(math::AxisSpec{2, 4, false, 0.5});
  EXPECT_EQ(g.begin, std::vector<int64_t>({0, 3, 8}));
  EXPECT_EQ(g.src, std::vector<int32_t>({0, 1, 2, 0, 1, 2, 3, 3}));
  EXPECT_EQ(g.w, std::vector<float>({1.0f, 0.75f, 0.25f, 0.0f, 0.25f, 0.75f, 0.75f, 0.25f}));
}

template <typename Acc>
void CheckForwardGather(const BruteAxis &a) {
  const RowGather<Acc> g = BuildForwardRowGather<Acc>(Spec(a));
  EXPECT_EQ(g.dstLen, a.out);
  EXPECT_EQ(g.srcLen, a.in);
  ExpectWellFormedCsr(g);
  const auto lists = Lists(g);
  for (int64_t o = 0; o < a.out; ++o) {
    const math::Tap t = a.Tap(o);
    const std::vector<Entry<Acc>> expected = {{t.i0, static_cast<Acc>(t.l0)}, {t.i1, static_cast<Acc>(t.l1)}};
    EXPECT_TRUE(lists[static_cast<size_t>(o)] == expected) << "o " << o;
  }
}

TEST(ForwardRowGather, TwoTapsPerOutput) {
  ForEachAxis([](const BruteAxis &a) {
    CheckForwardGather<float>(a);
    CheckForwardGather<double>(a);
  });
}

// ---------------------------------------------------------------------------------------------
// The forward gather's doubling run (FindDoublingRun), against a scan of the brute-force taps.

// Whether out 2k and 2k + 1 take (k - 1, k) and (k, k + 1), and their weights in list order.
template <typename Acc>
bool BruteDoublingPair(const BruteAxis &a, int64_t k, Acc w[4]) {
  if (k < 1 || 2 * k + 1 >= a.out || k + 1 >= a.in) return false;
  const math::Tap even = a.Tap(2 * k), odd = a.Tap(2 * k + 1);
  w[0] = static_cast<Acc>(even.l0);
  w[1] = static_cast<Acc>(even.l1);
  w[2] = static_cast<Acc>(odd.l0);
  w[3] = static_cast<Acc>(odd.l1);
  return even.i0 == k - 1 && even.i1 == k && odd.i0 == k && odd.i1 == k + 1;
}

template <typename Acc>
void CheckDoublingRun(const BruteAxis &a) {
  const DoublingRun<Acc> run = BuildForwardRowGather<Acc>(Spec(a)).doubling;
  EXPECT_LE(run.begin, run.end);
  for (int64_t k = run.begin; k < run.end; ++k) {
    Acc w[4];
    ASSERT_TRUE(BruteDoublingPair(a, k, w)) << "k " << k;
    EXPECT_EQ(std::memcmp(w, run.w, sizeof(w)), 0) << "k " << k;  // bit for bit: a -0 weight differs
  }
  // No longer run of pairs with equal weights exists.
  int64_t longest = 0, length = 0;
  Acc previous[4] = {};
  for (int64_t k = 1; 2 * k + 1 < a.out; ++k) {
    Acc w[4];
    if (!BruteDoublingPair(a, k, w)) {
      length = 0;
      continue;
    }
    length = length > 0 && std::memcmp(w, previous, sizeof(w)) == 0 ? length + 1 : 1;
    std::memcpy(previous, w, sizeof(w));
    longest = std::max(longest, length);
  }
  EXPECT_EQ(run.end - run.begin, longest);
}

TEST(ForwardRowGather, DoublingRunIsTheLongestRunOfEqualPairs) {
  ForEachAxis([](const BruteAxis &a) {
    CheckDoublingRun<float>(a);
    CheckDoublingRun<double>(a);
  });
}

TEST(ForwardRowGather, DoublingRunHandWorked) {
  // 40 -> 80, scale 0.5: out 2k at k - 0.25 (k - 1: 1/4, k: 3/4), out 2k + 1 at k + 0.25 (k: 3/4,
  // k + 1: 1/4), for k = 1 .. 38; out 0 and 79 are clamped.
  const RowGather<float> g = BuildForwardRowGather<float>(math::AxisSpec{40, 80, false, 0.5});
  EXPECT_EQ(g.doubling.begin, 1);
  EXPECT_EQ(g.doubling.end, 39);
  EXPECT_EQ(std::vector<float>(g.doubling.w, g.doubling.w + 4),
            std::vector<float>({0.25f, 0.75f, 0.75f, 0.25f}));
  // align_corners: the weights change from pair to pair, so no run is longer than one pair.
  const RowGather<float> corners = BuildForwardRowGather<float>(math::AxisSpec{40, 80, true, 39.0 / 79.0});
  EXPECT_LE(corners.doubling.end - corners.doubling.begin, 1);
  // The backward's gathers have none.
  const RowGather<float> backward = BuildBackwardRowGather<float>(math::AxisSpec{40, 80, false, 0.5});
  EXPECT_EQ(backward.doubling.end, backward.doubling.begin);
}

// ---------------------------------------------------------------------------------------------
// The backward gather's halving run (FindHalvingRun), against a scan of the brute-force transpose.

// Whether gradInput i's list is exactly (2i - 1, 2i, 2i + 1, 2i + 2), and its weights in list order.
template <typename Acc>
bool BruteHalvingList(const std::vector<std::vector<Entry<Acc>>> &lists, int64_t i, Acc w[4]) {
  const std::vector<Entry<Acc>> &list = lists[static_cast<size_t>(i)];
  if (list.size() != 4) return false;
  for (int k = 0; k < 4; ++k) {
    if (list[static_cast<size_t>(k)].src != 2 * i - 1 + k) return false;
    w[k] = list[static_cast<size_t>(k)].w;
  }
  return true;
}

template <typename Acc>
void CheckHalvingRun(const BruteAxis &a) {
  const HalvingRun<Acc> run = BuildBackwardRowGather<Acc>(Spec(a)).halving;
  const std::vector<std::vector<Entry<Acc>>> lists = BruteTranspose<Acc>(a);
  EXPECT_LE(run.begin, run.end);
  for (int64_t i = run.begin; i < run.end; ++i) {
    Acc w[4];
    ASSERT_TRUE(BruteHalvingList(lists, i, w)) << "i " << i;
    EXPECT_EQ(std::memcmp(w, run.w, sizeof(w)), 0) << "i " << i;  // bit for bit: a -0 weight differs
  }
  // No longer run of lists with equal weights exists.
  int64_t longest = 0, length = 0;
  Acc previous[4] = {};
  for (int64_t i = 0; i < a.in; ++i) {
    Acc w[4];
    if (!BruteHalvingList(lists, i, w)) {
      length = 0;
      continue;
    }
    length = length > 0 && std::memcmp(w, previous, sizeof(w)) == 0 ? length + 1 : 1;
    std::memcpy(previous, w, sizeof(w));
    longest = std::max(longest, length);
  }
  EXPECT_EQ(run.end - run.begin, longest);
}

TEST(BackwardRowGather, HalvingRunIsTheLongestRunOfEqualLists) {
  ForEachAxis([](const BruteAxis &a) {
    CheckHalvingRun<float>(a);
    CheckHalvingRun<double>(a);
  });
}

TEST(BackwardRowGather, HalvingRunHandWorked) {
  // 40 <- 80, scale 0.5: gradInput i takes gradOut 2i - 1 (1/4), 2i (3/4), 2i + 1 (3/4) and 2i + 2
  // (1/4) for i = 2 .. 38; i = 0 and 1 also take out 0's clamped taps ((0, 1), (1, 0)), i = 39 out
  // 79's ((39, 3/4), (39, 1/4)).
  const RowGather<float> g = BuildBackwardRowGather<float>(math::AxisSpec{40, 80, false, 0.5});
  EXPECT_EQ(g.halving.begin, 2);
  EXPECT_EQ(g.halving.end, 39);
  EXPECT_EQ(std::vector<float>(g.halving.w, g.halving.w + 4),
            std::vector<float>({0.25f, 0.75f, 0.75f, 0.25f}));
  // align_corners: the weights change from list to list, so no run is longer than one list.
  const RowGather<float> corners = BuildBackwardRowGather<float>(math::AxisSpec{40, 80, true, 39.0 / 79.0});
  EXPECT_LE(corners.halving.end - corners.halving.begin, 1);
  // The forward's gathers have none.
  const RowGather<float> forward = BuildForwardRowGather<float>(math::AxisSpec{40, 80, false, 0.5});
  EXPECT_EQ(forward.halving.end, forward.halving.begin);
}

// ---------------------------------------------------------------------------------------------
// The cubic runs of an exact 2x (FindCubicDoublingRun, FindCubicHalvingRun), against the axis's own taps.

// Keys' cubic (a = -0.75) at the distances of an exact 2x, worked by hand: all exact in binary.
constexpr float kK025 = 0.87890625f, kK075 = 0.26171875f, kK125 = -0.10546875f, kK175 = -0.03515625f;

math::AxisSpec CubicAxis(int64_t in, int64_t out, bool alignCorners = false) {
  return math::MakeAxis(in, out, alignCorners, 0.0, math::Filter::kCubic);
}

// Whether output o's taps are exactly the four consecutive sources from first, with weights w.
bool TapsAre(const math::AxisSpec &axis, int64_t o, int64_t first, const float w[4]) {
  int taps = 0;
  bool same = true;
  axis.ForEachTap(o, [&](int64_t i, double x) {
    same = same && taps < 4 && i == first + taps && static_cast<float>(x) == w[taps];
    ++taps;
  });
  return same && taps == 4;
}

// Whether list j of g is not empty and has its sources one after another.
bool ListConsecutive(const kernel::RowGather<float> &g, int64_t j) {
  if (g.begin[static_cast<size_t>(j)] == g.begin[static_cast<size_t>(j) + 1]) return false;
  for (int64_t e = g.begin[static_cast<size_t>(j)] + 1; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
    if (g.src[static_cast<size_t>(e)] != g.src[static_cast<size_t>(e) - 1] + 1) return false;
  }
  return true;
}

// Whether every list of g has its sources one after another (what RowGather::consecutiveLists states).
bool ListsConsecutive(const kernel::RowGather<float> &g) {
  for (int64_t j = 0; j < g.dstLen; ++j) {
    if (!ListConsecutive(g, j)) return false;
  }
  return true;
}

// g's run of consecutive lists against the lists: inside it every list is consecutive, and no longer
// run of such lists exists.
void ExpectConsecutiveRun(const kernel::RowGather<float> &g) {
  ASSERT_LE(0, g.consecutiveBegin);
  ASSERT_LE(g.consecutiveBegin, g.consecutiveEnd);
  ASSERT_LE(g.consecutiveEnd, g.dstLen);
  for (int64_t j = g.consecutiveBegin; j < g.consecutiveEnd; ++j) EXPECT_TRUE(ListConsecutive(g, j)) << j;
  int64_t longest = 0, run = 0;
  for (int64_t j = 0; j < g.dstLen; ++j) {
    run = ListConsecutive(g, j) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  EXPECT_EQ(g.consecutiveEnd - g.consecutiveBegin, longest);
  EXPECT_EQ(g.consecutiveLists, ListsConsecutive(g));
}

struct FlagCase {
  math::AxisSpec axis;
  bool expected;
};

// RowGather::consecutiveLists against the lists themselves: set exactly when every list's sources follow
// each other; the antialiased and cubic shrinks (supports of many taps) have it, a linear axis whose
// clamped end output takes one source twice does not.
TEST(ForwardRowGather, ConsecutiveListsFlag) {
  const FlagCase cases[] = {
      {math::MakeAxis(1024, 224, false, 0.0, math::Filter::kLinearAntialias), true},
      {math::MakeAxis(63, 9, false, 0.0, math::Filter::kCubicAntialias), true},
      {math::MakeAxis(300, 66, false, 0.0, math::Filter::kCubic), true},
      {math::MakeAxis(10, 20, false, 0.0, math::Filter::kLinear), false},  // out 0 and 19: one source twice
  };
  for (const FlagCase &c : cases) {
    SCOPED_TRACE("in " + std::to_string(c.axis.in) + " out " + std::to_string(c.axis.out));
    const kernel::RowGather<float> g = kernel::BuildForwardRowGather<float>(c.axis);
    ExpectConsecutiveRun(g);
    EXPECT_EQ(g.consecutiveLists, c.expected);
  }
}

// The backward's gathers (gradInput index <- gradOut positions) carry the run too: an enlargement's lists
// are runs of gradOut positions, but for the last one, where the last outputs' two taps are both the last
// source and so repeat their gradOut positions (B7's W axis 8 -> 36: the run is lists 0 .. 6; at the
// first source the clamped coordinate 0 takes sources 0 and 1, weights 1 and 0); the sweep of axes below
// compares the run with the lists on every kind of axis.
TEST(BackwardRowGather, ConsecutiveListsRun) {
  const kernel::RowGather<float> b7 =
      kernel::BuildBackwardRowGather<float>(math::MakeAxis(8, 36, false, 0.0));
  EXPECT_FALSE(b7.consecutiveLists);
  EXPECT_EQ(b7.consecutiveBegin, 0);
  EXPECT_EQ(b7.consecutiveEnd, 7);
  EXPECT_EQ(b7.src.size(), 72u);
  ExpectConsecutiveRun(b7);
  const math::Filter filters[] = {math::Filter::kLinear, math::Filter::kCubic, math::Filter::kLinearAntialias,
                                  math::Filter::kCubicAntialias};
  int flagged = 0, total = 0;
  for (math::Filter f : filters) {
    for (const int64_t in : {1, 2, 5, 8, 16, 63}) {
      for (const int64_t out : {1, 3, 16, 36, 129}) {
        for (const bool alignCorners : {false, true}) {
          SCOPED_TRACE("filter " + std::to_string(static_cast<int>(f)) + " in " + std::to_string(in) +
                       " out " + std::to_string(out) + " align " + std::to_string(alignCorners));
          const kernel::RowGather<float> g =
              kernel::BuildBackwardRowGather<float>(math::MakeAxis(in, out, alignCorners, 0.0, f));
          ExpectConsecutiveRun(g);
          flagged += g.consecutiveLists ? 1 : 0;
          ++total;
        }
      }
    }
  }
  EXPECT_GT(flagged, 0);
  EXPECT_LT(flagged, total);
}

// A user scale can leave gradInput positions that no tap reaches (W 8 -> 36 at a scale factor of 100: every
// output's coordinate is in [-0.5, -0.1], so the taps reach positions 0 and 1 only). Their lists are empty
// and end the run: a kernel reads a run list's first source without looking at its length (the
// rows-on-lanes W pass read one past the sources at the empty last list).
TEST(BackwardRowGather, EmptyListsEndTheRun) {
  for (const math::Filter f : {math::Filter::kLinear, math::Filter::kCubic}) {
    SCOPED_TRACE("filter " + std::to_string(static_cast<int>(f)));
    const kernel::RowGather<float> g =
        kernel::BuildBackwardRowGather<float>(math::MakeAxis(8, 36, false, 100.0, f));
    ASSERT_EQ(g.dstLen, 8);
    for (int64_t i = 2; i < 8; ++i) EXPECT_EQ(g.begin[static_cast<size_t>(i)], g.begin[8]) << i;
    EXPECT_GT(g.begin[2], 0);
    EXPECT_LE(g.consecutiveEnd, 2);
    EXPECT_FALSE(g.consecutiveLists);
    ExpectConsecutiveRun(g);
  }
}

TEST(ForwardRowGather, CubicDoublingRunHandWorked) {
  // in -> 2 in, scale 0.5: out 2k at k - 0.25 takes k - 2 .. k + 1, out 2k + 1 at k + 0.25 takes
  // k - 1 .. k + 2, unclamped for k = 2 .. in - 3.
  const float even[4] = {kK175, kK075, kK025, kK125}, odd[4] = {kK125, kK025, kK075, kK175};
  for (int64_t in : {5, 7, 8, 21, 37, 40, 150}) {
    const math::AxisSpec axis = CubicAxis(in, 2 * in);
    const RowGather<float> g = BuildForwardRowGather<float>(axis);
    EXPECT_EQ(g.cubicDoubling.begin, 2) << in;
    EXPECT_EQ(g.cubicDoubling.end, in - 2) << in;
    EXPECT_EQ(std::vector<float>(g.cubicDoubling.even, g.cubicDoubling.even + 4),
              std::vector<float>(even, even + 4));
    EXPECT_EQ(std::vector<float>(g.cubicDoubling.odd, g.cubicDoubling.odd + 4),
              std::vector<float>(odd, odd + 4));
    for (int64_t k = g.cubicDoubling.begin; k < g.cubicDoubling.end; ++k) {
      EXPECT_TRUE(TapsAre(axis, 2 * k, k - 2, even) && TapsAre(axis, 2 * k + 1, k - 1, odd))
          << in << " k " << k;
    }
    // The backward's gathers have none.
    EXPECT_EQ(BuildBackwardRowGather<float>(axis).cubicDoubling.end, 0);
  }
  // Too short for a run, align_corners and 2x + 1: the weights change, so no run is longer than a pair.
  EXPECT_EQ(BuildForwardRowGather<float>(CubicAxis(4, 8)).cubicDoubling.end, 0);
  EXPECT_LE(BuildForwardRowGather<float>(CubicAxis(40, 80, true)).cubicDoubling.end -
                BuildForwardRowGather<float>(CubicAxis(40, 80, true)).cubicDoubling.begin,
            1);
  const RowGather<float> odd81 = BuildForwardRowGather<float>(CubicAxis(40, 81));
  EXPECT_LE(odd81.cubicDoubling.end - odd81.cubicDoubling.begin, 1);
  EXPECT_EQ(BuildForwardRowGather<float>(math::AxisSpec{40, 80, false, 0.5}).cubicDoubling.end, 0);
}

TEST(BackwardRowGather, CubicHalvingRunHandWorked) {
  // in <- 2 in: gradInput i takes gradOut 2i - 3 .. 2i + 4 (the transposed taps of the doubling run),
  // in increasing order, for i = 2 .. in - 3; the lists nearer the ends take clamped taps.
  const float w[8] = {kK175, kK125, kK075, kK025, kK025, kK075, kK125, kK175};
  for (int64_t in : {5, 7, 8, 21, 37, 40, 150}) {
    const math::AxisSpec axis = CubicAxis(in, 2 * in);
    const RowGather<float> g = BuildBackwardRowGather<float>(axis);
    EXPECT_EQ(g.cubicHalving.begin, 2) << in;
    EXPECT_EQ(g.cubicHalving.end, in - 2) << in;
    EXPECT_EQ(std::vector<float>(g.cubicHalving.w, g.cubicHalving.w + 8), std::vector<float>(w, w + 8));
    const math::GatherTable table = math::BackwardTable(axis);
    for (int64_t i = g.cubicHalving.begin; i < g.cubicHalving.end; ++i) {
      ASSERT_EQ(table.Count(i), 8) << in << " i " << i;
      for (int t = 0; t < 8; ++t) {
        EXPECT_EQ(table.Of(i)[t].o, 2 * i - 3 + t);
        EXPECT_EQ(static_cast<float>(table.Of(i)[t].w), w[t]);
      }
    }
    EXPECT_EQ(BuildForwardRowGather<float>(axis).cubicHalving.end, 0);
  }
  EXPECT_EQ(BuildBackwardRowGather<float>(CubicAxis(4, 8)).cubicHalving.end, 0);
  const RowGather<float> corners = BuildBackwardRowGather<float>(CubicAxis(40, 80, true));
  EXPECT_LE(corners.cubicHalving.end - corners.cubicHalving.begin, 1);
  EXPECT_EQ(BuildBackwardRowGather<float>(math::AxisSpec{40, 80, false, 0.5}).cubicHalving.end, 0);
}

// ---------------------------------------------------------------------------------------------
// BuildRowSteps: the vector steps replayed by a scalar emulation.

// Checks the steps' structure and replays them, recording the (source, weight) sequence each lane
// sees. Returns the per-destination sequences.
template <typename Acc>
std::vector<std::vector<Entry<Acc>>> ReplaySteps(const RowGather<Acc> &g, int lanes) {
  const int64_t v = lanes;
  const int64_t blocks = static_cast<int64_t>(g.blockStart.size());
  std::vector<std::vector<Entry<Acc>>> seen(static_cast<size_t>(g.dstLen));
  EXPECT_EQ(g.lanes, lanes);
  // Blocks tile the row in order, each of 1..V lanes.
  EXPECT_EQ(g.blockLanes.size(), static_cast<size_t>(blocks));
  EXPECT_EQ(g.blockWindowed.size(), static_cast<size_t>(blocks));
  EXPECT_EQ(g.blockHalfWindow.size(), static_cast<size_t>(blocks));
  int64_t next = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    EXPECT_EQ(g.blockStart[static_cast<size_t>(b)], next) << "block " << b;
    EXPECT_GE(g.blockLanes[static_cast<size_t>(b)], 1);
    EXPECT_LE(g.blockLanes[static_cast<size_t>(b)], v);
    next += g.blockLanes[static_cast<size_t>(b)];
  }
  EXPECT_EQ(next, g.dstLen);
  EXPECT_EQ(g.blockStepBegin.size(), static_cast<size_t>(blocks) + 1);
  if (g.blockStepBegin.size() != static_cast<size_t>(blocks) + 1) return seen;
  EXPECT_EQ(g.blockStepBegin.front(), 0);
  EXPECT_EQ(static_cast<size_t>(g.blockStepBegin.back()), g.stepBase.size());
  EXPECT_EQ(g.stepMask.size(), g.stepBase.size());
  EXPECT_EQ(g.stepIdx.size(), g.stepBase.size() * static_cast<size_t>(v));
  EXPECT_EQ(g.stepW.size(), g.stepBase.size() * static_cast<size_t>(v));
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t j0 = g.blockStart[static_cast<size_t>(b)];
    const int64_t blockLanes = g.blockLanes[static_cast<size_t>(b)];
    EXPECT_LE(g.blockStepBegin[static_cast<size_t>(b)], g.blockStepBegin[static_cast<size_t>(b) + 1]);
    if (g.blockWindowed[static_cast<size_t>(b)] &&
        g.blockStepBegin[static_cast<size_t>(b)] < g.blockStepBegin[static_cast<size_t>(b) + 1]) {
      // A windowed block loads one window: every step shares the first step's base.
      for (int64_t s = g.blockStepBegin[static_cast<size_t>(b)];
           s < g.blockStepBegin[static_cast<size_t>(b) + 1]; ++s) {
        EXPECT_EQ(g.stepBase[static_cast<size_t>(s)],
                  g.stepBase[static_cast<size_t>(g.blockStepBegin[static_cast<size_t>(b)])]);
      }
    }
    // A half-window block: windowed, with steps, each with all of the block's lanes on and indices
    // below V; every windowed block with such steps is one.
    bool halfWindow = g.blockWindowed[static_cast<size_t>(b)] &&
                      g.blockStepBegin[static_cast<size_t>(b)] < g.blockStepBegin[static_cast<size_t>(b) + 1];
    for (int64_t s = g.blockStepBegin[static_cast<size_t>(b)];
         s < g.blockStepBegin[static_cast<size_t>(b) + 1]; ++s) {
      for (int64_t lane = 0; lane < blockLanes; ++lane) {
        halfWindow = halfWindow && (g.stepMask[static_cast<size_t>(s)] >> lane & 1u) != 0 &&
                     g.stepIdx[static_cast<size_t>(s * v + lane)] < v;
      }
    }
    EXPECT_EQ(g.blockHalfWindow[static_cast<size_t>(b)] != 0, halfWindow) << "block " << b;
    if (halfWindow && g.srcLen >= v) {  // its window read whole: inside the row
      EXPECT_LE(g.stepBase[static_cast<size_t>(g.blockStepBegin[static_cast<size_t>(b)])] + v, g.srcLen)
          << "block " << b;
    }
    for (int64_t s = g.blockStepBegin[static_cast<size_t>(b)];
         s < g.blockStepBegin[static_cast<size_t>(b) + 1]; ++s) {
      const int64_t base = g.stepBase[static_cast<size_t>(s)];
      const uint32_t mask = g.stepMask[static_cast<size_t>(s)];
      EXPECT_NE(mask, 0u) << "step " << s << " does nothing";
      EXPECT_GE(base, 0);
      if (v < 32) {
        EXPECT_EQ(mask >> v, 0u) << "mask bit beyond the lane width, step " << s;
      }
      for (int64_t lane = 0; lane < v; ++lane) {
        const int32_t idx = g.stepIdx[static_cast<size_t>(s * v + lane)];
        const Acc w = g.stepW[static_cast<size_t>(s * v + lane)];
        EXPECT_GE(idx, 0);
        EXPECT_LT(idx, 2 * v) << "step " << s << " lane " << lane;  // within the 2V window
        if (!((mask >> lane) & 1u)) {
          EXPECT_EQ(idx, 0) << "inactive lane " << lane;
          EXPECT_EQ(w, Acc(0)) << "inactive lane " << lane;
          continue;
        }
        const int64_t j = j0 + lane;
        EXPECT_LT(lane, blockLanes) << "active lane past the block, step " << s;
        EXPECT_LT(j, g.dstLen) << "active lane past the row end, step " << s;
        EXPECT_LT(base + idx, g.srcLen) << "reads past the source row, step " << s;
        if (j < g.dstLen) seen[static_cast<size_t>(j)].push_back({base + idx, w});
      }
    }
  }
  return seen;
}

// dst[j] by the CSR lists, in list order.
template <typename Acc>
std::vector<Acc> GatherCsr(const RowGather<Acc> &g, const std::vector<Acc> &src) {
  std::vector<Acc> dst(static_cast<size_t>(g.dstLen));
  for (int64_t j = 0; j < g.dstLen; ++j) {
    Acc acc = Acc(0);
    for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
      acc += g.w[static_cast<size_t>(e)] * src[static_cast<size_t>(g.src[static_cast<size_t>(e)])];
    }
    dst[static_cast<size_t>(j)] = acc;
  }
  return dst;
}

// dst by the steps, as a vector unit would: per block V accumulators, each step loads the window
// [base, base + 2V) (elements past the row end read as 0), picks lane operands by idx and adds
// w * operand to the lanes in mask.
template <typename Acc>
std::vector<Acc> GatherSteps(const RowGather<Acc> &g, const std::vector<Acc> &src) {
  const int64_t v = g.lanes;
  std::vector<Acc> dst(static_cast<size_t>(g.dstLen));
  std::vector<Acc> window(static_cast<size_t>(2 * v));
  for (int64_t b = 0; b + 1 < static_cast<int64_t>(g.blockStepBegin.size()); ++b) {
    std::vector<Acc> acc(static_cast<size_t>(v), Acc(0));
    for (int64_t s = g.blockStepBegin[static_cast<size_t>(b)];
         s < g.blockStepBegin[static_cast<size_t>(b) + 1]; ++s) {
      const int64_t base = g.stepBase[static_cast<size_t>(s)];
      for (int64_t k = 0; k < 2 * v; ++k) {
        window[static_cast<size_t>(k)] = base + k < g.srcLen ? src[static_cast<size_t>(base + k)] : Acc(0);
      }
      for (int64_t lane = 0; lane < v; ++lane) {
        if (!((g.stepMask[static_cast<size_t>(s)] >> lane) & 1u)) continue;
        const Acc x = window[static_cast<size_t>(g.stepIdx[static_cast<size_t>(s * v + lane)])];
        acc[static_cast<size_t>(lane)] += g.stepW[static_cast<size_t>(s * v + lane)] * x;
      }
    }
    const int64_t j0 = g.blockStart[static_cast<size_t>(b)];
    for (int64_t lane = 0; lane < g.blockLanes[static_cast<size_t>(b)]; ++lane) {
      dst[static_cast<size_t>(j0 + lane)] = acc[static_cast<size_t>(lane)];
    }
  }
  return dst;
}

template <typename Acc>
void CheckSteps(RowGather<Acc> g, int lanes, const std::string &what, std::mt19937_64 *rng) {
  SCOPED_TRACE(what + ", lanes " + std::to_string(lanes));
  const auto lists = Lists(g);
  BuildRowSteps(&g, lanes);
  // The CSR lists are left as they were.
  EXPECT_TRUE(Lists(g) == lists);
  // Reductions by V or more (over 2V terms per output on average) keep the scalar lists only.
  const bool scalarOnly = static_cast<int64_t>(g.src.size()) > 2 * static_cast<int64_t>(lanes) * g.dstLen;
  if (scalarOnly) {
    EXPECT_EQ(g.lanes, 0);
    EXPECT_TRUE(g.stepBase.empty() && g.blockStart.empty());
    return;
  }
  // Per lane, the steps visit exactly the list's entries, in the list's order.
  const auto seen = ReplaySteps(g, lanes);
  for (int64_t j = 0; j < g.dstLen; ++j) {
    EXPECT_TRUE(seen[static_cast<size_t>(j)] == lists[static_cast<size_t>(j)]) << "destination " << j;
  }
  if (::testing::Test::HasFailure()) return;
  // Hence the sums are bitwise those of the scalar path, on random rows.
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (int round = 0; round < 3; ++round) {
    std::vector<Acc> src(static_cast<size_t>(g.srcLen));
    for (Acc &x : src) x = static_cast<Acc>(value(*rng));
    const std::vector<Acc> csr = GatherCsr(g, src);
    const std::vector<Acc> steps = GatherSteps(g, src);
    ASSERT_EQ(csr.size(), steps.size());
    for (size_t j = 0; j < csr.size(); ++j) {
      EXPECT_EQ(std::memcmp(&csr[j], &steps[j], sizeof(Acc)), 0)
          << "destination " << j << ": " << csr[j] << " vs " << steps[j];
    }
  }
}

// Both gathers of the axis, for each lane width.
template <typename Acc>
void CheckBothGathersSteps(const BruteAxis &a, const std::vector<int> &laneWidths, std::mt19937_64 *rng) {
  for (int lanes : laneWidths) {
    CheckSteps(BuildBackwardRowGather<Acc>(Spec(a)), lanes, "backward", rng);
    CheckSteps(BuildForwardRowGather<Acc>(Spec(a)), lanes, "forward", rng);
  }
}

template <typename Acc>
void CheckStepsAllAxes(const std::vector<int> &laneWidths) {
  std::mt19937_64 rng(7);
  ForEachAxis([&](const BruteAxis &a) { CheckBothGathersSteps<Acc>(a, laneWidths, &rng); });
}

// AVX-512 uses 16 float / 8 double lanes, AVX2 8 float / 4 double lanes.
TEST(RowSteps, ReplayEqualsCsrFloat) { CheckStepsAllAxes<float>({8, 16}); }

TEST(RowSteps, ReplayEqualsCsrDouble) { CheckStepsAllAxes<double>({4, 8}); }

TEST(RowSteps, RandomAxes) {
  std::mt19937_64 rng(12345);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int iter = 0; iter < 150; ++iter) {
    const int64_t in = pick(1, 70);
    // Ratios out/in from 1/64 to 64 (log-uniform).
    const double ratio = std::exp2(std::uniform_real_distribution<double>(-6.0, 6.0)(rng));
    const int64_t out =
        std::max<int64_t>(1, static_cast<int64_t>(std::llround(static_cast<double>(in) * ratio)));
    const AxisCase c{in, out, pick(0, 1) == 1, 0.0};
    SCOPED_TRACE(Name(c));
    CheckBothGathersSteps<float>(Brute(c), {8, 16}, &rng);
    if (HasFailure()) break;
  }
}

TEST(RowSteps, HandWorkedOneToSixtyFour) {
  // Backward 1 -> 64: the single destination gathers all 128 terms (i0 == i1 == 0 for every o).
  // 128 terms > 2V = 32 per output: vector steps would serve one lane each, so none are built and
  // the scalar lists serve.
  RowGather<float> g = BuildBackwardRowGather<float>(math::AxisSpec{1, 64, false, 1.0 / 64.0});
  ASSERT_EQ(g.begin, std::vector<int64_t>({0, 128}));
  BuildRowSteps(&g, 16);
  EXPECT_EQ(g.lanes, 0);
  EXPECT_TRUE(g.stepBase.empty());
  // Backward 4 -> 64 with V = 8: 128 terms over 4 outputs = 32 per output > 2V = 16: scalar too;
  // with V = 16 (2V = 32, not exceeded) the steps are built.
  RowGather<float> h = BuildBackwardRowGather<float>(math::AxisSpec{4, 64, false, 4.0 / 64.0});
  ASSERT_EQ(h.src.size(), 128u);
  RowGather<float> h8 = h;
  BuildRowSteps(&h8, 8);
  EXPECT_EQ(h8.lanes, 0);
  BuildRowSteps(&h, 16);
  EXPECT_EQ(h.lanes, 16);
  EXPECT_FALSE(h.stepBase.empty());
}

TEST(RowSteps, HandWorkedDownsampleSplitsWideRounds) {
  // Forward 64 -> 2 (scale 32): o0 taps (15, 16), o1 taps (47, 48), V = 8 lanes.
  // One block of both lanes: each round wants sources 32 apart > 2V = 16, so each of the 2 rounds
  // splits into two steps: 4 steps x 4 ops / 2 outputs = 8 ops per output.
  // One windowed block per lane: 2 loads + 2 steps x 2 ops = 6 ops per output: cheaper, so chosen.
  RowGather<float> g = BuildForwardRowGather<float>(math::AxisSpec{64, 2, false, 32.0});
  BuildRowSteps(&g, 8);
  EXPECT_EQ(g.blockStart, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(g.blockLanes, std::vector<int32_t>({1, 1}));
  EXPECT_EQ(g.blockWindowed, std::vector<uint8_t>({1, 1}));
  EXPECT_EQ(g.blockStepBegin, std::vector<int64_t>({0, 2, 4}));
  EXPECT_EQ(g.stepBase, std::vector<int64_t>({15, 15, 47, 47}));
  EXPECT_EQ(g.stepMask, std::vector<uint32_t>({1u, 1u, 1u, 1u}));
  EXPECT_EQ(g.stepIdx[0], 0);
  EXPECT_EQ(g.stepIdx[8], 1);
}

TEST(RowSteps, UpsamplingBlocksReadHalfWindows) {
  // Forward 64 -> 131, align_corners (F5's W axis), V = 8: every output takes two sources i0 and
  // min(i0 + 1, 63), so a block of 8 outputs reads at most 5 consecutive sources: the 16 full blocks
  // and the 3-lane last one each have every step's lanes on and inside the window's first 8 elements.
  const double up = math::AxisScale(64, 131, true, 0.0);
  RowGather<float> g = BuildForwardRowGather<float>(math::AxisSpec{64, 131, true, up});
  BuildRowSteps(&g, 8);
  ASSERT_EQ(g.lanes, 8);
  EXPECT_EQ(g.blockLanes.back(), 3);
  EXPECT_EQ(g.blockHalfWindow, std::vector<uint8_t>(17, 1));
  EXPECT_TRUE(g.allHalfWindowPairs);  // two steps a block: each output's two taps
  // The last blocks' windows end at the row's end (source 63), their indices raised to match.
  EXPECT_EQ(g.stepBase.back(), 56);
  ReplaySteps(g, 8);
  // The same axis at V = 16 (AVX-512's FourHalfWindowPairRowsF32): 8 full blocks of 16 outputs (at most
  // 9 sources each) and a 3-lane last one, all pairs of half-window steps, the last window at 48.
  RowGather<float> wide = BuildForwardRowGather<float>(math::AxisSpec{64, 131, true, up});
  BuildRowSteps(&wide, 16);
  ASSERT_EQ(wide.lanes, 16);
  EXPECT_EQ(wide.blockLanes.back(), 3);
  EXPECT_EQ(wide.blockHalfWindow, std::vector<uint8_t>(9, 1));
  EXPECT_TRUE(wide.allHalfWindowPairs);
  EXPECT_EQ(wide.stepBase.back(), 48);
  ReplaySteps(wide, 16);
  // Backward 131 -> 64 (B5's W axis): each block's sources span more than 8 elements.
  RowGather<float> d = BuildBackwardRowGather<float>(math::AxisSpec{64, 131, true, up});
  BuildRowSteps(&d, 8);
  ASSERT_EQ(d.lanes, 8);
  EXPECT_EQ(d.blockHalfWindow, std::vector<uint8_t>(d.blockStart.size(), 0));
  EXPECT_FALSE(d.allHalfWindowPairs);
  ReplaySteps(d, 8);
}

// A user scale whose ratio is inf or beyond int64's range (scales 1e-300, the smallest denormal, 1e300):
// every tap still lies on the axis, with a finite weight sum, for every filter whose scales are not
// bounded by a shrink or growth limit (the antialiased operators refuse such scales).
TEST(TapTable, ExtremeUserScalesKeepTapsOnTheAxis) {
  const math::Filter filters[] = {math::Filter::kLinear, math::Filter::kNearest, math::Filter::kNearestPlain,
                                  math::Filter::kNearestExact, math::Filter::kCubic};
  for (math::Filter filter : filters) {
    for (double userScale : {1e-300, 4.9e-324, 1e300}) {
      for (bool align : {false, true}) {
        math::AxisSpec axis;
        axis.in = 5;
        axis.out = 7;
        axis.alignCorners = align && filter != math::Filter::kNearest &&
                            filter != math::Filter::kNearestPlain && filter != math::Filter::kNearestExact;
        axis.filter = filter;
        axis.scale = math::AxisScale(axis.in, axis.out, axis.alignCorners, userScale, filter);
        for (int64_t o = 0; o < axis.out; ++o) {
          int taps = 0;
          axis.ForEachTap(o, [&](int64_t i, double) {
            ++taps;
            EXPECT_GE(i, 0) << "filter " << static_cast<int>(filter) << " scale " << userScale << " o " << o;
            EXPECT_LT(i, axis.in) << "filter " << static_cast<int>(filter) << " scale " << userScale << " o "
                                  << o;
          });
          EXPECT_GE(taps, 1);
        }
      }
    }
  }
}

}  // namespace
}  // namespace trilinear3d::kernel
