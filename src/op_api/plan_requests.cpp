#include "op_api/plan_requests.h"

#include "op_host/kernel_registry.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace trilinear3d::op_api {
namespace {

// The choice whose name `variable` holds; `fallback` when it is unset or holds another value.
template <typename Request>
Request FromEnvironment(const char *variable, Request fallback,
                        std::initializer_list<std::pair<const char *, Request>> choices) {
  const char *text = std::getenv(variable);
  if (text == nullptr) return fallback;
  for (const auto &[name, request] : choices) {
    if (std::strcmp(text, name) == 0) return request;
  }
  return fallback;
}

}  // namespace

std::optional<tiling::Kernel> RequestedKernel() {
  const char *text = std::getenv("TRILINEAR3D_KERNEL");
  tiling::Kernel kernel;
  if (text == nullptr || !tiling::KernelNamed(text, &kernel)) return std::nullopt;
  return kernel;
}

tiling::StreamStoresRequest RequestedStreamStores() {
  using tiling::StreamStoresRequest;
  return FromEnvironment("TRILINEAR3D_STREAM_STORES", StreamStoresRequest::kAuto,
                         {{"always", StreamStoresRequest::kAlways}, {"never", StreamStoresRequest::kNever}});
}

}  // namespace trilinear3d::op_api
