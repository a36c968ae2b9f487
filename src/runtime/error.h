// Per-thread "recent error message" behind aclGetRecentErrMsg.
#ifndef TRILINEAR3D_RUNTIME_ERROR_H_
#define TRILINEAR3D_RUNTIME_ERROR_H_

namespace trilinear3d::runtime {

// Records a printf-style message as the calling thread's latest failure and prints it on
// stderr (prefixed "[trilinear3d] "), unless TRILINEAR3D_QUIET=1 is set in the environment.
void ReportError(const char *format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_ERROR_H_
