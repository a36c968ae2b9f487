// Scalar fp16 / bf16 <-> fp32 conversions (round to nearest even; fp16 overflow gives +-inf).
// Used by the runtime's aclFloatToFloat16 / aclFloat16ToFloat, by kernels' scalar tails and by tests.
#ifndef TRILINEAR3D_COMMON_HALF_CONVERT_H_
#define TRILINEAR3D_COMMON_HALF_CONVERT_H_

// Baseline code: op_kernel/isa_begin.h includes it before its ISA region opens.
#if defined(TRILINEAR3D_ISA_REGION)
#error "a baseline header inside an ISA region: include it from op_kernel/isa_begin.h"
#endif

#include <cstdint>
#include <cstring>

namespace trilinear3d {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline float Bf16ToFloat(uint16_t h) { return BitsToFloat(static_cast<uint32_t>(h) << 16); }

inline uint16_t FloatToBf16(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  if (exp == 0x1fu) return BitsToFloat(sign | 0x7f800000u | (man << 13));  // inf / NaN
  if (exp != 0) return BitsToFloat(sign | ((exp + 112u) << 23) | (man << 13));
  if (man == 0) return BitsToFloat(sign);
  // Subnormal half: value = man * 2^-24, exact in float.
  const float magnitude = static_cast<float>(man) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

inline uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t absBits = u & 0x7fffffffu;
  if (absBits > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((absBits >> 13) & 0x3ffu));
  if (absBits >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (absBits >= 0x38800000u) {                                              // normal half range
    uint32_t r = absBits - 0x38000000u;                                      // rebias exponent 127 -> 15
    r += 0xfffu + ((r >> 13) & 1u);
    return static_cast<uint16_t>(sign | (r >> 13));
  }
  // Subnormal half (or zero): scale to units of 2^-24 and round to nearest even.
  const float absValue = BitsToFloat(absBits);
  const float units = absValue * 16777216.0f;  // exact: power of two
  uint32_t q = static_cast<uint32_t>(units);
  const float rest = units - static_cast<float>(q);
  if (rest > 0.5f || (rest == 0.5f && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

}  // namespace trilinear3d

#endif  // TRILINEAR3D_COMMON_HALF_CONVERT_H_
