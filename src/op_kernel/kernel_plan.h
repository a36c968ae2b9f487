// The kernels' plan: per-axis weight tables in the accumulation type, built once at
// GetWorkspaceSize from the shared math (common/resample_math.h) and owned by the executor.
#ifndef TRILINEAR3D_OP_KERNEL_KERNEL_PLAN_H_
#define TRILINEAR3D_OP_KERNEL_KERNEL_PLAN_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "common/resample_math.h"
#include "op_host/resample_tiling.h"

namespace trilinear3d::kernel {

// The taps of every out-side index o: (i0, l0) and (i1, l1), weights rounded to Acc; an axis of one tap
// per output (math::Filter::kUnit) has i1 = -1, which the kernels skip.
// Backward scatters gradOut rows / planes through them; the forward gathers with them.
// firstO / lastO give, per in-side index, the first and last o whose taps reach it (-1 if none):
// backward uses them to know when an accumulator is first written and when it is complete.
// Filters of more than two taps (cubic, antialias) keep an output's further taps, in increasing source
// index, as lists: those of o are [moreBegin[o], moreBegin[o + 1]) of moreI / moreL (no lists, empty
// vectors, for the filters of one or two taps).
template <typename Acc>
struct TapTable {
  std::vector<int64_t> i0, i1;
  std::vector<Acc> l0, l1;
  std::vector<int64_t> firstO, lastO;
  std::vector<int64_t> moreBegin, moreI;
  std::vector<Acc> moreL;

  // The highest source index output o reads.
  int64_t LastSource(int64_t o) const {
    const size_t k = static_cast<size_t>(o);
    if (!moreBegin.empty() && moreBegin[k + 1] > moreBegin[k])
      return moreI[static_cast<size_t>(moreBegin[k + 1] - 1)];
    return std::max(i0[k], i1[k]);
  }
};

// dst[j] = sum_k w[j][k] * src[s[j][k]] for every j of a row (the W pass), as CSR lists.
// Optionally also as vector "steps" for a lane width V. The row is cut into blocks of at most V
// consecutive j (block b covers [blockStart[b], blockStart[b] + blockLanes[b])); a block is a list
// of steps; a step reads the 2V source elements at [stepBase, stepBase + 2V), picks lane j's
// operand at idx[j] within that window and adds w[j] * operand to the lanes in mask. In a
// "windowed" block every step shares one base, so the window is loaded once per row.
// Every lane takes its entries in list order, so the vector and scalar paths sum each element
// in the same order.
// A run of doubling pairs in a forward W gather: for every k in [begin, end), out 2k takes
// (k - 1: w[0], k: w[1]) and out 2k + 1 takes (k: w[2], k + 1: w[3]), in that order. That is the
// interior of an exact 2x upsampling (align_corners false), where a kernel reads three shifted
// vectors of the source and interleaves two blends instead of permuting a window per output block.
// begin == end: no run.
template <typename Acc>
struct DoublingRun {
  int64_t begin = 0, end = 0;
  Acc w[4] = {};
};

// A run of halving lists in a backward W gather, the transpose of a doubling run: for every i in
// [begin, end), list i is exactly (2i - 1: w[0], 2i: w[1], 2i + 1: w[2], 2i + 2: w[3]), in that
// order (increasing gradOut index). That is the interior of an exact 2x upsampling's backward
// (align_corners false), where a kernel reads the gradOut row as de-interleaved even and odd vectors
// instead of permuting a window per output block. begin == end: no run.
template <typename Acc>
struct HalvingRun {
  int64_t begin = 0, end = 0;
  Acc w[4] = {};
};

// A run of cubic doubling pairs in a forward W gather (Keys' four taps of an exact 2x upsampling,
// align_corners false, away from the clamped borders): for every k in [begin, end), out 2k takes
// k - 2 .. k + 1 with even[0..3] and out 2k + 1 takes k - 1 .. k + 2 with odd[0..3], in that order.
// A kernel reads five shifted vectors of the source instead of permuting a window per output block.
// begin == end: no run.
template <typename Acc>
struct CubicDoublingRun {
  int64_t begin = 0, end = 0;
  Acc even[4] = {}, odd[4] = {};
};

// A run of cubic halving lists in a backward W gather, the transpose of a cubic doubling run: for every
// i in [begin, end), list i is exactly (2i - 3 + t: w[t]) for t = 0 .. 7, in that order (increasing
// gradOut index). A kernel reads the gradOut row as de-interleaved even and odd vectors at four shifts.
// begin == end: no run.
template <typename Acc>
struct CubicHalvingRun {
  int64_t begin = 0, end = 0;
  Acc w[8] = {};
};

template <typename Acc>
struct RowGather {
  int64_t dstLen = 0;
  int64_t srcLen = 0;
  std::vector<int64_t> begin;  // dstLen + 1
  std::vector<int32_t> src;
  std::vector<Acc> w;
  // Every list's entries are consecutive sources in increasing order (the forward's filter supports):
  // a list is then its first source, its length and its weights.
  bool consecutiveLists = false;
  // The longest run [consecutiveBegin, consecutiveEnd) of outputs whose lists are so and not empty (the
  // whole row when consecutiveLists; a backward enlargement's lists but the last, where the last outputs'
  // two taps are both the last source and repeat their gradOut positions). A backward shrink's gradInput
  // positions that no tap reaches have empty lists: they end a run, so that a kernel may read a run's
  // first source without looking at its length.
  int64_t consecutiveBegin = 0, consecutiveEnd = 0;

  int lanes = 0;  // V; 0 when no vector steps were built (the scalar lists are used)
  std::vector<int64_t> blockStart;
  std::vector<int32_t> blockLanes;
  std::vector<uint8_t> blockWindowed;
  // Windowed blocks with at least one step, each of whose steps has every one of the block's lanes on
  // and picks from the window's first V elements (an upsampling gather's blocks): one V-element
  // window and one permute per step serve them, with no per-step test.
  std::vector<uint8_t> blockHalfWindow;
  // Every block has two steps and reads a half window (linear upsampling), every block but the last
  // has V lanes, and srcLen >= V, so that no half window passes the row's end (RebaseInsideRow).
  bool allHalfWindowPairs = false;
  bool allWindowed = false;             // every block is windowed (and there is at least one)
  std::vector<int64_t> blockStepBegin;  // blocks + 1
  std::vector<int64_t> stepBase;
  std::vector<uint32_t> stepMask;
  std::vector<int32_t> stepIdx;  // V per step
  std::vector<Acc> stepW;        // V per step

  DoublingRun<Acc> doubling;            // forward gathers only (BuildForwardRowGather)
  HalvingRun<Acc> halving;              // backward gathers only (BuildBackwardRowGather)
  CubicDoublingRun<Acc> cubicDoubling;  // forward gathers only
  CubicHalvingRun<Acc> cubicHalving;    // backward gathers only
};

template <typename Acc>
struct PlanTables {
  // The D and H taps of the width-first backward and the forward (empty for the width-last backward,
  // which reads colD / colH instead). No kernel reads the W taps as a table: rowW serves.
  TapTable<Acc> d, h;
  RowGather<Acc> rowW;  // backward: gradOut row -> gradInput row; forward: self row -> out row
  // Width-last backward: every gradInput D / H index's gradOut taps (o, w) in increasing o, as the
  // lists of a RowGather without vector steps.
  RowGather<Acc> colD, colH;
};

template <typename Acc>
TapTable<Acc> BuildTapTable(const math::AxisSpec &axis) {
  TapTable<Acc> t;
  const size_t out = static_cast<size_t>(axis.out);
  t.i0.resize(out);
  t.i1.resize(out);
  t.l0.resize(out);
  t.l1.resize(out);
  t.firstO.assign(static_cast<size_t>(axis.in), -1);
  t.lastO.assign(static_cast<size_t>(axis.in), -1);
  const bool more = axis.MaxTaps() > 2;
  if (more) t.moreBegin.assign(1, 0);
  for (int64_t o = 0; o < axis.out; ++o) {
    const size_t k = static_cast<size_t>(o);
    int taps = 0;
    axis.ForEachTap(o, [&](int64_t i, double w) {
      if (taps >= 2) {
        t.moreI.push_back(i);
        t.moreL.push_back(static_cast<Acc>(w));
      } else {
        (taps == 0 ? t.i0 : t.i1)[k] = i;
        (taps == 0 ? t.l0 : t.l1)[k] = static_cast<Acc>(w);
      }
      ++taps;
      if (t.firstO[static_cast<size_t>(i)] < 0) t.firstO[static_cast<size_t>(i)] = o;
      t.lastO[static_cast<size_t>(i)] = o;
    });
    if (taps == 1) {  // a unit axis: no second tap
      t.i1[k] = -1;
      t.l1[k] = Acc(0);
    }
    if (more) t.moreBegin.push_back(static_cast<int64_t>(t.moreI.size()));
  }
  return t;
}

namespace detail {

// The longest run of consecutive k in [first, last) for which listsOf(k, w) holds (it fills the kW
// weights of k's lists), all with the same weights bit for bit (a weight of -0 instead of 0 can change
// the sign of a zero result): [*begin, *end) and the run's weights w, or *begin == *end.
template <int kW, typename Acc, typename ListsOf>
void LongestRun(int64_t first, int64_t last, ListsOf &&listsOf, int64_t *begin, int64_t *end, Acc *w) {
  int64_t bestBegin = 0, bestEnd = 0, curBegin = 0, curEnd = 0;
  Acc cur[kW] = {};
  for (int64_t k = first; k < last; ++k) {
    Acc x[kW];
    if (!listsOf(k, x)) {
      curBegin = curEnd = 0;
      continue;
    }
    if (curEnd == k && curEnd > curBegin && std::memcmp(x, cur, sizeof(x)) == 0) {
      curEnd = k + 1;
    } else {
      curBegin = k;
      curEnd = k + 1;
      std::copy(x, x + kW, cur);
    }
    if (curEnd - curBegin > bestEnd - bestBegin) {
      bestBegin = curBegin;
      bestEnd = curEnd;
      std::copy(cur, cur + kW, w);
    }
  }
  *begin = bestBegin;
  *end = bestEnd;
}

// Whether list j of g is exactly the `count` consecutive source indices from `first` (inside the
// source row); fills their weights.
template <typename Acc>
bool ConsecutiveList(const RowGather<Acc> &g, int64_t j, int64_t first, int count, Acc *w) {
  const int64_t e0 = g.begin[static_cast<size_t>(j)];
  if (g.begin[static_cast<size_t>(j) + 1] - e0 != count || first < 0 || first + count > g.srcLen)
    return false;
  for (int t = 0; t < count; ++t) {
    if (g.src[static_cast<size_t>(e0 + t)] != first + t) return false;
    w[t] = g.w[static_cast<size_t>(e0 + t)];
  }
  return true;
}

}  // namespace detail

// The longest cubic doubling run of g (CubicDoublingRun).
template <typename Acc>
CubicDoublingRun<Acc> FindCubicDoublingRun(const RowGather<Acc> &g) {
  CubicDoublingRun<Acc> run;
  Acc w[8] = {};
  detail::LongestRun<8, Acc>(
      0, g.dstLen / 2,
      [&](int64_t k, Acc x[8]) {
        return detail::ConsecutiveList(g, 2 * k, k - 2, 4, x) &&
               detail::ConsecutiveList(g, 2 * k + 1, k - 1, 4, x + 4);
      },
      &run.begin, &run.end, w);
  std::copy(w, w + 4, run.even);
  std::copy(w + 4, w + 8, run.odd);
  return run;
}

// The longest cubic halving run of g (CubicHalvingRun).
template <typename Acc>
CubicHalvingRun<Acc> FindCubicHalvingRun(const RowGather<Acc> &g) {
  CubicHalvingRun<Acc> run;
  detail::LongestRun<8, Acc>(
      0, g.dstLen, [&](int64_t i, Acc x[8]) { return detail::ConsecutiveList(g, i, 2 * i - 3, 8, x); },
      &run.begin, &run.end, run.w);
  return run;
}

// The longest run of halving lists of g (HalvingRun): consecutive i whose lists are exactly the four
// entries of the pattern, with the weights of the run's first list.
template <typename Acc>
HalvingRun<Acc> FindHalvingRun(const RowGather<Acc> &g) {
  HalvingRun<Acc> best;
  HalvingRun<Acc> cur;
  auto listOf = [&](int64_t i, Acc w[4]) {
    const int64_t e0 = g.begin[static_cast<size_t>(i)];
    if (g.begin[static_cast<size_t>(i) + 1] - e0 != 4 || 2 * i + 2 >= g.srcLen) return false;
    for (int k = 0; k < 4; ++k) {
      if (g.src[static_cast<size_t>(e0 + k)] != 2 * i - 1 + k) return false;
      w[k] = g.w[static_cast<size_t>(e0 + k)];
    }
    return true;
  };
  for (int64_t i = 1; i < g.dstLen; ++i) {
    Acc w[4];
    if (!listOf(i, w)) {
      cur = HalvingRun<Acc>{};
      continue;
    }
    // The same weights bit for bit: a weight of -0 instead of 0 can change the sign of a zero result.
    if (cur.end == i && std::memcmp(w, cur.w, sizeof(w)) == 0) {
      cur.end = i + 1;
    } else {
      cur.begin = i;
      cur.end = i + 1;
      std::copy(w, w + 4, cur.w);
    }
    if (cur.end - cur.begin > best.end - best.begin) best = cur;
  }
  return best;
}

// Sets g's consecutiveBegin / consecutiveEnd / consecutiveLists from its lists.
template <typename Acc>
void FindConsecutiveLists(RowGather<Acc> &g) {
  const auto consecutive = [&](int64_t o) {
    if (g.begin[static_cast<size_t>(o)] == g.begin[static_cast<size_t>(o) + 1]) return false;
    for (int64_t e = g.begin[static_cast<size_t>(o)] + 1; e < g.begin[static_cast<size_t>(o) + 1]; ++e) {
      const size_t k = static_cast<size_t>(e);
      if (g.src[k] != g.src[k - 1] + 1) return false;
    }
    return true;
  };
  g.consecutiveBegin = g.consecutiveEnd = 0;
  for (int64_t o = 0; o < g.dstLen;) {
    int64_t end = o;
    while (end < g.dstLen && consecutive(end)) ++end;
    if (end - o > g.consecutiveEnd - g.consecutiveBegin) {
      g.consecutiveBegin = o;
      g.consecutiveEnd = end;
    }
    o = end + 1;
  }
  g.consecutiveLists = g.consecutiveBegin == 0 && g.consecutiveEnd == g.dstLen;
}

// Backward W pass: gradInput row index i gathers the gradOut entries of the transposed table.
template <typename Acc>
RowGather<Acc> BuildBackwardRowGather(const math::AxisSpec &axis) {
  math::GatherTable table = math::BackwardTable(axis);
  RowGather<Acc> g;
  g.dstLen = axis.in;
  g.srcLen = axis.out;
  g.begin = std::move(table.begin);
  g.src.resize(table.entries.size());
  g.w.resize(table.entries.size());
  for (size_t e = 0; e < table.entries.size(); ++e) {
    g.src[e] = static_cast<int32_t>(table.entries[e].o);
    g.w[e] = static_cast<Acc>(table.entries[e].w);
  }
  FindConsecutiveLists(g);
  g.halving = FindHalvingRun(g);
  g.cubicHalving = FindCubicHalvingRun(g);
  return g;
}

// The longest run of doubling pairs of g (DoublingRun): consecutive k whose outputs 2k and 2k + 1
// each have exactly the two entries of the pattern, with the weights of the run's first pair.
template <typename Acc>
DoublingRun<Acc> FindDoublingRun(const RowGather<Acc> &g) {
  DoublingRun<Acc> best;
  DoublingRun<Acc> cur;
  auto entry = [&](int64_t o, int k, int64_t src, Acc *w) {
    const int64_t e = g.begin[static_cast<size_t>(o)] + k;
    if (g.src[static_cast<size_t>(e)] != src) return false;
    *w = g.w[static_cast<size_t>(e)];
    return true;
  };
  auto pairOf = [&](int64_t k, Acc w[4]) {
    const int64_t even = 2 * k, odd = 2 * k + 1;
    if (k < 1 || odd >= g.dstLen || k + 1 >= g.srcLen) return false;
    if (g.begin[static_cast<size_t>(even) + 1] - g.begin[static_cast<size_t>(even)] != 2 ||
        g.begin[static_cast<size_t>(odd) + 1] - g.begin[static_cast<size_t>(odd)] != 2) {
      return false;
    }
    return entry(even, 0, k - 1, &w[0]) && entry(even, 1, k, &w[1]) && entry(odd, 0, k, &w[2]) &&
           entry(odd, 1, k + 1, &w[3]);
  };
  for (int64_t k = 1; 2 * k + 1 < g.dstLen; ++k) {
    Acc w[4];
    if (!pairOf(k, w)) {
      cur = DoublingRun<Acc>{};
      continue;
    }
    // The same weights bit for bit: a weight of -0 instead of 0 can change the sign of a zero result.
    if (cur.end == k && std::memcmp(w, cur.w, sizeof(w)) == 0) {
      cur.end = k + 1;
    } else {
      cur.begin = k;
      cur.end = k + 1;
      std::copy(w, w + 4, cur.w);
    }
    if (cur.end - cur.begin > best.end - best.begin) best = cur;
  }
  return best;
}

// Forward W pass: out row index o gathers its taps, in tap order.
template <typename Acc>
RowGather<Acc> BuildForwardRowGather(const math::AxisSpec &axis) {
  RowGather<Acc> g;
  g.dstLen = axis.out;
  g.srcLen = axis.in;
  g.begin.push_back(0);
  for (int64_t o = 0; o < axis.out; ++o) {
    axis.ForEachTap(o, [&](int64_t i, double w) {
      g.src.push_back(static_cast<int32_t>(i));
      g.w.push_back(static_cast<Acc>(w));
    });
    g.begin.push_back(static_cast<int64_t>(g.src.size()));
  }
  FindConsecutiveLists(g);
  g.doubling = FindDoublingRun(g);
  g.cubicDoubling = FindCubicDoublingRun(g);
  return g;
}

namespace detail {

// The most lanes a vector step has (64-byte vectors of fp32).
constexpr int kMaxStepLanes = 16;

// Calls emit(base, mask, idx, w) for each step of block [j0, j1) of g (j1 - j0 <= lanes <=
// kMaxStepLanes; idx and w hold `lanes` values). Each round takes the next entry of every lane whose
// list is not exhausted; a round whose operands do not fit one 2V window is split into several
// steps. No allocation: planning a long axis builds a million blocks.
template <typename Acc, typename Emit>
void ForEachBlockStep(const RowGather<Acc> &g, int lanes, int64_t j0, int64_t j1, Emit &&emit) {
  const int count = static_cast<int>(j1 - j0);
  int64_t cursor[kMaxStepLanes];
  int pending[kMaxStepLanes], rest[kMaxStepLanes];
  int32_t idx[kMaxStepLanes];
  Acc w[kMaxStepLanes];
  for (int l = 0; l < count; ++l) cursor[l] = g.begin[static_cast<size_t>(j0 + l)];
  for (;;) {
    int pendingCount = 0;
    for (int l = 0; l < count; ++l) {
      if (cursor[l] < g.begin[static_cast<size_t>(j0 + l) + 1]) pending[pendingCount++] = l;
    }
    if (pendingCount == 0) break;
    while (pendingCount > 0) {
      int64_t base = INT64_MAX;
      for (int p = 0; p < pendingCount; ++p) {
        base = std::min<int64_t>(base, g.src[static_cast<size_t>(cursor[pending[p]])]);
      }
      uint32_t mask = 0;
      std::fill(idx, idx + lanes, 0);
      std::fill(w, w + lanes, Acc(0));
      int restCount = 0;
      for (int p = 0; p < pendingCount; ++p) {
        const int lane = pending[p];
        const int64_t e = cursor[lane];
        const int64_t s = g.src[static_cast<size_t>(e)];
        if (s - base >= 2 * lanes) {
          rest[restCount++] = lane;
          continue;
        }
        mask |= 1u << lane;
        idx[lane] = static_cast<int32_t>(s - base);
        w[lane] = g.w[static_cast<size_t>(e)];
        ++cursor[lane];
      }
      emit(base, mask, static_cast<const int32_t *>(idx), static_cast<const Acc *>(w));
      std::copy(rest, rest + restCount, pending);
      pendingCount = restCount;
    }
  }
}

// Appends the steps of block [j0, j1) of g to its step lists.
template <typename Acc>
void AppendBlockSteps(RowGather<Acc> *g, int lanes, int64_t j0, int64_t j1) {
  ForEachBlockStep(*g, lanes, j0, j1, [&](int64_t base, uint32_t mask, const int32_t *idx, const Acc *w) {
    g->stepBase.push_back(base);
    g->stepMask.push_back(mask);
    g->stepIdx.insert(g->stepIdx.end(), idx, idx + lanes);
    g->stepW.insert(g->stepW.end(), w, w + lanes);
  });
}

// The number of steps block [j0, j1) of g would have.
template <typename Acc>
int64_t CountBlockSteps(const RowGather<Acc> &g, int lanes, int64_t j0, int64_t j1) {
  int64_t steps = 0;
  ForEachBlockStep(g, lanes, j0, j1, [&](int64_t, uint32_t, const int32_t *, const Acc *) { ++steps; });
  return steps;
}

// The most lanes from j0 on whose entries all fit one window of 2V source elements (0 if even
// lane j0 alone does not fit), and the window's base.
template <typename Acc>
int64_t WindowedLanes(const RowGather<Acc> &g, int lanes, int64_t j0, int64_t *base) {
  int64_t lo = INT64_MAX, hi = -1, count = 0;
  for (int64_t j = j0; j < g.dstLen && count < lanes; ++j, ++count) {
    int64_t newLo = lo, newHi = hi;
    for (int64_t e = g.begin[static_cast<size_t>(j)]; e < g.begin[static_cast<size_t>(j) + 1]; ++e) {
      newLo = std::min<int64_t>(newLo, g.src[static_cast<size_t>(e)]);
      newHi = std::max<int64_t>(newHi, g.src[static_cast<size_t>(e)]);
    }
    if (newHi >= 0 && newHi - newLo + 1 > 2 * lanes) break;
    lo = newLo;
    hi = newHi;
  }
  *base = hi < 0 ? 0 : lo;
  return count;
}

// Whether the steps from firstStep on (one block's, the last ones built) are at least one, each with
// all of the block's blockLanes lanes on and indices below `lanes` (RowGather::blockHalfWindow).
template <typename Acc>
bool HalfWindowSteps(const RowGather<Acc> &g, int lanes, size_t firstStep, int64_t blockLanes) {
  const uint32_t all = (1u << blockLanes) - 1u;  // blockLanes <= kMaxStepLanes
  if (firstStep >= g.stepBase.size()) return false;
  for (size_t s = firstStep; s < g.stepBase.size(); ++s) {
    if ((g.stepMask[s] & all) != all) return false;
    for (int64_t l = 0; l < blockLanes; ++l) {
      if (g.stepIdx[s * static_cast<size_t>(lanes) + static_cast<size_t>(l)] >= lanes) return false;
    }
  }
  return true;
}

// Moves the window of the half-window block whose steps start at firstStep (the last ones built) back
// to end at the row's end where it would pass it (srcLen >= lanes), raising its steps' indices by as
// much: every operand stays in the window's first `lanes` elements (they all lie in the row), and the
// window is then read whole, with no masked loads.
template <typename Acc>
void RebaseInsideRow(RowGather<Acc> *g, int lanes, size_t firstStep) {
  const int64_t last = g->srcLen - lanes;
  const int64_t shift = g->stepBase[firstStep] - last;
  if (shift <= 0) return;
  for (size_t s = firstStep; s < g->stepBase.size(); ++s) {
    g->stepBase[s] = last;
    for (int l = 0; l < lanes; ++l) {
      if (g->stepMask[s] >> l & 1u)
        g->stepIdx[s * static_cast<size_t>(lanes) + static_cast<size_t>(l)] += shift;
    }
  }
}

}  // namespace detail

// Adds the vector steps for lane width `lanes` (see RowGather). Each block is windowed when that
// is cheaper (fewer loads per output) than a full block of V lanes with per-step windows.
template <typename Acc>
void BuildRowSteps(RowGather<Acc> *g, int lanes) {
  // With more than 2V terms per output on average (a reduction by V or more), a step serves about
  // one lane: the plan would grow to V times the lists for no speed. The scalar lists serve then.
  if (static_cast<int64_t>(g->src.size()) > 2 * static_cast<int64_t>(lanes) * g->dstLen ||
      lanes > detail::kMaxStepLanes) {
    g->lanes = 0;
    return;
  }
  g->lanes = lanes;
  g->blockStepBegin.assign(1, 0);
  // Room for the usual count, a block per `lanes` outputs and a step per entry of an average list, so
  // that a long axis's step lists are not regrown and copied a dozen times (more steps just grow).
  const size_t blocks = static_cast<size_t>((g->dstLen + lanes - 1) / lanes);
  const size_t entries = g->src.size();
  const size_t steps =
      blocks * ((entries + static_cast<size_t>(g->dstLen) - 1) / static_cast<size_t>(g->dstLen));
  g->blockStart.reserve(blocks);
  g->blockLanes.reserve(blocks);
  g->blockWindowed.reserve(blocks);
  g->blockHalfWindow.reserve(blocks);
  g->blockStepBegin.reserve(blocks + 1);
  g->stepBase.reserve(steps);
  g->stepMask.reserve(steps);
  g->stepIdx.reserve(steps * static_cast<size_t>(lanes));
  g->stepW.reserve(steps * static_cast<size_t>(lanes));
  for (int64_t j0 = 0; j0 < g->dstLen;) {
    int64_t base = 0;
    const int64_t windowLanes = detail::WindowedLanes(*g, lanes, j0, &base);
    const int64_t fullLanes = std::min<int64_t>(lanes, g->dstLen - j0);
    // Cost in vector operations per output: windowed = (2 loads + 2 per step) / lanes;
    // general = 4 per step (2 loads, permute, FMA) / lanes. A windowed block of all fullLanes lanes
    // with r >= 1 rounds always wins (the general block has at least r steps, and 2 + 2r <= 4r), so
    // the general block's steps are counted only when the window holds fewer lanes (or none).
    bool windowed = false;
    if (windowLanes > 0) {
      int64_t rounds = 0;
      for (int64_t j = j0; j < j0 + windowLanes; ++j) {
        rounds = std::max(rounds, g->begin[static_cast<size_t>(j) + 1] - g->begin[static_cast<size_t>(j)]);
      }
      if (windowLanes == fullLanes && rounds >= 1) {
        windowed = true;
      } else {
        const int64_t generalSteps = detail::CountBlockSteps<Acc>(*g, lanes, j0, j0 + fullLanes);
        windowed = (2.0 + 2.0 * static_cast<double>(rounds)) / static_cast<double>(windowLanes) <=
                   4.0 * static_cast<double>(generalSteps) / static_cast<double>(fullLanes);
      }
    }
    const int64_t blockLanes = windowed ? windowLanes : fullLanes;
    const size_t firstStep = g->stepBase.size();
    detail::AppendBlockSteps<Acc>(g, lanes, j0, j0 + blockLanes);
    if (windowed) {
      // All operands fit the one window at base: rebase every step onto it.
      for (size_t s = firstStep; s < g->stepBase.size(); ++s) {
        const int32_t shift = static_cast<int32_t>(g->stepBase[s] - base);
        for (int l = 0; l < lanes; ++l) {
          if (g->stepMask[s] >> l & 1u)
            g->stepIdx[s * static_cast<size_t>(lanes) + static_cast<size_t>(l)] += shift;
        }
        g->stepBase[s] = base;
      }
    }
    g->blockStart.push_back(j0);
    g->blockLanes.push_back(static_cast<int32_t>(blockLanes));
    g->blockWindowed.push_back(windowed ? 1 : 0);
    const bool half = windowed && detail::HalfWindowSteps(*g, lanes, firstStep, blockLanes);
    if (half && g->srcLen >= lanes) detail::RebaseInsideRow(g, lanes, firstStep);
    g->blockHalfWindow.push_back(half ? 1 : 0);
    g->blockStepBegin.push_back(static_cast<int64_t>(g->stepBase.size()));
    j0 += blockLanes;
  }
  g->allWindowed = !g->blockWindowed.empty();
  for (uint8_t windowed : g->blockWindowed) g->allWindowed = g->allWindowed && windowed != 0;
  g->allHalfWindowPairs = !g->blockHalfWindow.empty() && g->srcLen >= lanes;
  for (size_t b = 0; b < g->blockHalfWindow.size(); ++b) {
    g->allHalfWindowPairs = g->allHalfWindowPairs && g->blockHalfWindow[b] != 0 &&
                            g->blockStepBegin[b + 1] - g->blockStepBegin[b] == 2 &&
                            (b + 1 == g->blockHalfWindow.size() || g->blockLanes[b] == lanes);
  }
}

}  // namespace trilinear3d::kernel

#endif  // TRILINEAR3D_OP_KERNEL_KERNEL_PLAN_H_
