#include "op_api/plan_requests.h"

#include <cstdlib>
#include <cstring>

namespace trilinear3d::op_api {

tiling::PassOrderRequest RequestedPassOrder() {
  const char *text = std::getenv("TRILINEAR3D_PASS_ORDER");
  if (text == nullptr) return tiling::PassOrderRequest::kAuto;
  if (std::strcmp(text, "width_first") == 0) return tiling::PassOrderRequest::kWidthFirst;
  if (std::strcmp(text, "width_last") == 0) return tiling::PassOrderRequest::kWidthLast;
  return tiling::PassOrderRequest::kAuto;
}

tiling::StreamStoresRequest RequestedStreamStores() {
  const char *text = std::getenv("TRILINEAR3D_STREAM_STORES");
  if (text == nullptr) return tiling::StreamStoresRequest::kAuto;
  if (std::strcmp(text, "always") == 0) return tiling::StreamStoresRequest::kAlways;
  if (std::strcmp(text, "never") == 0) return tiling::StreamStoresRequest::kNever;
  return tiling::StreamStoresRequest::kAuto;
}

}  // namespace trilinear3d::op_api
