// The cubic group's 2-D operators (aclnnUpsampleBicubic2d, aclnnUpsampleBilinear2dAA,
// aclnnUpsampleBicubic2dAA and their backwards) run through their public API on DeviceTensors, and checked
// against the float64 reference (reference/filter_reference.h).
#ifndef TRILINEAR3D_TESTS_SUPPORT_CUBIC_OPS_H_
#define TRILINEAR3D_TESTS_SUPPORT_CUBIC_OPS_H_

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "reference/filter_reference.h"
#include "test_tensor.h"

namespace trilinear3d::test {

using CubicForwardPrepare = aclnnStatus (*)(const aclTensor *, const aclIntArray *, const bool, const double,
                                            const double, aclTensor *, uint64_t *, aclOpExecutor **);
using CubicBackwardPrepare = aclnnStatus (*)(const aclTensor *, const aclIntArray *, const aclIntArray *,
                                             const bool, double, double, aclTensor *, uint64_t *,
                                             aclOpExecutor **);
using CubicLaunch = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct CubicOp {
  FilterKind kind;
  const char *name;
  CubicForwardPrepare forwardPrepare;
  CubicLaunch forward;
  CubicBackwardPrepare backwardPrepare;
  CubicLaunch backward;
};

inline const std::vector<CubicOp> &CubicOps() {
  static const std::vector<CubicOp> ops = {
      {FilterKind::kBicubic, "Bicubic2d", aclnnUpsampleBicubic2dGetWorkspaceSize, aclnnUpsampleBicubic2d,
       aclnnUpsampleBicubic2dBackwardGetWorkspaceSize, aclnnUpsampleBicubic2dBackward},
      {FilterKind::kBilinearAntialias, "Bilinear2dAA", aclnnUpsampleBilinear2dAAGetWorkspaceSize,
       aclnnUpsampleBilinear2dAA, aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize,
       aclnnUpsampleBilinear2dAABackward},
      {FilterKind::kBicubicAntialias, "Bicubic2dAA", aclnnUpsampleBicubic2dAAGetWorkspaceSize,
       aclnnUpsampleBicubic2dAA, aclnnUpsampleBicubic2dAAGradGetWorkspaceSize, aclnnUpsampleBicubic2dAAGrad},
  };
  return ops;
}

inline std::vector<FilterKind> CubicOpsUnderTest() {
  std::vector<FilterKind> kinds;
  for (const CubicOp &op : CubicOps()) kinds.push_back(op.kind);
  return kinds;
}

inline const CubicOp &CubicOpOf(FilterKind kind) {
  for (const CubicOp &op : CubicOps()) {
    if (op.kind == kind) return op;
  }
  return CubicOps().front();
}

inline const char *CubicOpName(FilterKind kind) { return CubicOpOf(kind).name; }

// Runs the operator (forward: src self, dst out; backward: src gradOut, dst gradInput, inputSize in the order
// of `format`), synchronously.
inline aclnnStatus RunCubicOp(const FilterProblem &p, bool backward, aclFormat format, const aclTensor *src,
                              aclTensor *dst, aclrtStream stream = nullptr) {
  const CubicOp &op = CubicOpOf(p.kind);
  const int64_t outputSizeValues[2] = {p.outH, p.outW};
  aclIntArray *outputSize = aclCreateIntArray(outputSizeValues, 2);
  const int64_t nchw[4] = {p.n, p.c, p.inH, p.inW}, nhwc[4] = {p.n, p.inH, p.inW, p.c};
  aclIntArray *inputSize = aclCreateIntArray(format == ACL_FORMAT_NHWC ? nhwc : nchw, 4);
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus status = backward ? op.backwardPrepare(src, outputSize, inputSize, p.alignCorners, p.scalesH,
                                                     p.scalesW, dst, &workspaceSize, &executor)
                                : op.forwardPrepare(src, outputSize, p.alignCorners, p.scalesH, p.scalesW,
                                                    dst, &workspaceSize, &executor);
  void *workspace = nullptr;
  if (status == ACLNN_SUCCESS && workspaceSize > 0)
    aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
  if (status == ACLNN_SUCCESS)
    status = (backward ? op.backward : op.forward)(workspace, workspaceSize, executor, stream);
  if (status == ACLNN_SUCCESS) status = aclrtSynchronizeStream(stream);
  if (workspace != nullptr) aclrtFree(workspace);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  return status;
}

struct CubicRun {
  std::vector<double> input;   // what the operator read (rounded to the dtype), logical NCHW
  std::vector<double> got;     // its result, logical NCHW
  std::vector<uint8_t> bytes;  // the result's storage, raw
};

// One run on fresh N(0, 1) data, each result element within FilterTolerance of the float64 golden (unless
// check is false).
inline CubicRun ExpectCubicOpAccurate(const FilterProblem &p, bool backward, aclDataType dtype,
                                      aclFormat format, std::mt19937_64 &rng,
                                      MemLayout layout = MemLayout::kContiguous, bool check = true,
                                      Guard guard = Guard::kNone, aclrtStream stream = nullptr) {
  const Shape5 in{p.n, p.c, 1, p.inH, p.inW}, out{p.n, p.c, 1, p.outH, p.outW};
  DeviceTensor src(backward ? out : in, dtype, format, layout, guard, 4);
  DeviceTensor dst(backward ? in : out, dtype, format, layout, guard, 4);
  CubicRun run;
  run.input = src.UploadRandom(rng);
  dst.PoisonView();
  const std::vector<uint8_t> before = dst.StorageBytes();
  EXPECT_EQ(RunCubicOp(p, backward, format, src.get(), dst.get(), stream), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  run.got = dst.Download();
  run.bytes = dst.StorageBytes();
  EXPECT_TRUE(dst.OutsideViewUnchanged(before));
  if (!check) return run;
  const FilterReferenceResult ref = FilterReference(p, run.input, backward);
  int failures = 0;
  for (size_t i = 0; i < run.got.size() && failures < 5; ++i) {
    const double bound = FilterTolerance(dtype, ref.terms, ref.absSum[i], ref.tapSum[i]);
    const double error = std::abs(run.got[i] - ref.golden[i]);
    if (!(error <= bound)) {
      ADD_FAILURE() << "element " << i << ": got " << run.got[i] << ", golden " << ref.golden[i] << ", error "
                    << error << " > bound " << bound << " (" << CubicOpName(p.kind)
                    << (backward ? " backward" : " forward") << " N " << p.n << " C " << p.c << " " << p.inH
                    << "x" << p.inW << " <-> " << p.outH << "x" << p.outW << " align " << p.alignCorners
                    << " scales " << p.scalesH << ", " << p.scalesW << ")";
      ++failures;
    }
  }
  return run;
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_CUBIC_OPS_H_
