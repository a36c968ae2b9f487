// Calls both operators, aclnnUpsampleTrilinear3dBackward and aclnnUpsampleTrilinear3d, the two-phase
// CANN way, and checks a backward result against the float64 reference. Shared by the unit and
// reliability tests.
#ifndef TRILINEAR3D_TESTS_SUPPORT_OP_RUNNER_H_
#define TRILINEAR3D_TESTS_SUPPORT_OP_RUNNER_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "reference/forward_reference.h"
#include "reference/upsample_reference.h"
#include "test_tensor.h"
#include "validation_helpers.h"

namespace trilinear3d::test {

// The backward's kernels by their registry names (src/op_host/kernel_registry.cpp). The library picks
// one per shape; tests run the two general ones on every shape through TRILINEAR3D_KERNEL, which is
// read at each GetWorkspaceSize. kStencil2x forces the doubling stencil where it applies
// (test_stencil2x.cpp; elsewhere the registry's own choice runs).
enum class BackwardKernel { kWidthFirst, kWidthLast, kStencil2x };

inline const char *BackwardKernelName(BackwardKernel kernel) {
  switch (kernel) {
    case BackwardKernel::kWidthFirst:
      return "backward_width_first";
    case BackwardKernel::kWidthLast:
      return "backward_width_last";
    case BackwardKernel::kStencil2x:
      break;
  }
  return "backward_stencil2x";
}

// Sets TRILINEAR3D_KERNEL for the scope's plans; restores the previous value (or "unset") on exit,
// so that scopes nest.
class ScopedKernel {
 public:
  explicit ScopedKernel(BackwardKernel kernel) {
    if (const char *previous = std::getenv(kVariable)) {
      hadPrevious_ = true;
      previous_ = previous;
    }
    setenv(kVariable, BackwardKernelName(kernel), 1);
  }
  ~ScopedKernel() {
    if (hadPrevious_) {
      setenv(kVariable, previous_.c_str(), 1);
    } else {
      unsetenv(kVariable);
    }
  }
  ScopedKernel(const ScopedKernel &) = delete;
  ScopedKernel &operator=(const ScopedKernel &) = delete;

 private:
  static constexpr const char *kVariable = "TRILINEAR3D_KERNEL";
  bool hadPrevious_ = false;
  std::string previous_;
};

constexpr BackwardKernel kBackwardKernels[] = {BackwardKernel::kWidthFirst, BackwardKernel::kWidthLast};

// Each of cases under each general backward kernel: the parameters of a backward suite that runs an
// operator-neutral case table (CaseAndKernelName names them).
template <typename Cases>
auto WithBackwardKernels(const Cases &cases) {
  return ::testing::Combine(::testing::ValuesIn(cases), ::testing::ValuesIn(kBackwardKernels));
}

// A backward suite over such a case table: each test runs its case (TestCase()) under its kernel, forced
// while the test lives.
template <typename Case>
class BackwardKernelsTest : public ::testing::TestWithParam<std::tuple<Case, BackwardKernel>> {
 protected:
  const Case &TestCase() const { return std::get<0>(this->GetParam()); }

 private:
  const ScopedKernel forcedKernel_{std::get<1>(this->GetParam())};
};

// gtest names of parameters that are named cases: the case's name; a case and backward kernel's, the
// case's name and the kernel's.
struct CaseName {
  template <typename Case>
  std::string operator()(const ::testing::TestParamInfo<Case> &info) const {
    return info.param.name;
  }
};
struct CaseAndKernelName {
  template <typename Case>
  std::string operator()(const ::testing::TestParamInfo<std::tuple<Case, BackwardKernel>> &info) const {
    return std::string(std::get<0>(info.param).name) + "_" + BackwardKernelName(std::get<1>(info.param));
  }
};

// The aclnn name of an operator (without GetWorkspaceSize).
inline std::string ApiName(bool backward, Api api) {
  switch (api) {
    case Api::kTrilinear3d:
      return backward ? "aclnnUpsampleTrilinear3dBackward" : "aclnnUpsampleTrilinear3d";
    case Api::kBilinear2d:
      return backward ? "aclnnUpsampleBilinear2dBackwardV2" : "aclnnUpsampleBilinear2d";
    case Api::kBilinear2dBackwardV1:
      return "aclnnUpsampleBilinear2dBackward";
    case Api::kLinear1d:
      break;
  }
  return backward ? "aclnnUpsampleLinear1dBackward" : "aclnnUpsampleLinear1d";
}

// An operator's format for a tensor the tests describe in a 5-D format: NCDHW / NDHWC become NCHW / NHWC
// for the 2-D operators and NCL for the 1-D ones (which have no channels-last format; MemLayout::kPermuted
// still lays their channels last in memory); ND stays ND.
inline aclFormat FormatFor(Api api, aclFormat format5d) {
  if (format5d == ACL_FORMAT_ND || api == Api::kTrilinear3d) return format5d;
  if (api == Api::kLinear1d) return ACL_FORMAT_NCL;
  return format5d == ACL_FORMAT_NDHWC ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
}

// The formats an operator's sweeps run: ND and its channels-first and channels-last formats (1-D: ND, NCL).
inline std::vector<aclFormat> SweepFormats(Api api) {
  if (api == Api::kLinear1d) return {ACL_FORMAT_ND, ACL_FORMAT_NCL};
  return {ACL_FORMAT_ND, FormatFor(api, ACL_FORMAT_NCDHW), FormatFor(api, ACL_FORMAT_NDHWC)};
}

// Phase 1 done: an executor and its workspace, waiting to be enqueued.
struct PreparedOp {
  bool backward = true;  // which operator planned it
  Api api = Api::kTrilinear3d;
  aclOpExecutor *executor = nullptr;
  uint64_t workspaceSize = 0;
  void *workspace = nullptr;

  PreparedOp() = default;
  PreparedOp(const PreparedOp &) = delete;
  PreparedOp &operator=(const PreparedOp &) = delete;
  // The workspace must outlive the queued work: free only after the stream is synchronised.
  ~PreparedOp() {
    if (workspace != nullptr) aclrtFree(workspace);
  }
};

// Allocates op->workspaceSize bytes of workspace. A workspace's contents are unspecified (CANN
// reuses pools): it is filled with NaN bytes so that a kernel reading it before writing it fails
// here, not only when fresh pages happen to be zero.
inline ::testing::AssertionResult AllocateWorkspace(PreparedOp *op) {
  if (op->workspaceSize == 0) return ::testing::AssertionSuccess();
  if (aclrtMalloc(&op->workspace, op->workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ::testing::AssertionFailure()
           << "aclrtMalloc of " << op->workspaceSize << " workspace bytes failed";
  }
  if (aclrtMemset(op->workspace, op->workspaceSize, 0xFF, op->workspaceSize) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "aclrtMemset of the workspace failed";
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult SynchronizeStream(aclrtStream stream) {
  if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "aclrtSynchronizeStream failed: " << aclGetRecentErrMsg();
  }
  return ::testing::AssertionSuccess();
}

// The status of a GetWorkspaceSize call: on success the workspace is allocated.
inline ::testing::AssertionResult Planned(aclnnStatus status, const char *call, const std::string &problem,
                                          PreparedOp *op) {
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure()
           << call << " returned " << status << ": " << aclGetRecentErrMsg() << " for " << problem;
  }
  return AllocateWorkspace(op);
}

// GetWorkspaceSize with the problem's sizes and attributes; the int arrays are destroyed before
// returning (the executor must have copied them). Allocates the workspace on success.
// The operator's int arrays from a problem's 5-D sizes: outputSize's spatial sizes of the op's rank (W; H, W;
// D, H, W); a backward's inputSize: N, C and those, in the order of orderedBy's format for the 2-D ops
// (NHWC: N, H, W, C, as CANN reads it: V1 by out's format, V2 by gradOut's).
inline std::vector<int64_t> OutputSizeOf(Api api, const std::array<int64_t, 3> &outputSize) {
  return std::vector<int64_t>(outputSize.begin() + (5 - ApiRank(api)), outputSize.end());
}
inline std::vector<int64_t> InputSizeOf(Api api, const Shape5 &inputSize, const aclTensor *orderedBy) {
  std::vector<int64_t> v(inputSize.begin(), inputSize.end());
  v.erase(v.begin() + 2, v.begin() + 2 + (5 - ApiRank(api)));
  aclFormat format = ACL_FORMAT_ND;
  if (orderedBy != nullptr) aclGetFormat(orderedBy, &format);
  if (ApiRank(api) == 4 && format == ACL_FORMAT_NHWC) v = {v[0], v[2], v[3], v[1]};
  return v;
}

inline ::testing::AssertionResult PrepareBackward(const aclTensor *gradOut, const BackwardProblem &p,
                                                  aclTensor *gradInput, PreparedOp *op) {
  const std::vector<int64_t> outputValues = OutputSizeOf(p.api, p.outputSize);
  const std::vector<int64_t> inputValues =
      InputSizeOf(p.api, p.inputSize, p.api == Api::kBilinear2dBackwardV1 ? gradInput : gradOut);
  aclIntArray *outputSize = aclCreateIntArray(outputValues.data(), outputValues.size());
  aclIntArray *inputSize = aclCreateIntArray(inputValues.data(), inputValues.size());
  uint64_t *ws = &op->workspaceSize;
  aclOpExecutor **ex = &op->executor;
  aclnnStatus status = ACLNN_SUCCESS;
  switch (p.api) {
    case Api::kTrilinear3d:
      status = aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize,
                                                                p.alignCorners, p.scales[0], p.scales[1],
                                                                p.scales[2], gradInput, ws, ex);
      break;
    case Api::kBilinear2d:
      status = aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
          gradOut, outputSize, inputSize, p.alignCorners, p.scales[1], p.scales[2], gradInput, ws, ex);
      break;
    case Api::kBilinear2dBackwardV1:
      status = aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, p.alignCorners,
                                                               p.scales[1], p.scales[2], gradInput, ws, ex);
      break;
    case Api::kLinear1d:
      status = aclnnUpsampleLinear1dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, p.alignCorners,
                                                             p.scales[2], gradInput, ws, ex);
      break;
  }
  aclDestroyIntArray(outputSize);
  aclDestroyIntArray(inputSize);
  op->backward = true;
  op->api = p.api;
  return Planned(status, (ApiName(true, p.api) + "GetWorkspaceSize").c_str(), p.Describe(), op);
}

inline ::testing::AssertionResult PrepareForward(const aclTensor *self, const ForwardProblem &p,
                                                 aclTensor *out, PreparedOp *op) {
  const std::vector<int64_t> outputValues = OutputSizeOf(p.api, p.outputSize);
  aclIntArray *outputSize = aclCreateIntArray(outputValues.data(), outputValues.size());
  uint64_t *ws = &op->workspaceSize;
  aclOpExecutor **ex = &op->executor;
  aclnnStatus status = ACLNN_SUCCESS;
  switch (p.api) {
    case Api::kTrilinear3d:
      status = aclnnUpsampleTrilinear3dGetWorkspaceSize(self, outputSize, p.alignCorners, p.scales[0],
                                                        p.scales[1], p.scales[2], out, ws, ex);
      break;
    case Api::kBilinear2d:
    case Api::kBilinear2dBackwardV1:
      status = aclnnUpsampleBilinear2dGetWorkspaceSize(self, outputSize, p.alignCorners, p.scales[1],
                                                       p.scales[2], out, ws, ex);
      break;
    case Api::kLinear1d:
      status =
          aclnnUpsampleLinear1dGetWorkspaceSize(self, outputSize, p.alignCorners, p.scales[2], out, ws, ex);
      break;
  }
  aclDestroyIntArray(outputSize);
  op->backward = false;
  op->api = p.api;
  return Planned(status, (ApiName(false, p.api) + "GetWorkspaceSize").c_str(), p.Describe(), op);
}

// The run phase of the backward or the forward operator (of api) with these arguments.
inline aclnnStatus RunPhase(bool backward, Api api, void *workspace, uint64_t workspaceSize,
                            aclOpExecutor *executor, aclrtStream stream) {
  switch (api) {
    case Api::kTrilinear3d:
      return backward ? aclnnUpsampleTrilinear3dBackward(workspace, workspaceSize, executor, stream)
                      : aclnnUpsampleTrilinear3d(workspace, workspaceSize, executor, stream);
    case Api::kBilinear2d:
      return backward ? aclnnUpsampleBilinear2dBackwardV2(workspace, workspaceSize, executor, stream)
                      : aclnnUpsampleBilinear2d(workspace, workspaceSize, executor, stream);
    case Api::kBilinear2dBackwardV1:
      return aclnnUpsampleBilinear2dBackward(workspace, workspaceSize, executor, stream);
    case Api::kLinear1d:
      break;
  }
  return backward ? aclnnUpsampleLinear1dBackward(workspace, workspaceSize, executor, stream)
                  : aclnnUpsampleLinear1d(workspace, workspaceSize, executor, stream);
}
inline aclnnStatus RunPhase(bool backward, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                            aclrtStream stream) {
  return RunPhase(backward, Api::kTrilinear3d, workspace, workspaceSize, executor, stream);
}

// The run phase of the operator op was planned for; the executor is left as it is (a run rejected
// before it starts, e.g. on a destroyed stream, keeps it usable).
inline aclnnStatus RunPhase(const PreparedOp &op, aclrtStream stream) {
  return RunPhase(op.backward, op.api, op.workspace, op.workspaceSize, op.executor, stream);
}

// The run phase; the executor counts as consumed either way.
inline ::testing::AssertionResult Enqueue(PreparedOp *op, aclrtStream stream) {
  const aclnnStatus status = RunPhase(*op, stream);
  op->executor = nullptr;
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure()
           << ApiName(op->backward, op->api) << " returned " << status << ": " << aclGetRecentErrMsg();
  }
  return ::testing::AssertionSuccess();
}

// The run phase after a phase one (which may have failed), and a synchronize.
inline ::testing::AssertionResult EnqueueAndSynchronize(::testing::AssertionResult prepared, PreparedOp *op,
                                                        aclrtStream stream) {
  if (!prepared) return prepared;
  ::testing::AssertionResult enqueued = Enqueue(op, stream);
  if (!enqueued) return enqueued;
  return SynchronizeStream(stream);
}

// gradOutValues: what the library read (already rounded to the dtype), logical NCDHW.
inline ::testing::AssertionResult ResultMatchesReference(const std::vector<double> &gradOutValues,
                                                         const BackwardProblem &p, aclDataType dtype,
                                                         const std::vector<double> &got) {
  const ReferenceResult ref = BackwardReference(p, gradOutValues);
  return MatchesReference(got, ref, ToleranceFor(dtype, p), p.inputSize);
}

// selfValues: what the library read (already rounded to the dtype), logical NCDHW.
inline ::testing::AssertionResult ResultMatchesReference(const std::vector<double> &selfValues,
                                                         const ForwardProblem &p, aclDataType dtype,
                                                         const std::vector<double> &got) {
  return ForwardMatchesReference(selfValues, p, dtype, got);
}

// Either operator's problem from inputSize (gradInput's / self's) to outputSize; withScales adds user
// scales that select the same sizes (ScalesSelecting), so that the scales rule is the one that counts.
// How a sweep passes user scales: none (0; Linear1d's forward: -1, its "no scale", as 0 must give the
// size), scales that select the sizes (ScalesSelecting), or scales the operator's rule ignores (2-D: scalesH
// does not give the size, scalesW does; 1-D: a scale that does not give the size, -1 for the forward).
enum class ScalesKind { kNone, kSelecting, kIgnored };

// Either operator's problem (of api; 2-D / 1-D: unit D and H in the sizes given) from inputSize (gradInput's
// / self's) to outputSize, with user scales of kind.
template <typename Problem>
Problem ProblemOfSizes(const Shape5 &inputSize, const std::array<int64_t, 3> &outputSize, bool alignCorners,
                       ScalesKind kind, Api api = Api::kTrilinear3d) {
  Problem problem{inputSize, outputSize, alignCorners};
  problem.api = api;
  const bool linear1dForward = std::is_same_v<Problem, ForwardProblem> && api == Api::kLinear1d;
  if (kind == ScalesKind::kNone && linear1dForward) problem.scales[2] = -1.0;
  if (kind == ScalesKind::kNone) return problem;
  problem.scales = ScalesSelecting({inputSize[2], inputSize[3], inputSize[4]}, outputSize);
  if (kind == ScalesKind::kIgnored) {
    if (linear1dForward) {
      problem.scales[2] = -1.0;
    } else {
      const int axis = api == Api::kLinear1d ? 2 : 1;
      problem.scales[axis] =
          (static_cast<double>(outputSize[axis]) + 1.3) / static_cast<double>(inputSize[2 + axis]);
    }
  }
  return problem;
}
template <typename Problem>
Problem ProblemOfSizes(const Shape5 &inputSize, const std::array<int64_t, 3> &outputSize, bool alignCorners,
                       bool withScales) {
  return ProblemOfSizes<Problem>(inputSize, outputSize, alignCorners,
                                 withScales ? ScalesKind::kSelecting : ScalesKind::kNone);
}

// Either operator by the type of its problem: the shapes of the tensor it reads (gradOut / self) and
// of the one it writes (gradInput / out), those tensors (of the operator's rank), and its two phases.
inline Shape5 ReadShape(const BackwardProblem &p) { return p.GradOutShape(); }
inline Shape5 ReadShape(const ForwardProblem &p) { return p.selfSize; }
inline Shape5 WrittenShape(const BackwardProblem &p) { return p.inputSize; }
inline Shape5 WrittenShape(const ForwardProblem &p) { return p.OutShape(); }
template <typename Problem>
DeviceTensor ReadTensor(const Problem &p, aclDataType dtype, aclFormat format,
                        MemLayout layout = MemLayout::kContiguous, Guard guard = Guard::kNone) {
  return DeviceTensor(ReadShape(p), dtype, format, layout, guard, ApiRank(p.api));
}
template <typename Problem>
DeviceTensor WrittenTensor(const Problem &p, aclDataType dtype, aclFormat format,
                           MemLayout layout = MemLayout::kContiguous, Guard guard = Guard::kNone) {
  return DeviceTensor(WrittenShape(p), dtype, format, layout, guard, ApiRank(p.api));
}
inline ::testing::AssertionResult Prepare(const aclTensor *read, const BackwardProblem &p, aclTensor *written,
                                          PreparedOp *op) {
  return PrepareBackward(read, p, written, op);
}
inline ::testing::AssertionResult Prepare(const aclTensor *read, const ForwardProblem &p, aclTensor *written,
                                          PreparedOp *op) {
  return PrepareForward(read, p, written, op);
}
template <typename Problem>
::testing::AssertionResult Run(const DeviceTensor &read, const Problem &p, DeviceTensor &written,
                               aclrtStream stream = nullptr) {
  PreparedOp op;
  return EnqueueAndSynchronize(Prepare(read.get(), p, written.get(), &op), &op, stream);
}

// Runs an executor that a GetWorkspaceSize call returned, on a workspace of the size it asked for,
// and synchronizes; *executor is consumed (set to null) either way.
inline ::testing::AssertionResult RunPlannedExecutor(bool backward, aclOpExecutor **executor,
                                                     uint64_t workspaceSize, Api api = Api::kTrilinear3d) {
  PreparedOp op;
  op.backward = backward;
  op.api = api;
  op.executor = *executor;
  op.workspaceSize = workspaceSize;
  *executor = nullptr;
  if (op.executor == nullptr) return ::testing::AssertionFailure() << "no executor to run";
  return EnqueueAndSynchronize(AllocateWorkspace(&op), &op, nullptr);
}

// Both phases and a synchronize: gradInput holds the result on success.
inline ::testing::AssertionResult RunBackward(const DeviceTensor &gradOut, const BackwardProblem &p,
                                              DeviceTensor &gradInput, aclrtStream stream = nullptr) {
  return Run(gradOut, p, gradInput, stream);
}

// Both phases and a synchronize: out holds the result on success.
inline ::testing::AssertionResult RunForward(const DeviceTensor &self, const ForwardProblem &p,
                                             DeviceTensor &out, aclrtStream stream = nullptr) {
  return Run(self, p, out, stream);
}

// One run on fresh random values of `dist` (tensors of dtype in format), checked against the
// float64 reference: the body of the accuracy sweeps.
template <typename Problem>
::testing::AssertionResult RandomRunMatchesReference(const Problem &p, aclDataType dtype, aclFormat format,
                                                     Distribution dist, std::mt19937_64 &rng) {
  DeviceTensor read = ReadTensor(p, dtype, format);
  DeviceTensor written = WrittenTensor(p, dtype, format);
  const std::vector<double> values = read.UploadRandom(rng, dist);
  const ::testing::AssertionResult ran = Run(read, p, written);
  if (!ran) return ran;
  return ResultMatchesReference(values, p, dtype, written.Download());
}

// The accuracy sweeps' check: a fresh seed (reported, replayable), then one run per distribution,
// each against the float64 reference.
template <typename Problem>
void ExpectAccurateOnFreshData(const Problem &p, aclDataType dtype, aclFormat format) {
  TracedRng rng;
  SCOPED_TRACE(p.Describe());
  for (Distribution dist : {Distribution::kUnitNormal, Distribution::kLargeOffset}) {
    SCOPED_TRACE(DistributionName(dist));
    EXPECT_TRUE(RandomRunMatchesReference(p, dtype, format, dist, rng));
  }
}

// An accuracy sweep's shape: the sizes of the tensor on the small side of the resample (gradInput /
// self) and the other side's D, H, W.
struct ShapeCase {
  const char *name;
  Shape5 inputSize;
  std::array<int64_t, 3> outputSize;
};

// One case of an accuracy sweep, named for gtest: dtype_format_(No)Align_(Sizes|Scales|IgnoredScales)_shape.
struct SweepCase {
  aclDataType dtype;
  aclFormat format;
  bool alignCorners;
  ScalesKind scales;  // the user scales passed (ProblemOfSizes)
  ShapeCase shape;
  std::string name;
  Api api = Api::kTrilinear3d;
};

// gtest prints a parameter it has no printer for as raw bytes, padding included; the case prints its
// name (and valgrind sees no uninitialised padding read).
inline void PrintTo(const SweepCase &c, std::ostream *os) { *os << c.name; }

// The accuracy sweeps: every dtype x format x alignCorners x (sizes | scales) x shape; the 2-D and 1-D
// operators' (api) in their formats (SweepFormats), also with scales their rule ignores.
template <size_t N>
std::vector<SweepCase> SweepCases(const ShapeCase (&shapes)[N], Api api = Api::kTrilinear3d) {
  std::vector<SweepCase> cases;
  std::vector<ScalesKind> kinds = {ScalesKind::kNone, ScalesKind::kSelecting};
  if (api != Api::kTrilinear3d) kinds.push_back(ScalesKind::kIgnored);
  const std::vector<aclFormat> formats =
      api == Api::kTrilinear3d ? std::vector<aclFormat>{ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}
                               : SweepFormats(api);
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    for (aclFormat format : formats) {
      for (bool alignCorners : {false, true}) {
        for (ScalesKind kind : kinds) {
          for (const ShapeCase &shape : shapes) {
            const char *scalesName = kind == ScalesKind::kNone        ? "Sizes_"
                                     : kind == ScalesKind::kSelecting ? "Scales_"
                                                                      : "IgnoredScales_";
            cases.push_back({dtype, format, alignCorners, kind, shape,
                             std::string(DtypeName(dtype)) + "_" + FormatName(format) +
                                 (alignCorners ? "_Align_" : "_NoAlign_") + scalesName + shape.name,
                             api});
          }
        }
      }
    }
  }
  return cases;
}

// TRILINEAR3D_TEST_SAMPLE=k (k > 1): every k-th of cases only, from the first (a sample of a sweep for
// the emulated CI steps; a prime k spreads it over every dimension of the sweep). Unset: all of them.
template <typename Case>
std::vector<Case> SampledCases(std::vector<Case> cases) {
  const char *env = std::getenv("TRILINEAR3D_TEST_SAMPLE");
  const long k = env != nullptr ? std::strtol(env, nullptr, 10) : 1;
  if (k <= 1) return cases;
  std::vector<Case> sample;
  for (size_t i = 0; i < cases.size(); i += static_cast<size_t>(k)) sample.push_back(cases[i]);
  return sample;
}

// The sweep case on fresh data (ExpectAccurateOnFreshData), as a problem of either operator.
template <typename Problem>
void ExpectSweepCaseAccurate(const SweepCase &c) {
  const Problem p =
      ProblemOfSizes<Problem>(c.shape.inputSize, c.shape.outputSize, c.alignCorners, c.scales, c.api);
  ExpectAccurateOnFreshData(p, c.dtype, c.format);
}

// ±inf and NaN among fresh N(0, 1) values (tensors of dtype in format): each output's class must be
// the float64 golden's (docs/spec.md §6), and some non-finite outputs must survive.
template <typename Problem>
void ExpectNonFiniteClassesMatchGolden(const Problem &p, aclDataType dtype, aclFormat format) {
  TracedRng rng;
  DeviceTensor read = ReadTensor(p, dtype, format);
  DeviceTensor written = WrittenTensor(p, dtype, format);
  std::vector<double> values = RandomValues(rng, ElementCount(ReadShape(p)), Distribution::kUnitNormal);
  SprinkleNonFinite(rng, values);
  values = read.Upload(values);
  ASSERT_TRUE(Run(read, p, written));
  const std::vector<double> got = written.Download();
  EXPECT_TRUE(ResultMatchesReference(values, p, dtype, got));
  EXPECT_GT(CountNonFinite(got), 0u) << "the non-finite input values vanished";
}

// The strided-view tests' cases, both operators'.
inline constexpr ViewCase kViewCases[] = {
    // NCDHW views over channels-last memory (what torch's channels_last_3d gives).
    {ACL_FORMAT_NCDHW, MemLayout::kPermuted, ACL_FORMAT_NCDHW, MemLayout::kPermuted},
    {ACL_FORMAT_NDHWC, MemLayout::kPermuted, ACL_FORMAT_NDHWC, MemLayout::kPermuted},
    // Every other element along the innermost dim, gaps between rows, an offset, a trailing gap.
    {ACL_FORMAT_NCDHW, MemLayout::kSliced, ACL_FORMAT_NCDHW, MemLayout::kSliced},
    {ACL_FORMAT_NDHWC, MemLayout::kSliced, ACL_FORMAT_NDHWC, MemLayout::kSliced},
    // Each tensor read by its own format.
    {ACL_FORMAT_NDHWC, MemLayout::kContiguous, ACL_FORMAT_NCDHW, MemLayout::kContiguous},
    {ACL_FORMAT_NCDHW, MemLayout::kContiguous, ACL_FORMAT_NDHWC, MemLayout::kContiguous},
    {ACL_FORMAT_NCDHW, MemLayout::kPermuted, ACL_FORMAT_NDHWC, MemLayout::kSliced},
    {ACL_FORMAT_ND, MemLayout::kSliced, ACL_FORMAT_NDHWC, MemLayout::kPermuted},
    {ACL_FORMAT_NCDHW, MemLayout::kContiguous, ACL_FORMAT_NCDHW, MemLayout::kSliced},
    {ACL_FORMAT_NDHWC, MemLayout::kSliced, ACL_FORMAT_NCDHW, MemLayout::kContiguous},
};

// kViewCases in the formats of api (FormatFor); sameFormat: only those whose two tensors then share a
// format (aclnnUpsampleBilinear2d requires it).
inline std::vector<ViewCase> ViewCasesFor(Api api, bool sameFormat = false) {
  std::vector<ViewCase> cases;
  for (ViewCase v : kViewCases) {
    v.readFormat = FormatFor(api, v.readFormat);
    v.writtenFormat = FormatFor(api, v.writtenFormat);
    if (sameFormat && v.readFormat != v.writtenFormat) continue;
    cases.push_back(v);
  }
  return cases;
}

// A view case's name in gtest, the operator's tensors called readName (GradOut / Self) and writtenName
// (GradInput / Out): PermutedBoth, SlicedBothNdhwc (one format and layout for both; NCDHW unnamed),
// SelfNdhwcOutNcdhw (both contiguous), PermutedSelfSlicedOut (otherwise).
inline std::string ViewCaseName(const ViewCase &v, const std::string &readName,
                                const std::string &writtenName) {
  auto layout = [](MemLayout l) {
    return l == MemLayout::kContiguous ? "Contiguous" : l == MemLayout::kPermuted ? "Permuted" : "Sliced";
  };
  auto format = [](aclFormat f) {  // NDHWC -> Ndhwc
    std::string name = FormatName(f);
    for (size_t i = 1; i < name.size(); ++i) name[i] = static_cast<char>(std::tolower(name[i]));
    return name;
  };
  if (v.readFormat == v.writtenFormat && v.readLayout == v.writtenLayout) {
    const bool channelsFirst =
        v.readFormat == ACL_FORMAT_NCDHW || v.readFormat == ACL_FORMAT_NCHW || v.readFormat == ACL_FORMAT_NCL;
    return std::string(layout(v.readLayout)) + "Both" + (channelsFirst ? "" : format(v.readFormat));
  }
  if (v.readLayout == MemLayout::kContiguous && v.writtenLayout == MemLayout::kContiguous) {
    return readName + format(v.readFormat) + writtenName + format(v.writtenFormat);
  }
  return layout(v.readLayout) + readName + layout(v.writtenLayout) + writtenName;
}

// One run on fresh N(0, 1) data from rng, each tensor in the format and layout `view` gives it: the
// result matches the float64 reference, no byte of the written tensor's storage outside its view
// changes, and the read tensor's storage is not written.
template <typename Problem>
void ExpectViewsMatchReference(const Problem &p, aclDataType dtype, const ViewCase &view,
                               std::mt19937_64 &rng) {
  DeviceTensor read = ReadTensor(p, dtype, view.readFormat, view.readLayout);
  DeviceTensor written = WrittenTensor(p, dtype, view.writtenFormat, view.writtenLayout);
  const std::vector<uint8_t> canary = written.StorageBytes();
  const std::vector<double> values = read.UploadRandom(rng);
  const std::vector<uint8_t> readBytes = read.StorageBytes();
  ASSERT_TRUE(Run(read, p, written));
  EXPECT_TRUE(ResultMatchesReference(values, p, dtype, written.Download()));
  EXPECT_TRUE(written.OutsideViewUnchanged(canary));
  EXPECT_TRUE(read.StorageBytes() == readBytes) << "the operator wrote into the storage it reads";
}

// One run of a determinism test's case on N(0, 1) values from rng, checked against the reference when
// checkAccuracy; appends the written tensor's whole storage to bytes.
template <typename Problem>
void AppendResultBytes(const Problem &p, aclDataType dtype, aclFormat format, std::mt19937_64 &rng,
                       bool checkAccuracy, std::vector<uint8_t> *bytes) {
  DeviceTensor read = ReadTensor(p, dtype, format);
  DeviceTensor written = WrittenTensor(p, dtype, format);
  const std::vector<double> values = read.UploadRandom(rng);
  EXPECT_TRUE(Run(read, p, written));
  if (checkAccuracy) {
    EXPECT_TRUE(ResultMatchesReference(values, p, dtype, written.Download()));
  }
  const std::vector<uint8_t> result = written.StorageBytes();
  bytes->insert(bytes->end(), result.begin(), result.end());
}

// A determinism test's case: its tensors' dtype and format, and its problem (ProblemOfSizes).
struct DeterminismCase {
  const char *name;
  aclDataType dtype;
  aclFormat format;
  bool alignCorners;
  Shape5 inputSize;  // gradInput (backward) / self (forward)
  std::array<int64_t, 3> outputSize;
  bool withScales;
};

// The determinism tests' cases, both operators': shapes whose item split (planes x D chunks x H chunks)
// changes with the core count, on both row layouts (W-inner, and C-inner for NDHWC with C >= 8) and
// every dtype.
inline constexpr DeterminismCase kDeterminismCases[] = {
    {"FloatNcdhwUp", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {2, 5, 9, 17, 23}, {13, 31, 40}, false},
    {"Bf16NcdhwUp", ACL_BF16, ACL_FORMAT_NCDHW, false, {2, 5, 9, 17, 23}, {13, 31, 40}, false},
    {"FloatNdhwcAlignUp", ACL_FLOAT, ACL_FORMAT_NDHWC, true, {2, 5, 9, 17, 23}, {13, 31, 40}, false},
    {"FloatNdhwcAlign", ACL_FLOAT, ACL_FORMAT_NDHWC, true, {1, 11, 6, 9, 13}, {11, 17, 20}, false},
    {"Fp16NdhwcScales", ACL_FLOAT16, ACL_FORMAT_NDHWC, false, {2, 11, 5, 7, 9}, {8, 12, 21}, true},
    {"DoubleNcdhwDown", ACL_DOUBLE, ACL_FORMAT_NCDHW, false, {2, 3, 17, 31, 40}, {9, 13, 23}, false},
    {"FloatStrongDownH", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {1, 2, 4, 200, 9}, {3, 7, 5}, false},
    {"FloatOnePlane", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {1, 1, 7, 19, 33}, {15, 40, 50}, false},
    // Channels inner (C >= 8): the backward's width-last ring kernel; then W x C rows of 72 KB, cut into
    // W chunks.
    {"FloatChannelsInner", ACL_FLOAT, ACL_FORMAT_NDHWC, false, {1, 16, 9, 17, 23}, {13, 31, 40}, false},
    {"FloatChannelsInnerWChunks", ACL_FLOAT, ACL_FORMAT_NDHWC, false, {1, 72, 2, 3, 120}, {3, 5, 250}, false},
    // The forward's W first (W shrinks 64 -> 8 under D growing 5 -> 17): items split D differently per core
    // count, and each starts its cache of W-resampled tap planes empty.
    {"FloatWidthFirstGrowD", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {1, 3, 5, 6, 64}, {17, 5, 8}, false},
    {"Bf16WidthFirstGrowDNdhwc", ACL_BF16, ACL_FORMAT_NDHWC, true, {1, 3, 5, 6, 64}, {17, 5, 8}, false},
    // bf16 split rows (W exactly halved) under D lists of about fifteen planes: the width-last D step sums
    // the planes consecutive D indices share into both slabs at once; one core takes all of D in one item,
    // two and three cores cut D into chunks, whose first index sums its shared planes itself.
    {"Bf16SplitRowsDeepD", ACL_BF16, ACL_FORMAT_NCDHW, false, {1, 1, 5, 2, 24}, {37, 4, 48}, false},
    // An identity D axis under H and W halved (the backward's width-last kernel reads the planes' rows
    // directly and H-steps batches of rows at once); two cores cut H, not planes.
    {"FloatIdentityDHalvedHW", ACL_FLOAT, ACL_FORMAT_NCDHW, false, {1, 2, 3, 21, 13}, {3, 42, 26}, false},
};

// A 5-D case's problem for a 2-D / 1-D operator: D (and H) folded into N, so that the work is as large
// and splits as differently per core count; the format as FormatFor.
inline void FoldIntoBatch(Api api, Shape5 *inputSize, std::array<int64_t, 3> *outputSize) {
  const int folded = 5 - ApiRank(api);
  for (int a = 0; a < folded; ++a) {
    (*inputSize)[0] *= std::max<int64_t>((*inputSize)[2 + a], (*outputSize)[a]);
    (*inputSize)[2 + a] = 1;
    (*outputSize)[a] = 1;
  }
}

// AppendResultBytes of each of kDeterminismCases in order, all on values from rng: the written tensors'
// bytes, concatenated (for a 2-D / 1-D api, each case as FoldIntoBatch makes it, and only SampledCases of
// them).
template <typename Problem>
std::vector<uint8_t> DeterminismCasesResultBytes(std::mt19937_64 &rng, bool checkAccuracy,
                                                 Api api = Api::kTrilinear3d) {
  std::vector<uint8_t> bytes;
  std::vector<DeterminismCase> cases(std::begin(kDeterminismCases), std::end(kDeterminismCases));
  if (api != Api::kTrilinear3d) cases = SampledCases(cases);
  for (const DeterminismCase &c : cases) {
    SCOPED_TRACE(c.name);
    Shape5 inputSize = c.inputSize;
    std::array<int64_t, 3> outputSize = c.outputSize;
    FoldIntoBatch(api, &inputSize, &outputSize);
    const Problem p = ProblemOfSizes<Problem>(inputSize, outputSize, c.alignCorners,
                                              c.withScales ? ScalesKind::kSelecting : ScalesKind::kNone, api);
    AppendResultBytes(p, c.dtype, FormatFor(api, c.format), rng, checkAccuracy, &bytes);
  }
  return bytes;
}

// A planned op on float NCDHW tensors, the one it writes pre-filled with N(+-100, 25) values: the
// subject of the run-phase validation tests. A rejected run must leave the written tensor as it was;
// a corrected retry with the same executor must give the right result.
template <typename Problem>
class PlannedRunTest : public ::testing::Test {
 protected:
  void Plan(const Problem &p) {
    (void)aclGetRecentErrMsg();
    problem_ = p;
    const aclFormat format = FormatFor(p.api, ACL_FORMAT_NCDHW);
    read_ = std::make_unique<DeviceTensor>(ReadShape(p), ACL_FLOAT, format, MemLayout::kContiguous,
                                           Guard::kNone, ApiRank(p.api));
    written_ = std::make_unique<DeviceTensor>(WrittenShape(p), ACL_FLOAT, format, MemLayout::kContiguous,
                                              Guard::kNone, ApiRank(p.api));
    values_ = read_->UploadRandom(rng_);
    written_->UploadRandom(rng_, Distribution::kLargeOffset);
    before_ = written_->StorageBytes();
    ASSERT_TRUE(Prepare(read_->get(), problem_, written_->get(), &op_));
  }

  // After draining the default stream, the written tensor still holds its pre-filled bytes.
  ::testing::AssertionResult WrittenUntouched() {
    if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) return ::testing::AssertionFailure() << "sync failed";
    if (written_->StorageBytes() != before_)
      return ::testing::AssertionFailure() << "a rejected run wrote its output tensor";
    return ::testing::AssertionSuccess();
  }

  // The corrected retry: the same executor, the right workspace, the right result.
  void RunCorrectlyAndCheck() {
    ASSERT_TRUE(Enqueue(&op_, nullptr));
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_TRUE(ResultMatchesReference(values_, problem_, ACL_FLOAT, written_->Download()));
  }

  // The planned operator's run phase on the default stream, with these arguments.
  aclnnStatus RunWith(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) const {
    return RunPhase(op_.backward, op_.api, workspace, workspaceSize, executor, nullptr);
  }

  // A run that must be rejected with `expected`, its message naming one of names as a word: the written
  // tensor keeps its bytes, and the corrected retry still works.
  void ExpectRejectedThenRetry(aclnnStatus status, aclnnStatus expected,
                               std::initializer_list<const char *> names) {
    EXPECT_TRUE(RejectedNaming(status, expected, names));
    EXPECT_TRUE(WrittenUntouched());
    RunCorrectlyAndCheck();
  }

 public:
  // The run-phase validation tests both operators share (RegisterPlannedRunTests).
  void NullExecutor() {
    ExpectRejectedThenRetry(RunWith(op_.workspace, op_.workspaceSize, nullptr), ACLNN_ERR_PARAM_NULLPTR,
                            {"executor"});
  }
  void NullWorkspaceWithNonZeroSize() {
    const uint64_t size = std::max<uint64_t>(op_.workspaceSize, 64);
    ExpectRejectedThenRetry(RunWith(nullptr, size, op_.executor), ACLNN_ERR_PARAM_NULLPTR,
                            {"workspace", "workspaceSize"});
  }
  void WorkspaceSmallerThanAsked() {
    if (op_.workspaceSize == 0) {
      RunCorrectlyAndCheck();
      GTEST_SKIP() << "this build plans no workspace for the shape: nothing to undersize";
    }
    ExpectRejectedThenRetry(RunWith(op_.workspace, op_.workspaceSize - 1, op_.executor),
                            ACLNN_ERR_PARAM_INVALID, {"workspace", "workspaceSize"});
  }
  // A consumed executor is rejected and the result stays as its run left it.
  void ConsumedExecutor() {
    aclOpExecutor *const executor = op_.executor;
    RunCorrectlyAndCheck();
    const std::vector<uint8_t> result = written_->StorageBytes();
    EXPECT_TRUE(RejectedNaming(RunWith(op_.workspace, op_.workspaceSize, executor), ACLNN_ERR_PARAM_INVALID,
                               {"executor"}));
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    EXPECT_EQ(written_->StorageBytes(), result);
  }
  void GarbageExecutor() {
    int64_t notAnExecutor[16] = {};
    ExpectRejectedThenRetry(
        RunWith(op_.workspace, op_.workspaceSize, reinterpret_cast<aclOpExecutor *>(notAnExecutor)),
        ACLNN_ERR_PARAM_INVALID, {"executor"});
  }

 protected:
  TracedRng rng_;
  Problem problem_;
  std::unique_ptr<DeviceTensor> read_;
  std::unique_ptr<DeviceTensor> written_;
  std::vector<double> values_;  // the read tensor's, as stored
  std::vector<uint8_t> before_;
  PreparedOp op_;
};

// Registers the run-phase validation tests both operators share as suite.NullExecutor,
// suite.NullWorkspaceWithNonZeroSize, suite.WorkspaceSmallerThanAsked, suite.ConsumedExecutor and
// suite.GarbageExecutor, each on a Fixture (a PlannedRunTest whose SetUp plans the op). Called at
// namespace scope, before main runs the tests; returns true.
template <typename Fixture>
bool RegisterPlannedRunTests(const char *suite) {
  using Body = void (Fixture::*)();
  class Test : public Fixture {
   public:
    explicit Test(Body body) : body_(body) {}
    void TestBody() override { (this->*body_)(); }

   private:
    Body body_;
  };
  const std::pair<const char *, Body> tests[] = {
      {"NullExecutor", &Fixture::NullExecutor},
      {"NullWorkspaceWithNonZeroSize", &Fixture::NullWorkspaceWithNonZeroSize},
      {"WorkspaceSmallerThanAsked", &Fixture::WorkspaceSmallerThanAsked},
      {"ConsumedExecutor", &Fixture::ConsumedExecutor},
      {"GarbageExecutor", &Fixture::GarbageExecutor},
  };
  for (const auto &[name, body] : tests) {
    ::testing::RegisterTest(suite, name, nullptr, nullptr, __FILE__, __LINE__,
                            [body = body]() -> Fixture * { return new Test(body); });
  }
  return true;
}

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_OP_RUNNER_H_
