// NDHWC gradOut / gradInput with explicit scales, in the style of the seed's sample.
//
// gradInput (N, D, H, W, C) = (2, 2, 3, 4, 3) and scales (2.0, 1.5, 1.75): with all three scales > 0 the
// operator uses 1/scale as the source step, and outputSize must be floor(inputSize * scale) = (4, 4, 7),
// so gradOut is (2, 4, 4, 7, 3). Both tensors are contiguous in channels-last memory. The program prints a
// few values and checks every element against a direct float64 computation of the trilinear gradient.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "acl_example.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

// One axis of the direct computation: for output index o, the two source taps and their weights.
// The formulas of the operator's documentation with align_corners false and a user scale s > 0:
// step = 1 / s, src = max(0, step * (o + 0.5) - 0.5); an axis that keeps its size has both taps on o,
// weights 1 and 0 (PyTorch's rule: an inf there makes NaN at o only).
struct Taps {
  int64_t i0, i1;
  double l0, l1;
};

Taps AxisTaps(int64_t o, int64_t in, int64_t out, double userScale) {
  if (in == out) return {o, o, 1.0, 0.0};
  double step = 1.0 / userScale;
  double src = std::max(0.0, step * (static_cast<double>(o) + 0.5) - 0.5);
  int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
  int64_t i1 = std::min(i0 + 1, in - 1);
  double l1 = std::min(std::max(src - static_cast<double>(i0), 0.0), 1.0);
  return {i0, i1, 1.0 - l1, l1};
}

int main() {
  // 1. Device and stream.
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Inputs and outputs. Sizes in NCDHW order for the API; tensor views in NDHWC order.
  const int64_t n = 2, c = 3;
  const int64_t inD = 2, inH = 3, inW = 4;
  double scalesD = 2.0;
  double scalesH = 1.5;
  double scalesW = 1.75;
  const int64_t outD = static_cast<int64_t>(std::floor(inD * scalesD));  // 4
  const int64_t outH = static_cast<int64_t>(std::floor(inH * scalesH));  // 4
  const int64_t outW = static_cast<int64_t>(std::floor(inW * scalesW));  // 7
  std::vector<int64_t> gradOutShape = {n, outD, outH, outW, c};
  std::vector<int64_t> gradInputShape = {n, inD, inH, inW, c};
  std::vector<int64_t> outputSizeData = {outD, outH, outW};
  std::vector<int64_t> inputSizeData = {n, c, inD, inH, inW};
  bool alignCorners = false;

  std::vector<float> gradOutHostData(GetShapeSize(gradOutShape));
  for (size_t i = 0; i < gradOutHostData.size(); i++) {
    gradOutHostData[i] = static_cast<float>(static_cast<int64_t>(i % 13) - 6) * 0.5f;
  }
  // gradInput is overwritten by the operator; NaN shows any element that it would miss.
  std::vector<float> gradInputHostData(GetShapeSize(gradInputShape), NAN);

  void *gradOutDeviceAddr = nullptr;
  void *gradInputDeviceAddr = nullptr;
  aclTensor *gradOut = nullptr;
  aclTensor *gradInput = nullptr;
  ret = CreateAclTensor(gradOutHostData, gradOutShape, &gradOutDeviceAddr, aclDataType::ACL_FLOAT, &gradOut,
                        aclFormat::ACL_FORMAT_NDHWC);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradInputHostData, gradInputShape, &gradInputDeviceAddr, aclDataType::ACL_FLOAT,
                        &gradInput, aclFormat::ACL_FORMAT_NDHWC);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  aclIntArray *outputSize = aclCreateIntArray(outputSizeData.data(), outputSizeData.size());
  CHECK_RET(outputSize != nullptr, return ACL_ERROR_INTERNAL_ERROR);
  aclIntArray *inputSize = aclCreateIntArray(inputSizeData.data(), inputSizeData.size());
  CHECK_RET(inputSize != nullptr, return ACL_ERROR_INTERNAL_ERROR);

  // 3. The two-phase call.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  ret = aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, alignCorners,
                                                         scalesD, scalesH, scalesW, gradInput, &workspaceSize,
                                                         &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize failed. ERROR: %d (%s)\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  void *workspaceAddr = nullptr;
  ret = MallocWorkspace(workspaceSize, &workspaceAddr);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclnnUpsampleTrilinear3dBackward(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnUpsampleTrilinear3dBackward failed. ERROR: %d\n", ret);
            return ret);

  // 4. Wait for the stream and copy the result back.
  auto size = GetShapeSize(gradInputShape);
  std::vector<float> resultData;
  ret = SynchronizeAndCopyBack(stream, gradInputDeviceAddr, size, &resultData);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 5. Check the result against the direct computation: scatter every gradOut element onto its 2x2x2
  // source corners, in float64 (NDHWC indices).
  std::vector<double> expected(size, 0.0);
  for (int64_t b = 0; b < n; b++) {
    for (int64_t od = 0; od < outD; od++) {
      Taps td = AxisTaps(od, inD, outD, scalesD);
      for (int64_t oh = 0; oh < outH; oh++) {
        Taps th = AxisTaps(oh, inH, outH, scalesH);
        for (int64_t ow = 0; ow < outW; ow++) {
          Taps tw = AxisTaps(ow, inW, outW, scalesW);
          const int64_t ds[2] = {td.i0, td.i1}, hs[2] = {th.i0, th.i1}, ws[2] = {tw.i0, tw.i1};
          const double ld[2] = {td.l0, td.l1}, lh[2] = {th.l0, th.l1}, lw[2] = {tw.l0, tw.l1};
          for (int64_t ch = 0; ch < c; ch++) {
            double g = gradOutHostData[(((b * outD + od) * outH + oh) * outW + ow) * c + ch];
            for (int corner = 0; corner < 8; corner++) {
              int kd = (corner >> 2) & 1, kh = (corner >> 1) & 1, kw = corner & 1;
              expected[(((b * inD + ds[kd]) * inH + hs[kh]) * inW + ws[kw]) * c + ch] +=
                  ld[kd] * lh[kh] * lw[kw] * g;
            }
          }
        }
      }
    }
  }

  double maxError = 0.0;
  bool ok = true;
  for (int64_t i = 0; i < size; i++) {
    double error = std::fabs(static_cast<double>(resultData[i]) - expected[i]);
    if (!(error <= 1e-5 * (1.0 + std::fabs(expected[i])))) ok = false;  // NaN fails too
    if (error > maxError || std::isnan(error)) maxError = error;
  }
  const int64_t shown[] = {0, 1, 2, c, inW * c, size - 1};
  for (int64_t i : shown) {
    int64_t ch = i % c, w = i / c % inW, h = i / (c * inW) % inH, d = i / (c * inW * inH) % inD,
            b = i / (c * inW * inH * inD);
    LOG_PRINT("gradInput[n=%ld, d=%ld, h=%ld, w=%ld, c=%ld] is: %f (direct: %f)\n", b, d, h, w, ch,
              resultData[i], expected[i]);
  }
  LOG_PRINT("checked %ld elements against the direct computation, max abs error %g: %s\n", size, maxError,
            ok ? "PASS" : "FAIL");

  // 6. Release tensors, arrays and memory.
  aclDestroyTensor(gradOut);
  aclDestroyTensor(gradInput);
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  aclrtFree(gradOutDeviceAddr);
  aclrtFree(gradInputDeviceAddr);
  FreeWorkspace(workspaceAddr);
  Finalize(deviceId, stream);
  return ok ? 0 : 1;
}
