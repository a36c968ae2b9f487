// The kernels' plan: per-axis weight tables in the accumulation type, built once at
// GetWorkspaceSize from the shared math (common/trilinear_math.h) and owned by the executor.
#ifndef TRILINEAR3D_OP_KERNEL_KERNEL_PLAN_H_
#define TRILINEAR3D_OP_KERNEL_KERNEL_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/trilinear_math.h"
#include "op_host/upsample_trilinear3d_tiling.h"

namespace trilinear3d::kernel {

// The taps of every out-side index o: (i0, l0) and (i1, l1), weights rounded to Acc.
// Backward scatters gradOut rows / planes through them; the forward gathers with them.
// firstO / lastO give, per in-side index, the first and last o whose taps reach it (-1 if none):
// backward uses them to know when an accumulator is first written and when it is complete.
template <typename Acc>
struct TapTable {
  std::vector<int64_t> i0, i1;
  std::vector<Acc> l0, l1;
  std::vector<int64_t> firstO, lastO;
};

// dst[j] = sum_k w[j][k] * src[s[j][k]] for every j of a row (the W pass), as CSR lists.
// Optionally also as vector "steps" for a lane width V: a block of V consecutive j is a list
// of steps; a step reads the 2V source elements at [base, base + 2V), picks lane j's operand at
// idx[j] within that window and adds w[j] * operand to the lanes in mask. Lists keep their order,
// so the vector and the scalar paths sum every element in the same order.
template <typename Acc>
struct RowGather {
  int64_t dstLen = 0;
  int64_t srcLen = 0;
  std::vector<int64_t> begin;  // dstLen + 1
  std::vector<int32_t> src;
  std::vector<Acc> w;

  int lanes = 0;                       // V; 0 when no vector steps were built
  std::vector<int64_t> blockStepBegin;  // ceil(dstLen / V) + 1
  std::vector<int64_t> stepBase;
  std::vector<uint32_t> stepMask;
  std::vector<int32_t> stepIdx;  // V per step
  std::vector<Acc> stepW;        // V per step
};

template <typename Acc>
struct PlanTables {
  TapTable<Acc> d, h, w;
  RowGather<Acc> rowW;  // backward: gradOut row -> gradInput row; forward: self row -> out row
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
  for (int64_t o = 0; o < axis.out; ++o) {
    const math::Tap tap = axis.TapOf(o);
    const size_t k = static_cast<size_t>(o);
    t.i0[k] = tap.i0;
    t.i1[k] = tap.i1;
    t.l0[k] = static_cast<Acc>(tap.l0);
    t.l1[k] = static_cast<Acc>(tap.l1);
    for (int64_t i : {tap.i0, tap.i1}) {
      if (t.firstO[static_cast<size_t>(i)] < 0) t.firstO[static_cast<size_t>(i)] = o;
      t.lastO[static_cast<size_t>(i)] = o;
    }
  }
  return t;
}

// Backward W pass: gradInput row index i gathers the gradOut entries of the transposed table.
template <typename Acc>
RowGather<Acc> BuildBackwardRowGather(const math::AxisSpec &axis) {
  const math::GatherTable table = math::BackwardTable(axis);
  RowGather<Acc> g;
  g.dstLen = axis.in;
  g.srcLen = axis.out;
  g.begin = table.begin;
  for (const math::GatherEntry &e : table.entries) {
    g.src.push_back(static_cast<int32_t>(e.o));
    g.w.push_back(static_cast<Acc>(e.w));
  }
  return g;
}

// Forward W pass: out row index o gathers (i0, l0), (i1, l1).
template <typename Acc>
RowGather<Acc> BuildForwardRowGather(const math::AxisSpec &axis) {
  RowGather<Acc> g;
  g.dstLen = axis.out;
  g.srcLen = axis.in;
  g.begin.push_back(0);
  for (int64_t o = 0; o < axis.out; ++o) {
    const math::Tap tap = axis.TapOf(o);
    g.src.push_back(static_cast<int32_t>(tap.i0));
    g.w.push_back(static_cast<Acc>(tap.l0));
    g.src.push_back(static_cast<int32_t>(tap.i1));
    g.w.push_back(static_cast<Acc>(tap.l1));
    g.begin.push_back(static_cast<int64_t>(g.src.size()));
  }
  return g;
}

// Adds the vector steps for lane width `lanes` (see RowGather).
template <typename Acc>
void BuildRowSteps(RowGather<Acc> *g, int lanes) {
  g->lanes = lanes;
  const int64_t blocks = (g->dstLen + lanes - 1) / lanes;
  g->blockStepBegin.assign(1, 0);
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t j0 = b * lanes;
    const int64_t j1 = std::min(j0 + lanes, g->dstLen);
    std::vector<int64_t> cursor(static_cast<size_t>(j1 - j0));
    for (int64_t j = j0; j < j1; ++j) cursor[static_cast<size_t>(j - j0)] = g->begin[static_cast<size_t>(j)];
    // Each round takes the next entry of every lane whose list is not exhausted; a round whose
    // operands span more than the 2V window is split into several steps.
    for (;;) {
      std::vector<int64_t> pending;
      for (int64_t j = j0; j < j1; ++j) {
        if (cursor[static_cast<size_t>(j - j0)] < g->begin[static_cast<size_t>(j) + 1]) pending.push_back(j);
      }
      if (pending.empty()) break;
      while (!pending.empty()) {
        int64_t base = INT64_MAX;
        for (int64_t j : pending) {
          base = std::min<int64_t>(base, g->src[static_cast<size_t>(cursor[static_cast<size_t>(j - j0)])]);
        }
        uint32_t mask = 0;
        std::vector<int32_t> idx(static_cast<size_t>(lanes), 0);
        std::vector<Acc> w(static_cast<size_t>(lanes), Acc(0));
        std::vector<int64_t> rest;
        for (int64_t j : pending) {
          const int64_t e = cursor[static_cast<size_t>(j - j0)];
          const int64_t s = g->src[static_cast<size_t>(e)];
          if (s - base >= 2 * lanes) {
            rest.push_back(j);
            continue;
          }
          const int lane = static_cast<int>(j - j0);
          mask |= 1u << lane;
          idx[static_cast<size_t>(lane)] = static_cast<int32_t>(s - base);
          w[static_cast<size_t>(lane)] = g->w[static_cast<size_t>(e)];
          ++cursor[static_cast<size_t>(j - j0)];
        }
        g->stepBase.push_back(base);
        g->stepMask.push_back(mask);
        g->stepIdx.insert(g->stepIdx.end(), idx.begin(), idx.end());
        g->stepW.insert(g->stepW.end(), w.begin(), w.end());
        pending.swap(rest);
      }
    }
    g->blockStepBegin.push_back(static_cast<int64_t>(g->stepBase.size()));
  }
}

}  // namespace trilinear3d::kernel

#endif  // TRILINEAR3D_OP_KERNEL_KERNEL_PLAN_H_
