// The nearest operators' entry points as one table for the tests: each entry's rank, rule and scales, a
// call of its GetWorkspaceSize from logical sizes and its run phase, and a checked run of one problem on
// fresh data against tests/support/reference/nearest_reference.h.
#ifndef TRILINEAR3D_TESTS_SUPPORT_NEAREST_RUNNER_H_
#define TRILINEAR3D_TESTS_SUPPORT_NEAREST_RUNNER_H_

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_1d.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "reference/nearest_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {

enum class NearestEntry {
  kNearest1d,
  kNearest2d,
  kNearest1dV2,
  kNearest2dV2,
  kNearest3d,
  kExact1d,
  kExact2d,
  kExact3d,
  kNearest1dBackward,
  kNearest2dBackward,
  kNearest3dBackward,
  kExact1dBackward,
  kExact2dBackward,
  kExact3dBackward,
};

// Which scales an entry takes: none, each axis's own (> 0), or all of its axes when all are > 0.
enum class ScaleRule { kNone, kPerAxis, kAllOrNone };

struct NearestEntryInfo {
  NearestEntry entry;
  const char *name;
  int rank;
  bool exact;
  bool backward;
  ScaleRule scales;
  bool emptyBatchOk;
};

inline constexpr NearestEntryInfo kNearestEntries[] = {
    {NearestEntry::kNearest1d, "UpsampleNearest1d", 3, false, false, ScaleRule::kNone, true},
    {NearestEntry::kNearest2d, "UpsampleNearest2d", 4, false, false, ScaleRule::kNone, true},
    {NearestEntry::kNearest1dV2, "UpsampleNearest1dV2", 3, false, false, ScaleRule::kPerAxis, true},
    {NearestEntry::kNearest2dV2, "UpsampleNearest2dV2", 4, false, false, ScaleRule::kAllOrNone, true},
    {NearestEntry::kNearest3d, "UpsampleNearest3d", 5, false, false, ScaleRule::kAllOrNone, true},
    {NearestEntry::kExact1d, "UpsampleNearestExact1d", 3, true, false, ScaleRule::kPerAxis, false},
    {NearestEntry::kExact2d, "UpsampleNearestExact2d", 4, true, false, ScaleRule::kPerAxis, false},
    {NearestEntry::kExact3d, "UpsampleNearestExact3d", 5, true, false, ScaleRule::kAllOrNone, true},
    {NearestEntry::kNearest1dBackward, "UpsampleNearest1dBackward", 3, false, true, ScaleRule::kPerAxis,
     true},
    {NearestEntry::kNearest2dBackward, "UpsampleNearest2dBackward", 4, false, true, ScaleRule::kPerAxis,
     true},
    {NearestEntry::kNearest3dBackward, "UpsampleNearest3dBackward", 5, false, true, ScaleRule::kAllOrNone,
     true},
    {NearestEntry::kExact1dBackward, "UpsampleNearestExact1dBackward", 3, true, true, ScaleRule::kPerAxis,
     true},
    {NearestEntry::kExact2dBackward, "UpsampleNearestExact2dBackward", 4, true, true, ScaleRule::kPerAxis,
     true},
    {NearestEntry::kExact3dBackward, "UpsampleNearestExact3dBackward", 5, true, true, ScaleRule::kAllOrNone,
     true},
};

inline const NearestEntryInfo &InfoOf(NearestEntry entry) {
  for (const NearestEntryInfo &info : kNearestEntries) {
    if (info.entry == entry) return info;
  }
  return kNearestEntries[0];
}

// The D, H, W scales the entry uses of the ones passed (scales: D, H, W; the axes it lacks ignored).
inline std::array<double, 3> UsedNearestScales(const NearestEntryInfo &info,
                                               const std::array<double, 3> &scales) {
  std::array<double, 3> used{0.0, 0.0, 0.0};
  const int first = 5 - info.rank;  // the entry's first axis among D, H, W
  if (info.scales == ScaleRule::kNone) return used;
  bool all = true;
  for (int a = first; a < 3; ++a) all = all && scales[static_cast<size_t>(a)] > 0.0;
  for (int a = first; a < 3; ++a) {
    const double s = scales[static_cast<size_t>(a)];
    if (info.scales == ScaleRule::kPerAxis ? s > 0.0 : all) used[static_cast<size_t>(a)] = s;
  }
  // The V2 forwards take float scales: the scale they use is the float's value.
  if (info.entry == NearestEntry::kNearest1dV2 || info.entry == NearestEntry::kNearest2dV2) {
    for (double &s : used) s = static_cast<float>(s);
  }
  return used;
}

// GetWorkspaceSize of the entry with its arrays as given (null included): src (self / gradOut), dst
// (out / gradInput), o the outputSize array, i the inputSize array (the forwards ignore it), scales D, H, W.
inline aclnnStatus PlanNearestArrays(NearestEntry entry, const aclTensor *src, const aclIntArray *o,
                                     const aclIntArray *i, const std::array<double, 3> &scales,
                                     aclTensor *dst, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const double sd = scales[0], sh = scales[1], sw = scales[2];
  aclnnStatus s = ACLNN_ERR_PARAM_INVALID;
  switch (entry) {
    case NearestEntry::kNearest1d:
      s = aclnnUpsampleNearest1dGetWorkspaceSize(src, o, dst, workspaceSize, executor);
      break;
    case NearestEntry::kNearest2d:
      s = aclnnUpsampleNearest2dGetWorkspaceSize(src, o, dst, workspaceSize, executor);
      break;
    case NearestEntry::kNearest1dV2:
      s = aclnnUpsampleNearest1dV2GetWorkspaceSize(src, o, static_cast<float>(sw), dst, workspaceSize,
                                                   executor);
      break;
    case NearestEntry::kNearest2dV2:
      s = aclnnUpsampleNearest2dV2GetWorkspaceSize(src, o, static_cast<float>(sh), static_cast<float>(sw),
                                                   dst, workspaceSize, executor);
      break;
    case NearestEntry::kNearest3d:
      s = aclnnUpsampleNearest3dGetWorkspaceSize(src, o, sd, sh, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kExact1d:
      s = aclnnUpsampleNearestExact1dGetWorkspaceSize(src, o, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kExact2d:
      s = aclnnUpsampleNearestExact2dGetWorkspaceSize(src, o, sh, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kExact3d:
      s = aclnnUpsampleNearestExact3dGetWorkspaceSize(src, o, sd, sh, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kNearest1dBackward:
      s = aclnnUpsampleNearest1dBackwardGetWorkspaceSize(src, o, i, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kNearest2dBackward:
      s = aclnnUpsampleNearest2dBackwardGetWorkspaceSize(src, o, i, sh, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kNearest3dBackward:
      s = aclnnUpsampleNearest3dBackwardGetWorkspaceSize(src, o, i, sd, sh, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kExact1dBackward:
      s = aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(src, o, i, sw, dst, workspaceSize, executor);
      break;
    case NearestEntry::kExact2dBackward:
      s = aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(src, o, i, sh, sw, dst, workspaceSize,
                                                              executor);
      break;
    case NearestEntry::kExact3dBackward:
      s = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(src, o, i, sd, sh, sw, dst, workspaceSize,
                                                              executor);
      break;
  }
  return s;
}

// PlanNearestArrays with outputSize the large side's spatial sizes, inputSize the small side's logical
// (N, C, spatial) sizes.
inline aclnnStatus PlanNearest(NearestEntry entry, const aclTensor *src,
                               const std::vector<int64_t> &outputSize, const std::vector<int64_t> &inputSize,
                               const std::array<double, 3> &scales, aclTensor *dst, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
  aclIntArray *o = aclCreateIntArray(outputSize.data(), outputSize.size());
  aclIntArray *i = aclCreateIntArray(inputSize.data(), inputSize.size());
  const aclnnStatus s = PlanNearestArrays(entry, src, o, i, scales, dst, workspaceSize, executor);
  aclDestroyIntArray(o);
  aclDestroyIntArray(i);
  return s;
}

inline aclnnStatus RunNearest(NearestEntry entry, void *workspace, uint64_t workspaceSize,
                              aclOpExecutor *executor, aclrtStream stream) {
  switch (entry) {
    case NearestEntry::kNearest1d:
      return aclnnUpsampleNearest1d(workspace, workspaceSize, executor, stream);
    case NearestEntry::kNearest2d:
      return aclnnUpsampleNearest2d(workspace, workspaceSize, executor, stream);
    case NearestEntry::kNearest1dV2:
      return aclnnUpsampleNearest1dV2(workspace, workspaceSize, executor, stream);
    case NearestEntry::kNearest2dV2:
      return aclnnUpsampleNearest2dV2(workspace, workspaceSize, executor, stream);
    case NearestEntry::kNearest3d:
      return aclnnUpsampleNearest3d(workspace, workspaceSize, executor, stream);
    case NearestEntry::kExact1d:
      return aclnnUpsampleNearestExact1d(workspace, workspaceSize, executor, stream);
    case NearestEntry::kExact2d:
      return aclnnUpsampleNearestExact2d(workspace, workspaceSize, executor, stream);
    case NearestEntry::kExact3d:
      return aclnnUpsampleNearestExact3d(workspace, workspaceSize, executor, stream);
    case NearestEntry::kNearest1dBackward:
      return aclnnUpsampleNearest1dBackward(workspace, workspaceSize, executor, stream);
    case NearestEntry::kNearest2dBackward:
      return aclnnUpsampleNearest2dBackward(workspace, workspaceSize, executor, stream);
    case NearestEntry::kNearest3dBackward:
      return aclnnUpsampleNearest3dBackward(workspace, workspaceSize, executor, stream);
    case NearestEntry::kExact1dBackward:
      return aclnnUpsampleNearestExact1dBackward(workspace, workspaceSize, executor, stream);
    case NearestEntry::kExact2dBackward:
      return aclnnUpsampleNearestExact2dBackward(workspace, workspaceSize, executor, stream);
    case NearestEntry::kExact3dBackward:
      return aclnnUpsampleNearestExact3dBackward(workspace, workspaceSize, executor, stream);
  }
  return ACLNN_ERR_PARAM_INVALID;
}

// The entry's spatial sizes of a logical (D, H, W) triple: its last rank - 2 of them.
inline std::vector<int64_t> SpatialOf(int rank, const std::array<int64_t, 3> &dhw) {
  return std::vector<int64_t>(dhw.begin() + (5 - rank), dhw.end());
}

// One problem of an entry: small-side logical sizes (unit D / H for the 2-D / 1-D entries), large-side
// D, H, W, the scales passed, and the two tensors' formats and layouts.
struct NearestCase {
  NearestEntry entry;
  std::array<int64_t, 5> in;
  std::array<int64_t, 3> out;
  std::array<double, 3> scales{0.0, 0.0, 0.0};
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  MemLayout srcLayout = MemLayout::kContiguous;
  MemLayout dstLayout = MemLayout::kContiguous;
  bool nonFinite = false;  // inf / NaN among the source values

  std::string Describe() const {
    std::ostringstream os;
    os << InfoOf(entry).name << " " << DtypeName(dtype) << " " << FormatName(format) << " "
       << LayoutName(srcLayout) << "/" << LayoutName(dstLayout) << " in(" << in[0] << "," << in[1] << ","
       << in[2] << "," << in[3] << "," << in[4] << ") out(" << out[0] << "," << out[1] << "," << out[2]
       << ") scales(" << scales[0] << "," << scales[1] << "," << scales[2] << ")"
       << (nonFinite ? " inf/NaN" : "");
    return os.str();
  }
};

inline bool SameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Relative precision of the dtype's storage.
inline double StorageEpsilon(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
      return std::ldexp(1.0, -11);
    case ACL_BF16:
      return std::ldexp(1.0, -8);
    case ACL_DOUBLE:
      return std::ldexp(1.0, -53);
    default:
      return std::ldexp(1.0, -24);
  }
}

struct NearestRun {
  std::vector<double> srcValues;
  std::vector<double> result;
  std::vector<uint8_t> resultBytes;  // the destination's whole allocation after the run
};

// Plans and runs the case on fresh data from rng; false (with the failure) when a call fails.
inline ::testing::AssertionResult RunNearestCase(const NearestCase &c, std::mt19937_64 &rng,
                                                 NearestRun *run) {
  const NearestEntryInfo &info = InfoOf(c.entry);
  const std::array<int64_t, 5> large = {c.in[0], c.in[1], c.out[0], c.out[1], c.out[2]};
  const std::array<int64_t, 5> &srcShape = info.backward ? large : c.in;
  const std::array<int64_t, 5> &dstShape = info.backward ? c.in : large;
  DeviceTensor src(srcShape, c.dtype, c.format, c.srcLayout, Guard::kNone, info.rank);
  DeviceTensor dst(dstShape, c.dtype, c.format, c.dstLayout, Guard::kBands, info.rank);
  std::vector<double> values;
  if (c.dtype == ACL_UINT8) {
    std::uniform_int_distribution<int> byte(0, 255);
    values.resize(static_cast<size_t>(ElementCount(srcShape)));
    for (double &v : values) v = byte(rng);
  } else {
    values = RandomValues(rng, ElementCount(srcShape), Distribution::kUnitNormal);
    if (c.nonFinite && !values.empty()) SprinkleNonFinite(rng, values);
  }
  run->srcValues = src.Upload(values);
  if (c.dtype != ACL_UINT8) dst.PoisonView();  // uint8 keeps the canary bytes: no NaN to poison with
  const std::vector<uint8_t> before = dst.StorageBytes();
  std::vector<int64_t> inputSize = {c.in[0], c.in[1]};
  for (int64_t s : SpatialOf(info.rank, {c.in[2], c.in[3], c.in[4]})) inputSize.push_back(s);
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  const aclnnStatus planned = PlanNearest(c.entry, src.get(), SpatialOf(info.rank, c.out), inputSize,
                                          c.scales, dst.get(), &workspaceSize, &executor);
  if (planned != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure()
           << "GetWorkspaceSize returned " << planned << ": " << aclGetRecentErrMsg();
  }
  void *workspace = nullptr;
  if (workspaceSize > 0 && aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "workspace allocation failed";
  }
  aclrtStream stream = nullptr;
  const aclnnStatus ran = RunNearest(c.entry, workspace, workspaceSize, executor, stream);
  const aclError synced = aclrtSynchronizeDevice();
  if (workspace != nullptr) aclrtFree(workspace);
  if (ran != ACLNN_SUCCESS || synced != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "run returned " << ran << ": " << aclGetRecentErrMsg();
  }
  run->result = dst.Download();
  run->resultBytes = dst.StorageBytes();
  const ::testing::AssertionResult outside = dst.OutsideViewUnchanged(before);
  if (!outside) return outside;
  return ::testing::AssertionSuccess();
}

// The case's run against the reference: the forward bitwise equal to the picked elements (inf and NaN
// kept), the backward equal to PyTorch's ordered sums rounded once to the dtype, and within the float64
// bound of docs/spec.md §5.
inline ::testing::AssertionResult NearestCaseMatches(const NearestCase &c, std::mt19937_64 &rng) {
  const NearestEntryInfo &info = InfoOf(c.entry);
  NearestRun run;
  const ::testing::AssertionResult ran = RunNearestCase(c, rng, &run);
  if (!ran) return ::testing::AssertionFailure() << c.Describe() << ": " << ran.message();
  NearestProblem p;
  p.in = c.in;
  p.out = c.out;
  p.scales = UsedNearestScales(info, c.scales);
  p.exact = info.exact;
  // PyTorch's 1-D and 3-D nearest forwards take no size cases (docs/spec.md §9).
  p.sizeCases = info.backward || info.rank == 4;
  if (!info.backward) {
    const std::vector<double> expected = NearestForwardReference(p, run.srcValues);
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!SameValue(run.result[i], expected[i])) {
        return ::testing::AssertionFailure()
               << c.Describe() << ": out element " << i << " is " << run.result[i]
               << ", the picked self element is " << expected[i];
      }
    }
    return ::testing::AssertionSuccess();
  }
  const NearestBackwardReference r = NearestBackwardSums(p, run.srcValues, c.dtype == ACL_DOUBLE);
  const double eps = StorageEpsilon(c.dtype);
  const double accEps = c.dtype == ACL_DOUBLE ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  for (size_t i = 0; i < r.ordered.size(); ++i) {
    const double ordered = Quantize(c.dtype, r.ordered[i]);
    if (!SameValue(run.result[i], ordered)) {
      return ::testing::AssertionFailure()
             << c.Describe() << ": gradInput element " << i << " is " << run.result[i]
             << ", PyTorch's ordered sum of its " << r.terms[i] << " terms gives " << ordered;
    }
    if (std::isfinite(r.exact64[i])) {
      const double bound =
          static_cast<double>(r.terms[i]) * accEps * r.magnitude[i] + eps * std::fabs(r.exact64[i]);
      if (std::fabs(run.result[i] - r.exact64[i]) > bound) {
        return ::testing::AssertionFailure()
               << c.Describe() << ": gradInput element " << i << " is " << run.result[i] << ", float64 "
               << r.exact64[i] << " (bound " << bound << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_NEAREST_RUNNER_H_
