// Plan overrides read from the environment at every GetWorkspaceSize (docs/design.md, "Test-only
// environment variables"): for tests, and for comparing the kernels' choices. Unset or unrecognised values
// leave the tiling's own choice.
#ifndef TRILINEAR3D_OP_API_PLAN_REQUESTS_H_
#define TRILINEAR3D_OP_API_PLAN_REQUESTS_H_

#include "op_host/upsample_trilinear3d_tiling.h"

namespace trilinear3d::op_api {

// TRILINEAR3D_PASS_ORDER = width_first | width_last: the backward's pass order.
tiling::PassOrderRequest RequestedPassOrder();

// TRILINEAR3D_STREAM_STORES = always | never: non-temporal destination stores whatever the size.
tiling::StreamStoresRequest RequestedStreamStores();

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_PLAN_REQUESTS_H_
