// Contexts, run mode and memory information.
//
// CANN's rule for the current context is per thread: aclrtSetDevice makes the device's default context
// current on the calling thread (created on the first aclrtSetDevice); aclrtCreateContext and
// aclrtSetCurrentContext make an explicit one current there; a thread that has done neither has none.
// The default context cannot be destroyed; aclFinalize destroys them all. On the CPU a context holds no
// resources (streams and memory are process-wide), so contexts are handles whose lifetime is checked.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

#include "acl/acl_rt.h"
#include "runtime/enum_bits.h"
#include "runtime/error.h"
#include "runtime/runtime_internal.h"

namespace trilinear3d::runtime {
namespace {

constexpr int32_t kOnlyDeviceId = 0;

struct ContextRegistry {
  std::mutex mutex;
  std::unordered_set<const void *> live;  // guarded by mutex; the default context included
  void *defaultContext = nullptr;         // guarded by mutex; created by the first aclrtSetDevice
  uint64_t epoch = 0;                     // guarded by mutex; advanced by aclFinalize
};

ContextRegistry &Registry() {
  static ContextRegistry *registry = new ContextRegistry;
  return *registry;
}

// The calling thread's explicit context (null: none), and whether it has set the device since the
// last aclFinalize (its device epoch equals the registry's).
thread_local void *t_explicitContext = nullptr;
thread_local uint64_t t_deviceEpoch = UINT64_MAX;

bool IsLiveLocked(const ContextRegistry &registry, const void *context) {
  return context != nullptr && registry.live.count(context) != 0;
}

}  // namespace

void *NewHandle() {
  // Distinct from small integers and aligned like a pointer, so that it reads as one in messages.
  static std::atomic<uintptr_t> next{0x10000};
  return reinterpret_cast<void *>(next.fetch_add(16, std::memory_order_relaxed));
}

void OnSetDevice() {
  ContextRegistry &registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (registry.defaultContext == nullptr) {
    void *handle = NewHandle();
    try {
      registry.live.insert(handle);
    } catch (const std::bad_alloc &) {
      // aclrtSetDevice itself still succeeds; the thread is then left without a current context.
      ReportError("aclrtSetDevice: out of memory while creating the default context");
      return;
    }
    registry.defaultContext = handle;
  }
  t_deviceEpoch = registry.epoch;
  t_explicitContext = nullptr;  // the default context becomes current
}

void OnResetDevice() {
  ContextRegistry &registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  t_deviceEpoch = UINT64_MAX;
  if (t_explicitContext == registry.defaultContext) t_explicitContext = nullptr;
}

void DestroyAllContexts() {
  ContextRegistry &registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.live.clear();
  registry.defaultContext = nullptr;
  ++registry.epoch;
}

}  // namespace trilinear3d::runtime

using trilinear3d::runtime::NotLive;
using trilinear3d::runtime::NullArgument;
using trilinear3d::runtime::ReportError;

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
  if (context == nullptr) return NullArgument("aclrtCreateContext", "context");
  *context = nullptr;
  if (deviceId != trilinear3d::runtime::kOnlyDeviceId) {
    ReportError("aclrtCreateContext: invalid device id %d (the CPU runtime has exactly one device, id 0)",
                static_cast<int>(deviceId));
    return ACL_ERROR_RT_INVALID_DEVICEID;
  }
  void *handle = trilinear3d::runtime::NewHandle();
  auto &registry = trilinear3d::runtime::Registry();
  try {
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.live.insert(handle);
  } catch (const std::bad_alloc &) {
    ReportError("aclrtCreateContext: out of memory");
    return ACL_ERROR_BAD_ALLOC;
  }
  trilinear3d::runtime::t_explicitContext = handle;
  *context = handle;
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  if (context == nullptr) return NullArgument("aclrtDestroyContext", "context");
  auto &registry = trilinear3d::runtime::Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (context == registry.defaultContext) {
    ReportError(
        "aclrtDestroyContext: %p is the default context, which only aclrtResetDevice / aclFinalize end",
        context);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (registry.live.erase(context) == 0) return NotLive("aclrtDestroyContext", "context", context);
  // Other threads still naming it find it gone at their next aclrtGetCurrentContext.
  if (trilinear3d::runtime::t_explicitContext == context) trilinear3d::runtime::t_explicitContext = nullptr;
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  if (context == nullptr) return NullArgument("aclrtSetCurrentContext", "context");
  auto &registry = trilinear3d::runtime::Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (!trilinear3d::runtime::IsLiveLocked(registry, context))
    return NotLive("aclrtSetCurrentContext", "context", context);
  trilinear3d::runtime::t_explicitContext = context;
  return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
  if (context == nullptr) return NullArgument("aclrtGetCurrentContext", "context");
  *context = nullptr;
  auto &registry = trilinear3d::runtime::Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  void *&explicitContext = trilinear3d::runtime::t_explicitContext;
  if (explicitContext != nullptr && !trilinear3d::runtime::IsLiveLocked(registry, explicitContext)) {
    explicitContext = nullptr;  // destroyed meanwhile, by another thread or by aclFinalize
  }
  if (explicitContext != nullptr) {
    *context = explicitContext;
    return ACL_SUCCESS;
  }
  if (trilinear3d::runtime::t_deviceEpoch == registry.epoch && registry.defaultContext != nullptr) {
    *context = registry.defaultContext;
    return ACL_SUCCESS;
  }
  ReportError(
      "aclrtGetCurrentContext: this thread has no current context (call aclrtSetDevice, "
      "aclrtCreateContext or aclrtSetCurrentContext first)");
  return ACL_ERROR_RT_CONTEXT_NULL;
}

// The program runs on the host and the operators' "device" is the host as well, as with an NPU card
// in a server, so host code written for that case runs unchanged.
aclError aclrtGetRunMode(aclrtRunMode *runMode) {
  if (runMode == nullptr) return NullArgument("aclrtGetRunMode", "runMode");
  *runMode = ACL_HOST;
  return ACL_SUCCESS;
}

namespace {

// MemAvailable from /proc/meminfo (what can be allocated without swapping), in bytes; 0 when absent.
size_t AvailableBytesFromProc() {
  FILE *file = std::fopen("/proc/meminfo", "r");
  if (file == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, file) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
    kib = 0;
  }
  std::fclose(file);
  return static_cast<size_t>(kib) * 1024;
}

}  // namespace

// Every attribute names memory of the one device, which is the host's: all report the same figures.
aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
  const int32_t attrValue = trilinear3d::runtime::EnumBits(attr);
  if (attrValue < ACL_DDR_MEM || attrValue > ACL_HBM_MEM_P2P_NORMAL) {
    ReportError("aclrtGetMemInfo: invalid attr %d (expected 0..9)", attrValue);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (free == nullptr || total == nullptr) {
    ReportError("aclrtGetMemInfo: %s is null", free == nullptr ? "free" : "total");
    return ACL_ERROR_INVALID_PARAM;
  }
  const long pageSize = sysconf(_SC_PAGESIZE);
  const long pages = sysconf(_SC_PHYS_PAGES);
  if (pageSize <= 0 || pages <= 0) {
    ReportError("aclrtGetMemInfo: cannot read the host's memory size");
    return ACL_ERROR_RT_FAILURE;
  }
  const size_t totalBytes = static_cast<size_t>(pages) * static_cast<size_t>(pageSize);
  size_t freeBytes = AvailableBytesFromProc();
  if (freeBytes == 0) {
    const long freePages = sysconf(_SC_AVPHYS_PAGES);
    freeBytes = freePages > 0 ? static_cast<size_t>(freePages) * static_cast<size_t>(pageSize) : 0;
  }
  *total = totalBytes;
  *free = freeBytes < totalBytes ? freeBytes : totalBytes;
  return ACL_SUCCESS;
}
