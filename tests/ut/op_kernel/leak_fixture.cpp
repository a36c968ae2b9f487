// A deliberately leaking object for tools/check_isa.py's own test: compiled with -mavx2, it holds
// one function outside the ISA namespaces with AVX2 instructions (what an inline helper or an STL
// template instantiated under ISA flags becomes), and two inside them, which are allowed: one of them a
// template whose demangled name starts with its return type, decltype(auto).
#include <cstdint>

__attribute__((noinline)) void LeakedHelper(float *a, const float *b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) a[i] += 2.0f * b[i];
}

namespace trilinear3d::kernel::avx2 {
__attribute__((noinline)) void AllowedKernel(float *a, const float *b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) a[i] = a[i] * b[i] + 1.0f;
}
}  // namespace trilinear3d::kernel::avx2

namespace trilinear3d::kernel::avx2 {
template <typename T>
__attribute__((noinline)) decltype(auto) ScaledFirst(T *a, const T *b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) a[i] = a[i] * b[i] + T(1);
  return (a[0]);
}
template decltype(auto) ScaledFirst<float>(float *, const float *, int64_t);
}  // namespace trilinear3d::kernel::avx2
