// Streams: in-order asynchronous queues, each served by its own worker thread.
#ifndef TRILINEAR3D_RUNTIME_STREAM_H_
#define TRILINEAR3D_RUNTIME_STREAM_H_

#include <functional>

#include "acl/acl_rt.h"

namespace trilinear3d::runtime {

// Queues task on stream (null: the default stream) and returns at once. Returns ACL_SUCCESS,
// or ACL_ERROR_INVALID_PARAM for a stream that is unknown or destroyed (task not run).
aclError Enqueue(aclrtStream stream, std::function<void()> task);

// True when stream is null or a live stream created by aclrtCreateStream.
bool IsValidStream(aclrtStream stream);

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_STREAM_H_
