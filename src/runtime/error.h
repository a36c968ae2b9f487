// Per-thread "recent error message" behind aclGetRecentErrMsg.
#ifndef TRILINEAR3D_RUNTIME_ERROR_H_
#define TRILINEAR3D_RUNTIME_ERROR_H_

#include "acl/acl_base.h"

namespace trilinear3d::runtime {

// Records a printf-style message as the calling thread's latest failure and prints it on
// stderr (prefixed "[trilinear3d] "), unless TRILINEAR3D_QUIET=1 is set in the environment.
void ReportError(const char *format, ...) __attribute__((format(printf, 1, 2)));

// The answer to a null pointer argument: reports "<function>: <what> is null" and returns
// ACL_ERROR_INVALID_PARAM.
aclError NullArgument(const char *function, const char *what);

// The answer to a handle that names no live object: reports "<function>: <kind> <handle> is not a
// live <kind> (never created, or already destroyed)" and returns ACL_ERROR_INVALID_PARAM.
aclError NotLive(const char *function, const char *kind, const void *handle);

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_ERROR_H_
