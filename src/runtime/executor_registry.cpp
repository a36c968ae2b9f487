// The set of live executors: an executor is registered when GetWorkspaceSize creates it and
// unregistered when it is consumed, so a stale or foreign handle is detected, never dereferenced.
#include "runtime/executor_registry.h"

#include <mutex>
#include <new>
#include <unordered_set>

#include "runtime/error.h"

namespace trilinear3d::runtime {
namespace {

struct ExecutorSet {
  std::mutex mutex;
  std::unordered_set<const aclOpExecutor *> live;  // guarded by mutex
};

// Never destroyed: executors may be released by stream tasks still draining at process exit.
ExecutorSet &Executors() {
  static ExecutorSet *executors = new ExecutorSet;
  return *executors;
}

}  // namespace

void RegisterExecutor(aclOpExecutor *executor) {
  if (executor == nullptr) return;
  ExecutorSet &executors = Executors();
  try {
    std::lock_guard<std::mutex> lock(executors.mutex);
    executors.live.insert(executor);
  } catch (const std::bad_alloc &) {
    // The header gives no way to fail, and an unregistered executor is merely rejected when run.
    ReportError("out of memory while registering executor %p", static_cast<void *>(executor));
  }
}

bool UnregisterExecutor(aclOpExecutor *executor) {
  ExecutorSet &executors = Executors();
  std::lock_guard<std::mutex> lock(executors.mutex);
  return executors.live.erase(executor) != 0;
}

bool IsRegisteredExecutor(const aclOpExecutor *executor) {
  ExecutorSet &executors = Executors();
  std::lock_guard<std::mutex> lock(executors.mutex);
  return executors.live.count(executor) != 0;
}

}  // namespace trilinear3d::runtime
