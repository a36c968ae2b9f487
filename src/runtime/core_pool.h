// The worker "cores": a persistent thread pool running SPMD launches (blockDim, blockIdx),
// the CPU counterpart of an AI Core kernel launch.
#ifndef TRILINEAR3D_RUNTIME_CORE_POOL_H_
#define TRILINEAR3D_RUNTIME_CORE_POOL_H_

#include <cstdint>
#include <functional>

namespace trilinear3d::runtime {

// Number of worker cores: TRILINEAR3D_CORES from the environment when it is a positive
// integer (capped at 1024), else the CPUs this process may run on (its affinity mask, so taskset
// and cgroup limits count). Read once.
int ConfiguredCores();

// Runs body(blockIdx) for blockIdx in [0, blockDim) on the pool and returns when all are done.
// The caller's thread runs block 0. Launches from different threads are serialised.
// blockDim <= 0 does nothing.
void LaunchSpmd(int blockDim, const std::function<void(int blockIdx)> &body);

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_CORE_POOL_H_
