// Plan overrides read from the environment at every GetWorkspaceSize (docs/design.md, "Test-only
// environment variables"): for tests, and for comparing the kernels' choices. Unset or unrecognised values
// leave the tiling's own choice.
#ifndef TRILINEAR3D_OP_API_PLAN_REQUESTS_H_
#define TRILINEAR3D_OP_API_PLAN_REQUESTS_H_

#include <optional>

#include "op_host/resample_tiling.h"

namespace trilinear3d::op_api {

// TRILINEAR3D_KERNEL = <a registry name> (op_host/kernel_registry.cpp): that kernel wherever it
// applies; the tiling falls back to its own choice where it does not.
std::optional<tiling::Kernel> RequestedKernel();

// TRILINEAR3D_STREAM_STORES = always | never: non-temporal destination stores whatever the size.
tiling::StreamStoresRequest RequestedStreamStores();

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_PLAN_REQUESTS_H_
