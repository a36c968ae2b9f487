#include "bench_cases.h"

#include <sstream>

namespace bench {

int64_t ElementSize(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }

const char *DTypeName(DType dtype) {
  static const char *const kNames[] = {"fp32", "fp16", "bf16"};  // in DType's order
  return kNames[static_cast<int>(dtype)];
}

namespace {
int64_t Product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
std::string Join(const std::vector<int64_t> &shape) {
  std::ostringstream text;
  for (size_t i = 0; i < shape.size(); ++i) text << (i ? "," : "") << shape[i];
  return text.str();
}
}  // namespace

std::vector<int64_t> InMemoryOrder(const std::vector<int64_t> &sizes, bool channelsLast) {
  if (!channelsLast || sizes.size() < 3) return sizes;
  std::vector<int64_t> order = {sizes[0]};
  order.insert(order.end(), sizes.begin() + 2, sizes.end());
  order.push_back(sizes[1]);
  return order;
}

std::vector<int64_t> StridesOf(const std::vector<int64_t> &sizes, bool channelsLast) {
  // Axis indices in memory order, outermost first: N, C, spatial... or N, spatial..., C.
  std::vector<size_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (channelsLast && sizes.size() >= 3) {
    order.erase(order.begin() + 1);
    order.push_back(1);
  }
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = stride;
    stride *= sizes[order[i]];
  }
  return strides;
}

std::vector<int64_t> BenchCase::Output() const {
  std::vector<int64_t> output = {input[0], input[1]};
  output.insert(output.end(), outSize.begin(), outSize.end());
  return output;
}
int64_t BenchCase::InputElements() const { return Product(input); }
int64_t BenchCase::OutputElements() const { return Product(Output()); }
int64_t BenchCase::TotalBytes() const { return (InputElements() + OutputElements()) * ElementSize(dtype); }

const char *BenchCase::Layout() const {
  switch (SpatialRank()) {
    case 1:
      return "NCL";
    case 2:
      return channelsLast ? "NHWC" : "NCHW";
    default:
      return channelsLast ? "NDHWC" : "NCDHW";
  }
}

const char *BenchCase::OperatorName() const {
  static const char *const kCubicNames[3][2] = {
      {"upsample_bicubic2d_backward", "upsample_bicubic2d"},
      {"_upsample_bilinear2d_aa_backward", "_upsample_bilinear2d_aa"},
      {"_upsample_bicubic2d_aa_backward", "_upsample_bicubic2d_aa"}};
  if (filter != Filter2d::kLinear) return kCubicNames[static_cast<int>(filter) - 1][forward ? 1 : 0];
  // By mode (Mode's order), spatial rank, then direction.
  static const char *const kNames[3][3][2] = {
      {{"upsample_linear1d_backward", "upsample_linear1d"},
       {"upsample_bilinear2d_backward", "upsample_bilinear2d"},
       {"upsample_trilinear3d_backward", "upsample_trilinear3d"}},
      {{"upsample_nearest1d_backward", "upsample_nearest1d"},
       {"upsample_nearest2d_backward", "upsample_nearest2d"},
       {"upsample_nearest3d_backward", "upsample_nearest3d"}},
      {{"_upsample_nearest_exact1d_backward", "_upsample_nearest_exact1d"},
       {"_upsample_nearest_exact2d_backward", "_upsample_nearest_exact2d"},
       {"_upsample_nearest_exact3d_backward", "_upsample_nearest_exact3d"}}};
  return kNames[static_cast<int>(mode)][SpatialRank() - 1][forward ? 1 : 0];
}

std::string BenchCase::ShapeText() const {
  return forward ? Join(input) + " → " + Join(Output()) : Join(input) + " ← " + Join(Output());
}

std::string BenchCase::FormatText() const {
  std::string text = std::string(DTypeName(dtype)) + " " + Layout();
  if (alignCorners) text += ", align_corners";
  if (mode == Mode::kNearest) text += ", nearest";
  if (mode == Mode::kNearestExact) text += ", nearest-exact";
  return text;
}

const std::vector<BenchCase> &AllCases() {
  using D = DType;
  using M = Mode;
  static const std::vector<BenchCase> cases = {
      // id, forward, gradInput or x (N, C, spatial), gradOut's or y's spatial sizes, dtype, channelsLast,
      // alignCorners, mode (default linear)
      {"B1", false, {1, 64, 8, 128, 128}, {16, 256, 256}, D::kFloat32, false, false},
      {"B2", false, {1, 64, 8, 128, 128}, {16, 256, 256}, D::kBFloat16, false, false},
      {"B3", false, {1, 64, 8, 128, 128}, {16, 256, 256}, D::kFloat32, true, false},
      {"B4", false, {1, 64, 8, 128, 128}, {256, 256, 256}, D::kBFloat16, false, false},
      {"B5", false, {1, 3, 16, 64, 64}, {37, 129, 131}, D::kFloat32, false, true},
      {"B6", false, {2, 16, 32, 64, 64}, {16, 32, 32}, D::kFloat32, false, false},
      {"B7", false, {8, 3, 16, 16, 8}, {42, 45, 36}, D::kFloat16, false, false},
      {"B8", false, {2, 32, 16, 64, 64}, {16, 128, 128}, D::kFloat32, false, false},
      {"F1", true, {1, 64, 8, 128, 128}, {16, 256, 256}, D::kFloat32, false, false},
      {"F3", true, {1, 64, 8, 128, 128}, {16, 256, 256}, D::kFloat32, true, false},
      {"F5", true, {1, 3, 16, 64, 64}, {37, 129, 131}, D::kFloat32, false, true},
      // The linear group: bilinear 2-D (backward through aclnnUpsampleBilinear2dBackwardV2) and linear 1-D.
      {"L1", false, {8, 64, 128, 128}, {256, 256}, D::kFloat32, false, false},
      {"L2", false, {8, 64, 128, 128}, {256, 256}, D::kFloat32, true, false},
      {"L3", true, {8, 64, 128, 128}, {256, 256}, D::kFloat32, false, false},
      {"L4", false, {64, 64, 4096}, {8192}, D::kFloat32, false, false},
      {"L5", false, {8, 64, 128, 128}, {256, 256}, D::kBFloat16, false, false},
      {"L6", false, {4, 32, 75, 111}, {149, 223}, D::kFloat32, false, true},
      // The cubic group: bicubic 2-D (forward and backward) and the image pipeline's antialiased shrink.
      {"C1", false, {8, 64, 128, 128}, {256, 256}, D::kFloat32, false, false, M::kLinear, Filter2d::kBicubic},
      {"C2", true, {8, 64, 128, 128}, {256, 256}, D::kFloat32, false, false, M::kLinear, Filter2d::kBicubic},
      {"C3",
       true,
       {8, 3, 1024, 1024},
       {224, 224},
       D::kFloat32,
       false,
       false,
       M::kLinear,
       Filter2d::kBilinearAntialias},
      {"C4",
       false,
       {8, 3, 1024, 1024},
       {224, 224},
       D::kFloat32,
       false,
       false,
       M::kLinear,
       Filter2d::kBilinearAntialias},
      {"C5", false, {8, 64, 128, 128}, {256, 256}, D::kFloat32, true, false, M::kLinear, Filter2d::kBicubic},
      // The nearest group: nearest 2-D / 3-D (backward through aclnnUpsampleNearest2dBackward /
      // aclnnUpsampleNearest3dBackward, forward through aclnnUpsampleNearest2dV2) and nearest-exact 2-D.
      {"N1", false, {8, 64, 128, 128}, {256, 256}, D::kFloat32, false, false, M::kNearest},
      {"N2", false, {8, 64, 128, 128}, {256, 256}, D::kFloat32, true, false, M::kNearest},
      {"N3", false, {1, 64, 16, 64, 64}, {32, 128, 128}, D::kFloat32, false, false, M::kNearest},
      {"N4", true, {8, 64, 128, 128}, {256, 256}, D::kFloat32, false, false, M::kNearest},
      {"N5", false, {4, 32, 75, 111}, {149, 223}, D::kFloat32, false, false, M::kNearestExact},
      {"N6", false, {8, 64, 128, 128}, {256, 256}, D::kBFloat16, false, false, M::kNearest},
  };
  return cases;
}

std::vector<BenchCase> SelectCases(const std::string &list, std::string *unknown) {
  if (list.empty() || list == "all") return AllCases();
  std::vector<BenchCase> selected;
  std::stringstream stream(list);
  std::string id;
  while (std::getline(stream, id, ',')) {
    if (id.empty()) continue;
    bool found = false;
    for (const BenchCase &c : AllCases()) {
      if (c.id == id) {
        selected.push_back(c);
        found = true;
      }
    }
    if (!found && unknown != nullptr) *unknown += (unknown->empty() ? "" : ",") + id;
  }
  return selected;
}

}  // namespace bench
