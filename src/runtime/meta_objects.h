// Definitions of the opaque aclnn meta objects. Internal: the public headers only declare them.
#ifndef TRILINEAR3D_RUNTIME_META_OBJECTS_H_
#define TRILINEAR3D_RUNTIME_META_OBJECTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

struct aclTensor {
  std::vector<int64_t> viewDims;
  std::vector<int64_t> strides;  // in elements, one per view dim
  int64_t offset = 0;            // in elements
  std::vector<int64_t> storageDims;
  // Kept as plain integers: a C caller may pass any value, and an enum holding a value outside its
  // range is undefined behaviour in C++. Validation compares them with the enumerators.
  int32_t dataType = ACL_DT_UNDEFINED;
  int32_t format = ACL_FORMAT_ND;
  void *data = nullptr;
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclFloatArray {
  std::vector<float> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};

struct aclScalar {
  int32_t dataType = ACL_DT_UNDEFINED;       // a plain integer, as in aclTensor
  size_t size = 0;                           // bytes of value in use: the dtype's element size
  alignas(16) unsigned char value[16] = {};  // the largest element is ACL_COMPLEX128's
};

#endif  // TRILINEAR3D_RUNTIME_META_OBJECTS_H_
