/**
 * The seed sample's backward call (2x2x2x2x2 gradOut -> 2x2x1x1x1 gradInput) written the way real host
 * code around an aclnn call is: inputs copied with aclrtMemcpyAsync and the output cleared with
 * aclrtMemsetAsync on the compute stream, the operator timed with two events, and the result read back
 * on a second stream that waits for the compute stream's event (aclrtStreamWaitEvent), so the host only
 * synchronizes the stream it reads from. The values must be the synchronous sample's: 36/100/164/228.
 * Exit code 0 when they are.
 */
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

#define CHECK_ACL(call)                                                                 \
  do {                                                                                  \
    const int status_ = (call);                                                         \
    if (status_ != ACL_SUCCESS) {                                                       \
      std::printf("%s failed. ERROR: %d (%s)\n", #call, status_, aclGetRecentErrMsg()); \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

int main() {
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtRunMode runMode = ACL_DEVICE;
  CHECK_ACL(aclrtGetRunMode(&runMode));
  aclrtContext context = nullptr;
  CHECK_ACL(aclrtGetCurrentContext(&context));

  aclrtStream computeStream = nullptr;
  aclrtStream copyStream = nullptr;
  CHECK_ACL(aclrtCreateStream(&computeStream));
  CHECK_ACL(aclrtCreateStream(&copyStream));
  aclrtEvent start = nullptr;
  aclrtEvent end = nullptr;
  CHECK_ACL(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE));
  CHECK_ACL(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC));

  const int64_t gradOutShape[] = {2, 2, 2, 2, 2};
  const int64_t gradOutStrides[] = {16, 8, 4, 2, 1};
  const int64_t gradInputShape[] = {2, 2, 1, 1, 1};
  const int64_t gradInputStrides[] = {2, 1, 1, 1, 1};
  constexpr size_t kGradOutCount = 32;
  constexpr size_t kGradInputCount = 4;
  const size_t gradOutBytes = kGradOutCount * sizeof(float);
  const size_t gradInputBytes = kGradInputCount * sizeof(float);

  // Pinned host buffers, as asynchronous copies want; the device side from aclrtMalloc.
  float *hostIn = nullptr;
  float *hostOut = nullptr;
  CHECK_ACL(aclrtMallocHost(reinterpret_cast<void **>(&hostIn), gradOutBytes));
  CHECK_ACL(aclrtMallocHost(reinterpret_cast<void **>(&hostOut), gradInputBytes));
  for (size_t i = 0; i < kGradOutCount; ++i) hostIn[i] = static_cast<float>(i + 1);
  for (size_t i = 0; i < kGradInputCount; ++i) hostOut[i] = -1.0f;
  void *gradOutDev = nullptr;
  void *gradInputDev = nullptr;
  CHECK_ACL(aclrtMalloc(&gradOutDev, gradOutBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&gradInputDev, gradInputBytes, ACL_MEM_MALLOC_HUGE_FIRST));

  CHECK_ACL(aclrtMemcpyAsync(gradOutDev, gradOutBytes, hostIn, gradOutBytes, ACL_MEMCPY_HOST_TO_DEVICE,
                             computeStream));
  CHECK_ACL(aclrtMemsetAsync(gradInputDev, gradInputBytes, 0x7f, gradInputBytes, computeStream));

  aclTensor *gradOut = aclCreateTensor(gradOutShape, 5, ACL_FLOAT, gradOutStrides, 0, ACL_FORMAT_NCDHW,
                                       gradOutShape, 5, gradOutDev);
  aclTensor *gradInput = aclCreateTensor(gradInputShape, 5, ACL_FLOAT, gradInputStrides, 0, ACL_FORMAT_NCDHW,
                                         gradInputShape, 5, gradInputDev);
  aclIntArray *outputSize = aclCreateIntArray(gradOutShape + 2, 3);
  aclIntArray *inputSize = aclCreateIntArray(gradInputShape, 5);
  if (gradOut == nullptr || gradInput == nullptr || outputSize == nullptr || inputSize == nullptr) {
    std::printf("creating the tensors failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  CHECK_ACL(aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, false, 0.0, 0.0,
                                                             0.0, gradInput, &workspaceSize, &executor));
  void *workspace = nullptr;
  if (workspaceSize > 0) CHECK_ACL(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));

  // start completes once the copies before it have run, end once the operator has.
  CHECK_ACL(aclrtRecordEvent(start, computeStream));
  CHECK_ACL(aclnnUpsampleTrilinear3dBackward(workspace, workspaceSize, executor, computeStream));
  CHECK_ACL(aclrtRecordEvent(end, computeStream));

  // The read-back stream waits for end, then copies; the host synchronizes that stream only.
  CHECK_ACL(aclrtStreamWaitEvent(copyStream, end));
  CHECK_ACL(aclrtMemcpyAsync(hostOut, gradInputBytes, gradInputDev, gradInputBytes, ACL_MEMCPY_DEVICE_TO_HOST,
                             copyStream));
  CHECK_ACL(aclrtSynchronizeStream(copyStream));

  aclrtEventRecordedStatus endStatus = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  CHECK_ACL(aclrtQueryEventStatus(end, &endStatus));
  float ms = -1.0f;
  CHECK_ACL(aclrtEventElapsedTime(&ms, start, end));

  const float expected[kGradInputCount] = {36.0f, 100.0f, 164.0f, 228.0f};
  int failures = 0;
  for (size_t i = 0; i < kGradInputCount; ++i) {
    std::printf("result[%zu] is: %f\n", i, hostOut[i]);
    if (hostOut[i] != expected[i]) ++failures;
  }
  if (endStatus != ACL_EVENT_RECORDED_STATUS_COMPLETE) {
    std::printf("the end event is not complete after the waiting stream ran\n");
    ++failures;
  }
  if (!(ms >= 0.0f) || !std::isfinite(ms)) {
    std::printf("elapsed time %f ms is not a non-negative number\n", ms);
    ++failures;
  }
  std::printf("backward took %.3f ms between the events (run mode %s)\n", ms,
              runMode == ACL_HOST ? "ACL_HOST" : "ACL_DEVICE");

  CHECK_ACL(aclDestroyTensor(gradOut));
  CHECK_ACL(aclDestroyTensor(gradInput));
  CHECK_ACL(aclDestroyIntArray(outputSize));
  CHECK_ACL(aclDestroyIntArray(inputSize));
  CHECK_ACL(aclrtDestroyEvent(start));
  CHECK_ACL(aclrtDestroyEvent(end));
  CHECK_ACL(aclrtSynchronizeStream(computeStream));
  CHECK_ACL(aclrtDestroyStream(computeStream));
  CHECK_ACL(aclrtDestroyStream(copyStream));
  if (workspace != nullptr) CHECK_ACL(aclrtFree(workspace));
  CHECK_ACL(aclrtFree(gradOutDev));
  CHECK_ACL(aclrtFree(gradInputDev));
  CHECK_ACL(aclrtFreeHost(hostIn));
  CHECK_ACL(aclrtFreeHost(hostOut));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  if (failures != 0) {
    std::printf("FAIL: %d check(s) failed\n", failures);
    return 1;
  }
  std::printf("event timing and async copy example: ok\n");
  return 0;
}
