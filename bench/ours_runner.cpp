#include "ours_runner.h"

#include <stdexcept>
#include <string>
#include <vector>

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

// A contiguous tensor over `data` in the case's format: view (N,C,D,H,W) for NCDHW, (N,D,H,W,C) for NDHWC.
aclTensor *MakeTensor(const std::array<int64_t, 5> &ncdhw, const BenchCase &benchCase, void *data) {
  std::vector<int64_t> view(ncdhw.begin(), ncdhw.end());
  if (benchCase.channelsLast) view = {ncdhw[0], ncdhw[2], ncdhw[3], ncdhw[4], ncdhw[1]};
  std::vector<int64_t> strides(5, 1);
  for (int i = 3; i >= 0; --i) strides[i] = strides[i + 1] * view[i + 1];
  const aclFormat format = benchCase.channelsLast ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  aclTensor *tensor = aclCreateTensor(view.data(), view.size(), AclType(benchCase.dtype), strides.data(), 0,
                                      format, view.data(), view.size(), data);
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
  const std::array<int64_t, 5> sourceShape = case_.forward ? case_.input : case_.Output();
  const std::array<int64_t, 5> destinationShape = case_.forward ? case_.Output() : case_.input;
  sourceBytes_ = (case_.forward ? case_.InputElements() : case_.OutputElements()) * elementSize;
  destinationBytes_ = (case_.forward ? case_.OutputElements() : case_.InputElements()) * elementSize;
  source_ = Allocate(sourceBytes_);
  destination_ = Allocate(destinationBytes_);
  // Fault in the destination's pages once, as a framework's caching allocator would have.
  aclrtMemset(destination_, destinationBytes_, 0, destinationBytes_);
  sourceTensor_ = MakeTensor(sourceShape, case_, source_);
  destinationTensor_ = MakeTensor(destinationShape, case_, destination_);
  outputSize_ = aclCreateIntArray(case_.outSize.data(), case_.outSize.size());
  inputSize_ = aclCreateIntArray(case_.input.data(), case_.input.size());
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

double OursRunner::RunMs() {
  const double start = NowMs();
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  // Scales 0: the sizes decide (all three would have to be > 0 to be used).
  aclnnStatus status =
      case_.forward
          ? aclnnUpsampleTrilinear3dGetWorkspaceSize(sourceTensor_, outputSize_, case_.alignCorners, 0.0, 0.0,
                                                     0.0, destinationTensor_, &workspaceSize, &executor)
          : aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(sourceTensor_, outputSize_, inputSize_,
                                                             case_.alignCorners, 0.0, 0.0, 0.0,
                                                             destinationTensor_, &workspaceSize, &executor);
  if (status != ACLNN_SUCCESS) Fail("GetWorkspaceSize", status);
  if (workspaceSize > workspaceCapacity_) {
    if (workspace_ != nullptr) aclrtFree(workspace_);
    workspace_ = Allocate(workspaceSize);
    workspaceCapacity_ = workspaceSize;
  }
  workspaceBytes_ = workspaceSize;
  void *workspace = workspaceSize > 0 ? workspace_ : nullptr;
  status = case_.forward ? aclnnUpsampleTrilinear3d(workspace, workspaceSize, executor, stream_)
                         : aclnnUpsampleTrilinear3dBackward(workspace, workspaceSize, executor, stream_);
  if (status != ACLNN_SUCCESS)
    Fail(case_.forward ? "aclnnUpsampleTrilinear3d" : "aclnnUpsampleTrilinear3dBackward", status);
  const aclError synced = aclrtSynchronizeStream(stream_);
  if (synced != ACL_SUCCESS) Fail("aclrtSynchronizeStream", synced);
  return NowMs() - start;
}

}  // namespace bench
