// What the digest programs (bit_digest.cpp: the trilinear operators, filter_digest.cpp: the 2-D filter
// operators) share: the random stream, the dtypes, the input values, the hash and the device tensors. Both
// digests depend on every bit of these, so a change here changes every digest docs/performance.md lists; keep
// them as they are.
#ifndef TRILINEAR3D_TOOLS_BIT_DIGEST_DIGEST_SUPPORT_H_
#define TRILINEAR3D_TOOLS_BIT_DIGEST_DIGEST_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "acl/acl.h"

namespace bit_digest {

struct Rng {  // SplitMix64: the same stream on every compiler and standard library
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(Next() % (hi - lo + 1)); }
};

// The dtypes the sweeps run, in the order their random cases draw them: each with its element size and
// the name the per-case lines give it.
struct Dtype {
  aclDataType acl;
  size_t bytes;
  const char *name;
};
constexpr Dtype kDtypes[] = {
    {ACL_FLOAT, 4, "fp32"}, {ACL_FLOAT16, 2, "fp16"}, {ACL_BF16, 2, "bf16"}, {ACL_DOUBLE, 8, "fp64"}};

// Finite values of magnitude about 0.25 to 2, either sign, in the dtype's own bits.
inline void FillRandom(Rng &rng, const Dtype &dtype, std::vector<uint8_t> *bytes) {
  const size_t size = dtype.bytes;
  for (size_t i = 0; i < bytes->size(); i += size) {
    const uint64_t r = rng.Next();
    const double value = (static_cast<double>(r >> 11) / 9007199254740992.0) * 3.5 - 1.75;
    if (dtype.acl == ACL_DOUBLE) {
      std::memcpy(bytes->data() + i, &value, 8);
    } else if (dtype.acl == ACL_FLOAT) {
      const float f = static_cast<float>(value);
      std::memcpy(bytes->data() + i, &f, 4);
    } else if (dtype.acl == ACL_BF16) {
      const float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      const uint16_t half = static_cast<uint16_t>(bits >> 16);
      std::memcpy(bytes->data() + i, &half, 2);
    } else {  // fp16: sign, exponent 13..15 (0.25 to < 2), 10 random mantissa bits
      const uint16_t half =
          static_cast<uint16_t>(((r & 1) << 15) | ((13 + (r >> 1) % 3) << 10) | ((r >> 8) & 0x3FF));
      std::memcpy(bytes->data() + i, &half, 2);
    }
  }
}

inline uint64_t Fnv1a(const std::vector<uint8_t> &bytes, uint64_t hash = 0xCBF29CE484222325ull) {
  for (uint8_t b : bytes) hash = (hash ^ b) * 0x100000001B3ull;
  return hash;
}

// A contiguous tensor of the given sizes (in memory order: the format's own), dtype and format, with its
// device memory; freed with it.
struct DeviceTensor {
  std::vector<int64_t> shape;
  void *data = nullptr;
  aclTensor *tensor = nullptr;
  size_t bytes = 0;
  DeviceTensor(std::vector<int64_t> sizes, const Dtype &dtype, aclFormat format) : shape(std::move(sizes)) {
    const int rank = static_cast<int>(shape.size());
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    bytes = static_cast<size_t>(count) * dtype.bytes;
    aclrtMalloc(&data, bytes == 0 ? 1 : bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = rank - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
    tensor =
        aclCreateTensor(shape.data(), rank, dtype.acl, strides.data(), 0, format, shape.data(), rank, data);
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor);
    aclrtFree(data);
  }
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;
};

}  // namespace bit_digest

#endif  // TRILINEAR3D_TOOLS_BIT_DIGEST_DIGEST_SUPPORT_H_
