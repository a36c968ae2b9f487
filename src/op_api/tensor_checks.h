// Tensor-level checks shared by the ops' validation: formats, logical NCDHW views, limits,
// storage extents. Every failure reports a message naming the parameter and its values.
#ifndef TRILINEAR3D_OP_API_TENSOR_CHECKS_H_
#define TRILINEAR3D_OP_API_TENSOR_CHECKS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "op_kernel/kernel_args.h"
#include "runtime/meta_objects.h"

namespace trilinear3d::op_api {

constexpr int64_t kMaxDimSize = int64_t{1} << 20;  // CANN: every dim <= 2^20

std::string ShapeString(const std::vector<int64_t> &dims);
const char *FormatName(int32_t format);

// The tensor's view as logical (N, C, D, H, W) dims and strides: NDHWC views are (N, D, H, W, C), NHWC
// ones (N, H, W, C); a 4-D view (NCHW, NHWC, ND) has a unit D axis, a 3-D one (NCL, ND) unit D and H
// axes. The tensor must be of rank 3 to 5.
void LogicalNcdhw(const aclTensor &t, int64_t dims[5], int64_t strides[5]);

// Product of dims, false on int64 overflow (dims must be >= 0).
bool CheckedProduct(const std::vector<int64_t> &dims, int64_t *product);

// Step 5 for one tensor: every dim <= 2^20, element count within int64, strides >= 0, offset >= 0,
// the view's extent inside storageDims' element count, and data non-null when not empty.
// Returns ACLNN_SUCCESS or the code (message already reported).
int32_t CheckTensorMemory(const char *api, const char *name, const aclTensor &t);

struct NamedPointer {
  const void *pointer;
  const char *name;
};

// The API's pointer parameters in order: ACLNN_ERR_PARAM_NULLPTR (reported, naming it) for the
// first null one, else ACLNN_SUCCESS.
int32_t CheckNotNull(const char *api, std::initializer_list<NamedPointer> args);

// The kernel's view: data advanced by the offset, logical NCDHW dims and strides.
kernel::TensorView5d KernelView(const aclTensor &t, int64_t elementSize);

}  // namespace trilinear3d::op_api

#endif  // TRILINEAR3D_OP_API_TENSOR_CHECKS_H_
