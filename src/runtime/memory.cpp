// "Device" and pinned-host memory: both are host memory owned by the runtime.
//
// Every live allocation is recorded so that freeing an unknown (or already freed) pointer is a
// reported error instead of heap corruption. aclrtMemcpy / aclrtMemset are synchronous and, as in
// CANN, do not wait for streams: the caller synchronizes before touching memory a stream still uses.
// aclrtMemcpyAsync / aclrtMemsetAsync check their arguments at the call and enqueue the same copy or
// fill on the stream, where it runs in order with the operators.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>

#include <sys/mman.h>

#include "acl/acl_rt.h"
#include "runtime/enum_bits.h"
#include "runtime/error.h"
#include "runtime/stream.h"

namespace trilinear3d::runtime {
namespace {

// Cache-line alignment, and enough for any vector load the kernels use (AVX-512: 64 bytes).
constexpr size_t kAlignment = 64;

enum class AllocationKind { kDevice, kHost };

const char *AllocatorName(AllocationKind kind) {
  return kind == AllocationKind::kDevice ? "aclrtMalloc" : "aclrtMallocHost";
}
const char *DeallocatorName(AllocationKind kind) {
  return kind == AllocationKind::kDevice ? "aclrtFree" : "aclrtFreeHost";
}

struct AllocationTable {
  std::mutex mutex;
  std::unordered_map<void *, AllocationKind> live;  // guarded by mutex
};

// Never destroyed: user code may free memory from its own static destructors, which can run after
// ours would have.
AllocationTable &Allocations() {
  static AllocationTable *table = new AllocationTable;
  return *table;
}

// Huge pages for large buffers: a kernel streaming hundreds of megabytes then walks 512x fewer
// page-table entries, and the hardware prefetcher is not stopped at every 4 KiB boundary.
constexpr size_t kHugePageBytes = size_t{2} << 20;

aclError Allocate(void **ptr, size_t size, AllocationKind kind, bool hugePages) {
  const char *function = AllocatorName(kind);
  if (ptr == nullptr) {
    ReportError("%s: the output pointer is null", function);
    return ACL_ERROR_INVALID_PARAM;
  }
  *ptr = nullptr;
  if (size == 0) {
    ReportError("%s: size is 0", function);
    return ACL_ERROR_INVALID_PARAM;
  }
  // No object may exceed PTRDIFF_MAX bytes; refusing here also keeps sanitizer builds, whose
  // allocators abort on absurd sizes, returning the error code.
  if (size > static_cast<size_t>(PTRDIFF_MAX)) {
    ReportError("%s: cannot allocate %zu bytes (larger than any object can be)", function, size);
    return ACL_ERROR_BAD_ALLOC;
  }
  void *memory = nullptr;
  const bool huge = hugePages && size >= kHugePageBytes;
  // posix_memalign (unlike aligned_alloc) accepts a size that is not a multiple of the alignment.
  if (posix_memalign(&memory, huge ? kHugePageBytes : kAlignment, size) != 0 || memory == nullptr) {
    ReportError("%s: cannot allocate %zu bytes", function, size);
    return ACL_ERROR_BAD_ALLOC;
  }
#if defined(MADV_HUGEPAGE)
  if (huge) madvise(memory, size, MADV_HUGEPAGE);  // advice only: without THP it changes nothing
#endif
  try {
    AllocationTable &table = Allocations();
    std::lock_guard<std::mutex> lock(table.mutex);
    table.live.emplace(memory, kind);
  } catch (const std::bad_alloc &) {
    std::free(memory);
    ReportError("%s: out of memory while recording an allocation of %zu bytes", function, size);
    return ACL_ERROR_BAD_ALLOC;
  }
  *ptr = memory;
  return ACL_SUCCESS;
}

aclError Deallocate(void *ptr, AllocationKind kind) {
  const char *function = DeallocatorName(kind);
  if (ptr == nullptr) {
    ReportError("%s: the pointer is null", function);
    return ACL_ERROR_INVALID_PARAM;
  }
  {
    AllocationTable &table = Allocations();
    std::lock_guard<std::mutex> lock(table.mutex);
    const auto it = table.live.find(ptr);
    if (it == table.live.end()) {
      ReportError("%s: %p was not allocated by the runtime, or was already freed", function, ptr);
      return ACL_ERROR_INVALID_PARAM;
    }
    // Like CANN, device and host memory are not interchangeable: name the right function.
    if (it->second != kind) {
      ReportError("%s: %p was allocated by %s; free it with %s", function, ptr, AllocatorName(it->second),
                  DeallocatorName(it->second));
      return ACL_ERROR_INVALID_PARAM;
    }
    table.live.erase(it);
  }
  std::free(ptr);
  return ACL_SUCCESS;
}

}  // namespace
}  // namespace trilinear3d::runtime

using trilinear3d::runtime::AllocationKind;
using trilinear3d::runtime::ReportError;

// HUGE_FIRST / HUGE_ONLY (and their P2P variants) ask for transparent huge pages on buffers of
// 2 MiB or more; NORMAL_ONLY keeps normal pages. P2P has no meaning on one host.
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  const int32_t policyValue = trilinear3d::runtime::EnumBits(policy);
  const bool hugePages =
      policyValue != ACL_MEM_MALLOC_NORMAL_ONLY && policyValue != ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
  return trilinear3d::runtime::Allocate(devPtr, size, AllocationKind::kDevice, hugePages);
}

aclError aclrtFree(void *devPtr) { return trilinear3d::runtime::Deallocate(devPtr, AllocationKind::kDevice); }

aclError aclrtMallocHost(void **hostPtr, size_t size) {
  return trilinear3d::runtime::Allocate(hostPtr, size, AllocationKind::kHost, true);
}

aclError aclrtFreeHost(void *hostPtr) {
  return trilinear3d::runtime::Deallocate(hostPtr, AllocationKind::kHost);
}

// All four kinds are the same host-to-host copy. memmove, not memcpy: overlapping ranges within one
// allocation are then well defined.
namespace trilinear3d::runtime {
namespace {

// The checks shared by the synchronous and the stream-ordered copy; ACL_SUCCESS when the copy may run.
aclError CheckMemcpy(const char *function, const void *dst, size_t destMax, const void *src, size_t count,
                     int32_t kind) {
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    ReportError("%s: invalid kind %d (expected 0..3)", function, static_cast<int>(kind));
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > destMax) {
    ReportError("%s: count %zu exceeds destMax %zu", function, count, destMax);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count != 0 && (dst == nullptr || src == nullptr)) {
    ReportError("%s: %s is null (count %zu)", function, dst == nullptr ? "dst" : "src", count);
    return ACL_ERROR_INVALID_PARAM;
  }
  return ACL_SUCCESS;
}

aclError CheckMemset(const char *function, const void *devPtr, size_t maxCount, size_t count) {
  if (count > maxCount) {
    ReportError("%s: count %zu exceeds maxCount %zu", function, count, maxCount);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count != 0 && devPtr == nullptr) {
    ReportError("%s: devPtr is null (count %zu)", function, count);
    return ACL_ERROR_INVALID_PARAM;
  }
  return ACL_SUCCESS;
}

// Nothing to enqueue for an empty copy or fill, but the stream must still be a valid one.
aclError CheckStreamOnly(const char *function, aclrtStream stream) {
  if (IsValidStream(stream)) return ACL_SUCCESS;
  return NotLive(function, "stream", stream);
}

}  // namespace
}  // namespace trilinear3d::runtime

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
  const aclError status = trilinear3d::runtime::CheckMemcpy("aclrtMemcpy", dst, destMax, src, count,
                                                            trilinear3d::runtime::EnumBits(kind));
  if (status != ACL_SUCCESS || count == 0) return status;
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

// As in CANN, only the low byte of value is used (memset semantics).
aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  const aclError status = trilinear3d::runtime::CheckMemset("aclrtMemset", devPtr, maxCount, count);
  if (status != ACL_SUCCESS || count == 0) return status;
  std::memset(devPtr, static_cast<unsigned char>(value), count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  const char *function = "aclrtMemcpyAsync";
  const aclError status = trilinear3d::runtime::CheckMemcpy(function, dst, destMax, src, count,
                                                            trilinear3d::runtime::EnumBits(kind));
  if (status != ACL_SUCCESS) return status;
  if (count == 0) return trilinear3d::runtime::CheckStreamOnly(function, stream);
  return trilinear3d::runtime::Enqueue(stream, [dst, src, count] { std::memmove(dst, src, count); });
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  const char *function = "aclrtMemsetAsync";
  const aclError status = trilinear3d::runtime::CheckMemset(function, devPtr, maxCount, count);
  if (status != ACL_SUCCESS) return status;
  if (count == 0) return trilinear3d::runtime::CheckStreamOnly(function, stream);
  const auto byte = static_cast<unsigned char>(value);
  return trilinear3d::runtime::Enqueue(stream, [devPtr, byte, count] { std::memset(devPtr, byte, count); });
}
