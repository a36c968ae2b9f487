// The forward operator aclnnUpsampleTrilinear3d, in the style of the seed's sample.
//
// self is (1, 1, 2, 2, 2) NCDHW holding x[d][h][w] = 1 + 4d + 2h + w (the values 1..8); out is
// (1, 1, 3, 3, 3) with alignCorners true, so out[od][oh][ow] samples x at (od/2, oh/2, ow/2).
// Trilinear interpolation of a linear function is exact: out = 1 + 2*od + oh + ow/2, e.g.
// result[0] = 1, result[13] = 4.5 (the centre), result[26] = 8. The program prints every value
// and checks it against that formula.
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "acl_example.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"

int main() {
  // 1. Device and stream.
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == 0, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  // 2. Inputs and outputs.
  std::vector<int64_t> selfShape = {1, 1, 2, 2, 2};
  std::vector<int64_t> outShape = {1, 1, 3, 3, 3};
  std::vector<float> selfHostData = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> outHostData(GetShapeSize(outShape), 0);
  std::vector<int64_t> outputSizeData = {3, 3, 3};
  bool alignCorners = true;
  double scalesD = 0.0;
  double scalesH = 0.0;
  double scalesW = 0.0;
  void *selfDeviceAddr = nullptr;
  void *outDeviceAddr = nullptr;
  aclTensor *self = nullptr;
  aclTensor *out = nullptr;
  ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  aclIntArray *outputSize = aclCreateIntArray(outputSizeData.data(), outputSizeData.size());
  CHECK_RET(outputSize != nullptr, return ACL_ERROR_INTERNAL_ERROR);

  // 3. The two-phase call: plan (workspace size and executor), then enqueue on the stream.
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  ret = aclnnUpsampleTrilinear3dGetWorkspaceSize(self, outputSize, alignCorners, scalesD, scalesH, scalesW,
                                                 out, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnUpsampleTrilinear3dGetWorkspaceSize failed. ERROR: %d (%s)\n",
                                          ret, aclGetRecentErrMsg());
            return ret);
  void *workspaceAddr = nullptr;
  ret = MallocWorkspace(workspaceSize, &workspaceAddr);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclnnUpsampleTrilinear3d(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnUpsampleTrilinear3d failed. ERROR: %d\n", ret); return ret);

  // 4. Wait for the stream and copy the result back.
  auto size = GetShapeSize(outShape);
  std::vector<float> resultData;
  ret = SynchronizeAndCopyBack(stream, outDeviceAddr, size, &resultData);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  // 5. Print the result and check it.
  bool ok = true;
  for (int64_t i = 0; i < size; i++) {
    int64_t od = i / 9, oh = i / 3 % 3, ow = i % 3;
    double expected = 1.0 + 2.0 * od + oh + 0.5 * ow;
    if (!(std::fabs(resultData[i] - expected) <= 1e-6)) ok = false;
    LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
  }
  LOG_PRINT("checked %ld values against 1 + 2*od + oh + ow/2: %s\n", size, ok ? "PASS" : "FAIL");

  // 6. Release tensors, arrays and memory.
  aclDestroyTensor(self);
  aclDestroyTensor(out);
  aclDestroyIntArray(outputSize);
  aclrtFree(selfDeviceAddr);
  aclrtFree(outDeviceAddr);
  FreeWorkspace(workspaceAddr);
  Finalize(deviceId, stream);
  return ok ? 0 : 1;
}
