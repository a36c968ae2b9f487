// Per-thread "recent error message" (aclGetRecentErrMsg) and its stderr echo.
#include "runtime/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "acl/acl_base.h"

namespace trilinear3d::runtime {
namespace {

// The latest failure on this thread, not yet read by aclGetRecentErrMsg.
thread_local std::string t_latestMessage;
// What the last aclGetRecentErrMsg returned: kept separately so that the returned pointer stays
// valid until the next aclGetRecentErrMsg on this thread, even if new errors are reported meanwhile.
thread_local std::string t_returnedMessage;

// Read on every report (errors are rare) so that a program may set TRILINEAR3D_QUIET at run time.
bool Quiet() {
  const char *quiet = std::getenv("TRILINEAR3D_QUIET");
  return quiet != nullptr && std::strcmp(quiet, "1") == 0;
}

}  // namespace

void ReportError(const char *format, ...) {
  // Formatting can fail or allocation can throw; neither may escape into the C API callers.
  try {
    va_list args;
    va_start(args, format);
    va_list argsCopy;
    va_copy(argsCopy, args);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string message;
    if (length > 0) {
      message.resize(static_cast<size_t>(length) + 1);  // vsnprintf writes the terminating NUL
      std::vsnprintf(message.data(), message.size(), format, argsCopy);
      message.resize(static_cast<size_t>(length));
    }
    va_end(argsCopy);
    // One fprintf call per message so that lines from concurrent threads do not interleave.
    if (!Quiet()) std::fprintf(stderr, "[trilinear3d] %s\n", message.c_str());
    t_latestMessage = std::move(message);
  } catch (...) {
    t_latestMessage.clear();
  }
}

aclError NullArgument(const char *function, const char *what) {
  ReportError("%s: %s is null", function, what);
  return ACL_ERROR_INVALID_PARAM;
}

aclError NotLive(const char *function, const char *kind, const void *handle) {
  ReportError("%s: %s %p is not a live %s (never created, or already destroyed)", function, kind, handle,
              kind);
  return ACL_ERROR_INVALID_PARAM;
}

}  // namespace trilinear3d::runtime

const char *aclGetRecentErrMsg(void) {
  using trilinear3d::runtime::t_latestMessage;
  using trilinear3d::runtime::t_returnedMessage;
  // swap + clear moves the message without allocating, so this cannot throw.
  t_returnedMessage.swap(t_latestMessage);
  t_latestMessage.clear();
  return t_returnedMessage.c_str();
}
