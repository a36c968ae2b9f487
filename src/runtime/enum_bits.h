// The integer a caller passed for one of CANN's C enum parameters.
#ifndef TRILINEAR3D_RUNTIME_ENUM_BITS_H_
#define TRILINEAR3D_RUNTIME_ENUM_BITS_H_

#include <cstdint>
#include <cstring>

namespace trilinear3d::runtime {

// A C enum is an int, so a C caller may pass any int where the API takes one of CANN's enums
// (aclDataType, aclFormat, aclrtMemcpyKind, aclrtMemAttr, aclrtMemMallocPolicy); in C++ such a value lies
// outside the enumeration's range, and reading the enum object is undefined (UBSan's enum check reports it).
// The entry points read the bytes instead and compare integers.
template <typename Enum>
int32_t EnumBits(const Enum &value) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "CANN's enums are int-sized");
  int32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_ENUM_BITS_H_
