// aclnnUpsampleTrilinear3dBackward: the two-phase API. Validation follows CANN's CheckParams
// order (docs/spec.md §4); layout and dtype adaptation fold into the kernel, which reads and writes
// every supported view directly (no Contiguous / Transpose / Cast / ViewCopy copies).
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

#include "op_api/op_executor.h"
#include "op_api/plan_requests.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "runtime/core_pool.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleTrilinear3dBackward";

int32_t CheckNotNull(const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize,
                     const aclTensor *gradInput, const uint64_t *workspaceSize, aclOpExecutor **executor) {
  const struct {
    const void *p;
    const char *name;
  } args[] = {{gradOut, "gradOut"},     {outputSize, "outputSize"},       {inputSize, "inputSize"},
              {gradInput, "gradInput"}, {workspaceSize, "workspaceSize"}, {executor, "executor"}};
  for (const auto &a : args) {
    if (a.p == nullptr) {
      runtime::ReportError("%s: %s is null", kApi, a.name);
      return ACLNN_ERR_PARAM_NULLPTR;
    }
  }
  return ACLNN_SUCCESS;
}

int32_t CheckParams(const aclTensor &gradOut, const aclIntArray &outputSize, const aclIntArray &inputSize,
                    const double scales[3], const aclTensor &gradInput) {
  const op_host::OpDef &def = op_host::UpsampleTrilinear3dGradDef();
  int32_t s = CheckDataTypes(kApi, def, "gradOut", gradOut, "gradInput", gradInput);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "gradOut", gradOut);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 3);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "inputSize", inputSize, 5);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "gradInput", gradInput);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "gradOut", gradOut);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "gradInput", gradInput);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "outputSize", outputSize, 0);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "inputSize", inputSize, 2);
  if (s != ACLNN_SUCCESS) return s;
  const std::vector<int64_t> &in = inputSize.values;
  if (in[0] < 0 || in[1] < 0) {
    runtime::ReportError("%s: inputSize %s has a negative N or C", kApi, ShapeString(in).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  const std::vector<int64_t> expectedOut = {in[0], in[1], outputSize.values[0], outputSize.values[1],
                                            outputSize.values[2]};
  s = CheckLogicalShape(kApi, "gradOut", gradOut, expectedOut, "(inputSize N, C, outputSize)");
  if (s == ACLNN_SUCCESS) s = CheckLogicalShape(kApi, "gradInput", gradInput, in, "inputSize");
  if (s == ACLNN_SUCCESS) s = CheckTensorMemory(kApi, "gradOut", gradOut);
  if (s == ACLNN_SUCCESS) s = CheckTensorMemory(kApi, "gradInput", gradInput);
  if (s == ACLNN_SUCCESS) s = CheckScales(kApi, &in[2], outputSize.values.data(), scales);
  return s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesD, double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(gradOut, outputSize, inputSize, gradInput, workspaceSize, executor);
  const double scales[3] = {scalesD, scalesH, scalesW};
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*gradOut, *outputSize, *inputSize, scales, *gradInput);
  if (s != ACLNN_SUCCESS) return s;

  const DataType dataType = [&] {
    DataType t = DataType::kFloat32;
    ToDataType(gradOut->dataType, &t);
    return t;
  }();
  const kernel::TensorView5d src = op_api::KernelView(*gradOut, ElementSize(dataType));
  const kernel::TensorView5d dst = op_api::KernelView(*gradInput, ElementSize(dataType));
  tiling::TilingInput input;
  input.direction = tiling::Direction::kBackward;
  input.dataType = dataType;
  input.n = inputSize->values[0];
  input.c = inputSize->values[1];
  for (int i = 0; i < 3; ++i) {
    input.inSize[i] = inputSize->values[static_cast<size_t>(2 + i)];
    input.outSize[i] = outputSize->values[static_cast<size_t>(i)];
    input.userScales[i] = scales[i];
  }
  input.alignCorners = alignCorners;
  input.channelsContiguous = src.strides[1] == 1 && input.c > 1;  // gradOut, the tensor streamed
  input.srcUnitW = src.strides[4] == 1;
  input.cores = runtime::ConfiguredCores();
  input.passOrder = op_api::RequestedPassOrder();
  input.streamStores = op_api::RequestedStreamStores();
  return op_api::PlanAndPublish(op_api::kApi, input, src, dst, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleTrilinear3dBackward(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
