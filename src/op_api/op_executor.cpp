#include "op_api/op_executor.h"

#include <cinttypes>

#include "runtime/error.h"
#include "runtime/executor_registry.h"
#include "runtime/stream.h"

namespace trilinear3d::op_api {

aclOpExecutor *Publish(aclOpExecutor *executor) {
  runtime::RegisterExecutor(executor);
  return executor;
}

aclnnStatus RunExecutor(const char *api, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream stream) {
  if (executor == nullptr) {
    runtime::ReportError("%s: executor is null", api);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  // Claiming the executor (removing it from the registry) before touching it makes a concurrent
  // second run of the same executor see an unknown one.
  if (!runtime::UnregisterExecutor(executor)) {
    runtime::ReportError("%s: executor %p is unknown or was already run (an executor runs once)", api,
                         static_cast<void *>(executor));
    return ACLNN_ERR_PARAM_INVALID;
  }
  const uint64_t needed = executor->WorkspaceSize();
  aclnnStatus status = ACLNN_SUCCESS;
  if (needed > 0 && workspace == nullptr) {
    runtime::ReportError("%s: workspace is null but workspaceSize %" PRIu64 " bytes are needed", api, needed);
    status = ACLNN_ERR_PARAM_NULLPTR;
  } else if (workspaceSize < needed) {
    runtime::ReportError("%s: workspaceSize %" PRIu64 " is smaller than the %" PRIu64 " bytes needed", api,
                         workspaceSize, needed);
    status = ACLNN_ERR_PARAM_INVALID;
  }
  if (status != ACLNN_SUCCESS) {
    runtime::RegisterExecutor(executor);  // usable for a corrected retry
    return status;
  }
  const aclError queued = runtime::Enqueue(stream, [executor, workspace] {
    executor->Execute(workspace);
    delete executor;
  });
  if (queued != ACL_SUCCESS) {
    // Enqueue checks the stream under the streams' lock, so a stream destroyed by another thread
    // just before is reported here as an invalid argument, not as a runtime failure.
    runtime::RegisterExecutor(executor);
    if (queued == ACL_ERROR_INVALID_PARAM) {
      runtime::ReportError("%s: stream %p is not a live stream", api, stream);
      return ACLNN_ERR_PARAM_INVALID;
    }
    runtime::ReportError("%s: could not enqueue on stream %p (error %d)", api, stream, queued);
    return ACLNN_ERR_RUNTIME_ERROR;
  }
  return ACLNN_SUCCESS;
}

}  // namespace trilinear3d::op_api

// CANN's aclDestroyAclOpExecutor: frees an executor that was planned but will not be run.
extern "C" aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  if (executor == nullptr) {
    trilinear3d::runtime::ReportError("aclDestroyAclOpExecutor: executor is null");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (!trilinear3d::runtime::UnregisterExecutor(executor)) {
    trilinear3d::runtime::ReportError(
        "aclDestroyAclOpExecutor: executor %p is unknown, already run or destroyed",
        static_cast<void *>(executor));
    return ACLNN_ERR_PARAM_INVALID;
  }
  delete executor;
  return ACLNN_SUCCESS;
}
