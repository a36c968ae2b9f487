// Device tensors for the tests, made the way a CANN user makes them: aclrtMalloc storage,
// aclCreateTensor over it, aclrtMemcpy in and out. Values cross this interface as doubles in
// logical NCDHW order whatever the tensor's dtype, format and memory layout.
#ifndef TRILINEAR3D_TESTS_SUPPORT_TEST_TENSOR_H_
#define TRILINEAR3D_TESTS_SUPPORT_TEST_TENSOR_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "common/half_convert.h"
#include "reference/upsample_reference.h"

namespace trilinear3d::test {

// How the view's elements sit in the storage.
enum class MemLayout {
  kContiguous,  // row-major over the view dims
  kPermuted,    // the other memory order: channels-last under an NCDHW view, channels-first under NDHWC
  kSliced,      // row-major with gaps (every other element along the innermost dim) and an offset
};

// The name of value in a table of (value, name) pairs; otherwise when it is not there.
template <typename T, size_t N>
const char *NameIn(const std::pair<T, const char *> (&names)[N], T value, const char *otherwise) {
  for (const auto &[v, name] : names) {
    if (v == value) return name;
  }
  return otherwise;
}

inline const char *DtypeName(aclDataType dtype) {
  static constexpr std::pair<aclDataType, const char *> kNames[] = {{ACL_FLOAT, "Float"},
                                                                    {ACL_FLOAT16, "Float16"},
                                                                    {ACL_BF16, "Bf16"},
                                                                    {ACL_DOUBLE, "Double"},
                                                                    {ACL_UINT8, "UInt8"}};
  return NameIn(kNames, dtype, "Other");
}

inline const char *FormatName(aclFormat format) {
  static constexpr std::pair<aclFormat, const char *> kNames[] = {
      {ACL_FORMAT_ND, "ND"},     {ACL_FORMAT_NCDHW, "NCDHW"}, {ACL_FORMAT_NDHWC, "NDHWC"},
      {ACL_FORMAT_NCHW, "NCHW"}, {ACL_FORMAT_NHWC, "NHWC"},   {ACL_FORMAT_NCL, "NCL"}};
  return NameIn(kNames, format, "Other");
}

// Channels-last formats: NDHWC for 5-D views, NHWC for 4-D ones.
inline bool IsChannelsLast(aclFormat format) {
  return format == ACL_FORMAT_NDHWC || format == ACL_FORMAT_NHWC;
}

inline size_t DtypeSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_UINT8:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
      return 2;
    case ACL_DOUBLE:
      return 8;
    default:
      return 4;
  }
}

// The value a double becomes once stored in dtype (what the library actually reads).
inline double Quantize(aclDataType dtype, double v) {
  switch (dtype) {
    case ACL_FLOAT16:
      return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case ACL_BF16:
      return Bf16ToFloat(FloatToBf16(static_cast<float>(v)));
    case ACL_DOUBLE:
      return v;
    case ACL_UINT8:  // the nearest forwards' integers: saturated, rounded
      return std::nearbyint(std::clamp(v, 0.0, 255.0));
    default:
      return static_cast<float>(v);
  }
}

inline void EncodeElement(aclDataType dtype, double v, uint8_t *dst) {
  switch (dtype) {
    case ACL_FLOAT16: {
      const uint16_t h = FloatToHalf(static_cast<float>(v));
      std::memcpy(dst, &h, 2);
      break;
    }
    case ACL_BF16: {
      const uint16_t b = FloatToBf16(static_cast<float>(v));
      std::memcpy(dst, &b, 2);
      break;
    }
    case ACL_DOUBLE:
      std::memcpy(dst, &v, 8);
      break;
    case ACL_UINT8:
      *dst = static_cast<uint8_t>(Quantize(ACL_UINT8, v));
      break;
    default: {
      const float f = static_cast<float>(v);
      std::memcpy(dst, &f, 4);
      break;
    }
  }
}

inline double DecodeElement(aclDataType dtype, const uint8_t *src) {
  switch (dtype) {
    case ACL_FLOAT16: {
      uint16_t h;
      std::memcpy(&h, src, 2);
      return HalfToFloat(h);
    }
    case ACL_BF16: {
      uint16_t b;
      std::memcpy(&b, src, 2);
      return Bf16ToFloat(b);
    }
    case ACL_DOUBLE: {
      double d;
      std::memcpy(&d, src, 8);
      return d;
    }
    case ACL_UINT8:
      return *src;
    default: {
      float f;
      std::memcpy(&f, src, 4);
      return f;
    }
  }
}

// The view dims of a logical NCDHW shape in a format: NDHWC (and NHWC) views are (N, D, H, W, C).
inline Shape5 ViewDimsOf(const Shape5 &logical, aclFormat format) {
  if (IsChannelsLast(format)) return {logical[0], logical[2], logical[3], logical[4], logical[1]};
  return logical;
}

// Position of each logical dim (N, C, D, H, W) among the view dims of a format.
inline std::array<int, 5> ViewPositionOf(aclFormat format) {
  if (IsChannelsLast(format)) return {0, 4, 1, 2, 3};
  return {0, 1, 2, 3, 4};
}

// Test data: a fresh seed per test (TRILINEAR3D_TEST_SEED overrides it to replay a failure).
inline uint64_t FreshSeed() {
  if (const char *env = std::getenv("TRILINEAR3D_TEST_SEED")) return std::strtoull(env, nullptr, 10);
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

inline std::string SeedTrace(uint64_t seed) {
  return "seed " + std::to_string(seed) + " (replay with TRILINEAR3D_TEST_SEED=" + std::to_string(seed) + ")";
}

// A generator on a fresh seed whose SeedTrace is on every failure message while it lives.
class TracedRng : public std::mt19937_64 {
 public:
  TracedRng() : TracedRng(FreshSeed()) {}
  explicit TracedRng(uint64_t seed)
      : std::mt19937_64(seed), initialSeed_(seed), trace_(__FILE__, __LINE__, SeedTrace(seed)) {}
  uint64_t initialSeed() const { return initialSeed_; }

 private:
  uint64_t initialSeed_;
  ::testing::ScopedTrace trace_;
};

enum class Distribution {
  kUnitNormal,   // N(0, 1): cancellation between neighbours
  kLargeOffset,  // N(+-100, 25), one sign per tensor: large same-sign sums
};

inline const char *DistributionName(Distribution d) {
  return d == Distribution::kUnitNormal ? "N(0,1)" : "N(+-100,25)";
}

// How many values are NaN or infinite (the special-value tests check that some survive).
inline size_t CountNonFinite(const std::vector<double> &values) {
  size_t n = 0;
  for (double v : values) n += std::isfinite(v) ? 0 : 1;
  return n;
}

// count values, never exactly zero (a zero would hide a missing term).
inline std::vector<double> RandomValues(std::mt19937_64 &rng, int64_t count, Distribution dist) {
  double mean = 0.0, sd = 1.0;
  if (dist == Distribution::kLargeOffset) {
    mean = std::bernoulli_distribution(0.5)(rng) ? 100.0 : -100.0;
    sd = 25.0;
  }
  std::normal_distribution<double> normal(mean, sd);
  std::vector<double> values(static_cast<size_t>(count));
  for (double &v : values) {
    do {
      v = normal(rng);
    } while (v == 0.0);
  }
  return values;
}

// count non-finite values (+inf, -inf, NaN in turn) at random positions of values.
inline void SprinkleNonFinite(std::mt19937_64 &rng, std::vector<double> &values, int count = 6) {
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  const double specials[] = {INFINITY, -INFINITY, NAN};
  for (int i = 0; i < count; ++i) values[pick(rng)] = specials[i % 3];
}

constexpr uint8_t kCanaryByte = 0xA5;  // fills every byte of the allocation the view does not cover

// Where a tensor's storage sits in its allocation.
enum class Guard {
  kNone,   // the storage is the allocation: the view dims (in memory order) as storage dims, or a 1-D
           // storage with a trailing gap when sliced; the view at offset 0 unless sliced
  kBands,  // a 1-D storage of exactly the elements the view spans, between two guard bands of
           // kGuardBytes, the view at an element offset in every layout (so that no view starts on a
           // 64-byte boundary): what the reliability tests check writes against
};

// Bytes before and after a guarded tensor's storage. A multiple of 64, so the view's alignment is set
// by the element offset alone.
constexpr size_t kGuardBytes = 192;

inline const char *LayoutName(MemLayout layout) {
  static constexpr std::pair<MemLayout, const char *> kNames[] = {{MemLayout::kContiguous, "Contiguous"},
                                                                  {MemLayout::kPermuted, "Permuted"}};
  return NameIn(kNames, layout, "Sliced");
}

// Strides, offset and storage dims of a view (in its format's dim order) laid out as `layout` says.
struct ViewLayout {
  Shape5 strides{};
  int64_t offset = 0;
  std::vector<int64_t> storageDims;
};

inline ViewLayout MakeViewLayout(const Shape5 &view, aclFormat format, MemLayout layout,
                                 Guard guard = Guard::kNone) {
  ViewLayout l;
  if (layout == MemLayout::kSliced) {
    // Innermost dim every other element; extra elements between rows / planes; an offset.
    const int64_t gaps[5] = {1, 2, 1, 3, 0};
    l.strides[4] = 2;
    for (int a = 3; a >= 0; --a) l.strides[a] = l.strides[a + 1] * view[a + 1] + gaps[a];
    l.offset = 5;
  } else {
    // Memory order as a permutation of the view dims (outermost first).
    std::array<int, 5> order{0, 1, 2, 3, 4};
    if (layout == MemLayout::kPermuted) {
      order = IsChannelsLast(format) ? std::array<int, 5>{0, 4, 1, 2, 3}   // N C D H W in memory
                                     : std::array<int, 5>{0, 2, 3, 4, 1};  // N D H W C in memory
    }
    int64_t stride = 1;
    for (int k = 4; k >= 0; --k) {
      l.strides[order[k]] = stride;
      stride *= view[order[k]];
    }
    if (guard == Guard::kNone) {
      for (int k = 0; k < 5; ++k) l.storageDims.push_back(view[order[k]]);
      return l;
    }
    l.offset = 3;
  }
  int64_t extent = l.offset + 1;  // the elements the storage must cover
  for (int a = 0; a < 5; ++a) extent += (view[a] - 1) * l.strides[a];
  if (guard == Guard::kNone) {
    l.storageDims = {extent + 4};  // a trailing gap
  } else {
    l.storageDims = {ElementCount(view) == 0 ? 1 : extent};
  }
  return l;
}

// The formats and layouts of an operator's two tensors: the one it reads (gradOut / self) and the one
// it writes (gradInput / out).
struct ViewCase {
  aclFormat readFormat;
  MemLayout readLayout;
  aclFormat writtenFormat;
  MemLayout writtenLayout;
};

// A tensor of rank 4 or 3 (the 2-D and 1-D operators') is its 5-D view without the unit axes it lacks:
// D (rank 4: NCHW, NHWC, ND as NCHW) or D and H (rank 3: NCL, ND). Their strides do not move any element.
inline std::vector<int64_t> WithoutUnitAxes(const Shape5 &viewDims, aclFormat format, int rank) {
  const int d = IsChannelsLast(format) ? 1 : 2;  // the view position of D; H follows it
  std::vector<int64_t> dims;
  for (int a = 0; a < 5; ++a) {
    if (a == d && rank < 5) continue;
    if (a == d + 1 && rank < 4) continue;
    dims.push_back(viewDims[a]);
  }
  return dims;
}

class DeviceTensor {
 public:
  // rank: 5, or 4 / 3 for the 2-D / 1-D operators' tensors (logical D, and H for rank 3, must be 1).
  DeviceTensor(const Shape5 &logical, aclDataType dtype, aclFormat format,
               MemLayout layout = MemLayout::kContiguous, Guard guard = Guard::kNone, int rank = 5)
      : logical_(logical), dtype_(dtype), format_(format), elementSize_(DtypeSize(dtype)) {
    EXPECT_TRUE(rank == 5 || (logical[2] == 1 && (rank == 4 || logical[3] == 1)))
        << "test setup: a rank " << rank << " tensor needs unit D (and H) axes";
    const Shape5 view = ViewDimsOf(logical, format);
    ViewLayout l = MakeViewLayout(view, format, layout, guard);
    const std::vector<int64_t> viewDims = WithoutUnitAxes(view, format, rank);
    const std::vector<int64_t> viewStrides = WithoutUnitAxes(l.strides, format, rank);
    // Storage dims in memory order: drop as many unit dims as the view drops (the element count stays).
    for (int dropped = 0; dropped < 5 - rank && l.storageDims.size() > 1;) {
      auto unit = std::find(l.storageDims.begin(), l.storageDims.end(), int64_t{1});
      if (unit == l.storageDims.end()) break;
      l.storageDims.erase(unit);
      ++dropped;
    }
    int64_t storageElements = 1;
    for (int64_t dim : l.storageDims) storageElements *= dim;
    const size_t storageBytes = static_cast<size_t>(storageElements) * elementSize_;
    const size_t band = guard == Guard::kBands ? kGuardBytes : 0;
    // aclrtMalloc rejects size 0 (empty tensors): keep a few bytes so the canary has a home.
    allocBytes_ = guard == Guard::kBands ? 2 * band + storageBytes : std::max<size_t>(storageBytes, 64);
    EXPECT_EQ(aclrtMalloc(&base_, allocBytes_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(base_, allocBytes_, kCanaryByte, allocBytes_), ACL_SUCCESS);
    tensor_ =
        aclCreateTensor(viewDims.data(), viewDims.size(), dtype, viewStrides.data(), l.offset, format,
                        l.storageDims.data(), l.storageDims.size(), static_cast<uint8_t *>(base_) + band);
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();

    // Byte offset (from the allocation's start) of every logical NCDHW element, in logical order.
    const std::array<int, 5> pos = ViewPositionOf(format);
    offsets_.reserve(static_cast<size_t>(ElementCount(logical)));
    for (int64_t n = 0; n < logical[0]; ++n)
      for (int64_t c = 0; c < logical[1]; ++c)
        for (int64_t d = 0; d < logical[2]; ++d)
          for (int64_t h = 0; h < logical[3]; ++h)
            for (int64_t w = 0; w < logical[4]; ++w) {
              const int64_t idx[5] = {n, c, d, h, w};
              int64_t element = l.offset;
              for (int a = 0; a < 5; ++a) element += idx[a] * l.strides[pos[a]];
              offsets_.push_back(band + static_cast<size_t>(element) * elementSize_);
            }
  }

  ~DeviceTensor() {
    DestroyAclTensor();
    if (base_ != nullptr) aclrtFree(base_);
  }
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;

  aclTensor *get() const { return tensor_; }
  aclDataType dtype() const { return dtype_; }
  aclFormat format() const { return format_; }
  const Shape5 &logical() const { return logical_; }
  // The whole allocation, guard bands included (what StorageBytes() copies).
  const void *base() const { return base_; }
  size_t allocBytes() const { return allocBytes_; }

  // Destroys the aclTensor but keeps its memory (what a user may do after GetWorkspaceSize).
  void DestroyAclTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
    tensor_ = nullptr;
  }

  // Fresh values of dist from rng, uploaded; returns them as stored.
  std::vector<double> UploadRandom(std::mt19937_64 &rng, Distribution dist = Distribution::kUnitNormal) {
    return Upload(RandomValues(rng, ElementCount(logical_), dist));
  }

  // Writes values (logical NCDHW order) in the tensor's dtype; returns them as stored.
  std::vector<double> Upload(const std::vector<double> &values) {
    EXPECT_EQ(values.size(), offsets_.size());
    std::vector<uint8_t> image = StorageBytes();
    std::vector<double> stored(values.size());
    for (size_t i = 0; i < values.size() && i < offsets_.size(); ++i) {
      EncodeElement(dtype_, values[i], image.data() + offsets_[i]);
      stored[i] = DecodeElement(dtype_, image.data() + offsets_[i]);
    }
    EXPECT_EQ(aclrtMemcpy(base_, allocBytes_, image.data(), image.size(), ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    return stored;
  }

  // Every element of the view becomes NaN: an element the operator fails to write stays NaN.
  void PoisonView() {
    Upload(std::vector<double>(offsets_.size(), std::numeric_limits<double>::quiet_NaN()));
  }

  // Reads the view back as doubles in logical NCDHW order.
  std::vector<double> Download() const {
    const std::vector<uint8_t> image = StorageBytes();
    std::vector<double> values(offsets_.size());
    for (size_t i = 0; i < values.size(); ++i) values[i] = DecodeElement(dtype_, image.data() + offsets_[i]);
    return values;
  }

  // The whole allocation, view, gaps and guard bands, as raw bytes.
  std::vector<uint8_t> StorageBytes() const {
    std::vector<uint8_t> image(allocBytes_);
    EXPECT_EQ(aclrtMemcpy(image.data(), image.size(), base_, allocBytes_, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    return image;
  }

  // Whether every byte outside the view still equals `before` (e.g. the canary).
  ::testing::AssertionResult OutsideViewUnchanged(const std::vector<uint8_t> &before) const {
    const std::vector<uint8_t> now = StorageBytes();
    std::vector<bool> inView(allocBytes_, false);
    for (size_t offset : offsets_) {
      for (size_t b = 0; b < elementSize_; ++b) inView[offset + b] = true;
    }
    for (size_t i = 0; i < allocBytes_; ++i) {
      if (!inView[i] && now[i] != before[i]) {
        return ::testing::AssertionFailure()
               << "byte " << i << " of " << allocBytes_ << " is outside the view and changed from "
               << int(before[i]) << " to " << int(now[i]);
      }
    }
    return ::testing::AssertionSuccess();
  }

  // Whether every byte the view does not cover still holds the canary (guard bands included).
  ::testing::AssertionResult CanaryIntact() const {
    return OutsideViewUnchanged(std::vector<uint8_t>(allocBytes_, kCanaryByte));
  }

 private:
  Shape5 logical_;
  aclDataType dtype_;
  aclFormat format_;
  size_t elementSize_;
  void *base_ = nullptr;
  aclTensor *tensor_ = nullptr;
  size_t allocBytes_ = 0;
  std::vector<size_t> offsets_;  // byte offset of each logical NCDHW element from base_
};

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_TEST_TENSOR_H_
