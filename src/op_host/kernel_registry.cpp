// The kernel registry (see the header): the one place that decides which kernel runs for a shape.
#include "op_host/kernel_registry.h"

#include <algorithm>
#include <cstring>

namespace trilinear3d::tiling {
namespace {

bool Always(const TilingContext &) { return true; }

// A nearest operator's problem: an axis of a nearest filter (the others then take one tap too: kUnit).
// The tap-table kernels take the others.
bool NearestAxes(const TilingContext &ctx) {
  for (const math::AxisSpec &axis : ctx.axes) {
    if (math::IsNearest(axis.filter)) return true;
  }
  return false;
}

bool TwoTapAxes(const TilingContext &ctx) { return !NearestAxes(ctx); }

// The D axis of the forward's and the width-first backward's tap tables blends at most two planes; their
// H pass takes any number of taps (the forward) or two (the width-first backward's H scatter).
bool TwoTapAxis(const math::AxisSpec &axis) { return axis.MaxTaps() <= 2; }

bool ForwardApplies(const TilingContext &ctx) { return !NearestAxes(ctx) && TwoTapAxis(ctx.axes[0]); }

bool BackwardWidthFirstApplies(const TilingContext &ctx) {
  return !NearestAxes(ctx) && TwoTapAxis(ctx.axes[0]) && TwoTapAxis(ctx.axes[1]);
}

// The backward of an exact doubling on every axis (gradOut = 2 x gradInput, align_corners false,
// real scale 0.5), fp32, W-inner rows of unit W stride: every axis is then the fixed stencil 1/4,
// 3/4, 3/4, 1/4.
bool StencilApplies(const TilingContext &ctx) {
  const TilingInput &input = ctx.input;
  if (NearestAxes(ctx) || input.dataType != DataType::kFloat32 || !input.srcUnitW || input.alignCorners ||
      ctx.layout == RowLayout::kCInner) {
    return false;
  }
  for (const math::AxisSpec &axis : ctx.axes) {
    if (axis.out != 2 * axis.in || axis.scale != 0.5 || axis.filter != math::Filter::kLinear) return false;
  }
  return true;
}

// The backward order with the lower estimated cost, where a pass costs max(elements it reads,
// elements it writes), times 3 for a W pass over W-inner rows (lane permutes; along C it is a plain
// row combination: 1). Ties keep the seed's width-first order for W-inner rows and take width-last
// for channels-inner rows, whose kernel then streams each gradOut row once through a ring of D-step
// rows, which B3-like shapes run faster than width-first.
bool BackwardWidthFirstCheaper(const TilingContext &ctx) {
  const int64_t *inSize = ctx.input.inSize, *outSize = ctx.input.outSize;
  const double wCost = ctx.layout == RowLayout::kWInner ? 3.0 : 1.0;
  const double unit[3] = {1.0, 1.0, wCost};
  // Elements before and after a pass on `axis` when `done` axes are already at their in-side size.
  auto passCost = [&](int axis, const bool done[3]) {
    double before = 1.0;
    for (int a = 0; a < 3; ++a) before *= static_cast<double>(done[a] ? inSize[a] : outSize[a]);
    const double after = before / static_cast<double>(outSize[axis]) * static_cast<double>(inSize[axis]);
    return unit[axis] * std::max(before, after);
  };
  auto orderCost = [&](const int(&axes)[3]) {
    bool done[3] = {false, false, false};
    double cost = 0.0;
    for (int axis : axes) {
      cost += passCost(axis, done);
      done[axis] = true;
    }
    return cost;
  };
  const int widthFirst[3] = {2, 1, 0};
  const int widthLast[3] = {0, 1, 2};
  const double last = orderCost(widthLast), first = orderCost(widthFirst);
  if (last == first) return ctx.layout != RowLayout::kCInner;
  return first < last;
}

// The forward resamples W first only when W shrinks and that order moves fewer elements, counting a
// W resample (lane permutes) twice: W first resamples each source row it reads once (rows of planes
// min(inD, 2 outD) by min(inH, 2 outH), inW wide) and blends out-wide rows; W last blends inW-wide
// rows (the D pass over those source rows, the H pass over out rows) and resamples each out row. A
// 65536-wide W going to 16 under an H growing to 4097 is ~500x the work done W last. The estimate
// picks the faster order on both sides of the boundary (docs/performance.md has the shapes that
// calibrate it).
bool ForwardWidthFirstCheaper(const TilingContext &ctx) {
  const int64_t *inSize = ctx.input.inSize, *outSize = ctx.input.outSize;
  if (outSize[2] >= inSize[2]) return false;
  // An H axis of more than two taps (cubic, antialias) reads every source row and blends many per out row:
  // the H pass's long-row FMAs on the source width cost less than W-resampling every source row first (the C3
  // shrink in docs/performance.md).
  if (ctx.axes[1].MaxTaps() > 2) return false;
  constexpr double kResampleCost = 2.0;
  const double iD = static_cast<double>(inSize[0]), iH = static_cast<double>(inSize[1]),
               iW = static_cast<double>(inSize[2]);
  const double oD = static_cast<double>(outSize[0]), oH = static_cast<double>(outSize[1]),
               oW = static_cast<double>(outSize[2]);
  // Source planes and rows the two-tap D and H passes read.
  const double planes = std::min(iD, 2.0 * oD), rows = std::min(iH, 2.0 * oH);
  const double first = kResampleCost * planes * rows * iW + oD * rows * oW + oD * oH * oW;
  const double last = oD * rows * iW + oD * oH * iW + kResampleCost * oD * oH * iW;
  return first < last;
}

constexpr KernelTables kNoTables{};
constexpr KernelTables kTapTables{true, false, RowGatherKind::kBackward};
constexpr KernelTables kColumnTables{false, true, RowGatherKind::kBackward};
constexpr KernelTables kForwardTables{true, false, RowGatherKind::kForward};
constexpr KernelTables kNearestBackwardTables{false, true, RowGatherKind::kBackward, true};
constexpr KernelTables kNearestForwardTables{true, false, RowGatherKind::kForward, true};

// In order of preference. Every kernel of a direction but the stencil applies to every input of it
// In order of preference. Every kernel of a direction but the stencil applies to every input of it
// that has no nearest axis and whose filters its tap tables hold (the last of each direction to every
// such input); the doubling stencil reads no table (its weights are fixed: op_kernel/stencil2x_steps.h).
// The nearest kernels take the nearest operators' problems and only those (their place in the order
// decides nothing).
constexpr KernelEntry kEntries[kKernelCount] = {
    {Kernel::kBackwardStencil2x, "backward_stencil2x", Direction::kBackward, StencilApplies, Always,
     TileBackwardStencil2x, kNoTables},
    {Kernel::kBackwardWidthFirst, "backward_width_first", Direction::kBackward, BackwardWidthFirstApplies,
     BackwardWidthFirstCheaper, TileBackwardWidthFirst, kTapTables},
    {Kernel::kBackwardWidthLast, "backward_width_last", Direction::kBackward, TwoTapAxes, Always,
     TileBackwardWidthLast, kColumnTables},
    {Kernel::kForwardWidthFirst, "forward_width_first", Direction::kForward, ForwardApplies,
     ForwardWidthFirstCheaper, TileForwardWidthFirst, kForwardTables},
    {Kernel::kForwardWidthLast, "forward_width_last", Direction::kForward, ForwardApplies, Always,
     TileForwardWidthLast, kForwardTables},
    {Kernel::kNearestBackward, "nearest_backward", Direction::kBackward, NearestAxes, Always,
     TileNearestBackward, kNearestBackwardTables},
    {Kernel::kNearestForward, "nearest_forward", Direction::kForward, NearestAxes, Always, TileNearestForward,
     kNearestForwardTables},
};

bool Runs(const KernelEntry &entry, const TilingContext &ctx) {
  return entry.direction == ctx.input.direction && entry.applies(ctx);
}

}  // namespace

const KernelEntry &ChooseKernel(const TilingContext &ctx) {
  if (ctx.input.forcedKernel && Runs(KernelEntryOf(*ctx.input.forcedKernel), ctx)) {
    return KernelEntryOf(*ctx.input.forcedKernel);
  }
  const KernelEntry *last = nullptr;
  for (const KernelEntry &entry : kEntries) {
    if (!Runs(entry, ctx)) continue;
    if (entry.preferred(ctx)) return entry;
    last = &entry;
  }
  return *last;  // not reached: each direction's last entry applies and is preferred
}

const KernelEntry &KernelEntryOf(Kernel id) {
  for (const KernelEntry &entry : kEntries) {
    if (entry.id == id) return entry;
  }
  return kEntries[0];  // not reached: every Kernel has an entry (the registry's test checks it)
}

const KernelEntry *KernelEntries() { return kEntries; }

bool KernelNamed(const char *name, Kernel *id) {
  for (const KernelEntry &entry : kEntries) {
    if (std::strcmp(entry.name, name) == 0) {
      *id = entry.id;
      return true;
    }
  }
  return false;
}

}  // namespace trilinear3d::tiling
