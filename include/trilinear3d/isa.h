/*
 * trilinear3d's own additions to the CANN API: which instruction-set tier of its kernels runs.
 *
 * The library holds its kernels once per tier (x86-64: "avx512", "avx2", "baseline" = SSE2;
 * other architectures: "baseline", which on aarch64 includes NEON) and picks the best tier this CPU
 * supports the first time it needs kernels. TRILINEAR3D_ISA=<tier> in the environment asks for a
 * lower tier; a tier the CPU lacks, or an unknown name, falls back to the best supported tier with
 * a warning on stderr. TRILINEAR3D_VERBOSE=1 prints the choice on stderr.
 */
#ifndef TRILINEAR3D_ISA_H_
#define TRILINEAR3D_ISA_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tier this process runs ("avx512", "avx2" or "baseline"); makes the choice if not yet made.
 * The string is static. */
ACL_FUNC_VISIBILITY const char *trilinear3dKernelIsa(void);

/* The tiers this build holds, best first, comma-separated (e.g. "avx512,avx2,baseline"), and of
 * them the ones this CPU can run (the same form). Static strings. */
ACL_FUNC_VISIBILITY const char *trilinear3dBuiltIsas(void);
ACL_FUNC_VISIBILITY const char *trilinear3dSupportedIsas(void);

#ifdef __cplusplus
}
#endif

#endif /* TRILINEAR3D_ISA_H_ */
