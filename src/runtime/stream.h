// Streams: in-order asynchronous queues, each served by its own worker thread.
#ifndef TRILINEAR3D_RUNTIME_STREAM_H_
#define TRILINEAR3D_RUNTIME_STREAM_H_

#include <functional>

#include "acl/acl_rt.h"

namespace trilinear3d::runtime {

// Queues task on stream (null: the default stream) and returns at once. Returns ACL_SUCCESS;
// ACL_ERROR_INVALID_PARAM for a stream that is unknown or destroyed; ACL_ERROR_RT_FAILURE when the
// default stream's thread cannot start; ACL_ERROR_BAD_ALLOC (the task is not run on failure).
aclError Enqueue(aclrtStream stream, std::function<void()> task);

// True when stream is null or a live stream created by aclrtCreateStream.
bool IsValidStream(aclrtStream stream);

// True when the calling thread is running a task of stream (null: the default stream). Waiting there
// for work queued later on the same stream would never return.
bool IsRunningTaskOf(aclrtStream stream);

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_STREAM_H_
