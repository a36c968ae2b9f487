// Prints a digest of the operator's result bits over a fixed sweep of cases, through the public C API:
// the evidence that a restructuring or a kernel change keeps every result bit (docs/spec.md §7 makes
// the bits of one ISA tier part of the contract). The sweep is generated from a fixed seed, so two
// builds run the same problems; run it once per ISA tier (TRILINEAR3D_ISA) and per forced kernel
// (tools/bit_digest.sh does both) and compare the digests. filter_digest.cpp does the same for the 2-D
// filter operators; digest_support.h holds what the two share.
//
// Usage: bit_digest [--cases]   (--cases: one line per case before the digest, for diffing two builds)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "digest_support.h"

namespace {

using bit_digest::DeviceTensor;
using bit_digest::Dtype;
using bit_digest::FillRandom;
using bit_digest::Fnv1a;
using bit_digest::kDtypes;
using bit_digest::Rng;

struct Case {
  bool backward = true;
  const Dtype *dtype = &kDtypes[0];
  aclFormat format = ACL_FORMAT_NCDHW;
  int64_t n = 1, c = 1;
  int64_t small[3] = {1, 1, 1};  // gradInput (backward) / self (forward): D, H, W
  int64_t large[3] = {1, 1, 1};  // gradOut (backward) / out (forward): D, H, W
  bool alignCorners = false;
  double scales[3] = {0.0, 0.0, 0.0};
};

// The case's tensor of D, H, W sizes dhw in its format's order (NCDHW or NDHWC).
DeviceTensor TensorOf(const Case &c, const int64_t dhw[3]) {
  return DeviceTensor(c.format == ACL_FORMAT_NDHWC ? std::vector<int64_t>{c.n, dhw[0], dhw[1], dhw[2], c.c}
                                                   : std::vector<int64_t>{c.n, c.c, dhw[0], dhw[1], dhw[2]},
                      *c.dtype, c.format);
}

// Runs one case and returns the hash of its status and result bytes.
uint64_t RunCase(const Case &c, Rng &rng, aclrtStream stream, int *status) {
  DeviceTensor source = TensorOf(c, c.backward ? c.large : c.small);
  DeviceTensor destination = TensorOf(c, c.backward ? c.small : c.large);
  std::vector<uint8_t> host(source.bytes);
  FillRandom(rng, *c.dtype, &host);
  aclrtMemcpy(source.data, source.bytes, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemset(destination.data, destination.bytes, 0x5A, destination.bytes);
  aclIntArray *outputSize = aclCreateIntArray(c.large, 3);
  const int64_t inputDims[5] = {c.n, c.c, c.small[0], c.small[1], c.small[2]};  // NCDHW for every format
  aclIntArray *inputSize = aclCreateIntArray(inputDims, 5);
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus ret = c.backward ? aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
                                     source.tensor, outputSize, inputSize, c.alignCorners, c.scales[0],
                                     c.scales[1], c.scales[2], destination.tensor, &workspaceSize, &executor)
                               : aclnnUpsampleTrilinear3dGetWorkspaceSize(
                                     source.tensor, outputSize, c.alignCorners, c.scales[0], c.scales[1],
                                     c.scales[2], destination.tensor, &workspaceSize, &executor);
  void *workspace = nullptr;
  if (ret == 0) {
    if (workspaceSize > 0) aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    ret = c.backward ? aclnnUpsampleTrilinear3dBackward(workspace, workspaceSize, executor, stream)
                     : aclnnUpsampleTrilinear3d(workspace, workspaceSize, executor, stream);
    aclrtSynchronizeStream(stream);
  }
  *status = ret;
  std::vector<uint8_t> result(destination.bytes);
  aclrtMemcpy(result.data(), result.size(), destination.data, destination.bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  if (workspace != nullptr) aclrtFree(workspace);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  std::vector<uint8_t> statusBytes(reinterpret_cast<uint8_t *>(&ret), reinterpret_cast<uint8_t *>(&ret) + 4);
  return Fnv1a(result, Fnv1a(statusBytes));
}

// Cases each kernel takes by itself (doubling stencil, downsampling, upsampling, channels inner,
// identity axes, long rows), then a random sweep over every dtype, layout, ratio and attribute.
std::vector<Case> Sweep() {
  std::vector<Case> cases;
  auto add = [&](bool backward, const Dtype *dtype, aclFormat format, int64_t n, int64_t c,
                 std::vector<int64_t> small, std::vector<int64_t> large, bool alignCorners) {
    Case k;
    k.backward = backward;
    k.dtype = dtype;
    k.format = format;
    k.n = n;
    k.c = c;
    for (int i = 0; i < 3; ++i) {
      k.small[i] = small[i];
      k.large[i] = large[i];
    }
    k.alignCorners = alignCorners;
    cases.push_back(k);
  };
  for (bool backward : {true, false}) {
    for (const Dtype &dtype : kDtypes) {
      for (aclFormat format : {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}) {
        add(backward, &dtype, format, 2, 3, {6, 9, 40}, {12, 18, 80}, false);    // doubling
        add(backward, &dtype, format, 1, 2, {5, 7, 33}, {10, 14, 66}, false);    // doubling, odd W
        add(backward, &dtype, format, 1, 3, {13, 31, 40}, {9, 17, 23}, true);    // shrinking
        add(backward, &dtype, format, 2, 5, {9, 17, 23}, {13, 31, 40}, false);   // growing
        add(backward, &dtype, format, 1, 16, {9, 17, 23}, {13, 31, 40}, false);  // channels inner, C >= 8
        add(backward, &dtype, format, 1, 4, {3, 5, 7}, {3, 9, 7}, true);         // identity axes
        add(backward, &dtype, format, 1, 9, {2, 3, 120}, {3, 5, 250}, false);    // long rows
      }
    }
  }
  Rng rng{20261201};
  for (int i = 0; i < 160; ++i) {
    Case k;
    k.backward = rng.Next() % 2 == 0;
    k.dtype = &kDtypes[rng.Next() % 4];
    k.format = rng.Next() % 2 == 0 ? ACL_FORMAT_NCDHW : ACL_FORMAT_NDHWC;
    k.n = rng.Uniform(1, 2);
    k.c = rng.Uniform(1, 12);
    k.alignCorners = rng.Next() % 3 == 0;
    const bool withScales = !k.alignCorners && rng.Next() % 3 == 0;
    for (int a = 0; a < 3; ++a) {
      k.small[a] = rng.Uniform(1, 14);
      const uint64_t kind = rng.Next() % 4;
      if (withScales) {
        k.scales[a] = 0.5 + static_cast<double>(rng.Uniform(0, 10)) * 0.25;
        k.large[a] = static_cast<int64_t>(static_cast<double>(k.small[a]) * k.scales[a]);
        if (k.large[a] < 1) k.large[a] = 1;
      } else {
        k.large[a] = kind == 0 ? 2 * k.small[a] : kind == 1 ? k.small[a] : rng.Uniform(1, 30);
      }
    }
    cases.push_back(k);
  }
  return cases;
}

}  // namespace

int main(int argc, char **argv) {
  const bool perCase = argc > 1 && std::strcmp(argv[1], "--cases") == 0;
  aclrtStream stream = nullptr;
  if (aclInit(nullptr) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&stream) != 0) {
    std::fprintf(stderr, "bit_digest: runtime initialisation failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  Rng rng{7};
  uint64_t digest = 0xCBF29CE484222325ull;
  int failed = 0;
  const std::vector<Case> cases = Sweep();
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &c = cases[i];
    int status = 0;
    const uint64_t hash = RunCase(c, rng, stream, &status);
    failed += status != 0;
    std::vector<uint8_t> hashBytes(reinterpret_cast<const uint8_t *>(&hash),
                                   reinterpret_cast<const uint8_t *>(&hash) + 8);
    digest = Fnv1a(hashBytes, digest);
    if (perCase) {
      std::printf(
          "%3zu %s %s %s n%lld c%lld %lldx%lldx%lld %s %lldx%lldx%lld ac%d s%g,%g,%g status %d %016llx\n", i,
          c.backward ? "bwd" : "fwd", c.dtype->name, c.format == ACL_FORMAT_NDHWC ? "NDHWC" : "NCDHW",
          static_cast<long long>(c.n), static_cast<long long>(c.c), static_cast<long long>(c.small[0]),
          static_cast<long long>(c.small[1]), static_cast<long long>(c.small[2]), c.backward ? "<-" : "->",
          static_cast<long long>(c.large[0]), static_cast<long long>(c.large[1]),
          static_cast<long long>(c.large[2]), c.alignCorners ? 1 : 0, c.scales[0], c.scales[1], c.scales[2],
          status, static_cast<unsigned long long>(hash));
    }
  }
  std::printf("digest %016llx cases %zu rejected %d\n", static_cast<unsigned long long>(digest), cases.size(),
              failed);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
