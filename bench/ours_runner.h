// Runs one case through the library's public C API (the operator of the case's rank and direction):
// aclrtMalloc'd tensors, and per timed call GetWorkspaceSize (validation + planning) + the run +
// aclrtSynchronizeStream.
#ifndef TRILINEAR3D_BENCH_OURS_RUNNER_H_
#define TRILINEAR3D_BENCH_OURS_RUNNER_H_

#include <cstdint>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "bench_cases.h"

namespace bench {

// aclInit + aclrtSetDevice + a stream, once per process (throws std::runtime_error on failure).
aclrtStream OursStream();

class OursRunner {
 public:
  explicit OursRunner(const BenchCase &benchCase);  // throws std::runtime_error
  ~OursRunner();
  OursRunner(const OursRunner &) = delete;
  OursRunner &operator=(const OursRunner &) = delete;

  // The operator's source (gradOut / x) and destination (gradInput / y), in the case's memory order.
  void *source() const { return source_; }
  void *destination() const { return destination_; }
  uint64_t sourceBytes() const { return sourceBytes_; }
  uint64_t destinationBytes() const { return destinationBytes_; }

  double RunMs();  // one timed call; throws std::runtime_error on an error code
  uint64_t workspaceBytes() const { return workspaceBytes_; }

 private:
  // The case's operator: its GetWorkspaceSize, and its run on stream_.
  aclnnStatus Plan(uint64_t *workspaceSize, aclOpExecutor **executor) const;
  aclnnStatus Launch(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) const;
  // The cubic group's 2-D operators (case_.filter other than linear).
  aclnnStatus PlanCubic(uint64_t *workspaceSize, aclOpExecutor **executor) const;
  aclnnStatus LaunchCubic(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) const;

  BenchCase case_;
  aclrtStream stream_;
  void *source_ = nullptr;
  void *destination_ = nullptr;
  uint64_t sourceBytes_ = 0;
  uint64_t destinationBytes_ = 0;
  aclTensor *sourceTensor_ = nullptr;
  aclTensor *destinationTensor_ = nullptr;
  aclIntArray *outputSize_ = nullptr;
  aclIntArray *inputSize_ = nullptr;
  // A caching workspace, as a framework's allocator would keep: grown when a call asks for more.
  void *workspace_ = nullptr;
  uint64_t workspaceCapacity_ = 0;
  uint64_t workspaceBytes_ = 0;
};

}  // namespace bench

#endif  // TRILINEAR3D_BENCH_OURS_RUNNER_H_
