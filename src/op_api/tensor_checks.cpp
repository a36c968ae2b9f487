#include "op_api/tensor_checks.h"

#include <limits>

#include "aclnn/aclnn_base.h"
#include "common/data_type.h"
#include "common/list_string.h"
#include "runtime/error.h"

namespace trilinear3d::op_api {

std::string ShapeString(const std::vector<int64_t> &dims) { return ListString(dims); }

const char *FormatName(int32_t format) {
  switch (format) {
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NCDHW:
      return "NCDHW";
    case ACL_FORMAT_NDHWC:
      return "NDHWC";
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_NCL:
      return "NCL";
    default:
      return "other";
  }
}

void LogicalNcdhw(const aclTensor &t, int64_t dims[5], int64_t strides[5]) {
  // Per logical axis N, C, D, H, W: the view's axis that holds it, or -1 for a unit axis the rank lacks.
  static const int kFromNcdhw[5] = {0, 1, 2, 3, 4}, kFromNdhwc[5] = {0, 4, 1, 2, 3};
  static const int kFromNchw[5] = {0, 1, -1, 2, 3}, kFromNhwc[5] = {0, 3, -1, 1, 2};
  static const int kFromNcl[5] = {0, 1, -1, -1, 2};
  const size_t rank = t.viewDims.size();
  const bool channelsLast = t.format == ACL_FORMAT_NDHWC || t.format == ACL_FORMAT_NHWC;
  const int *from = rank == 5   ? (channelsLast ? kFromNdhwc : kFromNcdhw)
                    : rank == 4 ? (channelsLast ? kFromNhwc : kFromNchw)
                                : kFromNcl;
  // A unit axis's stride spans the axis inside it, as in a contiguous tensor of the higher rank, so
  // that the view reads like any 5-D view of the same memory (W first: it always exists).
  for (int i = 4; i >= 0; --i) {
    if (from[i] >= 0) {
      dims[i] = t.viewDims[static_cast<size_t>(from[i])];
      strides[i] = t.strides[static_cast<size_t>(from[i])];
    } else {
      dims[i] = 1;
      // Saturated: validation reads the dims before CheckTensorMemory rejects a view this large (signed
      // overflow would be undefined; the fuzzer's UBSan build found it).
      if (__builtin_mul_overflow(dims[i + 1], strides[i + 1], &strides[i])) {
        strides[i] = std::numeric_limits<int64_t>::max();
      }
    }
  }
}

bool CheckedProduct(const std::vector<int64_t> &dims, int64_t *product) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(p, d, &p)) return false;
  }
  *product = p;
  return true;
}

int32_t CheckTensorMemory(const char *api, const char *name, const aclTensor &t) {
  for (size_t i = 0; i < t.viewDims.size(); ++i) {
    if (t.viewDims[i] > kMaxDimSize) {
      runtime::ReportError("%s: %s dim %zu is %lld, above the limit 2^20 (shape %s)", api, name, i,
                           static_cast<long long>(t.viewDims[i]), ShapeString(t.viewDims).c_str());
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  int64_t count = 0;
  if (!CheckedProduct(t.viewDims, &count)) {
    runtime::ReportError("%s: %s element count of shape %s overflows int64", api, name,
                         ShapeString(t.viewDims).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  for (size_t i = 0; i < t.strides.size(); ++i) {
    if (t.strides[i] < 0) {
      runtime::ReportError("%s: %s stride %zu is %lld; negative strides are not supported (strides %s)", api,
                           name, i, static_cast<long long>(t.strides[i]), ShapeString(t.strides).c_str());
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  if (t.offset < 0) {
    runtime::ReportError("%s: %s offset %lld is negative", api, name, static_cast<long long>(t.offset));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (count == 0) return ACLNN_SUCCESS;  // an empty view touches no memory
  int64_t extent = t.offset;
  for (size_t i = 0; i < t.viewDims.size(); ++i) {
    int64_t span = 0;
    if (__builtin_mul_overflow(t.viewDims[i] - 1, t.strides[i], &span) ||
        __builtin_add_overflow(extent, span, &extent)) {
      runtime::ReportError("%s: %s view (shape %s, strides %s, offset %lld) overflows int64", api, name,
                           ShapeString(t.viewDims).c_str(), ShapeString(t.strides).c_str(),
                           static_cast<long long>(t.offset));
      return ACLNN_ERR_PARAM_INVALID;
    }
  }
  int64_t storage = 0;
  int64_t storageBytes = 0;
  DataType dataType = DataType::kFloat32;
  ToDataType(t.dataType, &dataType);  // validated before this step
  if (!CheckedProduct(t.storageDims, &storage) ||
      __builtin_mul_overflow(storage, ElementSize(dataType), &storageBytes)) {
    runtime::ReportError("%s: %s storage %s holds more bytes than int64 can count", api, name,
                         ShapeString(t.storageDims).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (extent >= storage) {
    runtime::ReportError(
        "%s: %s view (shape %s, strides %s, offset %lld) reaches element %lld, outside its "
        "storage %s",
        api, name, ShapeString(t.viewDims).c_str(), ShapeString(t.strides).c_str(),
        static_cast<long long>(t.offset), static_cast<long long>(extent), ShapeString(t.storageDims).c_str());
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (t.data == nullptr) {
    runtime::ReportError("%s: %s data is null for a non-empty tensor of shape %s", api, name,
                         ShapeString(t.viewDims).c_str());
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  return ACLNN_SUCCESS;
}

int32_t CheckNotNull(const char *api, std::initializer_list<NamedPointer> args) {
  for (const NamedPointer &a : args) {
    if (a.pointer == nullptr) {
      runtime::ReportError("%s: %s is null", api, a.name);
      return ACLNN_ERR_PARAM_NULLPTR;
    }
  }
  return ACLNN_SUCCESS;
}

kernel::TensorView5d KernelView(const aclTensor &t, int64_t elementSize) {
  kernel::TensorView5d v;
  LogicalNcdhw(t, v.dims, v.strides);
  int64_t count = 0;
  // An empty view touches no memory: its offset is not checked against the storage, so it is not
  // applied either (the pointer arithmetic could overflow).
  const bool empty = !CheckedProduct(t.viewDims, &count) || count == 0;
  v.data = t.data == nullptr || empty ? t.data : static_cast<char *>(t.data) + t.offset * elementSize;
  return v;
}

}  // namespace trilinear3d::op_api
