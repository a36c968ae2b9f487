// A workspace may start at any byte (docs/spec.md §4): a caller's sub-allocator need not align it as
// aclrtMalloc does. Each operator group's kernels give the same bits from a workspace 1, 4, 8, 16 or 36
// bytes past a 64-byte line as from an aligned one, and GetWorkspaceSize's size is enough there.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "acl_test_environment.h"
#include "cubic_ops.h"
#include "op_runner.h"
#include "test_tensor.h"

namespace trilinear3d::test {
namespace {

const uint64_t kOffsets[] = {0, 1, 4, 8, 16, 36};

// Plans into (*workspaceSize, *executor) for the given tensors.
using PrepareFn = std::function<aclnnStatus(const aclTensor *src, aclTensor *dst, uint64_t *workspaceSize,
                                            aclOpExecutor **executor)>;
using LaunchFn = std::function<aclnnStatus(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor)>;

// The destination's bytes after a run whose workspace starts `offset` bytes past a 64-byte line; the
// workspace's other bytes are NaN-filled, as a reused pool's would be stale.
std::vector<uint8_t> RunWithWorkspaceAt(uint64_t offset, const DeviceTensor &src, DeviceTensor &dst,
                                        const PrepareFn &prepare, const LaunchFn &launch) {
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  EXPECT_EQ(prepare(src.get(), dst.get(), &workspaceSize, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_GT(workspaceSize, 0u) << "the case needs a workspace, or it tests nothing";
  void *base = nullptr;
  const uint64_t bytes = workspaceSize + 64 + offset;
  EXPECT_EQ(aclrtMalloc(&base, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(base, bytes, 0xFF, bytes), ACL_SUCCESS);
  const uintptr_t line = (reinterpret_cast<uintptr_t>(base) + 63) & ~uintptr_t{63};
  void *workspace = reinterpret_cast<void *>(line + offset);
  EXPECT_EQ(launch(workspace, workspaceSize, executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(base), ACL_SUCCESS);
  return dst.StorageBytes();
}

void ExpectSameBitsAtEveryOffset(const std::string &name, DeviceTensor &src, DeviceTensor &dst,
                                 const PrepareFn &prepare, const LaunchFn &launch) {
  SCOPED_TRACE(name);
  TracedRng rng;
  src.UploadRandom(rng);
  dst.PoisonView();
  const std::vector<uint8_t> aligned = RunWithWorkspaceAt(0, src, dst, prepare, launch);
  for (uint64_t offset : kOffsets) {
    if (offset == 0) continue;
    dst.PoisonView();
    EXPECT_TRUE(RunWithWorkspaceAt(offset, src, dst, prepare, launch) == aligned)
        << "workspace " << offset << " bytes past a 64-byte line";
  }
}

// The trilinear and linear groups through the shared op runner: forward and backward.
template <typename Problem>
void ExpectLinearGroupAligned(const Problem &p, aclDataType dtype, aclFormat format) {
  DeviceTensor src = ReadTensor(p, dtype, format);
  DeviceTensor dst = WrittenTensor(p, dtype, format);
  const bool backward = std::is_same_v<Problem, BackwardProblem>;
  const PrepareFn prepare = [&](const aclTensor *s, aclTensor *d, uint64_t *size, aclOpExecutor **ex) {
    PreparedOp op;
    const ::testing::AssertionResult planned = Prepare(s, p, d, &op);
    *size = op.workspaceSize;
    *ex = op.executor;
    return planned ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
  };
  const LaunchFn launch = [&](void *workspace, uint64_t size, aclOpExecutor *executor) {
    return RunPhase(backward, p.api, workspace, size, executor, nullptr);
  };
  ExpectSameBitsAtEveryOffset(p.Describe() + " " + DtypeName(dtype) + " " + FormatName(format), src, dst,
                              prepare, launch);
}

TEST(WorkspaceAlignment, TrilinearAndLinearGroups) {
  // Forward with align_corners and rows of 131 (the 128-bit tier's pair-list W pass), fp32 and fp16.
  ForwardProblem forward{{1, 3, 6, 16, 16}, {9, 33, 131}, true};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16})
    ExpectLinearGroupAligned(forward, dtype, ACL_FORMAT_NCDHW);
  ExpectLinearGroupAligned(forward, ACL_FLOAT, ACL_FORMAT_NDHWC);
  // Backward: a non-integer shrink (fp16: the widened-slab ring), an exact 2x (the stencil), channels-last.
  BackwardProblem shrink{{2, 3, 6, 7, 9}, {17, 19, 23}};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    ExpectLinearGroupAligned(shrink, dtype, ACL_FORMAT_NCDHW);
  }
  ExpectLinearGroupAligned(BackwardProblem{{1, 4, 4, 16, 24}, {8, 32, 48}}, ACL_FLOAT, ACL_FORMAT_NCDHW);
  ExpectLinearGroupAligned(shrink, ACL_FLOAT, ACL_FORMAT_NDHWC);
  // The 2-D operators, channels-last.
  BackwardProblem bilinear{{2, 8, 1, 20, 24}, {1, 40, 48}};
  bilinear.api = Api::kBilinear2d;
  bilinear.perAxisScales = true;
  ExpectLinearGroupAligned(bilinear, ACL_FLOAT, ACL_FORMAT_NHWC);
  ExpectLinearGroupAligned(bilinear, ACL_BF16, ACL_FORMAT_NCHW);
}

TEST(WorkspaceAlignment, CubicGroup) {
  struct Case {
    int64_t c, inH, inW, outH, outW;
  };
  const Case kCases[] = {{3, 64, 72, 14, 16}, {16, 9, 12, 18, 24}};  // an AA-style shrink; an exact 2x
  for (FilterKind kind : CubicOpsUnderTest()) {
    const CubicOp &op = CubicOpOf(kind);
    for (bool backward : {false, true}) {
      for (const Case &c : kCases) {
        for (aclFormat format : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
          if (format == ACL_FORMAT_NHWC && kind != FilterKind::kBicubic) continue;  // CANN's AA: NCHW / ND
          const Shape5 in{2, c.c, 1, c.inH, c.inW}, out{2, c.c, 1, c.outH, c.outW};
          DeviceTensor src(backward ? out : in, ACL_FLOAT, format, MemLayout::kContiguous, Guard::kNone, 4);
          DeviceTensor dst(backward ? in : out, ACL_FLOAT, format, MemLayout::kContiguous, Guard::kNone, 4);
          const int64_t outputSizeValues[2] = {c.outH, c.outW};
          const int64_t nchw[4] = {2, c.c, c.inH, c.inW}, nhwc[4] = {2, c.inH, c.inW, c.c};
          const PrepareFn prepare = [&](const aclTensor *s, aclTensor *d, uint64_t *size,
                                        aclOpExecutor **ex) {
            aclIntArray *outputSize = aclCreateIntArray(outputSizeValues, 2);
            aclIntArray *inputSize = aclCreateIntArray(format == ACL_FORMAT_NHWC ? nhwc : nchw, 4);
            const aclnnStatus status =
                backward ? op.backwardPrepare(s, outputSize, inputSize, false, 0.0, 0.0, d, size, ex)
                         : op.forwardPrepare(s, outputSize, false, 0.0, 0.0, d, size, ex);
            aclDestroyIntArray(outputSize);
            aclDestroyIntArray(inputSize);
            return status;
          };
          const LaunchFn launch = [&](void *workspace, uint64_t size, aclOpExecutor *executor) {
            return (backward ? op.backward : op.forward)(workspace, size, executor, nullptr);
          };
          ExpectSameBitsAtEveryOffset(std::string(op.name) + (backward ? " backward " : " forward ") +
                                          std::to_string(c.inH) + "x" + std::to_string(c.inW) + " " +
                                          FormatName(format),
                                      src, dst, prepare, launch);
        }
      }
    }
  }
}

}  // namespace
}  // namespace trilinear3d::test
