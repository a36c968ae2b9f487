// Prints a digest of the 2-D filter operators' result bits over a fixed sweep of cases, through the public
// C API: bit_digest.cpp's evidence (a restructuring or a kernel change keeps every result bit) for the
// operators that share the resampling engine's filters with the trilinear ones but take their own paths
// through it: aclnnUpsampleBicubic2d, aclnnUpsampleBilinear2d, aclnnUpsampleBilinear2dAA,
// aclnnUpsampleBicubic2dAA and their backwards (bilinear: V2, the one that takes its scales as the others
// do). The sweep is generated from a fixed seed, so two builds run the same problems; tools/bit_digest.sh
// runs it once per ISA tier (TRILINEAR3D_ISA), after bit_digest.
//
// Usage: filter_digest [--cases]   (--cases: one line per case before the digest, for diffing two builds)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "digest_support.h"

namespace {

using bit_digest::DeviceTensor;
using bit_digest::Dtype;
using bit_digest::FillRandom;
using bit_digest::Fnv1a;
using bit_digest::kDtypes;
using bit_digest::Rng;

using ForwardPlan = aclnnStatus (*)(const aclTensor *, const aclIntArray *, bool, double, double, aclTensor *,
                                    uint64_t *, aclOpExecutor **);
using BackwardPlan = aclnnStatus (*)(const aclTensor *, const aclIntArray *, const aclIntArray *, bool,
                                     double, double, aclTensor *, uint64_t *, aclOpExecutor **);
using Run = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// The operators, in the order the random cases draw them. All four take every dtype; the antialiased ones
// take channels-first tensors only (CANN's formats: op_host/op_defs.cpp), so their cases are NCHW.
struct Operator {
  const char *name;
  bool channelsLast;
  ForwardPlan forwardPlan;
  Run forward;
  BackwardPlan backwardPlan;
  Run backward;
};
constexpr Operator kOperators[] = {
    {"bicubic", true, aclnnUpsampleBicubic2dGetWorkspaceSize, aclnnUpsampleBicubic2d,
     aclnnUpsampleBicubic2dBackwardGetWorkspaceSize, aclnnUpsampleBicubic2dBackward},
    {"bilinear", true, aclnnUpsampleBilinear2dGetWorkspaceSize, aclnnUpsampleBilinear2d,
     aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize, aclnnUpsampleBilinear2dBackwardV2},
    {"bilinearAA", false, aclnnUpsampleBilinear2dAAGetWorkspaceSize, aclnnUpsampleBilinear2dAA,
     aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize, aclnnUpsampleBilinear2dAABackward},
    {"bicubicAA", false, aclnnUpsampleBicubic2dAAGetWorkspaceSize, aclnnUpsampleBicubic2dAA,
     aclnnUpsampleBicubic2dAAGradGetWorkspaceSize, aclnnUpsampleBicubic2dAAGrad},
};

struct Case {
  const Operator *op = &kOperators[0];
  bool backward = true;
  const Dtype *dtype = &kDtypes[0];
  aclFormat format = ACL_FORMAT_NCHW;
  int64_t n = 1, c = 1;
  int64_t in[2] = {1, 1};   // self (forward) / gradInput (backward): H, W
  int64_t out[2] = {1, 1};  // out (forward) / gradOut (backward): H, W; the operators' outputSize
  bool alignCorners = false;
  double scales[2] = {0.0, 0.0};
};

// The case's tensor of H, W sizes hw in its format's order (NCHW or NHWC).
DeviceTensor TensorOf(const Case &c, const int64_t hw[2]) {
  return DeviceTensor(c.format == ACL_FORMAT_NHWC ? std::vector<int64_t>{c.n, hw[0], hw[1], c.c}
                                                  : std::vector<int64_t>{c.n, c.c, hw[0], hw[1]},
                      *c.dtype, c.format);
}

// Runs one case and returns the hash of its status and result bytes.
uint64_t RunCase(const Case &c, Rng &rng, aclrtStream stream, int *status) {
  DeviceTensor source = TensorOf(c, c.backward ? c.out : c.in);
  DeviceTensor destination = TensorOf(c, c.backward ? c.in : c.out);
  std::vector<uint8_t> host(source.bytes);
  FillRandom(rng, *c.dtype, &host);
  aclrtMemcpy(source.data, source.bytes, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE);
  // Elements the operator leaves unwritten show in the digest.
  aclrtMemset(destination.data, destination.bytes, 0x5A, destination.bytes);
  aclIntArray *outputSize = aclCreateIntArray(c.out, 2);
  // inputSize in the tensors' format's order: the bicubic and bilinear backwards read it so (the
  // antialiased ones take NCHW only).
  const int64_t inputDims[4] = {c.n, c.format == ACL_FORMAT_NHWC ? c.in[0] : c.c,
                                c.format == ACL_FORMAT_NHWC ? c.in[1] : c.in[0],
                                c.format == ACL_FORMAT_NHWC ? c.c : c.in[1]};
  aclIntArray *inputSize = aclCreateIntArray(inputDims, 4);
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  aclnnStatus ret =
      c.backward ? c.op->backwardPlan(source.tensor, outputSize, inputSize, c.alignCorners, c.scales[0],
                                      c.scales[1], destination.tensor, &workspaceSize, &executor)
                 : c.op->forwardPlan(source.tensor, outputSize, c.alignCorners, c.scales[0], c.scales[1],
                                     destination.tensor, &workspaceSize, &executor);
  void *workspace = nullptr;
  if (ret == 0) {
    if (workspaceSize > 0) aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    ret = c.backward ? c.op->backward(workspace, workspaceSize, executor, stream)
                     : c.op->forward(workspace, workspaceSize, executor, stream);
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

// floor(in * scale), the output size a scale must give (the bicubic forward rejects any other); where that
// is 0 the axis keeps size 1 and drops its scale, so that every case is valid.
void ScaleAxis(int64_t in, double *scale, int64_t *out) {
  *out = static_cast<int64_t>(std::floor(static_cast<double>(in) * *scale));
  if (*out < 1) {
    *out = 1;
    *scale = 0.0;
  }
}

// Cases each path takes by itself (the exact 2x runs both ways, with rows longer than 64 and channels-last
// lanes of C >= 8 for the cubic backward's own W runs; growing, shrinking, the antialiased filters' wide
// taps at 1/7, kept sizes, scales that give the sizes), for every operator, direction, dtype and format it
// takes, then a random sweep over all of them. Every case is valid: a rejection is a finding.
std::vector<Case> Sweep() {
  std::vector<Case> cases;
  for (const Operator &op : kOperators) {
    for (bool backward : {true, false}) {
      for (const Dtype &dtype : kDtypes) {
        for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
          if (format == ACL_FORMAT_NHWC && !op.channelsLast) continue;
          auto add = [&](int64_t n, int64_t c, std::vector<int64_t> in, std::vector<int64_t> out,
                         bool alignCorners, std::vector<double> scales = {0.0, 0.0}) {
            Case k;
            k.op = &op;
            k.backward = backward;
            k.dtype = &dtype;
            k.format = format;
            k.n = n;
            k.c = c;
            for (int a = 0; a < 2; ++a) {
              k.in[a] = in[a];
              k.out[a] = out[a];
              k.scales[a] = scales[a];
            }
            k.alignCorners = alignCorners;
            cases.push_back(k);
          };
          add(2, 3, {9, 40}, {18, 80}, false);                // exact 2x
          add(1, 3, {9, 40}, {18, 80}, true);                 // 2x, align_corners: not the 2x runs
          add(1, 2, {7, 67}, {14, 134}, false);               // 2x, odd rows longer than 64
          add(1, 8, {6, 70}, {12, 140}, false);               // 2x, C >= 8, rows longer than 64
          add(1, 3, {18, 80}, {9, 40}, false);                // exact 2x down
          add(1, 3, {31, 40}, {17, 23}, true);                // shrinking
          add(2, 5, {17, 23}, {31, 40}, false);               // growing
          add(1, 16, {17, 23}, {31, 40}, true);               // growing, channels inner C >= 8
          add(1, 4, {9, 33}, {9, 33}, false);                 // sizes kept: a copy
          add(1, 4, {5, 7}, {9, 7}, true);                    // one axis kept
          add(1, 3, {70, 63}, {10, 9}, false);                // 1/7: the antialiased filters' wide taps
          add(1, 3, {70, 63}, {10, 9}, false, {0.15, 0.15});  // 1/7 or so, by the scales
          add(1, 2, {12, 20}, {18, 15}, false, {1.5, 0.75});  // scales that give the sizes
        }
      }
    }
  }
  Rng rng{20261202};
  for (int i = 0; i < 150; ++i) {
    Case k;
    k.op = &kOperators[rng.Next() % 4];
    k.backward = rng.Next() % 2 == 0;
    k.dtype = &kDtypes[rng.Next() % 4];
    const bool channelsLast = rng.Next() % 2 == 0;
    k.format = channelsLast && k.op->channelsLast ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
    k.n = rng.Uniform(1, 2);
    k.c = rng.Uniform(1, 12);
    k.alignCorners = rng.Next() % 3 == 0;
    const bool withScales = !k.alignCorners && rng.Next() % 3 == 0;
    for (int a = 0; a < 2; ++a) {
      const uint64_t kind = rng.Next() % 5;
      if (withScales) {
        k.in[a] = rng.Uniform(1, 30);
        k.scales[a] = kind == 4 ? 1.0 / static_cast<double>(rng.Uniform(3, 7))
                                : 0.5 + static_cast<double>(rng.Uniform(0, 10)) * 0.25;
        ScaleAxis(k.in[a], &k.scales[a], &k.out[a]);
      } else if (kind == 3) {  // exact 2x down
        k.out[a] = rng.Uniform(1, 20);
        k.in[a] = 2 * k.out[a];
      } else if (kind == 4) {  // a strong shrink, 1/3 to 1/7
        k.in[a] = rng.Uniform(14, 70);
        k.out[a] = std::max<int64_t>(1, k.in[a] / rng.Uniform(3, 7));
      } else {
        k.in[a] = rng.Uniform(1, 14);
        k.out[a] = kind == 0 ? 2 * k.in[a] : kind == 1 ? k.in[a] : rng.Uniform(1, 30);
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
    std::fprintf(stderr, "filter_digest: runtime initialisation failed: %s\n", aclGetRecentErrMsg());
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
      std::printf("%3zu %s %s %s %s n%lld c%lld %lldx%lld %s %lldx%lld ac%d s%g,%g status %d %016llx\n", i,
                  c.op->name, c.backward ? "bwd" : "fwd", c.dtype->name,
                  c.format == ACL_FORMAT_NHWC ? "NHWC" : "NCHW", static_cast<long long>(c.n),
                  static_cast<long long>(c.c), static_cast<long long>(c.in[0]),
                  static_cast<long long>(c.in[1]), c.backward ? "<-" : "->", static_cast<long long>(c.out[0]),
                  static_cast<long long>(c.out[1]), c.alignCorners ? 1 : 0, c.scales[0], c.scales[1], status,
                  static_cast<unsigned long long>(hash));
    }
  }
  std::printf("filter2d digest %016llx cases %zu rejected %d\n", static_cast<unsigned long long>(digest),
              cases.size(), failed);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
