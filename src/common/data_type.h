// Internal element types and their mapping from aclDataType.
#ifndef TRILINEAR3D_COMMON_DATA_TYPE_H_
#define TRILINEAR3D_COMMON_DATA_TYPE_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <cstdint>

#include "acl/acl_base.h"

namespace trilinear3d {

// kUInt8: the nearest operators' forward only (a copy of the picked elements, no arithmetic).
enum class DataType { kFloat32, kFloat16, kBFloat16, kFloat64, kUInt8 };

// Returns false for an aclDataType the operators do not support.
inline bool ToDataType(int32_t acl, DataType *out) {
  switch (acl) {
    case ACL_FLOAT:
      *out = DataType::kFloat32;
      return true;
    case ACL_FLOAT16:
      *out = DataType::kFloat16;
      return true;
    case ACL_BF16:
      *out = DataType::kBFloat16;
      return true;
    case ACL_DOUBLE:
      *out = DataType::kFloat64;
      return true;
    case ACL_UINT8:
      *out = DataType::kUInt8;
      return true;
    default:
      return false;
  }
}

inline int64_t ElementSize(DataType t) {
  switch (t) {
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return 2;
    case DataType::kFloat64:
      return 8;
    case DataType::kUInt8:
      return 1;
    case DataType::kFloat32:
      break;
  }
  return 4;
}

// Accumulation type: fp16 / bf16 / fp32 accumulate in fp32, double in double.
inline int64_t AccElementSize(DataType t) { return t == DataType::kFloat64 ? 8 : 4; }

}  // namespace trilinear3d

#endif  // TRILINEAR3D_COMMON_DATA_TYPE_H_
