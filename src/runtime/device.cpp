// aclInit / aclFinalize and the device functions. There is exactly one "device", id 0: the host.
//
// Nothing else in the runtime requires aclInit: memory, tensors, streams and the default stream
// all work without it, because library users such as a PyTorch extension call aclnn directly.
// aclInit / aclFinalize therefore only track the init state and, for aclFinalize, the streams.
#include <mutex>

#include "acl/acl.h"
#include "runtime/error.h"
#include "runtime/runtime_internal.h"

namespace trilinear3d::runtime {
namespace {

constexpr int32_t kOnlyDeviceId = 0;

std::mutex g_initMutex;
bool g_initialized = false;  // guarded by g_initMutex

aclError CheckDeviceId(const char *function, int32_t deviceId) {
  if (deviceId == kOnlyDeviceId) return ACL_SUCCESS;
  ReportError("%s: invalid device id %d (the CPU runtime has exactly one device, id 0)", function,
              static_cast<int>(deviceId));
  return ACL_ERROR_RT_INVALID_DEVICEID;
}

}  // namespace
}  // namespace trilinear3d::runtime

using trilinear3d::runtime::NullArgument;
using trilinear3d::runtime::ReportError;

// configPath is accepted and ignored, whatever it names: the CPU runtime has nothing to configure,
// and a CANN program passing the path of its own acl.json must run unchanged.
aclError aclInit(const char * /*configPath*/) {
  std::lock_guard<std::mutex> lock(trilinear3d::runtime::g_initMutex);
  if (trilinear3d::runtime::g_initialized) {
    ReportError("aclInit: the runtime is already initialized (call aclFinalize first)");
    return ACL_ERROR_REPEAT_INITIALIZE;
  }
  trilinear3d::runtime::g_initialized = true;
  return ACL_SUCCESS;
}

// As in CANN: aclFinalize without a matching aclInit (never initialized, or finalized twice)
// returns ACL_ERROR_REPEAT_FINALIZE (100037) and does nothing. Otherwise it waits for the queued
// work of every stream, destroys all streams (their handles become invalid) and ends the runtime;
// a later aclInit is allowed, and the default stream is recreated on its next use.
// Memory from aclrtMalloc is not freed: the caller owns it.
aclError aclFinalize(void) {
  std::lock_guard<std::mutex> lock(trilinear3d::runtime::g_initMutex);
  if (!trilinear3d::runtime::g_initialized) {
    ReportError("aclFinalize: the runtime is not initialized (no aclInit, or aclFinalize called twice)");
    return ACL_ERROR_REPEAT_FINALIZE;
  }
  trilinear3d::runtime::DestroyAllStreams();
  trilinear3d::runtime::DestroyAllContexts();
  trilinear3d::runtime::g_initialized = false;
  return ACL_SUCCESS;
}

// Setting the only device is always allowed and needs no aclInit (see the top of this file). It makes
// the default context the calling thread's current one.
aclError aclrtSetDevice(int32_t deviceId) {
  const aclError status = trilinear3d::runtime::CheckDeviceId("aclrtSetDevice", deviceId);
  if (status == ACL_SUCCESS) trilinear3d::runtime::OnSetDevice();
  return status;
}

// Waits for all streams' queued work. Streams stay alive (unlike CANN, which tears down the
// device's context) so that a later aclrtDestroyStream on them still succeeds. The calling thread
// leaves the default context.
aclError aclrtResetDevice(int32_t deviceId) {
  const aclError status = trilinear3d::runtime::CheckDeviceId("aclrtResetDevice", deviceId);
  if (status != ACL_SUCCESS) return status;
  trilinear3d::runtime::OnResetDevice();
  return aclrtSynchronizeDevice();
}

// Always device 0, even before aclrtSetDevice (CANN would report a missing context): lenient.
aclError aclrtGetDevice(int32_t *deviceId) {
  if (deviceId == nullptr) return NullArgument("aclrtGetDevice", "deviceId");
  *deviceId = trilinear3d::runtime::kOnlyDeviceId;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
  if (count == nullptr) return NullArgument("aclrtGetDeviceCount", "count");
  *count = 1;
  return ACL_SUCCESS;
}
