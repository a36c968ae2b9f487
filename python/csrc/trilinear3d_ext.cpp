// The trilinear3d PyTorch extension: torch operators backed by libtrilinear3d's aclnn C API, for the resize
// family's linear operators (one spatial axis: linear1d, two: bilinear2d, three: trilinear3d), the nearest
// operators (upsample_nearest1d/2d/3d and _upsample_nearest_exact1d/2d/3d, which have no align_corners) and
// the cubic group (upsample_bicubic2d, _upsample_bilinear2d_aa, _upsample_bicubic2d_aa, each with its
// _backward and the schema of bilinear2d's).
//
//   trilinear3d::upsample_trilinear3d(Tensor self, int[3] output_size, bool align_corners,
//                                     float? scales_d=None, float? scales_h=None, float? scales_w=None)
//   trilinear3d::upsample_trilinear3d_backward(Tensor grad_output, int[3] output_size, int[5] input_size,
//                                              bool align_corners, float? scales_d=None, ...)
//   trilinear3d::upsample_bilinear2d(Tensor self, int[2] output_size, bool align_corners,
//                                    float? scales_h=None, float? scales_w=None), and its _backward
//   trilinear3d::upsample_linear1d(Tensor self, int[1] output_size, bool align_corners, float? scales=None),
//                                  and its _backward
//   trilinear3d::upsample_nearest2d(Tensor self, int[2] output_size, float? scales_h=None,
//                                   float? scales_w=None), and its _backward; the same for
//                                   upsample_nearest1d, upsample_nearest3d and
//                                   _upsample_nearest_exact1d/2d/3d (aten's schemas)
//
// Every operator is a row of kOps (ResizeOp: aten's name, the spatial rank, the library's two entry points);
// the kernels below are written once for all of them. The CPU kernels wrap the torch tensors' memory as
// aclTensor views (data pointer + strides, no copies: contiguous NC..., channels_last(_3d) as N...C, any
// other strided view as-is; the 1-D operators read every 3-D tensor as NCL), allocate the output as an
// ordinary CPU tensor in torch's memory format for it (large ones from a buffer cache, see OutputCache) and
// the workspace as a torch byte tensor, then run GetWorkspaceSize + the op on the default stream +
// aclrtSynchronizeStream. The bilinear backward is aclnnUpsampleBilinear2dBackwardV2 (V1 ignores scales).
// The Autograd kernels are torch::autograd::Functions: the forward's backward is the backward op, and the
// backward's backward is the forward op (both ops are linear), so double backward works too.
//
// Enable() also registers CPU kernels for torch's own aten operators of the family (a torch::Library of kind
// IMPL, newest registration wins; the list is ForEachOverride), so F.interpolate(mode='linear' / 'bilinear'
// / 'trilinear' / 'nearest' / 'nearest-exact'), nn.Upsample and torch's autograd formulas run the library;
// Disable() destroys that Library, which deregisters the kernels and leaves torch's own active again.
// Whatever the library does not compute exactly as torch does goes to torch's CPU kernel through at::cpu::,
// which calls it directly (no dispatcher, so no recursion into the override). On torch 2 the same kernels are
// also the CPU kernels of trilinear3d::aten_<name> (aten's schemas in this namespace): the opaque operators
// that torch.compile'd graphs call while enabled.
#include <ATen/CPUFunctions.h>
#include <Python.h>
#include <c10/core/CPUAllocator.h>
#include <torch/extension.h>
#include <torch/library.h>
#include <torch/version.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

namespace trilinear3d_ext {
namespace {

using Scale = c10::optional<double>;

struct TensorDeleter {
  void operator()(aclTensor *t) const { aclDestroyTensor(t); }
};
struct IntArrayDeleter {
  void operator()(aclIntArray *a) const { aclDestroyIntArray(a); }
};
using TensorPtr = std::unique_ptr<aclTensor, TensorDeleter>;
using IntArrayPtr = std::unique_ptr<aclIntArray, IntArrayDeleter>;

// The library's latest message on this thread (and clears it), or a fallback.
std::string RecentMessage() {
  const char *msg = aclGetRecentErrMsg();
  return (msg != nullptr && msg[0] != '\0') ? std::string(msg) : std::string("(no message)");
}

// Library failures: parameter errors become ValueError, everything else RuntimeError.
[[noreturn]] void ThrowStatus(const char *what, int status) {
  std::ostringstream text;
  text << "trilinear3d: " << RecentMessage() << " (" << what << ": aclnn status " << status << ")";
  if (status == ACLNN_ERR_PARAM_NULLPTR || status == ACLNN_ERR_PARAM_INVALID) {
    TORCH_CHECK_VALUE(false, text.str());
  }
  TORCH_CHECK(false, text.str());
}

aclDataType ToAclDataType(const at::Tensor &t, const char *op) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return ACL_FLOAT;
    case at::kDouble:
      return ACL_DOUBLE;
    case at::kHalf:
      return ACL_FLOAT16;
    case at::kBFloat16:
      return ACL_BF16;
    case at::kByte:
      return ACL_UINT8;
    default:
      TORCH_CHECK(false, "\"", op, "\" not implemented for '", t.scalar_type(), "'");
  }
}

// Whether torch's channels-last layout of t's rank (channels_last for 4-D, channels_last_3d for 5-D)
// describes its memory, and plain contiguity does not. 3-D tensors have none.
bool IsChannelsLast(const at::Tensor &t) {
  if (t.dim() == 4) return !t.is_contiguous() && t.is_contiguous(at::MemoryFormat::ChannelsLast);
  if (t.dim() == 5) return !t.is_contiguous() && t.is_contiguous(at::MemoryFormat::ChannelsLast3d);
  return false;
}

// Wraps a 3-, 4- or 5-D (N, C, spatial...) torch tensor as an aclTensor view over its own memory: with
// channelsLast, in the library's N, spatial..., C format (NHWC, NDHWC) with the view's dims in that order,
// else as NCHW / NCDHW (3-D: ND, which the 1-D operators read as NCL) with its strides. Any strides describe
// the memory, so either format is right for any tensor; the one that matches the memory is the fast one.
// The storage is 1-D, as long as the view's extent.
TensorPtr WrapTensor(const at::Tensor &t, aclDataType dtype, bool channelsLast) {
  const int rank = static_cast<int>(t.dim());
  TORCH_CHECK(rank >= 3 && rank <= 5, "trilinear3d: expected a 3-, 4- or 5-D tensor, got ", rank, "-D");
  // By rank (3, 4, 5), then channelsLast.
  static const aclFormat kFormats[3][2] = {{ACL_FORMAT_ND, ACL_FORMAT_ND},
                                           {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
                                           {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC}};
  channelsLast = channelsLast && rank > 3;
  int64_t dims[5], strides[5];
  int64_t extent = 1;
  for (int i = 0; i < rank; ++i) {
    // N, C, spatial... or N, spatial..., C.
    const int src = !channelsLast || i == 0 ? i : (i == rank - 1 ? 1 : i + 1);
    dims[i] = t.size(src);
    strides[i] = t.stride(src);
    TORCH_CHECK(strides[i] >= 0, "trilinear3d: negative strides are not supported");
    extent += (dims[i] - 1) * strides[i];
  }
  const int64_t storage[1] = {extent};
  aclTensor *tensor = aclCreateTensor(dims, rank, dtype, strides, 0, kFormats[rank - 3][channelsLast ? 1 : 0],
                                      storage, 1, t.data_ptr());
  TORCH_CHECK(tensor != nullptr, "trilinear3d: aclCreateTensor failed: ", RecentMessage());
  return TensorPtr(tensor);
}

IntArrayPtr WrapIntArray(const std::vector<int64_t> &values) {
  aclIntArray *a = aclCreateIntArray(values.data(), values.size());
  TORCH_CHECK(a != nullptr, "trilinear3d: aclCreateIntArray failed: ", RecentMessage());
  return IntArrayPtr(a);
}

// --- The operators ---------------------------------------------------------------------------------------

// The library's entry points, with the scales as an array (one per spatial axis).
using ForwardPlan = aclnnStatus (*)(const aclTensor *self, const aclIntArray *outputSize, bool alignCorners,
                                    const double *scales, aclTensor *out, uint64_t *workspaceSize,
                                    aclOpExecutor **executor);
using BackwardPlan = aclnnStatus (*)(const aclTensor *gradOut, const aclIntArray *outputSize,
                                     const aclIntArray *inputSize, bool alignCorners, const double *scales,
                                     aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);
using Run = aclnnStatus (*)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                            aclrtStream stream);

// How the library's scales relate to torch's (LibraryScales).
enum class ScaleRule {
  kLinear,        // all or none, each giving its size: floor(in * s) == out (LibraryScales)
  kNearest,       // torch's float ratio per axis, ambiguous on axes of out == in or 2 * in (NearestScales)
  kNearestFloat,  // kNearest, the forward's scales passed as float (the V2 forwards)
  kNearestExact,  // torch's float ratio per axis, nowhere ambiguous
};

// One operator of the family: aten's (and trilinear3d::'s) name for the forward (the backward is
// <name>_backward), its spatial rank, and the library's forward and backward.
struct ResizeOp {
  const char *name;
  int spatialDims;
  const char *axes[3];  // the spatial axes' letters, for torch's messages
  const char *scaleNames;
  // The library's "no scale": 0 where scales count only when > 0, -1 for Linear1d (it checks a scale >= 0
  // against the size, docs/spec.md §2).
  double noScale;
  // The backward's inputSize lists (N, C, spatial) in the order of gradOut's format (V2, docs/spec.md §3).
  bool inputSizeInGradOutFormat;
  bool alignCorners;  // the schema has align_corners (the linear operators; nearest has none)
  bool uint8Forward;  // the library's forward takes uint8 (ACL_UINT8), as torch's does
  ScaleRule scaleRule;
  const char *forwardApi;
  ForwardPlan forwardPlan;
  Run forwardRun;
  const char *backwardApi;
  BackwardPlan backwardPlan;
  Run backwardRun;
  // The cubic group: each scale counts on its own axis where it is > 0, as in torch (the library may still
  // refuse one, a scale that does not give its size say: torch's kernel runs then).
  bool perAxisScales = false;
  // The backward's gradOut and gradInput in one format (the library's bicubic backward wants that).
  bool sameFormats = false;
  // Only the channels-first formats (CANN's antialiased operators): a channels-last tensor is passed as NCHW
  // with its strides, which describe the same memory.
  bool channelsFirstOnly = false;
};

enum OpIndex {
  kTrilinear3d,
  kBilinear2d,
  kLinear1d,
  kNearest3d,
  kNearest2d,
  kNearest1d,
  kNearestExact3d,
  kNearestExact2d,
  kNearestExact1d,
  kBicubic2d,
  kBilinear2dAA,
  kBicubic2dAA,
  kOpCount
};

const ResizeOp kOps[kOpCount] = {
    {"upsample_trilinear3d",
     3,
     {"D", "H", "W"},
     "scales_d, scales_h and scales_w",
     0.0,
     false,
     true,
     false,
     ScaleRule::kLinear,
     "aclnnUpsampleTrilinear3d",
     [](const aclTensor *self, const aclIntArray *size, bool align, const double *s, aclTensor *out,
        uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleTrilinear3dGetWorkspaceSize(self, size, align, s[0], s[1], s[2], out, ws, ex);
     },
     aclnnUpsampleTrilinear3d,
     "aclnnUpsampleTrilinear3dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool align,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(gradOut, size, inputSize, align, s[0], s[1],
                                                               s[2], gradInput, ws, ex);
     },
     aclnnUpsampleTrilinear3dBackward},
    {"upsample_bilinear2d",
     2,
     {"H", "W"},
     "scales_h and scales_w",
     0.0,
     true,
     true,
     false,
     ScaleRule::kLinear,
     "aclnnUpsampleBilinear2d",
     [](const aclTensor *self, const aclIntArray *size, bool align, const double *s, aclTensor *out,
        uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBilinear2dGetWorkspaceSize(self, size, align, s[0], s[1], out, ws, ex);
     },
     aclnnUpsampleBilinear2d,
     "aclnnUpsampleBilinear2dBackwardV2",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool align,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(gradOut, size, inputSize, align, s[0], s[1],
                                                                gradInput, ws, ex);
     },
     aclnnUpsampleBilinear2dBackwardV2},
    {"upsample_linear1d",
     1,
     {"W"},
     "scales",
     -1.0,
     false,
     true,
     false,
     ScaleRule::kLinear,
     "aclnnUpsampleLinear1d",
     [](const aclTensor *self, const aclIntArray *size, bool align, const double *s, aclTensor *out,
        uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleLinear1dGetWorkspaceSize(self, size, align, s[0], out, ws, ex);
     },
     aclnnUpsampleLinear1d,
     "aclnnUpsampleLinear1dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool align,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleLinear1dBackwardGetWorkspaceSize(gradOut, size, inputSize, align, s[0], gradInput,
                                                            ws, ex);
     },
     aclnnUpsampleLinear1dBackward},
    // The nearest operators: no align_corners (the align argument is ignored).
    {"upsample_nearest3d",
     3,
     {"D", "H", "W"},
     "scales_d, scales_h and scales_w",
     0.0,
     false,
     false,
     true,
     ScaleRule::kNearest,
     "aclnnUpsampleNearest3d",
     [](const aclTensor *self, const aclIntArray *size, bool, const double *s, aclTensor *out, uint64_t *ws,
        aclOpExecutor **ex) {
       return aclnnUpsampleNearest3dGetWorkspaceSize(self, size, s[0], s[1], s[2], out, ws, ex);
     },
     aclnnUpsampleNearest3d,
     "aclnnUpsampleNearest3dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleNearest3dBackwardGetWorkspaceSize(gradOut, size, inputSize, s[0], s[1], s[2],
                                                             gradInput, ws, ex);
     },
     aclnnUpsampleNearest3dBackward},
    {"upsample_nearest2d",
     2,
     {"H", "W"},
     "scales_h and scales_w",
     0.0,
     false,
     false,
     true,
     ScaleRule::kNearestFloat,
     "aclnnUpsampleNearest2dV2",
     [](const aclTensor *self, const aclIntArray *size, bool, const double *s, aclTensor *out, uint64_t *ws,
        aclOpExecutor **ex) {
       return aclnnUpsampleNearest2dV2GetWorkspaceSize(self, size, static_cast<float>(s[0]),
                                                       static_cast<float>(s[1]), out, ws, ex);
     },
     aclnnUpsampleNearest2dV2,
     "aclnnUpsampleNearest2dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleNearest2dBackwardGetWorkspaceSize(gradOut, size, inputSize, s[0], s[1], gradInput,
                                                             ws, ex);
     },
     aclnnUpsampleNearest2dBackward},
    {"upsample_nearest1d",
     1,
     {"W"},
     "scales",
     0.0,
     false,
     false,
     true,
     ScaleRule::kNearestFloat,
     "aclnnUpsampleNearest1dV2",
     [](const aclTensor *self, const aclIntArray *size, bool, const double *s, aclTensor *out, uint64_t *ws,
        aclOpExecutor **ex) {
       return aclnnUpsampleNearest1dV2GetWorkspaceSize(self, size, static_cast<float>(s[0]), out, ws, ex);
     },
     aclnnUpsampleNearest1dV2,
     "aclnnUpsampleNearest1dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleNearest1dBackwardGetWorkspaceSize(gradOut, size, inputSize, s[0], gradInput, ws,
                                                             ex);
     },
     aclnnUpsampleNearest1dBackward},
    {"_upsample_nearest_exact3d",
     3,
     {"D", "H", "W"},
     "scales_d, scales_h and scales_w",
     0.0,
     false,
     false,
     true,
     ScaleRule::kNearestExact,
     "aclnnUpsampleNearestExact3d",
     [](const aclTensor *self, const aclIntArray *size, bool, const double *s, aclTensor *out, uint64_t *ws,
        aclOpExecutor **ex) {
       return aclnnUpsampleNearestExact3dGetWorkspaceSize(self, size, s[0], s[1], s[2], out, ws, ex);
     },
     aclnnUpsampleNearestExact3d,
     "aclnnUpsampleNearestExact3dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(gradOut, size, inputSize, s[0], s[1], s[2],
                                                                  gradInput, ws, ex);
     },
     aclnnUpsampleNearestExact3dBackward},
    {"_upsample_nearest_exact2d",
     2,
     {"H", "W"},
     "scales_h and scales_w",
     0.0,
     false,
     false,
     true,
     ScaleRule::kNearestExact,
     "aclnnUpsampleNearestExact2d",
     [](const aclTensor *self, const aclIntArray *size, bool, const double *s, aclTensor *out, uint64_t *ws,
        aclOpExecutor **ex) {
       return aclnnUpsampleNearestExact2dGetWorkspaceSize(self, size, s[0], s[1], out, ws, ex);
     },
     aclnnUpsampleNearestExact2d,
     "aclnnUpsampleNearestExact2dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(gradOut, size, inputSize, s[0], s[1],
                                                                  gradInput, ws, ex);
     },
     aclnnUpsampleNearestExact2dBackward},
    {"_upsample_nearest_exact1d",
     1,
     {"W"},
     "scales",
     0.0,
     false,
     false,
     true,
     ScaleRule::kNearestExact,
     "aclnnUpsampleNearestExact1d",
     [](const aclTensor *self, const aclIntArray *size, bool, const double *s, aclTensor *out, uint64_t *ws,
        aclOpExecutor **ex) {
       return aclnnUpsampleNearestExact1dGetWorkspaceSize(self, size, s[0], out, ws, ex);
     },
     aclnnUpsampleNearestExact1d,
     "aclnnUpsampleNearestExact1dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(gradOut, size, inputSize, s[0], gradInput,
                                                                  ws, ex);
     },
     aclnnUpsampleNearestExact1dBackward},
    {"upsample_bicubic2d",
     2,
     {"H", "W"},
     "scales_h and scales_w",
     0.0,
     true,
     true,
     false,
     ScaleRule::kLinear,
     "aclnnUpsampleBicubic2d",
     [](const aclTensor *self, const aclIntArray *size, bool align, const double *s, aclTensor *out,
        uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBicubic2dGetWorkspaceSize(self, size, align, s[0], s[1], out, ws, ex);
     },
     aclnnUpsampleBicubic2d,
     "aclnnUpsampleBicubic2dBackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool align,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(gradOut, size, inputSize, align, s[0], s[1],
                                                             gradInput, ws, ex);
     },
     aclnnUpsampleBicubic2dBackward,
     true,
     true,
     false},
    {"_upsample_bilinear2d_aa",
     2,
     {"H", "W"},
     "scales_h and scales_w",
     0.0,
     false,
     true,
     false,
     ScaleRule::kLinear,
     "aclnnUpsampleBilinear2dAA",
     [](const aclTensor *self, const aclIntArray *size, bool align, const double *s, aclTensor *out,
        uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBilinear2dAAGetWorkspaceSize(self, size, align, s[0], s[1], out, ws, ex);
     },
     aclnnUpsampleBilinear2dAA,
     "aclnnUpsampleBilinear2dAABackward",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool align,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(gradOut, size, inputSize, align, s[0], s[1],
                                                                gradInput, ws, ex);
     },
     aclnnUpsampleBilinear2dAABackward,
     true,
     true,
     true},
    {"_upsample_bicubic2d_aa",
     2,
     {"H", "W"},
     "scales_h and scales_w",
     0.0,
     false,
     true,
     false,
     ScaleRule::kLinear,
     "aclnnUpsampleBicubic2dAA",
     [](const aclTensor *self, const aclIntArray *size, bool align, const double *s, aclTensor *out,
        uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBicubic2dAAGetWorkspaceSize(self, size, align, s[0], s[1], out, ws, ex);
     },
     aclnnUpsampleBicubic2dAA,
     "aclnnUpsampleBicubic2dAAGrad",
     [](const aclTensor *gradOut, const aclIntArray *size, const aclIntArray *inputSize, bool align,
        const double *s, aclTensor *gradInput, uint64_t *ws, aclOpExecutor **ex) {
       return aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(gradOut, size, inputSize, align, s[0], s[1],
                                                           gradInput, ws, ex);
     },
     aclnnUpsampleBicubic2dAAGrad,
     true,
     true,
     true},
};

// Library runs and fallbacks to torch's kernel, per operator, for trilinear3d.stats().
struct Counts {
  std::atomic<int64_t> forward{0}, backward{0}, fallbackForward{0}, fallbackBackward{0};
};
Counts gCounts[kOpCount];

using Scales = std::vector<Scale>;

// On an axis with out == in or out == 2 * in, torch's upsample_nearest (not _exact) picks o or o / 2 in some
// of its kernels whatever the scale (its backwards, its 2-D forward, torch 1.13's channels-last forwards)
// and maps by the scale in others (its 1-D and 3-D forwards), so a scale whose ratio is not the sizes' has
// no one torch result there: such a case stays torch's.
bool NearestAxisAmbiguous(const ResizeOp &op, int64_t in, int64_t out) {
  return (op.scaleRule == ScaleRule::kNearest || op.scaleRule == ScaleRule::kNearestFloat) &&
         (out == in || out == 2 * in);
}

// A nearest axis's float ratio as torch computes it (compute_scales_value<float>): float(1 / s) for a scale
// > 0, else in / out divided in float. The library's is the same function of the scale it is given, after
// the V2 forwards' float parameter (docs/spec.md §2).
float NearestRatio(int64_t in, int64_t out, double scale) {
  return scale > 0.0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
}

// The nearest operators: the library takes its scales all or none (the forwards) or per axis (the
// backwards) and checks none against the sizes; torch uses each given scale on its axis. Both pick the
// same inputs wherever their float ratios agree, so: no scales where every axis's torch ratio is the sizes'
// one; else a scale for every axis (the user's, or out / in where none was given), where every ratio the
// library then computes is torch's. Otherwise (and on an ambiguous axis) only torch's kernel computes
// torch's result.
bool NearestScales(const ResizeOp &op, at::IntArrayRef inputSpatial, at::IntArrayRef outputSpatial,
                   const Scales &scales, bool forward, double libraryScales[3]) {
  double given[3];
  bool noneAgrees = true;
  for (int i = 0; i < op.spatialDims; ++i) {
    const int64_t in = inputSpatial[i], out = outputSpatial[i];
    given[i] = scales[i].has_value() && *scales[i] > 0.0 ? *scales[i] : 0.0;
    const bool agrees = NearestRatio(in, out, given[i]) == NearestRatio(in, out, 0.0);
    if (!agrees && NearestAxisAmbiguous(op, in, out)) return false;
    noneAgrees = noneAgrees && agrees;
    libraryScales[i] = op.noScale;
  }
  if (noneAgrees) return true;
  for (int i = 0; i < op.spatialDims; ++i) {
    const int64_t in = inputSpatial[i], out = outputSpatial[i];
    double scale = given[i] > 0.0 ? given[i] : static_cast<double>(out) / static_cast<double>(in);
    if (forward && op.scaleRule == ScaleRule::kNearestFloat)
      scale = static_cast<double>(static_cast<float>(scale));
    if (NearestRatio(in, out, scale) != NearestRatio(in, out, given[i])) return false;
    libraryScales[i] = scale;
  }
  return true;
}

// How torch and the library resize with user scales. torch uses each axis's scale on its own when it is
// given and > 0 (1/s), else the sizes (in/out), and with align_corners never. The library has its own rules
// per operator (docs/spec.md §2): the linear ones use all of their scales or none, only where each gives its
// size (floor(in · s) == out, in double, as the library checks), and some refuse a scale that does not.
// The two compute the same math when no scale counts (align_corners, or none given > 0): the library then
// gets its "no scale"; or when every axis's scale counts and gives its size: the library gets them all and
// both use 1/s. Fills libraryScales and returns true in those cases; false where only torch's kernel
// computes torch's result (a partial set, or a scale that does not give its size). The nearest operators:
// NearestScales.
bool LibraryScales(const ResizeOp &op, at::IntArrayRef inputSpatial, at::IntArrayRef outputSpatial,
                   bool alignCorners, const Scales &scales, bool forward, double libraryScales[3]) {
  if (op.scaleRule != ScaleRule::kLinear)
    return NearestScales(op, inputSpatial, outputSpatial, scales, forward, libraryScales);
  if (op.perAxisScales) {  // torch's rule too: each scale > 0 on its own axis
    for (int i = 0; i < op.spatialDims; ++i) {
      libraryScales[i] = !alignCorners && scales[i].has_value() && *scales[i] > 0.0 ? *scales[i] : 0.0;
    }
    return true;
  }
  int counted = 0;
  for (int i = 0; i < op.spatialDims; ++i) {
    counted += !alignCorners && scales[i].has_value() && *scales[i] > 0.0;
    libraryScales[i] = op.noScale;
  }
  if (counted == 0) return true;
  if (counted != op.spatialDims) return false;
  for (int i = 0; i < op.spatialDims; ++i) {
    const double s = *scales[i];
    if (std::floor(static_cast<double>(inputSpatial[i]) * s) != static_cast<double>(outputSpatial[i]))
      return false;
    libraryScales[i] = s;
  }
  return true;
}

std::string ScalesString(const Scales &scales) {
  std::ostringstream text;
  text << "(";
  for (size_t i = 0; i < scales.size(); ++i) {
    text << (i ? ", " : "");
    if (scales[i].has_value()) {
      text << *scales[i];
    } else {
      text << "None";
    }
  }
  text << ")";
  return text.str();
}

// The linear trilinear3d:: operators' scales: torch's math or a ValueError (never a silent difference). The
// nearest ones are the override's kernels (NearestAten).
void DirectScales(const ResizeOp &op, at::IntArrayRef inputSpatial, at::IntArrayRef outputSpatial,
                  bool alignCorners, const Scales &scales, bool forward, double libraryScales[3]) {
  int given = 0;
  for (const Scale &s : scales) given += s.has_value();
  TORCH_CHECK_VALUE(op.perAxisScales || given == 0 || given == op.spatialDims, "trilinear3d: ", op.scaleNames,
                    " must be all given or all None");
  for (const Scale &s : scales) {
    TORCH_CHECK_VALUE(!s.has_value() || *s > 0.0, "trilinear3d: scales must be > 0, but got ",
                      ScalesString(scales));
  }
  TORCH_CHECK_VALUE(
      LibraryScales(op, inputSpatial, outputSpatial, alignCorners, scales, forward, libraryScales),
      "trilinear3d: scales ", ScalesString(scales), " must match outputSize ", outputSpatial,
      " for the input's spatial size ", inputSpatial, ": floor(input size * scale) = output size");
}

std::string AxesString(const ResizeOp &op, at::IntArrayRef sizes) {
  std::ostringstream text;
  for (int i = 0; i < op.spatialDims; ++i) text << (i ? ", " : "") << op.axes[i] << ": " << sizes[i];
  return text.str();
}

// torch's upsample_{1,2,3}d_common_check, with its messages.
void CheckSizes(const ResizeOp &op, at::IntArrayRef inputSize, at::IntArrayRef outputSize) {
  const size_t dims = static_cast<size_t>(op.spatialDims);
  TORCH_CHECK(outputSize.size() == dims, "It is expected output_size equals to ", dims, ", but got size ",
              outputSize.size());
  TORCH_CHECK(inputSize.size() == dims + 2, "It is expected input_size equals to ", dims + 2,
              ", but got size ", inputSize.size());
  bool positive = true;
  for (size_t i = 0; i < dims; ++i) positive = positive && inputSize[2 + i] > 0 && outputSize[i] > 0;
  TORCH_CHECK(positive, "Input and output sizes should be greater than 0, but got input (",
              AxesString(op, inputSize.slice(2)), ") output (", AxesString(op, outputSize), ")");
}

// Output buffers. A large output from a plain allocation is fresh memory: glibc maps every block of more
// than a few MB anew and unmaps it on free, so each call first-touches it page by page. On B1 (a 268 MB
// forward output) those 65536 page faults, and the kernel's zeroing of every page, cost more than the
// operator itself. Large outputs therefore come from a small cache of buffers: 2 MiB-aligned, advised for
// transparent huge pages (512 times fewer faults on first use), and, once their tensor is freed, kept for
// the next output of the same byte size (a training loop asks for the same shapes every step), up to
// TRILINEAR3D_PY_CACHE_MB megabytes of idle buffers (default 1024; 0: plain torch allocations).
// Smaller outputs are plain at::empty. Either way the tensor is an ordinary CPU tensor of exactly its size.
class OutputCache {
 public:
  static OutputCache &Get() {
    static OutputCache *cache = new OutputCache();  // never destroyed: tensors may outlive static teardown
    return *cache;
  }

  static constexpr size_t kMinBytes = size_t(4) << 20;  // below this, torch's allocator does well

  bool Enabled() const { return capacity_ > 0; }

  // A buffer of at least `bytes` (exactly `bytes` rounded up to 2 MiB), or null when out of memory.
  void *Acquire(size_t bytes) {
    const size_t rounded = RoundUp(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = idle_.begin(); it != idle_.end(); ++it) {
        if (it->second == rounded) {
          void *p = it->first;
          idle_.erase(it);
          idleBytes_ -= rounded;
          return p;
        }
      }
    }
    void *p = nullptr;
    if (posix_memalign(&p, kHugePage, rounded) != 0) return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ignored where THP is off
#endif
    return p;
  }

  // Takes a buffer back: kept as the most recent idle one, the oldest ones freed beyond the capacity.
  void Release(void *p, size_t bytes) {
    const size_t rounded = RoundUp(bytes);
    std::vector<void *> toFree;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (rounded <= capacity_) {
        idle_.emplace_front(p, rounded);
        idleBytes_ += rounded;
        p = nullptr;
      }
      while (idleBytes_ > capacity_) {
        toFree.push_back(idle_.back().first);
        idleBytes_ -= idle_.back().second;
        idle_.pop_back();
      }
    }
    if (p != nullptr) toFree.push_back(p);
    for (void *q : toFree) std::free(q);
  }

  // Frees every idle buffer (buffers whose tensors are alive stay theirs); returns the bytes freed.
  size_t Trim() {
    std::list<std::pair<void *, size_t>> idle;
    size_t freed = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      idle.swap(idle_);
      freed = idleBytes_;
      idleBytes_ = 0;
    }
    for (auto &entry : idle) std::free(entry.first);
    return freed;
  }

  size_t IdleBytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return idleBytes_;
  }

  size_t IdleBuffers() {
    std::lock_guard<std::mutex> lock(mutex_);
    return idle_.size();
  }

  size_t Capacity() const { return capacity_; }

 private:
  static constexpr size_t kHugePage = size_t(2) << 20;

  OutputCache() {
    const char *v = std::getenv("TRILINEAR3D_PY_CACHE_MB");
    long long mb = 1024;
    if (v != nullptr && *v != '\0') {
      char *end = nullptr;
      const long long parsed = std::strtoll(v, &end, 10);
      if (end != v && *end == '\0' && parsed >= 0) mb = parsed;
    }
    capacity_ = static_cast<size_t>(mb) << 20;
  }

  static size_t RoundUp(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

  std::mutex mutex_;
  std::list<std::pair<void *, size_t>> idle_;  // most recently released first
  size_t idleBytes_ = 0;
  size_t capacity_ = 0;
};

// A new output tensor of `sizes` in `format` (contiguous, channels_last or channels_last_3d).
at::Tensor NewOutput(at::IntArrayRef sizes, const at::TensorOptions &options, at::MemoryFormat format) {
  OutputCache &cache = OutputCache::Get();
  size_t bytes = options.dtype().itemsize();
  for (int64_t n : sizes) {
    TORCH_CHECK(n >= 0 && !__builtin_mul_overflow(bytes, static_cast<size_t>(n), &bytes),
                "trilinear3d: output sizes ", sizes, " are too large");
  }
  if (!cache.Enabled() || bytes < OutputCache::kMinBytes)
    return at::empty(sizes, options.memory_format(format));
  void *data = cache.Acquire(bytes);
  TORCH_CHECK(data != nullptr, "trilinear3d: out of memory allocating ", bytes, " bytes");
  std::vector<int64_t> strides;
  if (format == at::MemoryFormat::ChannelsLast3d) {
    strides = c10::get_channels_last_strides_3d(sizes);
  } else if (format == at::MemoryFormat::ChannelsLast) {
    strides = c10::get_channels_last_strides_2d(sizes);
  } else {
    strides.assign(sizes.size(), 1);
    for (size_t i = sizes.size() - 1; i > 0; --i)
      strides[i - 1] = strides[i] * std::max<int64_t>(sizes[i], 1);
  }
  // An ordinary, resizable CPU storage whose memory goes back to the cache when the storage frees it.
  struct Block {
    void *data;
    size_t bytes;
  };
  auto *block = new Block{data, bytes};
  at::DataPtr dataPtr(
      data, block,
      [](void *ctx) {
        auto *b = static_cast<Block *>(ctx);
        OutputCache::Get().Release(b->data, b->bytes);
        delete b;
      },
      at::Device(at::kCPU));
  c10::Storage storage(c10::Storage::use_byte_size_t(), bytes, std::move(dataPtr), c10::GetCPUAllocator(),
                       /*resizable=*/true);
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(std::move(storage), options.computeDispatchKey(),
                                                          options.dtype());
  t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides);
  return t;
}

// Runs one planned op: workspace from torch, the default stream, then a synchronize. The GIL is
// released while the library works (Python threads keep running).
template <typename Plan>
void Execute(const char *api, Plan plan, Run run) {
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  int status = plan(&workspaceSize, &executor);
  if (status != ACLNN_SUCCESS) ThrowStatus(api, status);
  at::Tensor workspace;
  if (workspaceSize > 0)
    workspace = at::empty({static_cast<int64_t>(workspaceSize)}, at::TensorOptions(at::kByte));
  void *workspacePtr = workspaceSize > 0 ? workspace.data_ptr() : nullptr;
  auto launch = [&] {
    status = run(workspacePtr, workspaceSize, executor, nullptr);
    if (status == ACLNN_SUCCESS) status = aclrtSynchronizeStream(nullptr);
  };
  if (Py_IsInitialized() && PyGILState_Check()) {
    pybind11::gil_scoped_release release;
    launch();
  } else {
    launch();
  }
  if (status != ACLNN_SUCCESS) ThrowStatus(api, status);
}

// The forward of op: (N, C, in...) -> (N, C, outputSize), in torch's memory format for the output.
// The library's scales are libraryScales (the override's, from LibraryScales) or, where null, DirectScales'.
at::Tensor ResizeForward(const ResizeOp &op, const at::Tensor &self, at::IntArrayRef outputSize,
                         bool alignCorners, const Scales &scales, const double *libraryScales = nullptr) {
  const int64_t rank = op.spatialDims + 2;
  TORCH_CHECK(self.dim() == rank, op.name, ": expected a ", rank, "-D input, but got ", self.dim(),
              "-D with sizes ", self.sizes());
  CheckSizes(op, self.sizes(), outputSize);
  TORCH_CHECK(self.numel() != 0 || c10::multiply_integers(self.sizes().begin() + 1, self.sizes().end()),
              "Non-empty ", rank, "D data tensor expected but got a tensor with sizes ", self.sizes());
  TORCH_CHECK(self.scalar_type() != at::kByte || op.uint8Forward, "\"", op.name, "\" not implemented for '",
              self.scalar_type(), "'");
  const aclDataType dtype = ToAclDataType(self, op.name);
  double scalesArray[3];
  if (libraryScales != nullptr) {
    std::copy(libraryScales, libraryScales + op.spatialDims, scalesArray);
  } else {
    DirectScales(op, self.sizes().slice(2), outputSize, alignCorners, scales, true, scalesArray);
  }

  std::vector<int64_t> outSizes{self.size(0), self.size(1)};
  outSizes.insert(outSizes.end(), outputSize.begin(), outputSize.end());
  at::Tensor out = NewOutput(outSizes, self.options(), self.suggest_memory_format());
  if (out.numel() == 0) return out;

  // The 2-D forward wants self and out of one format: the output's, which is torch's for the input.
  const bool channelsLast = !op.channelsFirstOnly && (IsChannelsLast(out) || IsChannelsLast(self));
  TensorPtr selfT = WrapTensor(self, dtype, op.spatialDims == 3 ? IsChannelsLast(self) : channelsLast);
  TensorPtr outT = WrapTensor(out, dtype, op.spatialDims == 3 ? IsChannelsLast(out) : channelsLast);
  IntArrayPtr outputSizeA = WrapIntArray(outputSize.vec());
  Execute(
      op.forwardApi,
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return op.forwardPlan(selfT.get(), outputSizeA.get(), alignCorners, scalesArray, outT.get(), ws, ex);
      },
      op.forwardRun);
  gCounts[&op - kOps].forward.fetch_add(1, std::memory_order_relaxed);
  return out;
}

// The backward of op: grad_output (N, C, outputSize) -> the input's gradient (inputSize), in torch's memory
// format for grad_output.
at::Tensor ResizeBackward(const ResizeOp &op, const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                          at::IntArrayRef inputSize, bool alignCorners, const Scales &scales,
                          const double *libraryScales = nullptr) {
  CheckSizes(op, inputSize, outputSize);
  const int64_t rank = op.spatialDims + 2;
  TORCH_CHECK(gradOutput.dim() == rank, op.name, "_backward: expected a ", rank, "-D grad_output, but got ",
              gradOutput.dim(), "-D with sizes ", gradOutput.sizes());
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t expected = i < 2 ? inputSize[i] : outputSize[i - 2];
    TORCH_CHECK(gradOutput.size(i) == expected, "Expected grad_output to have the same shape as output;",
                " output.size(", i, ") = ", expected, " but got grad_output.size(", i,
                ") = ", gradOutput.size(i));
  }
  const std::string name = std::string(op.name) + "_backward";
  TORCH_CHECK(gradOutput.scalar_type() != at::kByte, "\"", name, "\" not implemented for '",
              gradOutput.scalar_type(), "'");
  const aclDataType dtype = ToAclDataType(gradOutput, name.c_str());
  double scalesArray[3];
  if (libraryScales != nullptr) {
    std::copy(libraryScales, libraryScales + op.spatialDims, scalesArray);
  } else {
    DirectScales(op, inputSize.slice(2), outputSize, alignCorners, scales, false, scalesArray);
  }

  at::Tensor gradInput = NewOutput(inputSize, gradOutput.options(), gradOutput.suggest_memory_format());
  if (gradInput.numel() == 0) return gradInput;

  const bool sameFormat = op.sameFormats && (IsChannelsLast(gradOutput) || IsChannelsLast(gradInput));
  const bool gradOutChannelsLast = !op.channelsFirstOnly && (IsChannelsLast(gradOutput) || sameFormat);
  TensorPtr gradOutT = WrapTensor(gradOutput, dtype, gradOutChannelsLast);
  TensorPtr gradInT =
      WrapTensor(gradInput, dtype, !op.channelsFirstOnly && (IsChannelsLast(gradInput) || sameFormat));
  std::vector<int64_t> inputSizeInFormat = inputSize.vec();
  if (op.inputSizeInGradOutFormat && gradOutChannelsLast) {  // (N, spatial..., C)
    inputSizeInFormat.erase(inputSizeInFormat.begin() + 1);
    inputSizeInFormat.push_back(inputSize[1]);
  }
  IntArrayPtr outputSizeA = WrapIntArray(outputSize.vec());
  IntArrayPtr inputSizeA = WrapIntArray(inputSizeInFormat);
  Execute(
      op.backwardApi,
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return op.backwardPlan(gradOutT.get(), outputSizeA.get(), inputSizeA.get(), alignCorners, scalesArray,
                               gradInT.get(), ws, ex);
      },
      op.backwardRun);
  gCounts[&op - kOps].backward.fetch_add(1, std::memory_order_relaxed);
  return gradInput;
}

// --- Autograd --------------------------------------------------------------------------------------------

// The trilinear3d:: operators, called through the dispatcher (boxed) so that the autograd Functions reach
// their CPU kernels, or a device's error. The handles are looked up once, at the first call (after
// TORCH_LIBRARY has defined them): forward, backward for each row of kOps.
at::Tensor CallOperator(int opIndex, bool backward, torch::jit::Stack stack) {
  static const std::vector<c10::OperatorHandle> handles = [] {
    std::vector<c10::OperatorHandle> found;
    for (const ResizeOp &op : kOps) {
      for (const char *suffix : {"", "_backward"}) {
        const std::string name = std::string("trilinear3d::") + op.name + suffix;
        found.push_back(c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), ""));
      }
    }
    return found;
  }();
  handles[2 * opIndex + (backward ? 1 : 0)].callBoxed(&stack);
  return stack[0].toTensor();
}

void PushArguments(torch::jit::Stack *stack, int opIndex, at::IntArrayRef outputSize, bool alignCorners,
                   const Scales &scales) {
  stack->emplace_back(outputSize.vec());
  if (kOps[opIndex].alignCorners) stack->emplace_back(alignCorners);
  for (const Scale &s : scales) stack->emplace_back(s);
}

at::Tensor CallForward(int opIndex, const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners,
                       const Scales &scales) {
  torch::jit::Stack stack{self};
  PushArguments(&stack, opIndex, outputSize, alignCorners, scales);
  return CallOperator(opIndex, false, std::move(stack));
}

at::Tensor CallBackward(int opIndex, const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                        at::IntArrayRef inputSize, bool alignCorners, const Scales &scales) {
  torch::jit::Stack stack{gradOutput};
  PushArguments(&stack, opIndex, outputSize, alignCorners, scales);
  stack.insert(stack.begin() + 2, c10::IValue(inputSize.vec()));
  return CallOperator(opIndex, true, std::move(stack));
}

void SaveParams(torch::autograd::AutogradContext *ctx, int opIndex, at::IntArrayRef outputSize,
                bool alignCorners, const Scales &scales) {
  ctx->saved_data["op"] = static_cast<int64_t>(opIndex);
  ctx->saved_data["output_size"] = outputSize.vec();
  ctx->saved_data["align_corners"] = alignCorners;
  for (size_t i = 0; i < scales.size(); ++i) ctx->saved_data["scale" + std::to_string(i)] = scales[i];
}

struct SavedParams {
  int op;
  std::vector<int64_t> outputSize;
  bool alignCorners;
  Scales scales;
};

SavedParams Saved(torch::autograd::AutogradContext *ctx) {
  SavedParams p;
  p.op = static_cast<int>(ctx->saved_data["op"].toInt());
  p.outputSize = ctx->saved_data["output_size"].toIntVector();
  p.alignCorners = ctx->saved_data["align_corners"].toBool();
  for (int i = 0; i < kOps[p.op].spatialDims; ++i) {
    const c10::IValue &v = ctx->saved_data["scale" + std::to_string(i)];
    p.scales.push_back(v.isNone() ? Scale() : Scale(v.toDouble()));
  }
  return p;
}

// d(out)/d(self) is the backward op.
class ResizeFunction : public torch::autograd::Function<ResizeFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext *ctx, const at::Tensor &self, int opIndex,
                            at::IntArrayRef outputSize, bool alignCorners, const Scales &scales) {
    SaveParams(ctx, opIndex, outputSize, alignCorners, scales);
    ctx->saved_data["input_size"] = self.sizes().vec();
    at::AutoDispatchBelowADInplaceOrView guard;
    return CallForward(opIndex, self, outputSize, alignCorners, scales);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::variable_list grads) {
    const SavedParams p = Saved(ctx);
    at::Tensor gradInput;
    if (grads[0].defined()) {
      gradInput = CallBackward(p.op, grads[0], p.outputSize, ctx->saved_data["input_size"].toIntVector(),
                               p.alignCorners, p.scales);
    }
    return {gradInput, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// d(grad_input)/d(grad_output) is the forward op.
class ResizeBackwardFunction : public torch::autograd::Function<ResizeBackwardFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext *ctx, const at::Tensor &gradOutput, int opIndex,
                            at::IntArrayRef outputSize, at::IntArrayRef inputSize, bool alignCorners,
                            const Scales &scales) {
    SaveParams(ctx, opIndex, outputSize, alignCorners, scales);
    at::AutoDispatchBelowADInplaceOrView guard;
    return CallBackward(opIndex, gradOutput, outputSize, inputSize, alignCorners, scales);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::variable_list grads) {
    const SavedParams p = Saved(ctx);
    at::Tensor gradGradOutput;
    if (grads[0].defined())
      gradGradOutput = CallForward(p.op, grads[0], p.outputSize, p.alignCorners, p.scales);
    return {gradGradOutput, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// --- The aten override -----------------------------------------------------------------------------------

bool SupportedDtype(const at::Tensor &t) {
  const auto type = t.scalar_type();
  return type == at::kFloat || type == at::kDouble || type == at::kHalf || type == at::kBFloat16;
}

bool SupportedForwardDtype(const ResizeOp &op, const at::Tensor &t) {
  return SupportedDtype(t) || (op.uint8Forward && t.scalar_type() == at::kByte);
}

bool NonNegativeStrides(const at::Tensor &t) {
  for (int64_t s : t.strides()) {
    if (s < 0) return false;
  }
  return true;
}

bool PositiveSizes(at::IntArrayRef sizes) {
  return std::all_of(sizes.begin(), sizes.end(), [](int64_t n) { return n > 0; });
}

// The cases the library takes, with its scales; anything else, malformed arguments included, keeps torch's
// kernel and so torch's results and error messages.
bool LibraryTakesForward(const ResizeOp &op, const at::Tensor &self, at::IntArrayRef outputSize,
                         bool alignCorners, const Scales &scales, double libraryScales[3]) {
  return self.dim() == op.spatialDims + 2 && SupportedForwardDtype(op, self) && NonNegativeStrides(self) &&
         outputSize.size() == static_cast<size_t>(op.spatialDims) && self.numel() > 0 &&
         PositiveSizes(outputSize) &&
         LibraryScales(op, self.sizes().slice(2), outputSize, alignCorners, scales, true, libraryScales);
}

bool LibraryTakesBackward(const ResizeOp &op, const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                          at::IntArrayRef inputSize, bool alignCorners, const Scales &scales,
                          double libraryScales[3]) {
  const int64_t rank = op.spatialDims + 2;
  if (gradOutput.dim() != rank || !SupportedDtype(gradOutput) || !NonNegativeStrides(gradOutput) ||
      outputSize.size() != static_cast<size_t>(op.spatialDims) ||
      static_cast<int64_t>(inputSize.size()) != rank || gradOutput.numel() == 0 ||
      !PositiveSizes(inputSize) || !PositiveSizes(outputSize))
    return false;
  for (int64_t i = 0; i < rank; ++i) {
    if (gradOutput.size(i) != (i < 2 ? inputSize[i] : outputSize[i - 2])) return false;
  }
  return LibraryScales(op, inputSize.slice(2), outputSize, alignCorners, scales, false, libraryScales);
}

// The override's kernels: the library where it takes the case (its own validation may still refuse one, a
// dim above its limits say: torch's kernel decides it then), torch's kernel (`fallback`) otherwise.
template <typename Fallback>
at::Tensor OverrideForward(int opIndex, const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners,
                           const Scales &scales, Fallback fallback) {
  const ResizeOp &op = kOps[opIndex];
  double libraryScales[3];
  if (LibraryTakesForward(op, self, outputSize, alignCorners, scales, libraryScales)) {
    try {
      return ResizeForward(op, self, outputSize, alignCorners, scales, libraryScales);
    } catch (const c10::ValueError &) {
    }
  }
  gCounts[opIndex].fallbackForward.fetch_add(1, std::memory_order_relaxed);
  return fallback();
}

template <typename Fallback>
at::Tensor OverrideBackward(int opIndex, const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                            at::IntArrayRef inputSize, bool alignCorners, const Scales &scales,
                            Fallback fallback) {
  const ResizeOp &op = kOps[opIndex];
  double libraryScales[3];
  if (LibraryTakesBackward(op, gradOutput, outputSize, inputSize, alignCorners, scales, libraryScales)) {
    try {
      return ResizeBackward(op, gradOutput, outputSize, inputSize, alignCorners, scales, libraryScales);
    } catch (const c10::ValueError &) {
    }
  }
  gCounts[opIndex].fallbackBackward.fetch_add(1, std::memory_order_relaxed);
  if (op.alignCorners) return fallback();
  // The nearest gradients are in grad_output's memory format, the library's or torch's kernel alike (torch's
  // upsample_nearest3d_backward returns a contiguous one): one format per case, as torch.compile's fake
  // kernels state it.
  return fallback().contiguous(gradOutput.suggest_memory_format());
}

// --- Each operator's kernels, with its schema's signature ------------------------------------------------
// CPU: the trilinear3d:: operators; Autograd: theirs; Aten: the override of aten's CPU kernel.

at::Tensor Trilinear3dCpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale d,
                          Scale h, Scale w) {
  return ResizeForward(kOps[kTrilinear3d], self, outputSize, alignCorners, {d, h, w});
}
at::Tensor Trilinear3dBackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                  at::IntArrayRef inputSize, bool alignCorners, Scale d, Scale h, Scale w) {
  return ResizeBackward(kOps[kTrilinear3d], gradOutput, outputSize, inputSize, alignCorners, {d, h, w});
}
at::Tensor Trilinear3dAutograd(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale d,
                               Scale h, Scale w) {
  return ResizeFunction::apply(self, int(kTrilinear3d), outputSize, alignCorners, Scales{d, h, w});
}
at::Tensor Trilinear3dBackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                       at::IntArrayRef inputSize, bool alignCorners, Scale d, Scale h,
                                       Scale w) {
  return ResizeBackwardFunction::apply(gradOutput, int(kTrilinear3d), outputSize, inputSize, alignCorners,
                                       Scales{d, h, w});
}
at::Tensor Trilinear3dAten(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale d,
                           Scale h, Scale w) {
  return OverrideForward(kTrilinear3d, self, outputSize, alignCorners, {d, h, w}, [&] {
    return at::cpu::upsample_trilinear3d(self, outputSize, alignCorners, d, h, w);
  });
}
at::Tensor Trilinear3dBackwardAten(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                   at::IntArrayRef inputSize, bool alignCorners, Scale d, Scale h, Scale w) {
  return OverrideBackward(kTrilinear3d, gradOutput, outputSize, inputSize, alignCorners, {d, h, w}, [&] {
    return at::cpu::upsample_trilinear3d_backward(gradOutput, outputSize, inputSize, alignCorners, d, h, w);
  });
}

at::Tensor Bilinear2dCpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                         Scale w) {
  return ResizeForward(kOps[kBilinear2d], self, outputSize, alignCorners, {h, w});
}
at::Tensor Bilinear2dBackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                 at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackward(kOps[kBilinear2d], gradOutput, outputSize, inputSize, alignCorners, {h, w});
}
at::Tensor Bilinear2dAutograd(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                              Scale w) {
  return ResizeFunction::apply(self, int(kBilinear2d), outputSize, alignCorners, Scales{h, w});
}
at::Tensor Bilinear2dBackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                      at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackwardFunction::apply(gradOutput, int(kBilinear2d), outputSize, inputSize, alignCorners,
                                       Scales{h, w});
}
at::Tensor Bilinear2dAten(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                          Scale w) {
  return OverrideForward(kBilinear2d, self, outputSize, alignCorners, {h, w},
                         [&] { return at::cpu::upsample_bilinear2d(self, outputSize, alignCorners, h, w); });
}
at::Tensor Bilinear2dBackwardAten(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                  at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return OverrideBackward(kBilinear2d, gradOutput, outputSize, inputSize, alignCorners, {h, w}, [&] {
    return at::cpu::upsample_bilinear2d_backward(gradOutput, outputSize, inputSize, alignCorners, h, w);
  });
}

at::Tensor Linear1dCpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale scales) {
  return ResizeForward(kOps[kLinear1d], self, outputSize, alignCorners, {scales});
}
at::Tensor Linear1dBackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                               at::IntArrayRef inputSize, bool alignCorners, Scale scales) {
  return ResizeBackward(kOps[kLinear1d], gradOutput, outputSize, inputSize, alignCorners, {scales});
}
at::Tensor Linear1dAutograd(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners,
                            Scale scales) {
  return ResizeFunction::apply(self, int(kLinear1d), outputSize, alignCorners, Scales{scales});
}
at::Tensor Linear1dBackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                    at::IntArrayRef inputSize, bool alignCorners, Scale scales) {
  return ResizeBackwardFunction::apply(gradOutput, int(kLinear1d), outputSize, inputSize, alignCorners,
                                       Scales{scales});
}
at::Tensor Linear1dAten(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale scales) {
  return OverrideForward(kLinear1d, self, outputSize, alignCorners, {scales},
                         [&] { return at::cpu::upsample_linear1d(self, outputSize, alignCorners, scales); });
}
at::Tensor Linear1dBackwardAten(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                at::IntArrayRef inputSize, bool alignCorners, Scale scales) {
  return OverrideBackward(kLinear1d, gradOutput, outputSize, inputSize, alignCorners, {scales}, [&] {
    return at::cpu::upsample_linear1d_backward(gradOutput, outputSize, inputSize, alignCorners, scales);
  });
}

// The nearest operators (no align_corners), one template per kernel kind for every rank: S... are the
// operator's scales (one c10::optional<double> per spatial axis), kTorch its at::cpu:: function. Their
// trilinear3d:: operators' CPU kernels are the override's (NearestAten), torch's kernel included: any scale
// factor is an ordinary argument of F.interpolate(mode='nearest'), and where the library cannot pick torch's
// source indices for it (NearestScales) torch's kernel does.
template <int kOp, typename... S>
at::Tensor NearestAutograd(const at::Tensor &self, at::IntArrayRef outputSize, S... scales) {
  return ResizeFunction::apply(self, kOp, outputSize, false, Scales{scales...});
}
template <int kOp, typename... S>
at::Tensor NearestBackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                   at::IntArrayRef inputSize, S... scales) {
  return ResizeBackwardFunction::apply(gradOutput, kOp, outputSize, inputSize, false, Scales{scales...});
}
// torch's at::cpu:: nearest functions, typed: some are overloaded (torch 1.13), so each is cast to its type.
template <typename... S>
using NearestForwardFn = at::Tensor (*)(const at::Tensor &, at::IntArrayRef, S...);
template <typename... S>
using NearestBackwardFn = at::Tensor (*)(const at::Tensor &, at::IntArrayRef, at::IntArrayRef, S...);

template <int kOp, auto kTorch, typename... S>
at::Tensor NearestAten(const at::Tensor &self, at::IntArrayRef outputSize, S... scales) {
  return OverrideForward(kOp, self, outputSize, false, Scales{scales...},
                         [&] { return kTorch(self, outputSize, scales...); });
}
template <int kOp, auto kTorch, typename... S>
at::Tensor NearestBackwardAten(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                               at::IntArrayRef inputSize, S... scales) {
  return OverrideBackward(kOp, gradOutput, outputSize, inputSize, false, Scales{scales...},
                          [&] { return kTorch(gradOutput, outputSize, inputSize, scales...); });
}

at::Tensor Bicubic2dCpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                        Scale w) {
  return ResizeForward(kOps[kBicubic2d], self, outputSize, alignCorners, {h, w});
}
at::Tensor Bicubic2dBackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackward(kOps[kBicubic2d], gradOutput, outputSize, inputSize, alignCorners, {h, w});
}
at::Tensor Bicubic2dAutograd(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                             Scale w) {
  return ResizeFunction::apply(self, int(kBicubic2d), outputSize, alignCorners, Scales{h, w});
}
at::Tensor Bicubic2dBackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                     at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackwardFunction::apply(gradOutput, int(kBicubic2d), outputSize, inputSize, alignCorners,
                                       Scales{h, w});
}
at::Tensor Bicubic2dAten(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                         Scale w) {
  return OverrideForward(kBicubic2d, self, outputSize, alignCorners, {h, w},
                         [&] { return at::cpu::upsample_bicubic2d(self, outputSize, alignCorners, h, w); });
}
at::Tensor Bicubic2dBackwardAten(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                 at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return OverrideBackward(kBicubic2d, gradOutput, outputSize, inputSize, alignCorners, {h, w}, [&] {
    return at::cpu::upsample_bicubic2d_backward(gradOutput, outputSize, inputSize, alignCorners, h, w);
  });
}

at::Tensor Bilinear2dAACpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                           Scale w) {
  return ResizeForward(kOps[kBilinear2dAA], self, outputSize, alignCorners, {h, w});
}
at::Tensor Bilinear2dAABackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                   at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackward(kOps[kBilinear2dAA], gradOutput, outputSize, inputSize, alignCorners, {h, w});
}
at::Tensor Bilinear2dAAAutograd(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners,
                                Scale h, Scale w) {
  return ResizeFunction::apply(self, int(kBilinear2dAA), outputSize, alignCorners, Scales{h, w});
}
at::Tensor Bilinear2dAABackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                        at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackwardFunction::apply(gradOutput, int(kBilinear2dAA), outputSize, inputSize, alignCorners,
                                       Scales{h, w});
}
at::Tensor Bilinear2dAAAten(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                            Scale w) {
  return OverrideForward(kBilinear2dAA, self, outputSize, alignCorners, {h, w}, [&] {
    return at::cpu::_upsample_bilinear2d_aa(self, outputSize, alignCorners, h, w);
  });
}
at::Tensor Bilinear2dAABackwardAten(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                    at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return OverrideBackward(kBilinear2dAA, gradOutput, outputSize, inputSize, alignCorners, {h, w}, [&] {
    return at::cpu::_upsample_bilinear2d_aa_backward(gradOutput, outputSize, inputSize, alignCorners, h, w);
  });
}

at::Tensor Bicubic2dAACpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                          Scale w) {
  return ResizeForward(kOps[kBicubic2dAA], self, outputSize, alignCorners, {h, w});
}
at::Tensor Bicubic2dAABackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                  at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackward(kOps[kBicubic2dAA], gradOutput, outputSize, inputSize, alignCorners, {h, w});
}
at::Tensor Bicubic2dAAAutograd(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                               Scale w) {
  return ResizeFunction::apply(self, int(kBicubic2dAA), outputSize, alignCorners, Scales{h, w});
}
at::Tensor Bicubic2dAABackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                       at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return ResizeBackwardFunction::apply(gradOutput, int(kBicubic2dAA), outputSize, inputSize, alignCorners,
                                       Scales{h, w});
}
at::Tensor Bicubic2dAAAten(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale h,
                           Scale w) {
  return OverrideForward(kBicubic2dAA, self, outputSize, alignCorners, {h, w}, [&] {
    return at::cpu::_upsample_bicubic2d_aa(self, outputSize, alignCorners, h, w);
  });
}
at::Tensor Bicubic2dAABackwardAten(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                   at::IntArrayRef inputSize, bool alignCorners, Scale h, Scale w) {
  return OverrideBackward(kBicubic2dAA, gradOutput, outputSize, inputSize, alignCorners, {h, w}, [&] {
    return at::cpu::_upsample_bicubic2d_aa_backward(gradOutput, outputSize, inputSize, alignCorners, h, w);
  });
}

// torch warns that a kernel for aten's CPU key is overridden; that is the point here, so the warning
// is dropped while the override registers.
class QuietWarnings : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning &) override {}
#else
  void process(const c10::SourceLocation &, const std::string &, const bool) override {}
#endif
};

#if TORCH_VERSION_MAJOR >= 2
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
#else
using WarningHandlerGuard = c10::Warning::WarningHandlerGuard;
#endif

// The aten operators the override serves, each with its kernel: the one list that Enable() registers for
// aten's CPU key and (torch 2) the compiled graphs' operators below are made from. A new operator of the
// resize family is a row of kOps, its kernels above, a pair of lines here and one row of the Python table
// (python/trilinear3d/_compile.py).
template <typename Visit>
void ForEachNearestOverride(Visit &&visit);

template <typename Visit>
void ForEachOverride(Visit &&visit) {
  visit("upsample_trilinear3d", &Trilinear3dAten);
  visit("upsample_trilinear3d_backward", &Trilinear3dBackwardAten);
  visit("upsample_bilinear2d", &Bilinear2dAten);
  visit("upsample_bilinear2d_backward", &Bilinear2dBackwardAten);
  visit("upsample_linear1d", &Linear1dAten);
  visit("upsample_linear1d_backward", &Linear1dBackwardAten);
  visit("upsample_bicubic2d", &Bicubic2dAten);
  visit("upsample_bicubic2d_backward", &Bicubic2dBackwardAten);
  visit("_upsample_bilinear2d_aa", &Bilinear2dAAAten);
  visit("_upsample_bilinear2d_aa_backward", &Bilinear2dAABackwardAten);
  visit("_upsample_bicubic2d_aa", &Bicubic2dAAAten);
  visit("_upsample_bicubic2d_aa_backward", &Bicubic2dAABackwardAten);
  ForEachNearestOverride(visit);
}

// The nearest rows of ForEachOverride: their kernels are also the trilinear3d:: nearest operators' CPU
// ones.
template <typename Visit>
void ForEachNearestOverride(Visit &&visit) {
  visit("upsample_nearest3d",
        &NearestAten<kNearest3d,
                     static_cast<NearestForwardFn<Scale, Scale, Scale>>(&at::cpu::upsample_nearest3d), Scale,
                     Scale, Scale>);
  visit("upsample_nearest3d_backward",
        &NearestBackwardAten<kNearest3d,
                             static_cast<NearestBackwardFn<Scale, Scale, Scale>>(
                                 &at::cpu::upsample_nearest3d_backward),
                             Scale, Scale, Scale>);
  visit("upsample_nearest2d",
        &NearestAten<kNearest2d, static_cast<NearestForwardFn<Scale, Scale>>(&at::cpu::upsample_nearest2d),
                     Scale, Scale>);
  visit("upsample_nearest2d_backward",
        &NearestBackwardAten<
            kNearest2d, static_cast<NearestBackwardFn<Scale, Scale>>(&at::cpu::upsample_nearest2d_backward),
            Scale, Scale>);
  visit("upsample_nearest1d",
        &NearestAten<kNearest1d, static_cast<NearestForwardFn<Scale>>(&at::cpu::upsample_nearest1d), Scale>);
  visit("upsample_nearest1d_backward",
        &NearestBackwardAten<
            kNearest1d, static_cast<NearestBackwardFn<Scale>>(&at::cpu::upsample_nearest1d_backward), Scale>);
  visit("_upsample_nearest_exact3d",
        &NearestAten<kNearestExact3d,
                     static_cast<NearestForwardFn<Scale, Scale, Scale>>(&at::cpu::_upsample_nearest_exact3d),
                     Scale, Scale, Scale>);
  visit("_upsample_nearest_exact3d_backward",
        &NearestBackwardAten<kNearestExact3d,
                             static_cast<NearestBackwardFn<Scale, Scale, Scale>>(
                                 &at::cpu::_upsample_nearest_exact3d_backward),
                             Scale, Scale, Scale>);
  visit("_upsample_nearest_exact2d",
        &NearestAten<kNearestExact2d,
                     static_cast<NearestForwardFn<Scale, Scale>>(&at::cpu::_upsample_nearest_exact2d), Scale,
                     Scale>);
  visit("_upsample_nearest_exact2d_backward",
        &NearestBackwardAten<kNearestExact2d,
                             static_cast<NearestBackwardFn<Scale, Scale>>(
                                 &at::cpu::_upsample_nearest_exact2d_backward),
                             Scale, Scale>);
  visit("_upsample_nearest_exact1d",
        &NearestAten<kNearestExact1d,
                     static_cast<NearestForwardFn<Scale>>(&at::cpu::_upsample_nearest_exact1d), Scale>);
  visit("_upsample_nearest_exact1d_backward",
        &NearestBackwardAten<
            kNearestExact1d,
            static_cast<NearestBackwardFn<Scale>>(&at::cpu::_upsample_nearest_exact1d_backward), Scale>);
}

std::mutex gOverrideMutex;
std::unique_ptr<torch::Library> gOverride;  // alive while enabled

void Enable() {
  std::lock_guard<std::mutex> lock(gOverrideMutex);
  if (gOverride) return;
  QuietWarnings quiet;
  WarningHandlerGuard guard(&quiet);
  auto library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::CPU,
                                                  __FILE__, __LINE__);
  ForEachOverride([&](const char *name, auto kernel) { library->impl(name, kernel); });
  gOverride = std::move(library);
}

void Disable() {
  std::lock_guard<std::mutex> lock(gOverrideMutex);
  gOverride.reset();
}

bool IsEnabled() {
  std::lock_guard<std::mutex> lock(gOverrideMutex);
  return gOverride != nullptr;
}

}  // namespace
}  // namespace trilinear3d_ext

TORCH_LIBRARY(trilinear3d, m) {
  m.def(
      "upsample_trilinear3d(Tensor self, int[3] output_size, bool align_corners, float? scales_d=None, "
      "float? scales_h=None, float? scales_w=None) -> Tensor");
  m.def(
      "upsample_trilinear3d_backward(Tensor grad_output, int[3] output_size, int[5] input_size, "
      "bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor");
  m.def(
      "upsample_bilinear2d(Tensor self, int[2] output_size, bool align_corners, float? scales_h=None, "
      "float? scales_w=None) -> Tensor");
  m.def(
      "upsample_bilinear2d_backward(Tensor grad_output, int[2] output_size, int[4] input_size, "
      "bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor");
  m.def(
      "upsample_linear1d(Tensor self, int[1] output_size, bool align_corners, float? scales=None) -> Tensor");
  m.def(
      "upsample_linear1d_backward(Tensor grad_output, int[1] output_size, int[3] input_size, "
      "bool align_corners, float? scales=None) -> Tensor");
  // The nearest operators: aten's schemas (no align_corners), for both index rules.
  for (const std::string prefix : {"upsample_nearest", "_upsample_nearest_exact"}) {
    const std::string schemas[] = {
        "3d(Tensor self, int[3] output_size, float? scales_d=None, float? scales_h=None, "
        "float? scales_w=None) -> Tensor",
        "3d_backward(Tensor grad_output, int[3] output_size, int[5] input_size, float? scales_d=None, "
        "float? scales_h=None, float? scales_w=None) -> Tensor",
        "2d(Tensor self, int[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor",
        "2d_backward(Tensor grad_output, int[2] output_size, int[4] input_size, float? scales_h=None, "
        "float? scales_w=None) -> Tensor",
        "1d(Tensor self, int[1] output_size, float? scales=None) -> Tensor",
        "1d_backward(Tensor grad_output, int[1] output_size, int[3] input_size, float? scales=None) -> "
        "Tensor",
    };
    for (const std::string &schema : schemas) m.def((prefix + schema).c_str());
  }
  m.def(
      "upsample_bicubic2d(Tensor self, int[2] output_size, bool align_corners, float? scales_h=None, "
      "float? scales_w=None) -> Tensor");
  m.def(
      "upsample_bicubic2d_backward(Tensor grad_output, int[2] output_size, int[4] input_size, "
      "bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor");
  m.def(
      "_upsample_bilinear2d_aa(Tensor self, int[2] output_size, bool align_corners, float? scales_h=None, "
      "float? scales_w=None) -> Tensor");
  m.def(
      "_upsample_bilinear2d_aa_backward(Tensor grad_output, int[2] output_size, int[4] input_size, "
      "bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor");
  m.def(
      "_upsample_bicubic2d_aa(Tensor self, int[2] output_size, bool align_corners, float? scales_h=None, "
      "float? scales_w=None) -> Tensor");
  m.def(
      "_upsample_bicubic2d_aa_backward(Tensor grad_output, int[2] output_size, int[4] input_size, "
      "bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor");
}

#if TORCH_VERSION_MAJOR >= 2
// For torch.compile (python/trilinear3d/_compile.py): trilinear3d::aten_<name> for every operator of
// ForEachOverride, with aten's own schema (SymInt sizes, so dynamic shapes trace) and the override's kernel
// as its CPU kernel. Compiled graphs call these opaque operators where enable() routes aten's; their fake
// (shape) and autograd registrations are Python's (torch.library.register_fake / register_autograd).
TORCH_LIBRARY_FRAGMENT(trilinear3d, m) {
  trilinear3d_ext::ForEachOverride([&](const char *name, auto kernel) {
    const std::string routed = std::string("aten_") + name;
    m.def(c10::Dispatcher::singleton()
              .findSchemaOrThrow((std::string("aten::") + name).c_str(), "")
              .schema()
              .cloneWithName("trilinear3d::" + routed, ""));
    m.impl(routed.c_str(), torch::dispatch(c10::DispatchKey::CPU, kernel));
  });
}
#endif

TORCH_LIBRARY_IMPL(trilinear3d, CPU, m) {
  namespace ext = trilinear3d_ext;
  m.impl("upsample_trilinear3d", &ext::Trilinear3dCpu);
  m.impl("upsample_trilinear3d_backward", &ext::Trilinear3dBackwardCpu);
  m.impl("upsample_bilinear2d", &ext::Bilinear2dCpu);
  m.impl("upsample_bilinear2d_backward", &ext::Bilinear2dBackwardCpu);
  m.impl("upsample_linear1d", &ext::Linear1dCpu);
  m.impl("upsample_linear1d_backward", &ext::Linear1dBackwardCpu);
  ext::ForEachNearestOverride([&](const char *name, auto kernel) { m.impl(name, kernel); });
  m.impl("upsample_bicubic2d", &ext::Bicubic2dCpu);
  m.impl("upsample_bicubic2d_backward", &ext::Bicubic2dBackwardCpu);
  m.impl("_upsample_bilinear2d_aa", &ext::Bilinear2dAACpu);
  m.impl("_upsample_bilinear2d_aa_backward", &ext::Bilinear2dAABackwardCpu);
  m.impl("_upsample_bicubic2d_aa", &ext::Bicubic2dAACpu);
  m.impl("_upsample_bicubic2d_aa_backward", &ext::Bicubic2dAABackwardCpu);
}

TORCH_LIBRARY_IMPL(trilinear3d, Autograd, m) {
  namespace ext = trilinear3d_ext;
  m.impl("upsample_trilinear3d", &ext::Trilinear3dAutograd);
  m.impl("upsample_trilinear3d_backward", &ext::Trilinear3dBackwardAutograd);
  m.impl("upsample_bilinear2d", &ext::Bilinear2dAutograd);
  m.impl("upsample_bilinear2d_backward", &ext::Bilinear2dBackwardAutograd);
  m.impl("upsample_linear1d", &ext::Linear1dAutograd);
  m.impl("upsample_linear1d_backward", &ext::Linear1dBackwardAutograd);
  using ext::Scale;
  m.impl("upsample_nearest3d", &ext::NearestAutograd<ext::kNearest3d, Scale, Scale, Scale>);
  m.impl("upsample_nearest3d_backward", &ext::NearestBackwardAutograd<ext::kNearest3d, Scale, Scale, Scale>);
  m.impl("upsample_nearest2d", &ext::NearestAutograd<ext::kNearest2d, Scale, Scale>);
  m.impl("upsample_nearest2d_backward", &ext::NearestBackwardAutograd<ext::kNearest2d, Scale, Scale>);
  m.impl("upsample_nearest1d", &ext::NearestAutograd<ext::kNearest1d, Scale>);
  m.impl("upsample_nearest1d_backward", &ext::NearestBackwardAutograd<ext::kNearest1d, Scale>);
  m.impl("_upsample_nearest_exact3d", &ext::NearestAutograd<ext::kNearestExact3d, Scale, Scale, Scale>);
  m.impl("_upsample_nearest_exact3d_backward",
         &ext::NearestBackwardAutograd<ext::kNearestExact3d, Scale, Scale, Scale>);
  m.impl("_upsample_nearest_exact2d", &ext::NearestAutograd<ext::kNearestExact2d, Scale, Scale>);
  m.impl("_upsample_nearest_exact2d_backward",
         &ext::NearestBackwardAutograd<ext::kNearestExact2d, Scale, Scale>);
  m.impl("_upsample_nearest_exact1d", &ext::NearestAutograd<ext::kNearestExact1d, Scale>);
  m.impl("_upsample_nearest_exact1d_backward", &ext::NearestBackwardAutograd<ext::kNearestExact1d, Scale>);
  m.impl("upsample_bicubic2d", &ext::Bicubic2dAutograd);
  m.impl("upsample_bicubic2d_backward", &ext::Bicubic2dBackwardAutograd);
  m.impl("_upsample_bilinear2d_aa", &ext::Bilinear2dAAAutograd);
  m.impl("_upsample_bilinear2d_aa_backward", &ext::Bilinear2dAABackwardAutograd);
  m.impl("_upsample_bicubic2d_aa", &ext::Bicubic2dAAAutograd);
  m.impl("_upsample_bicubic2d_aa_backward", &ext::Bicubic2dAABackwardAutograd);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  namespace ext = trilinear3d_ext;
  m.doc() =
      "trilinear3d's compiled part: registers torch.ops.trilinear3d.upsample_trilinear3d, "
      "upsample_bilinear2d, upsample_linear1d, upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d "
      "and their _backward (CPU and Autograd kernels) backed by libtrilinear3d, and the "
      "switchable override of aten's CPU kernels.";
  m.def("_enable", &ext::Enable, "Registers the library's kernels for aten's resize operators on CPU.");
  m.def("_disable", &ext::Disable, "Deregisters them: torch's own kernels are active again.");
  m.def("_is_enabled", &ext::IsEnabled);
  m.def(
      "_overridden_ops",
      [] {
        std::vector<std::string> names;
        ext::ForEachOverride([&](const char *name, auto) { names.emplace_back(name); });
        return names;
      },
      "The aten operators enable() serves (and, on torch 2, trilinear3d::aten_<name> each).");
  m.def(
      "_stats",
      [] {
        std::vector<std::pair<std::string, std::vector<int64_t>>> counts;
        for (int i = 0; i < ext::kOpCount; ++i) {
          const ext::Counts &c = ext::gCounts[i];
          counts.emplace_back(ext::kOps[i].name,
                              std::vector<int64_t>{c.forward.load(), c.backward.load(),
                                                   c.fallbackForward.load(), c.fallbackBackward.load()});
        }
        return counts;
      },
      "Per operator (aten's name): library forwards, backwards, and the override's fallbacks of each.");
  m.def("_reset_stats", [] {
    for (ext::Counts &c : ext::gCounts) {
      c.forward = 0;
      c.backward = 0;
      c.fallbackForward = 0;
      c.fallbackBackward = 0;
    }
  });
  m.def("_empty_cache", [] { return ext::OutputCache::Get().Trim(); });
  m.def("_cache_info", [] {
    ext::OutputCache &cache = ext::OutputCache::Get();
    return std::vector<size_t>{cache.IdleBytes(), cache.IdleBuffers(), cache.Capacity()};
  });
}
