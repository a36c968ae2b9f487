// A downstream CANN-style program built against the installed package only: one small backward
// op, checked against an inline float64 evaluation of docs/spec.md §2's formula.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

namespace {

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "consumer: %s failed: %s\n", #cond, aclGetRecentErrMsg()); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

struct Tap {
  int64_t i0, i1;
  double l0, l1;
};

// align_corners = false, sizes only. An axis that keeps its size has both taps on o (PyTorch's rule).
Tap TapOf(int64_t in, int64_t out, int64_t o) {
  if (in == out) return {o, o, 1.0, 0.0};
  const double scale = in == out ? 1.0 : static_cast<double>(in) / static_cast<double>(out);
  const double src = std::max(0.0, scale * (static_cast<double>(o) + 0.5) - 0.5);
  const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
  const int64_t i1 = std::min(i0 + 1, in - 1);
  const double l1 = std::clamp(src - static_cast<double>(i0), 0.0, 1.0);
  return {i0, i1, 1.0 - l1, l1};
}

}  // namespace

int main() {
  const int64_t inSize[5] = {1, 2, 2, 3, 2};
  const int64_t outSize[3] = {4, 5, 3};
  const int64_t outDims[5] = {1, 2, 4, 5, 3};
  const int64_t outStrides[5] = {120, 60, 15, 3, 1};
  const int64_t inStrides[5] = {24, 12, 6, 2, 1};
  const size_t outCount = 120, inCount = 24;

  CHECK(aclInit(nullptr) == ACL_SUCCESS);
  CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);

  std::vector<float> gradOutHost(outCount);
  for (size_t i = 0; i < outCount; ++i)
    gradOutHost[i] = (i % 2 ? 1.0f : -1.0f) * (0.5f + 0.1f * static_cast<float>(i));
  void *gradOutDev = nullptr, *gradInputDev = nullptr;
  CHECK(aclrtMalloc(&gradOutDev, outCount * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  CHECK(aclrtMalloc(&gradInputDev, inCount * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  CHECK(aclrtMemcpy(gradOutDev, outCount * 4, gradOutHost.data(), outCount * 4, ACL_MEMCPY_HOST_TO_DEVICE) ==
        ACL_SUCCESS);

  aclTensor *gradOut =
      aclCreateTensor(outDims, 5, ACL_FLOAT, outStrides, 0, ACL_FORMAT_NCDHW, outDims, 5, gradOutDev);
  aclTensor *gradInput =
      aclCreateTensor(inSize, 5, ACL_FLOAT, inStrides, 0, ACL_FORMAT_NCDHW, inSize, 5, gradInputDev);
  aclIntArray *outputSize = aclCreateIntArray(outSize, 3);
  aclIntArray *inputSize = aclCreateIntArray(inSize, 5);
  CHECK(gradOut != nullptr && gradInput != nullptr && outputSize != nullptr && inputSize != nullptr);

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  CHECK(aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, false, 0.0, 0.0, 0.0,
                                                         gradInput, &workspaceSize,
                                                         &executor) == ACLNN_SUCCESS);
  void *workspace = nullptr;
  if (workspaceSize > 0)
    CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  CHECK(aclnnUpsampleTrilinear3dBackward(workspace, workspaceSize, executor, stream) == ACLNN_SUCCESS);
  CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);

  std::vector<float> got(inCount);
  CHECK(aclrtMemcpy(got.data(), inCount * 4, gradInputDev, inCount * 4, ACL_MEMCPY_DEVICE_TO_HOST) ==
        ACL_SUCCESS);

  std::vector<double> expected(inCount, 0.0), magnitude(inCount, 0.0);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t od = 0; od < outSize[0]; ++od)
      for (int64_t oh = 0; oh < outSize[1]; ++oh)
        for (int64_t ow = 0; ow < outSize[2]; ++ow) {
          const double g = gradOutHost[static_cast<size_t>(c * 60 + od * 15 + oh * 3 + ow)];
          const Tap td = TapOf(inSize[2], outSize[0], od), th = TapOf(inSize[3], outSize[1], oh),
                    tw = TapOf(inSize[4], outSize[2], ow);
          for (int a = 0; a < 8; ++a) {
            const int64_t d = a & 4 ? td.i1 : td.i0, h = a & 2 ? th.i1 : th.i0, w = a & 1 ? tw.i1 : tw.i0;
            const double weight = (a & 4 ? td.l1 : td.l0) * (a & 2 ? th.l1 : th.l0) * (a & 1 ? tw.l1 : tw.l0);
            const size_t i = static_cast<size_t>(c * 12 + d * 6 + h * 2 + w);
            expected[i] += weight * g;
            magnitude[i] += weight * std::fabs(g);
          }
        }
  for (size_t i = 0; i < inCount; ++i) {
    if (!(std::fabs(got[i] - expected[i]) <= 1e-5 * (magnitude[i] + 1e-30))) {
      std::fprintf(stderr, "consumer: gradInput[%zu] = %.9g, expected %.9g\n", i, got[i], expected[i]);
      return 1;
    }
  }

  aclDestroyTensor(gradOut);
  aclDestroyTensor(gradInput);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  if (workspace != nullptr) aclrtFree(workspace);
  aclrtFree(gradOutDev);
  aclrtFree(gradInputDev);
  CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
  CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
  CHECK(aclFinalize() == ACL_SUCCESS);
  std::printf("consumer: ok\n");
  return 0;
}
