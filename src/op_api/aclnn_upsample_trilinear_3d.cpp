// aclnnUpsampleTrilinear3d (forward): the same two-phase API and validation style as the backward.
#include "aclnnop/aclnn_upsample_trilinear_3d.h"

#include "op_api/op_executor.h"
#include "op_api/plan_requests.h"
#include "op_api/tensor_checks.h"
#include "op_api/upsample_executor.h"
#include "op_api/upsample_validation.h"
#include "runtime/core_pool.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {
namespace {

constexpr const char *kApi = "aclnnUpsampleTrilinear3d";

int32_t CheckNotNull(const aclTensor *self, const aclIntArray *outputSize, const aclTensor *out,
                     const uint64_t *workspaceSize, aclOpExecutor **executor) {
  const struct {
    const void *p;
    const char *name;
  } args[] = {{self, "self"},
              {outputSize, "outputSize"},
              {out, "out"},
              {workspaceSize, "workspaceSize"},
              {executor, "executor"}};
  for (const auto &a : args) {
    if (a.p == nullptr) {
      runtime::ReportError("%s: %s is null", kApi, a.name);
      return ACLNN_ERR_PARAM_NULLPTR;
    }
  }
  return ACLNN_SUCCESS;
}

int32_t CheckParams(const aclTensor &self, const aclIntArray &outputSize, const double scales[3],
                    const aclTensor &out) {
  const op_host::OpDef &def = op_host::UpsampleTrilinear3dDef();
  int32_t s = CheckDataTypes(kApi, def, "self", self, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "self", self);
  if (s == ACLNN_SUCCESS) s = CheckArraySize(kApi, "outputSize", outputSize, 3);
  if (s == ACLNN_SUCCESS) s = CheckRank5(kApi, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "self", self);
  if (s == ACLNN_SUCCESS) s = CheckFormat(kApi, def, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckPositive(kApi, "outputSize", outputSize, 0);
  if (s != ACLNN_SUCCESS) return s;
  int64_t dims[5], strides[5];
  LogicalNcdhw(self, dims, strides);
  for (int i = 0; i < 5; ++i) {
    if (dims[i] < 0 || (i >= 2 && dims[i] == 0)) {
      runtime::ReportError(
          "%s: self shape %s (format %s) has an invalid dim %d = %lld (N >= 0; C, D, H, W > 0)", kApi,
          ShapeString(self.viewDims).c_str(), FormatName(self.format), i, static_cast<long long>(dims[i]));
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  // CANN's forward needs C > 0 (its op_api checks outC > 0; out's C is self's), while N = 0 is an
  // empty no-op. The backward accepts both.
  if (dims[1] == 0) {
    runtime::ReportError("%s: self shape %s (format %s) has C = 0; the forward needs C > 0 (N may be 0)",
                         kApi, ShapeString(self.viewDims).c_str(), FormatName(self.format));
    return ACLNN_ERR_PARAM_INVALID;
  }
  const std::vector<int64_t> expectedOut = {dims[0], dims[1], outputSize.values[0], outputSize.values[1],
                                            outputSize.values[2]};
  s = CheckLogicalShape(kApi, "out", out, expectedOut, "(self N, C, outputSize)");
  if (s == ACLNN_SUCCESS) s = CheckTensorMemory(kApi, "self", self);
  if (s == ACLNN_SUCCESS) s = CheckTensorMemory(kApi, "out", out);
  if (s == ACLNN_SUCCESS) s = CheckScales(kApi, &dims[2], outputSize.values.data(), scales);
  return s;
}

}  // namespace
}  // namespace trilinear3d::op_api

using namespace trilinear3d;

extern "C" aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, bool alignCorners, double scalesD, double scalesH,
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  int32_t s = op_api::CheckNotNull(self, outputSize, out, workspaceSize, executor);
  const double scales[3] = {scalesD, scalesH, scalesW};
  if (s == ACLNN_SUCCESS) s = op_api::CheckParams(*self, *outputSize, scales, *out);
  if (s != ACLNN_SUCCESS) return s;

  DataType dataType = DataType::kFloat32;
  ToDataType(self->dataType, &dataType);
  const kernel::TensorView5d src = op_api::KernelView(*self, ElementSize(dataType));
  const kernel::TensorView5d dst = op_api::KernelView(*out, ElementSize(dataType));
  tiling::TilingInput input;
  input.direction = tiling::Direction::kForward;
  input.dataType = dataType;
  input.n = src.dims[0];
  input.c = src.dims[1];
  for (int i = 0; i < 3; ++i) {
    input.inSize[i] = src.dims[2 + i];
    input.outSize[i] = outputSize->values[static_cast<size_t>(i)];
    input.userScales[i] = scales[i];
  }
  input.alignCorners = alignCorners;
  input.channelsContiguous = dst.strides[1] == 1 && input.c > 1;  // out, the tensor streamed
  input.srcUnitW = src.strides[4] == 1;
  input.cores = runtime::ConfiguredCores();
  input.streamStores = op_api::RequestedStreamStores();
  return op_api::PlanAndPublish(op_api::kApi, input, src, dst, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleTrilinear3d(void *workspace, uint64_t workspaceSize,
                                                aclOpExecutor *executor, aclrtStream stream) {
  return op_api::RunExecutor(op_api::kApi, workspace, workspaceSize, executor, stream);
}
