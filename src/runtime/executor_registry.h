// Tracks live executors so that an unknown or consumed executor is detected, never dereferenced.
#ifndef TRILINEAR3D_RUNTIME_EXECUTOR_REGISTRY_H_
#define TRILINEAR3D_RUNTIME_EXECUTOR_REGISTRY_H_

#include "aclnn/acl_meta.h"

namespace trilinear3d::runtime {

void RegisterExecutor(aclOpExecutor *executor);
// Removes executor from the registry; returns false when it was not registered.
bool UnregisterExecutor(aclOpExecutor *executor);
bool IsRegisteredExecutor(const aclOpExecutor *executor);

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_EXECUTOR_REGISTRY_H_
