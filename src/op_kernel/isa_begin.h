// Opens this translation unit's ISA region: everything after it is compiled for the ISA named by
// TRILINEAR3D_ISA (set per object library in CMakeLists.txt), everything before it for the
// architecture's baseline. Included by every file in src/op_kernel/isa/ after its other includes;
// closed by op_kernel/isa_end.h.
//
// Why a region and not per-file -m flags: an inline function or template instantiated in a file
// compiled with -mavx512f is a weak symbol, and the linker keeps one copy for every caller; if it
// keeps that one, AVX-512 instructions run on the AVX2 and baseline paths. Here the ISA comes from
// a target pragma that applies only to functions *defined* after it. The standard library, the
// shared math and the plan code are all included below, before the pragma, so whatever of them
// the kernels instantiate is baseline code: whichever copy the linker keeps runs on every CPU.
// Only the ISA namespaces (trilinear3d::kernel::avx2, ::avx512) hold ISA code; tools/check_isa.py
// verifies that in the built library (a ctest test). The same scheme as Highway's HWY_BEFORE_NAMESPACE.
#ifndef TRILINEAR3D_OP_KERNEL_ISA_BEGIN_H_
#define TRILINEAR3D_OP_KERNEL_ISA_BEGIN_H_

#if !defined(TRILINEAR3D_ISA)
#error "op_kernel/isa_begin.h: TRILINEAR3D_ISA is not set (only src/op_kernel/isa/*.cpp include it)"
#endif

// Everything the ISA code may use from outside its namespace, compiled for the baseline.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>  // each intrinsic carries its own target attribute
#endif
#if defined(__aarch64__)
#include <arm_neon.h>  // NEON is aarch64's baseline: every aarch64 CPU has it
#endif

#include "common/half_convert.h"
#include "common/resample_math.h"
#include "op_host/resample_tiling.h"
#include "op_kernel/element_types.h"
#include "op_kernel/kernel_args.h"
#include "op_kernel/kernel_plan.h"
#include "op_kernel/prefetch_queue.h"
#include "op_kernel/stencil2x_steps.h"

// TRILINEAR3D_HAVE_AVX2: AVX2 + FMA + F16C code may be used (the avx2 and avx512 tiers);
// TRILINEAR3D_HAVE_AVX512: AVX-512 F/BW/VL/DQ code may be used (the avx512 tier);
// TRILINEAR3D_HAVE_VEC128: the baseline tier's 128-bit vectors (SSE2 on x86-64, NEON on aarch64:
// the architectures' baselines, so no target pragma) may be used (Vec128Lanes).
#if defined(TRILINEAR3D_ISA_AVX512)
#define TRILINEAR3D_HAVE_AVX2 1
#define TRILINEAR3D_HAVE_AVX512 1
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c,prefer-vector-width=512")
#endif
#elif defined(TRILINEAR3D_ISA_AVX2)
#define TRILINEAR3D_HAVE_AVX2 1
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif
#elif defined(__SSE2__) || defined(__aarch64__)
#define TRILINEAR3D_HAVE_VEC128 1
#endif

// ISA headers (the headers that open the ISA namespace) check this.
#define TRILINEAR3D_ISA_REGION 1

#endif  // TRILINEAR3D_OP_KERNEL_ISA_BEGIN_H_
