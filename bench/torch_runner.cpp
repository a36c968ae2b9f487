#include "torch_runner.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "bench_timing.h"

namespace bench {
namespace {

at::ScalarType TorchType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return at::kFloat;
    case DType::kFloat16:
      return at::kHalf;
    case DType::kBFloat16:
      return at::kBFloat16;
  }
  return at::kFloat;
}

}  // namespace

void SetTorchThreads(int threads) { at::set_num_threads(threads); }

std::string TorchVersion() { return TORCH_VERSION; }

void FillRandom(const BenchCase &benchCase, void *data, uint64_t bytes) {
  // A prime number of elements, so the repetition does not line up with any axis.
  constexpr int64_t kTileElements = 1000003;
  const int64_t elementSize = ElementSize(benchCase.dtype);
  const int64_t elements = static_cast<int64_t>(bytes) / elementSize;
  at::manual_seed(20240611);
  const at::Tensor tile = (at::rand({std::min(kTileElements, elements)}, at::kFloat) * 2 - 1)
                              .to(TorchType(benchCase.dtype))
                              .contiguous();
  const uint64_t tileBytes = static_cast<uint64_t>(tile.numel()) * elementSize;
  auto *out = static_cast<unsigned char *>(data);
  for (uint64_t offset = 0; offset < bytes; offset += tileBytes) {
    std::memcpy(out + offset, tile.data_ptr(), std::min(tileBytes, bytes - offset));
  }
}

at::Tensor WrapMemory(const BenchCase &benchCase, const std::vector<int64_t> &sizes, void *data) {
  return at::from_blob(data, sizes, StridesOf(sizes, benchCase.channelsLast),
                       at::TensorOptions().dtype(TorchType(benchCase.dtype)));
}

TorchRunner::TorchRunner(const BenchCase &benchCase, void *source)
    : case_(benchCase),
      source_(WrapMemory(benchCase, benchCase.forward ? benchCase.input : benchCase.Output(), source)) {}

namespace {

// PyTorch's nearest operator of the case (no scales: the sizes decide). inSize: the backward's input size.
at::Tensor CallNearest(const BenchCase &benchCase, const at::Tensor &source,
                       const std::vector<int64_t> &inSize) {
  const std::vector<int64_t> &outSize = benchCase.outSize;
  const bool exact = benchCase.mode == Mode::kNearestExact;
  if (benchCase.forward) {
    switch (benchCase.SpatialRank()) {
      case 1:
        return exact ? at::_upsample_nearest_exact1d(source, outSize)
                     : at::upsample_nearest1d(source, outSize);
      case 2:
        return exact ? at::_upsample_nearest_exact2d(source, outSize)
                     : at::upsample_nearest2d(source, outSize);
      default:
        return exact ? at::_upsample_nearest_exact3d(source, outSize)
                     : at::upsample_nearest3d(source, outSize);
    }
  }
  switch (benchCase.SpatialRank()) {
    case 1:
      return exact ? at::_upsample_nearest_exact1d_backward(source, outSize, inSize)
                   : at::upsample_nearest1d_backward(source, outSize, inSize);
    case 2:
      return exact ? at::_upsample_nearest_exact2d_backward(source, outSize, inSize)
                   : at::upsample_nearest2d_backward(source, outSize, inSize);
    default:
      return exact ? at::_upsample_nearest_exact3d_backward(source, outSize, inSize)
                   : at::upsample_nearest3d_backward(source, outSize, inSize);
  }
}

}  // namespace

at::Tensor TorchRunner::Call(const at::Tensor &source) const {
  const std::vector<int64_t> &outSize = case_.outSize;
  const bool alignCorners = case_.alignCorners;
  if (case_.filter != Filter2d::kLinear) return CallCubic(source);
  if (case_.mode != Mode::kLinear) {
    std::vector<int64_t> inSize = case_.input;
    inSize[1] = source.size(1);
    return CallNearest(case_, source, inSize);
  }
  if (case_.forward) {
    switch (case_.SpatialRank()) {
      case 1:
        return at::upsample_linear1d(source, outSize, alignCorners);
      case 2:
        return at::upsample_bilinear2d(source, outSize, alignCorners);
      default:
        return at::upsample_trilinear3d(source, outSize, alignCorners);
    }
  }
  std::vector<int64_t> inSize = case_.input;
  inSize[1] = source.size(1);
  switch (case_.SpatialRank()) {
    case 1:
      return at::upsample_linear1d_backward(source, outSize, inSize, alignCorners);
    case 2:
      return at::upsample_bilinear2d_backward(source, outSize, inSize, alignCorners);
    default:
      return at::upsample_trilinear3d_backward(source, outSize, inSize, alignCorners);
  }
}

at::Tensor TorchRunner::CallCubic(const at::Tensor &source) const {
  const std::vector<int64_t> &outSize = case_.outSize;
  const bool align = case_.alignCorners;
  std::vector<int64_t> inSize = case_.input;
  inSize[1] = source.size(1);
  switch (case_.filter) {
    case Filter2d::kBicubic:
      return case_.forward ? at::upsample_bicubic2d(source, outSize, align)
                           : at::upsample_bicubic2d_backward(source, outSize, inSize, align);
    case Filter2d::kBilinearAntialias:
      return case_.forward ? at::_upsample_bilinear2d_aa(source, outSize, align)
                           : at::_upsample_bilinear2d_aa_backward(source, outSize, inSize, align);
    default:
      return case_.forward ? at::_upsample_bicubic2d_aa(source, outSize, align)
                           : at::_upsample_bicubic2d_aa_backward(source, outSize, inSize, align);
  }
}

bool TorchRunner::available() {
  if (availability_ < 0) {
    // A tiny tensor of the dtype and layout: the kernel either exists or throws at once.
    BenchCase tiny = case_;
    tiny.input.assign(tiny.input.size(), 2);
    tiny.input[0] = 1;
    tiny.outSize.assign(tiny.outSize.size(), 3);
    std::vector<unsigned char> bytes(static_cast<size_t>(tiny.OutputElements() * 4), 0);
    TorchRunner probe(tiny, bytes.data());
    try {
      probe.Call(probe.source_);
      availability_ = 1;
    } catch (const c10::Error &error) {
      availability_ = 0;
      reason_ = error.what_without_backtrace();
      const size_t newline = reason_.find('\n');
      if (newline != std::string::npos) reason_.resize(newline);
    }
  }
  return availability_ == 1;
}

double TorchRunner::RunMs() {
  const double start = NowMs();
  result_ = at::Tensor();  // free the previous result first, as a training loop would have
  result_ = Call(source_);
  return NowMs() - start;
}

std::string TorchRunner::resultLayout() const {
  if (!result_.defined()) return "";
  if (result_.is_contiguous()) return "contiguous";
  if (result_.dim() == 4 && result_.is_contiguous(at::MemoryFormat::ChannelsLast)) return "channels_last";
  if (result_.dim() == 5 && result_.is_contiguous(at::MemoryFormat::ChannelsLast3d))
    return "channels_last_3d";
  return "strided";
}

CheckResult TorchRunner::Check(void *oursDestination, double tolerance) {
  const at::Tensor ours = WrapMemory(case_, case_.forward ? case_.Output() : case_.input, oursDestination);
  std::vector<at::Tensor> differences;  // |ours - reference| per channel block, inf where ours is not finite
  double scale = 0;                     // max |reference|
  auto compare = [&](const at::Tensor &oursPart, const at::Tensor &reference) {
    const at::Tensor oursFloat = oursPart.to(at::kFloat);
    differences.push_back(at::where(oursFloat.isfinite(), (oursFloat - reference).abs(),
                                    at::full({}, std::numeric_limits<float>::infinity())));
    scale = std::max(scale, reference.abs().max().item<double>());
  };
  if (case_.dtype == DType::kFloat32 && result_.defined()) {
    compare(ours, result_);
  } else {
    const int64_t channels = source_.size(1);
    const int64_t bytesPerChannel = source_.numel() / std::max<int64_t>(1, channels) * 4;
    const int64_t block = std::max<int64_t>(1, (int64_t{256} << 20) / std::max<int64_t>(1, bytesPerChannel));
    for (int64_t c0 = 0; c0 < channels; c0 += block) {
      const int64_t n = std::min(block, channels - c0);
      compare(ours.narrow(1, c0, n), Call(source_.narrow(1, c0, n).to(at::kFloat)));
    }
  }
  CheckResult check;
  const double limit = tolerance * (scale > 0 ? scale : 1.0);
  for (const at::Tensor &difference : differences) {
    const double error = difference.numel() ? difference.max().item<double>() : 0.0;
    check.relativeError = std::max(check.relativeError, scale > 0 ? error / scale : error);
    check.badElements += (difference > limit).sum().item<int64_t>();
    check.elements += difference.numel();
  }
  return check;
}

}  // namespace bench
