// What the examples share: the error macros, device and stream set-up, a contiguous device tensor
// made from host data (the seed's sample, test_aclnn_upsample_trilinear3d_backward.cpp, keeps its own
// copy of these, as the seed wrote them), the run phase's workspace, the wait for the result and its
// copy back to the host, and the teardown.
#ifndef TRILINEAR3D_EXAMPLES_ACL_EXAMPLE_H_
#define TRILINEAR3D_EXAMPLES_ACL_EXAMPLE_H_

#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

inline int64_t GetShapeSize(const std::vector<int64_t> &shape) {
  int64_t shapeSize = 1;
  for (auto dim : shape) {
    shapeSize *= dim;
  }
  return shapeSize;
}

inline int Init(int32_t deviceId, aclrtStream *stream) {
  auto ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
  ret = aclrtSetDevice(deviceId);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
  ret = aclrtCreateStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
  return 0;
}

// A contiguous tensor holding hostData, its view shape given in the order of its format: for NDHWC
// the view is (N, D, H, W, C), so row-major strides over the view are channels-last memory.
template <typename T>
int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape, void **deviceAddr,
                    aclDataType dataType, aclTensor **tensor, aclFormat format = ACL_FORMAT_NCDHW) {
  auto size = GetShapeSize(shape) * sizeof(T);
  auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
  ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
    strides[i] = shape[i + 1] * strides[i + 1];
  }
  *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, format, shape.data(),
                            shape.size(), *deviceAddr);
  CHECK_RET(*tensor != nullptr, LOG_PRINT("aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
            return ACL_ERROR_INTERNAL_ERROR);
  return 0;
}

// The workspace GetWorkspaceSize asked for; none (nullptr) when it asked for 0 bytes.
inline int MallocWorkspace(uint64_t workspaceSize, void **workspaceAddr) {
  *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    auto ret = aclrtMalloc(workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
  }
  return 0;
}

// Frees what MallocWorkspace allocated (nothing when it allocated nothing).
inline void FreeWorkspace(void *workspaceAddr) {
  if (workspaceAddr != nullptr) {
    aclrtFree(workspaceAddr);
  }
}

// Undoes Init: the stream, the device, then acl itself.
inline void Finalize(int32_t deviceId, aclrtStream stream) {
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
}

// Waits for the stream, then copies the count elements of a device result into hostData.
template <typename T>
int SynchronizeAndCopyBack(aclrtStream stream, const void *deviceAddr, int64_t count,
                           std::vector<T> *hostData) {
  auto ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
  hostData->assign(count, 0);
  ret = aclrtMemcpy(hostData->data(), hostData->size() * sizeof(T), deviceAddr, count * sizeof(T),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  return 0;
}

#endif  // TRILINEAR3D_EXAMPLES_ACL_EXAMPLE_H_
