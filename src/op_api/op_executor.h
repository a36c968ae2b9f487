// The aclOpExecutor: a planned, single-use unit of work, and the shared run phase of every op.
#ifndef TRILINEAR3D_OP_API_OP_EXECUTOR_H_
#define TRILINEAR3D_OP_API_OP_EXECUTOR_H_

#include <cstdint>

#include "aclnn/aclnn_base.h"

struct aclOpExecutor {
  virtual ~aclOpExecutor() = default;
  virtual uint64_t WorkspaceSize() const = 0;
  // Runs the planned work (on a stream's worker thread) with a workspace of WorkspaceSize() bytes.
  virtual void Execute(void *workspace) = 0;
};

namespace trilinear3d::op_api {

// Registers a freshly planned executor so that the run phase can recognise it.
aclOpExecutor *Publish(aclOpExecutor *executor);

// The run phase (docs/spec.md §4): checks executor and workspace, then enqueues the work on stream;
// the executor is freed after it ran. A rejected call changes nothing and keeps the executor usable.
aclnnStatus RunExecutor(const char *api, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        aclrtStream stream);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_OP_EXECUTOR_H_
