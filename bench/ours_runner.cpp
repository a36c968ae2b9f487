#include "ours_runner.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
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
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "bench_timing.h"

namespace bench {
namespace {

[[noreturn]] void Fail(const std::string &what, int code) {
  const char *message = aclGetRecentErrMsg();
  throw std::runtime_error(what + " failed with " + std::to_string(code) + (message ? ": " : "") +
                           (message ? message : ""));
}

aclDataType AclType(DType dtype) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};  // in DType's order
  return kTypes[static_cast<int>(dtype)];
}

aclFormat FormatOf(const BenchCase &benchCase) {
  switch (benchCase.SpatialRank()) {
    case 1:
      return ACL_FORMAT_NCL;
    case 2:
      return benchCase.channelsLast ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
    default:
      return benchCase.channelsLast ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  }
}

// A contiguous tensor over `data` in the case's format: the view in memory order (N, C, spatial... or
// N, spatial..., C for channels last).
aclTensor *MakeTensor(const std::vector<int64_t> &sizes, const BenchCase &benchCase, void *data) {
  const std::vector<int64_t> view = InMemoryOrder(sizes, benchCase.channelsLast);
  const std::vector<int64_t> strides = StridesOf(view, false);
  aclTensor *tensor = aclCreateTensor(view.data(), view.size(), AclType(benchCase.dtype), strides.data(), 0,
                                      FormatOf(benchCase), view.data(), view.size(), data);
  if (tensor == nullptr) Fail("aclCreateTensor", 0);
  return tensor;
}

void *Allocate(uint64_t bytes) {
  void *memory = nullptr;
  const aclError status = aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  if (status != ACL_SUCCESS) Fail("aclrtMalloc(" + std::to_string(bytes) + ")", status);
  return memory;
}

}  // namespace

aclrtStream OursStream() {
  static aclrtStream stream = [] {
    aclError status = aclInit(nullptr);
    if (status != ACL_SUCCESS) Fail("aclInit", status);
    status = aclrtSetDevice(0);
    if (status != ACL_SUCCESS) Fail("aclrtSetDevice", status);
    aclrtStream created = nullptr;
    status = aclrtCreateStream(&created);
    if (status != ACL_SUCCESS) Fail("aclrtCreateStream", status);
    return created;
  }();
  return stream;
}

OursRunner::OursRunner(const BenchCase &benchCase) : case_(benchCase), stream_(OursStream()) {
  const int64_t elementSize = ElementSize(case_.dtype);
  // Backward reads gradOut (the upsampled shape) and writes gradInput; forward reads x, writes y.
  const std::vector<int64_t> sourceShape = case_.forward ? case_.input : case_.Output();
  const std::vector<int64_t> destinationShape = case_.forward ? case_.Output() : case_.input;
  sourceBytes_ = (case_.forward ? case_.InputElements() : case_.OutputElements()) * elementSize;
  destinationBytes_ = (case_.forward ? case_.OutputElements() : case_.InputElements()) * elementSize;
  source_ = Allocate(sourceBytes_);
  destination_ = Allocate(destinationBytes_);
  // Fault in the destination's pages once, as a framework's caching allocator would have.
  aclrtMemset(destination_, destinationBytes_, 0, destinationBytes_);
  sourceTensor_ = MakeTensor(sourceShape, case_, source_);
  destinationTensor_ = MakeTensor(destinationShape, case_, destination_);
  outputSize_ = aclCreateIntArray(case_.outSize.data(), case_.outSize.size());
  // inputSize: N, C, spatial; the bilinear 2-D backward (V2) reads it in gradOut's format's order (NHWC:
  // N, H, W, C), the nearest backwards in that logical order whatever the format.
  const std::vector<int64_t> inputSize = case_.SpatialRank() == 2 && case_.mode == Mode::kLinear
                                             ? InMemoryOrder(case_.input, case_.channelsLast)
                                             : case_.input;
  inputSize_ = aclCreateIntArray(inputSize.data(), inputSize.size());
  if (outputSize_ == nullptr || inputSize_ == nullptr) Fail("aclCreateIntArray", 0);
}

OursRunner::~OursRunner() {
  aclDestroyTensor(sourceTensor_);
  aclDestroyTensor(destinationTensor_);
  aclDestroyIntArray(outputSize_);
  aclDestroyIntArray(inputSize_);
  if (workspace_ != nullptr) aclrtFree(workspace_);
  aclrtFree(source_);
  aclrtFree(destination_);
}

namespace {

// The nearest operators' plans, without scales (0: the sizes decide).
aclnnStatus PlanNearest(const BenchCase &benchCase, aclTensor *in, const aclIntArray *outputSize,
                        const aclIntArray *inputSize, aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
  const bool exact = benchCase.mode == Mode::kNearestExact;
  if (benchCase.forward) {
    switch (benchCase.SpatialRank()) {
      case 1:
        return exact ? aclnnUpsampleNearestExact1dGetWorkspaceSize(in, outputSize, 0.0, out, workspaceSize,
                                                                   executor)
                     : aclnnUpsampleNearest1dV2GetWorkspaceSize(in, outputSize, 0.0f, out, workspaceSize,
                                                                executor);
      case 2:
        return exact ? aclnnUpsampleNearestExact2dGetWorkspaceSize(in, outputSize, 0.0, 0.0, out,
                                                                   workspaceSize, executor)
                     : aclnnUpsampleNearest2dV2GetWorkspaceSize(in, outputSize, 0.0f, 0.0f, out,
                                                                workspaceSize, executor);
      default:
        return exact ? aclnnUpsampleNearestExact3dGetWorkspaceSize(in, outputSize, 0.0, 0.0, 0.0, out,
                                                                   workspaceSize, executor)
                     : aclnnUpsampleNearest3dGetWorkspaceSize(in, outputSize, 0.0, 0.0, 0.0, out,
                                                              workspaceSize, executor);
    }
  }
  switch (benchCase.SpatialRank()) {
    case 1:
      return exact ? aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(in, outputSize, inputSize, 0.0, out,
                                                                         workspaceSize, executor)
                   : aclnnUpsampleNearest1dBackwardGetWorkspaceSize(in, outputSize, inputSize, 0.0, out,
                                                                    workspaceSize, executor);
    case 2:
      return exact ? aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(in, outputSize, inputSize, 0.0, 0.0,
                                                                         out, workspaceSize, executor)
                   : aclnnUpsampleNearest2dBackwardGetWorkspaceSize(in, outputSize, inputSize, 0.0, 0.0, out,
                                                                    workspaceSize, executor);
    default:
      return exact ? aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(in, outputSize, inputSize, 0.0, 0.0,
                                                                         0.0, out, workspaceSize, executor)
                   : aclnnUpsampleNearest3dBackwardGetWorkspaceSize(in, outputSize, inputSize, 0.0, 0.0, 0.0,
                                                                    out, workspaceSize, executor);
  }
}

// The run of a nearest operator's plan.
aclnnStatus LaunchNearest(const BenchCase &benchCase, void *workspace, uint64_t workspaceSize,
                          aclOpExecutor *executor, aclrtStream stream) {
  using Run = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
  // By exactness, spatial rank, then direction (backward, forward).
  static const Run kRuns[2][3][2] = {{{aclnnUpsampleNearest1dBackward, aclnnUpsampleNearest1dV2},
                                      {aclnnUpsampleNearest2dBackward, aclnnUpsampleNearest2dV2},
                                      {aclnnUpsampleNearest3dBackward, aclnnUpsampleNearest3d}},
                                     {{aclnnUpsampleNearestExact1dBackward, aclnnUpsampleNearestExact1d},
                                      {aclnnUpsampleNearestExact2dBackward, aclnnUpsampleNearestExact2d},
                                      {aclnnUpsampleNearestExact3dBackward, aclnnUpsampleNearestExact3d}}};
  const Run run = kRuns[benchCase.mode == Mode::kNearestExact ? 1 : 0][benchCase.SpatialRank() - 1]
                       [benchCase.forward ? 1 : 0];
  return run(workspace, workspaceSize, executor, stream);
}

}  // namespace

aclnnStatus OursRunner::Plan(uint64_t *workspaceSize, aclOpExecutor **executor) const {
  // No scales: the sizes decide (the 1-D forward's "none" is -1, the others' 0).
  const bool alignCorners = case_.alignCorners;
  aclTensor *in = sourceTensor_;
  aclTensor *out = destinationTensor_;
  if (case_.mode != Mode::kLinear)
    return PlanNearest(case_, in, outputSize_, inputSize_, out, workspaceSize, executor);
  switch (case_.SpatialRank()) {
    case 1:
      return case_.forward
                 ? aclnnUpsampleLinear1dGetWorkspaceSize(in, outputSize_, alignCorners, -1.0, out,
                                                         workspaceSize, executor)
                 : aclnnUpsampleLinear1dBackwardGetWorkspaceSize(in, outputSize_, inputSize_, alignCorners,
                                                                 0.0, out, workspaceSize, executor);
    case 2:
      if (case_.filter != Filter2d::kLinear) return PlanCubic(workspaceSize, executor);
      return case_.forward
                 ? aclnnUpsampleBilinear2dGetWorkspaceSize(in, outputSize_, alignCorners, 0.0, 0.0, out,
                                                           workspaceSize, executor)
                 : aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                       in, outputSize_, inputSize_, alignCorners, 0.0, 0.0, out, workspaceSize, executor);
    default:
      return case_.forward ? aclnnUpsampleTrilinear3dGetWorkspaceSize(in, outputSize_, alignCorners, 0.0, 0.0,
                                                                      0.0, out, workspaceSize, executor)
                           : aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(in, outputSize_, inputSize_,
                                                                              alignCorners, 0.0, 0.0, 0.0,
                                                                              out, workspaceSize, executor);
  }
}

aclnnStatus OursRunner::Launch(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) const {
  if (case_.mode != Mode::kLinear) return LaunchNearest(case_, workspace, workspaceSize, executor, stream_);
  switch (case_.SpatialRank()) {
    case 1:
      return case_.forward ? aclnnUpsampleLinear1d(workspace, workspaceSize, executor, stream_)
                           : aclnnUpsampleLinear1dBackward(workspace, workspaceSize, executor, stream_);
    case 2:
      if (case_.filter != Filter2d::kLinear) return LaunchCubic(workspace, workspaceSize, executor);
      return case_.forward ? aclnnUpsampleBilinear2d(workspace, workspaceSize, executor, stream_)
                           : aclnnUpsampleBilinear2dBackwardV2(workspace, workspaceSize, executor, stream_);
    default:
      return case_.forward ? aclnnUpsampleTrilinear3d(workspace, workspaceSize, executor, stream_)
                           : aclnnUpsampleTrilinear3dBackward(workspace, workspaceSize, executor, stream_);
  }
}

aclnnStatus OursRunner::PlanCubic(uint64_t *workspaceSize, aclOpExecutor **executor) const {
  const bool align = case_.alignCorners;
  aclTensor *in = sourceTensor_;
  aclTensor *out = destinationTensor_;
  switch (case_.filter) {
    case Filter2d::kBicubic:
      return case_.forward ? aclnnUpsampleBicubic2dGetWorkspaceSize(in, outputSize_, align, 0.0, 0.0, out,
                                                                    workspaceSize, executor)
                           : aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
                                 in, outputSize_, inputSize_, align, 0.0, 0.0, out, workspaceSize, executor);
    case Filter2d::kBilinearAntialias:
      return case_.forward ? aclnnUpsampleBilinear2dAAGetWorkspaceSize(in, outputSize_, align, 0.0, 0.0, out,
                                                                       workspaceSize, executor)
                           : aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
                                 in, outputSize_, inputSize_, align, 0.0, 0.0, out, workspaceSize, executor);
    default:
      return case_.forward ? aclnnUpsampleBicubic2dAAGetWorkspaceSize(in, outputSize_, align, 0.0, 0.0, out,
                                                                      workspaceSize, executor)
                           : aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
                                 in, outputSize_, inputSize_, align, 0.0, 0.0, out, workspaceSize, executor);
  }
}

aclnnStatus OursRunner::LaunchCubic(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) const {
  switch (case_.filter) {
    case Filter2d::kBicubic:
      return case_.forward ? aclnnUpsampleBicubic2d(workspace, workspaceSize, executor, stream_)
                           : aclnnUpsampleBicubic2dBackward(workspace, workspaceSize, executor, stream_);
    case Filter2d::kBilinearAntialias:
      return case_.forward ? aclnnUpsampleBilinear2dAA(workspace, workspaceSize, executor, stream_)
                           : aclnnUpsampleBilinear2dAABackward(workspace, workspaceSize, executor, stream_);
    default:
      return case_.forward ? aclnnUpsampleBicubic2dAA(workspace, workspaceSize, executor, stream_)
                           : aclnnUpsampleBicubic2dAAGrad(workspace, workspaceSize, executor, stream_);
  }
}

double OursRunner::RunMs() {
  const double start = NowMs();
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus status = Plan(&workspaceSize, &executor);
  if (status != ACLNN_SUCCESS) Fail(std::string(case_.OperatorName()) + ": GetWorkspaceSize", status);
  if (workspaceSize > workspaceCapacity_) {
    if (workspace_ != nullptr) aclrtFree(workspace_);
    workspace_ = Allocate(workspaceSize);
    workspaceCapacity_ = workspaceSize;
  }
  workspaceBytes_ = workspaceSize;
  status = Launch(workspaceSize > 0 ? workspace_ : nullptr, workspaceSize, executor);
  if (status != ACLNN_SUCCESS) Fail(case_.OperatorName(), status);
  const aclError synced = aclrtSynchronizeStream(stream_);
  if (synced != ACL_SUCCESS) Fail("aclrtSynchronizeStream", synced);
  return NowMs() - start;
}

}  // namespace bench
