#include "bench_cases.h"

#include <sstream>

namespace bench {

int64_t ElementSize(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }

const char *DTypeName(DType dtype) {
  static const char *const kNames[] = {"fp32", "fp16", "bf16"};  // in DType's order
  return kNames[static_cast<int>(dtype)];
}

namespace {
int64_t Product(const std::array<int64_t, 5> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
std::string Join(const std::array<int64_t, 5> &shape) {
  std::ostringstream text;
  for (size_t i = 0; i < shape.size(); ++i) text << (i ? "," : "") << shape[i];
  return text.str();
}
}  // namespace

int64_t BenchCase::InputElements() const { return Product(input); }
int64_t BenchCase::OutputElements() const { return Product(Output()); }
int64_t BenchCase::TotalBytes() const { return (InputElements() + OutputElements()) * ElementSize(dtype); }

std::string BenchCase::ShapeText() const {
  return forward ? Join(input) + " → " + Join(Output()) : Join(input) + " ← " + Join(Output());
}

std::string BenchCase::FormatText() const {
  std::string text = std::string(DTypeName(dtype)) + (channelsLast ? " NDHWC" : " NCDHW");
  if (alignCorners) text += ", align_corners";
  return text;
}

const std::vector<BenchCase> &AllCases() {
  using D = DType;
  static const std::vector<BenchCase> cases = {
      // id, forward, gradInput (NCDHW), gradOut D/H/W, dtype, channelsLast, alignCorners
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
