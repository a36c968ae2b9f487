// The trilinear3d PyTorch extension: torch operators backed by libtrilinear3d's aclnn C API.
//
//   trilinear3d::upsample_trilinear3d(Tensor self, int[3] output_size, bool align_corners,
//                                     float? scales_d=None, float? scales_h=None, float? scales_w=None)
//   trilinear3d::upsample_trilinear3d_backward(Tensor grad_output, int[3] output_size, int[5] input_size,
//                                              bool align_corners, float? scales_d=None, ...)
//
// The CPU kernels wrap the torch tensors' memory as aclTensor views (data pointer + strides, no
// copies: contiguous NCDHW, channels_last_3d as NDHWC, any other strided view as-is), allocate the
// output as an ordinary CPU tensor in the input's memory format (large ones from a buffer cache, see
// OutputCache) and the workspace as a torch byte tensor, then run GetWorkspaceSize + the op on the
// default stream + aclrtSynchronizeStream.
// The Autograd kernels are torch::autograd::Functions: the forward's backward is the
// aclnnUpsampleTrilinear3dBackward op, and the backward's backward is the forward op (both ops are
// linear), so double backward works too.
//
// Enable() also registers CPU kernels for torch's own aten::upsample_trilinear3d and
// aten::upsample_trilinear3d_backward (a torch::Library of kind IMPL, newest registration wins), so
// F.interpolate(mode='trilinear'), nn.Upsample and torch's autograd formulas run the library;
// Disable() destroys that Library, which deregisters the kernels and leaves torch's own active again.
// Whatever the library does not cover goes to torch's CPU kernel through at::cpu::, which calls it
// directly (no dispatcher, so no recursion into the override).
// On torch 2 the same kernels are also the CPU kernels of trilinear3d::aten_upsample_trilinear3d(_backward)
// (aten's schemas in this namespace): the opaque operators that torch.compile'd graphs call while enabled.
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
#include <cstdint>
#include <cstdlib>
#include <list>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
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
    default:
      TORCH_CHECK(false, "\"", op, "\" not implemented for '", t.scalar_type(), "'");
  }
}

// Wraps a 5-D (N, C, D, H, W) torch tensor as an aclTensor view over its own memory. A tensor whose
// memory is channels_last_3d (and not also plain contiguous) is described as NDHWC, view (N, D, H,
// W, C); every other layout as NCDHW with its strides. The storage is 1-D, as long as the view's extent.
TensorPtr WrapTensor(const at::Tensor &t, aclDataType dtype) {
  const bool channelsLast = !t.is_contiguous() && t.is_contiguous(at::MemoryFormat::ChannelsLast3d);
  static const int kNdhwcOrder[5] = {0, 2, 3, 4, 1};
  int64_t dims[5], strides[5];
  int64_t extent = 1;
  for (int i = 0; i < 5; ++i) {
    const int src = channelsLast ? kNdhwcOrder[i] : i;
    dims[i] = t.size(src);
    strides[i] = t.stride(src);
    TORCH_CHECK(strides[i] >= 0, "trilinear3d: negative strides are not supported");
    extent += (dims[i] - 1) * strides[i];
  }
  const int64_t storage[1] = {extent};
  aclTensor *tensor =
      aclCreateTensor(dims, 5, dtype, strides, 0, channelsLast ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW, storage,
                      1, t.data_ptr());
  TORCH_CHECK(tensor != nullptr, "trilinear3d: aclCreateTensor failed: ", RecentMessage());
  return TensorPtr(tensor);
}

IntArrayPtr WrapIntArray(const std::vector<int64_t> &values) {
  aclIntArray *a = aclCreateIntArray(values.data(), values.size());
  TORCH_CHECK(a != nullptr, "trilinear3d: aclCreateIntArray failed: ", RecentMessage());
  return IntArrayPtr(a);
}

// CANN uses the scales only when all three are > 0; torch uses each given one on its own axis. The
// two agree when all three are given (> 0) or none is, so a partial set is refused.
void ScalesToDoubles(const Scale &d, const Scale &h, const Scale &w, double out[3]) {
  const int given = int(d.has_value()) + int(h.has_value()) + int(w.has_value());
  TORCH_CHECK_VALUE(given == 0 || given == 3,
                    "trilinear3d: scales_d, scales_h and scales_w must be all given or all None");
  if (given == 0) {
    out[0] = out[1] = out[2] = 0.0;
    return;
  }
  out[0] = *d, out[1] = *h, out[2] = *w;
  for (int i = 0; i < 3; ++i) {
    TORCH_CHECK_VALUE(out[i] > 0.0, "trilinear3d: scales must be > 0, but got (", out[0], ", ", out[1], ", ",
                      out[2], ")");
  }
}

// torch's upsample_3d_common_check, with its messages.
void CheckSizes(at::IntArrayRef inputSize, at::IntArrayRef outputSize) {
  TORCH_CHECK(outputSize.size() == 3, "It is expected output_size equals to 3, but got size ",
              outputSize.size());
  TORCH_CHECK(inputSize.size() == 5, "It is expected input_size equals to 5, but got size ",
              inputSize.size());
  TORCH_CHECK(inputSize[2] > 0 && inputSize[3] > 0 && inputSize[4] > 0 && outputSize[0] > 0 &&
                  outputSize[1] > 0 && outputSize[2] > 0,
              "Input and output sizes should be greater than 0, but got input (D: ", inputSize[2],
              ", H: ", inputSize[3], ", W: ", inputSize[4], ") output (D: ", outputSize[0],
              ", H: ", outputSize[1], ", W: ", outputSize[2], ")");
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

// A new output tensor of `sizes` in `format` (contiguous or channels_last_3d).
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

// Library runs and fallbacks to torch's kernel, for trilinear3d.stats().
std::atomic<int64_t> gForwardCalls{0}, gBackwardCalls{0}, gForwardFallbacks{0}, gBackwardFallbacks{0};

// Runs one planned op: workspace from torch, the default stream, then a synchronize. The GIL is
// released while the library works (Python threads keep running).
template <typename Plan, typename Run>
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

at::Tensor UpsampleCpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale scalesD,
                       Scale scalesH, Scale scalesW) {
  TORCH_CHECK(self.dim() == 5, "upsample_trilinear3d: expected a 5-D (N, C, D, H, W) input, but got ",
              self.dim(), "-D with sizes ", self.sizes());
  CheckSizes(self.sizes(), outputSize);
  TORCH_CHECK(self.numel() != 0 || c10::multiply_integers(self.sizes().begin() + 1, self.sizes().end()),
              "Non-empty 5D data tensor expected but got a tensor with sizes ", self.sizes());
  const aclDataType dtype = ToAclDataType(self, "upsample_trilinear3d");
  double scales[3];
  ScalesToDoubles(scalesD, scalesH, scalesW, scales);

  at::Tensor out = NewOutput({self.size(0), self.size(1), outputSize[0], outputSize[1], outputSize[2]},
                             self.options(), self.suggest_memory_format());
  if (out.numel() == 0) return out;

  TensorPtr selfT = WrapTensor(self, dtype);
  TensorPtr outT = WrapTensor(out, dtype);
  IntArrayPtr outputSizeA = WrapIntArray(outputSize.vec());
  Execute(
      "aclnnUpsampleTrilinear3d",
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnUpsampleTrilinear3dGetWorkspaceSize(selfT.get(), outputSizeA.get(), alignCorners,
                                                        scales[0], scales[1], scales[2], outT.get(), ws, ex);
      },
      aclnnUpsampleTrilinear3d);
  gForwardCalls.fetch_add(1, std::memory_order_relaxed);
  return out;
}

at::Tensor UpsampleBackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                               at::IntArrayRef inputSize, bool alignCorners, Scale scalesD, Scale scalesH,
                               Scale scalesW) {
  CheckSizes(inputSize, outputSize);
  TORCH_CHECK(gradOutput.dim() == 5, "upsample_trilinear3d_backward: expected a 5-D grad_output, but got ",
              gradOutput.dim(), "-D with sizes ", gradOutput.sizes());
  const int64_t expected[5] = {inputSize[0], inputSize[1], outputSize[0], outputSize[1], outputSize[2]};
  for (int i = 0; i < 5; ++i) {
    TORCH_CHECK(gradOutput.size(i) == expected[i], "Expected grad_output to have the same shape as output;",
                " output.size(", i, ") = ", expected[i], " but got grad_output.size(", i,
                ") = ", gradOutput.size(i));
  }
  const aclDataType dtype = ToAclDataType(gradOutput, "upsample_trilinear3d_backward");
  double scales[3];
  ScalesToDoubles(scalesD, scalesH, scalesW, scales);

  at::Tensor gradInput = NewOutput(inputSize, gradOutput.options(), gradOutput.suggest_memory_format());
  if (gradInput.numel() == 0) return gradInput;

  TensorPtr gradOutT = WrapTensor(gradOutput, dtype);
  TensorPtr gradInT = WrapTensor(gradInput, dtype);
  IntArrayPtr outputSizeA = WrapIntArray(outputSize.vec());
  IntArrayPtr inputSizeA = WrapIntArray(inputSize.vec());
  Execute(
      "aclnnUpsampleTrilinear3dBackward",
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(gradOutT.get(), outputSizeA.get(),
                                                                inputSizeA.get(), alignCorners, scales[0],
                                                                scales[1], scales[2], gradInT.get(), ws, ex);
      },
      aclnnUpsampleTrilinear3dBackward);
  gBackwardCalls.fetch_add(1, std::memory_order_relaxed);
  return gradInput;
}

// Typed dispatcher handles, so that the autograd Functions call the ops through the dispatcher.
const c10::TypedOperatorHandle<decltype(UpsampleCpu)> &ForwardOp() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("trilinear3d::upsample_trilinear3d", "")
                             .typed<decltype(UpsampleCpu)>();
  return op;
}

const c10::TypedOperatorHandle<decltype(UpsampleBackwardCpu)> &BackwardOp() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("trilinear3d::upsample_trilinear3d_backward", "")
                             .typed<decltype(UpsampleBackwardCpu)>();
  return op;
}

void SaveParams(torch::autograd::AutogradContext *ctx, at::IntArrayRef outputSize, bool alignCorners, Scale d,
                Scale h, Scale w) {
  ctx->saved_data["output_size"] = outputSize.vec();
  ctx->saved_data["align_corners"] = alignCorners;
  ctx->saved_data["scales_d"] = d;
  ctx->saved_data["scales_h"] = h;
  ctx->saved_data["scales_w"] = w;
}

Scale SavedScale(torch::autograd::AutogradContext *ctx, const char *name) {
  const c10::IValue &v = ctx->saved_data[name];
  return v.isNone() ? Scale() : Scale(v.toDouble());
}

// d(out)/d(self) is the backward op.
class UpsampleFunction : public torch::autograd::Function<UpsampleFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext *ctx, const at::Tensor &self,
                            at::IntArrayRef outputSize, bool alignCorners, Scale d, Scale h, Scale w) {
    SaveParams(ctx, outputSize, alignCorners, d, h, w);
    ctx->saved_data["input_size"] = self.sizes().vec();
    at::AutoDispatchBelowADInplaceOrView guard;
    return ForwardOp().call(self, outputSize, alignCorners, d, h, w);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::variable_list grads) {
    const std::vector<int64_t> outputSize = ctx->saved_data["output_size"].toIntVector();
    const std::vector<int64_t> inputSize = ctx->saved_data["input_size"].toIntVector();
    at::Tensor gradInput;
    if (grads[0].defined()) {
      gradInput = BackwardOp().call(grads[0], outputSize, inputSize,
                                    ctx->saved_data["align_corners"].toBool(), SavedScale(ctx, "scales_d"),
                                    SavedScale(ctx, "scales_h"), SavedScale(ctx, "scales_w"));
    }
    return {gradInput, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// d(grad_input)/d(grad_output) is the forward op.
class UpsampleBackwardFunction : public torch::autograd::Function<UpsampleBackwardFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext *ctx, const at::Tensor &gradOutput,
                            at::IntArrayRef outputSize, at::IntArrayRef inputSize, bool alignCorners, Scale d,
                            Scale h, Scale w) {
    SaveParams(ctx, outputSize, alignCorners, d, h, w);
    at::AutoDispatchBelowADInplaceOrView guard;
    return BackwardOp().call(gradOutput, outputSize, inputSize, alignCorners, d, h, w);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::variable_list grads) {
    const std::vector<int64_t> outputSize = ctx->saved_data["output_size"].toIntVector();
    at::Tensor gradGradOutput;
    if (grads[0].defined()) {
      gradGradOutput = ForwardOp().call(grads[0], outputSize, ctx->saved_data["align_corners"].toBool(),
                                        SavedScale(ctx, "scales_d"), SavedScale(ctx, "scales_h"),
                                        SavedScale(ctx, "scales_w"));
    }
    return {gradGradOutput, at::Tensor(), at::Tensor(), at::Tensor(),
            at::Tensor(),   at::Tensor(), at::Tensor()};
  }
};

at::Tensor UpsampleAutograd(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale d,
                            Scale h, Scale w) {
  return UpsampleFunction::apply(self, outputSize, alignCorners, d, h, w);
}

at::Tensor UpsampleBackwardAutograd(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                    at::IntArrayRef inputSize, bool alignCorners, Scale d, Scale h, Scale w) {
  return UpsampleBackwardFunction::apply(gradOutput, outputSize, inputSize, alignCorners, d, h, w);
}

// --- The aten override -------------------------------------------------------------------------------

bool SupportedDtype(const at::Tensor &t) {
  const auto type = t.scalar_type();
  return type == at::kFloat || type == at::kDouble || type == at::kHalf || type == at::kBFloat16;
}

bool NonNegativeStrides(const at::Tensor &t) {
  for (int64_t s : t.strides()) {
    if (s < 0) return false;
  }
  return true;
}

// torch uses each given scale on its own axis and ignores scales <= 0; the library takes all three or none
// (see ScalesToDoubles), so only those two cases are the library's.
bool LibraryScales(const Scale &d, const Scale &h, const Scale &w) {
  const int given = int(d.has_value()) + int(h.has_value()) + int(w.has_value());
  if (given == 0) return true;
  return given == 3 && *d > 0.0 && *h > 0.0 && *w > 0.0;
}

// The cases the library takes; anything else, malformed arguments included, keeps torch's kernel and so
// torch's results and error messages.
bool LibraryTakesForward(const at::Tensor &self, at::IntArrayRef outputSize, const Scale &d, const Scale &h,
                         const Scale &w) {
  return self.dim() == 5 && SupportedDtype(self) && NonNegativeStrides(self) && outputSize.size() == 3 &&
         self.numel() > 0 && outputSize[0] > 0 && outputSize[1] > 0 && outputSize[2] > 0 &&
         LibraryScales(d, h, w);
}

bool LibraryTakesBackward(const at::Tensor &gradOutput, at::IntArrayRef outputSize, at::IntArrayRef inputSize,
                          const Scale &d, const Scale &h, const Scale &w) {
  if (gradOutput.dim() != 5 || !SupportedDtype(gradOutput) || !NonNegativeStrides(gradOutput) ||
      outputSize.size() != 3 || inputSize.size() != 5 || gradOutput.numel() == 0 || !LibraryScales(d, h, w))
    return false;
  const int64_t expected[5] = {inputSize[0], inputSize[1], outputSize[0], outputSize[1], outputSize[2]};
  for (int i = 0; i < 5; ++i) {
    if (gradOutput.size(i) != expected[i] || expected[i] <= 0 || inputSize[i] <= 0) return false;
  }
  return true;
}

at::Tensor AtenUpsampleCpu(const at::Tensor &self, at::IntArrayRef outputSize, bool alignCorners, Scale d,
                           Scale h, Scale w) {
  if (LibraryTakesForward(self, outputSize, d, h, w)) {
    try {
      return UpsampleCpu(self, outputSize, alignCorners, d, h, w);
    } catch (const c10::ValueError &) {
      // The library's own validation refused the case: torch's kernel decides it.
    }
  }
  gForwardFallbacks.fetch_add(1, std::memory_order_relaxed);
  return at::cpu::upsample_trilinear3d(self, outputSize, alignCorners, d, h, w);
}

at::Tensor AtenUpsampleBackwardCpu(const at::Tensor &gradOutput, at::IntArrayRef outputSize,
                                   at::IntArrayRef inputSize, bool alignCorners, Scale d, Scale h, Scale w) {
  if (LibraryTakesBackward(gradOutput, outputSize, inputSize, d, h, w)) {
    try {
      return UpsampleBackwardCpu(gradOutput, outputSize, inputSize, alignCorners, d, h, w);
    } catch (const c10::ValueError &) {
      // As in AtenUpsampleCpu.
    }
  }
  gBackwardFallbacks.fetch_add(1, std::memory_order_relaxed);
  return at::cpu::upsample_trilinear3d_backward(gradOutput, outputSize, inputSize, alignCorners, d, h, w);
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
// resize family is one line here (its kernel: the library where it takes the case, torch's at::cpu kernel
// otherwise) and one row of the Python table (python/trilinear3d/_compile.py).
template <typename Visit>
void ForEachOverride(Visit &&visit) {
  visit("upsample_trilinear3d", &AtenUpsampleCpu);
  visit("upsample_trilinear3d_backward", &AtenUpsampleBackwardCpu);
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
  m.impl("upsample_trilinear3d", &trilinear3d_ext::UpsampleCpu);
  m.impl("upsample_trilinear3d_backward", &trilinear3d_ext::UpsampleBackwardCpu);
}

TORCH_LIBRARY_IMPL(trilinear3d, Autograd, m) {
  m.impl("upsample_trilinear3d", &trilinear3d_ext::UpsampleAutograd);
  m.impl("upsample_trilinear3d_backward", &trilinear3d_ext::UpsampleBackwardAutograd);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  namespace ext = trilinear3d_ext;
  m.doc() =
      "trilinear3d's compiled part: registers torch.ops.trilinear3d.upsample_trilinear3d and "
      "torch.ops.trilinear3d.upsample_trilinear3d_backward (CPU and Autograd kernels) backed by "
      "libtrilinear3d, and the switchable override of aten's CPU kernels.";
  m.def("_enable", &ext::Enable,
        "Registers the library's kernels for aten's upsample_trilinear3d(_backward) on CPU.");
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
  m.def("_stats", [] {
    return std::vector<int64_t>{ext::gForwardCalls.load(), ext::gBackwardCalls.load(),
                                ext::gForwardFallbacks.load(), ext::gBackwardFallbacks.load()};
  });
  m.def("_reset_stats", [] {
    ext::gForwardCalls = 0;
    ext::gBackwardCalls = 0;
    ext::gForwardFallbacks = 0;
    ext::gBackwardFallbacks = 0;
  });
  m.def("_empty_cache", [] { return ext::OutputCache::Get().Trim(); });
  m.def("_cache_info", [] {
    ext::OutputCache &cache = ext::OutputCache::Get();
    return std::vector<size_t>{cache.IdleBytes(), cache.IdleBuffers(), cache.Capacity()};
  });
}
