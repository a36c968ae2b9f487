// Runtime-internal functions shared between the runtime's own source files (not used by op_api).
#ifndef TRILINEAR3D_RUNTIME_RUNTIME_INTERNAL_H_
#define TRILINEAR3D_RUNTIME_RUNTIME_INTERNAL_H_

namespace trilinear3d::runtime {

// Waits for the queued work of every live stream (the default stream included), then destroys them
// all: their handles become invalid. A later use of the default stream creates a fresh one.
// A stream whose worker is the calling thread cannot be joined; it is reported and left alive.
// Used by aclFinalize and at process exit.
void DestroyAllStreams();

// The number of CPUs this process may run on (its affinity mask, so taskset and cgroup cpusets
// count), at least 1. Read once. Threads poll for work only when they have CPUs to spare.
int AvailableCpus();

// A fresh handle value for an event or a context: never zero and never handed out twice, so that a
// destroyed handle stays unknown even after new objects are created.
void *NewHandle();

// Context state changes made by the device calls (context.cpp): aclrtSetDevice makes the default
// context current on the calling thread, aclrtResetDevice drops it there, aclFinalize destroys every
// context.
void OnSetDevice();
void OnResetDevice();
void DestroyAllContexts();

}  // namespace trilinear3d::runtime

#endif  // TRILINEAR3D_RUNTIME_RUNTIME_INTERNAL_H_
