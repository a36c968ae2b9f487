// Replacement global operator new / delete (malloc-backed, plain and nothrow forms; the aligned
// forms stay the default pair) that remember the largest request.
// Kept in its own translation unit so the compiler cannot inline it into callers.
#include "allocation_probe.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<size_t> g_largest{0};
}  // namespace

namespace trilinear3d::test {
void ResetLargestAllocation() { g_largest = 0; }
size_t LargestAllocation() { return g_largest.load(); }
}  // namespace trilinear3d::test

void *operator new(size_t size) {
  size_t seen = g_largest.load();
  while (size > seen && !g_largest.compare_exchange_weak(seen, size)) {
  }
  if (void *p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void *operator new[](size_t size) { return ::operator new(size); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }
// The nothrow forms too: otherwise memory from the default nothrow new would reach our delete.
void *operator new(size_t size, const std::nothrow_t &) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
}
void *operator new[](size_t size, const std::nothrow_t &) noexcept {
  return ::operator new(size, std::nothrow);
}
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }
