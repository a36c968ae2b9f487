// Closes the ISA region opened by op_kernel/isa_begin.h (the last include of src/op_kernel/isa/*.cpp).
#if !defined(TRILINEAR3D_ISA_REGION)
#error "op_kernel/isa_end.h without op_kernel/isa_begin.h"
#endif
#if defined(TRILINEAR3D_ISA_AVX512) || defined(TRILINEAR3D_ISA_AVX2)
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
#undef TRILINEAR3D_ISA_REGION
