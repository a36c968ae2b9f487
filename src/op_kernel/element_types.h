// Storage element types of the kernels: the dtype's bits and its accumulation type.
#ifndef TRILINEAR3D_OP_KERNEL_ELEMENT_TYPES_H_
#define TRILINEAR3D_OP_KERNEL_ELEMENT_TYPES_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <cstdint>

#include "common/half_convert.h"

namespace trilinear3d::kernel {

struct Fp16 {
  uint16_t bits;
};
struct Bf16 {
  uint16_t bits;
};

template <typename T>
struct AccOf {
  using type = float;
};
template <>
struct AccOf<double> {
  using type = double;
};
template <typename T>
using Acc = typename AccOf<T>::type;

inline float ToAcc(Fp16 v) { return HalfToFloat(v.bits); }
inline float ToAcc(Bf16 v) { return Bf16ToFloat(v.bits); }
inline float ToAcc(float v) { return v; }
inline double ToAcc(double v) { return v; }

template <typename T>
T FromAcc(Acc<T> v);
template <>
inline Fp16 FromAcc<Fp16>(float v) {
  return Fp16{FloatToHalf(v)};
}
template <>
inline Bf16 FromAcc<Bf16>(float v) {
  return Bf16{FloatToBf16(v)};
}
template <>
inline float FromAcc<float>(float v) {
  return v;
}
template <>
inline double FromAcc<double>(double v) {
  return v;
}

}  // namespace trilinear3d::kernel

#endif  // TRILINEAR3D_OP_KERNEL_ELEMENT_TYPES_H_
