// Shared pieces of the reliability tests: tensors inside guard bands, both operators behind one
// call, a float64 forward reference (the backward one is tests/ut/reference), random op cases and
// a content hash for bitwise comparisons.
#ifndef TRILINEAR3D_TESTS_RELIABILITY_RELIABILITY_SUPPORT_H_
#define TRILINEAR3D_TESTS_RELIABILITY_RELIABILITY_SUPPORT_H_

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "reference/upsample_reference.h"
#include "test_tensor.h"

namespace trilinear3d::reliability {

using test::BackwardProblem;
using test::MemLayout;
using test::Shape5;

// Bytes before and after every tensor's storage, filled with the canary. A multiple of 64, so the
// view's alignment is set by the element offset alone.
constexpr size_t kGuardBytes = 192;

inline const char *LayoutName(MemLayout layout) {
  switch (layout) {
    case MemLayout::kContiguous:
      return "Contiguous";
    case MemLayout::kPermuted:
      return "Permuted";
    default:
      return "Sliced";
  }
}

// Strides and offset of a view (in its format's dim order) laid out in memory as `layout` says;
// the same three layouts as tests/ut's DeviceTensor, plus an element offset for every layout so
// that no view starts on a 64-byte boundary.
struct ViewLayout {
  Shape5 strides{};
  int64_t offset = 0;
  int64_t extent = 0;  // offset + sum (dim - 1) * stride + 1: the elements the storage must cover
};

inline ViewLayout MakeViewLayout(const Shape5 &view, aclFormat format, MemLayout layout) {
  ViewLayout l;
  if (layout == MemLayout::kSliced) {
    // Every other element along the innermost dim, gaps between rows and planes.
    const int64_t gaps[5] = {1, 2, 1, 3, 0};
    l.strides[4] = 2;
    for (int a = 3; a >= 0; --a) l.strides[a] = l.strides[a + 1] * view[a + 1] + gaps[a];
    l.offset = 5;
  } else {
    std::array<int, 5> order{0, 1, 2, 3, 4};  // memory order, outermost first
    if (layout == MemLayout::kPermuted) {
      order =
          format == ACL_FORMAT_NDHWC ? std::array<int, 5>{0, 4, 1, 2, 3} : std::array<int, 5>{0, 2, 3, 4, 1};
    }
    int64_t stride = 1;
    for (int k = 4; k >= 0; --k) {
      l.strides[order[k]] = stride;
      stride *= view[order[k]];
    }
    l.offset = 3;
  }
  l.extent = l.offset + 1;
  for (int a = 0; a < 5; ++a) l.extent += (view[a] - 1) * l.strides[a];
  return l;
}

// A tensor whose 1-D storage (exactly offset + extent elements) sits between two guard bands of
// one allocation; every byte the view does not cover holds test::kCanaryByte.
class GuardedTensor {
 public:
  GuardedTensor(const Shape5 &logical, aclDataType dtype, aclFormat format, MemLayout layout)
      : logical_(logical), dtype_(dtype), format_(format), elementSize_(test::DtypeSize(dtype)) {
    const Shape5 view = test::ViewDimsOf(logical, format);
    const ViewLayout l = MakeViewLayout(view, format, layout);
    const int64_t storageElements = test::ElementCount(logical) == 0 ? 1 : l.extent;
    allocBytes_ = 2 * kGuardBytes + static_cast<size_t>(storageElements) * elementSize_;
    EXPECT_EQ(aclrtMalloc(&base_, allocBytes_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(base_, allocBytes_, test::kCanaryByte, allocBytes_), ACL_SUCCESS);
    const int64_t storageDims[1] = {storageElements};
    tensor_ = aclCreateTensor(view.data(), 5, dtype, l.strides.data(), l.offset, format, storageDims, 1,
                              static_cast<uint8_t *>(base_) + kGuardBytes);
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();

    // Byte offset (from base_) of every logical NCDHW element, in logical order.
    const std::array<int, 5> pos = test::ViewPositionOf(format);
    offsets_.reserve(static_cast<size_t>(test::ElementCount(logical)));
    for (int64_t n = 0; n < logical[0]; ++n)
      for (int64_t c = 0; c < logical[1]; ++c)
        for (int64_t d = 0; d < logical[2]; ++d)
          for (int64_t h = 0; h < logical[3]; ++h)
            for (int64_t w = 0; w < logical[4]; ++w) {
              const int64_t idx[5] = {n, c, d, h, w};
              int64_t element = l.offset;
              for (int a = 0; a < 5; ++a) element += idx[a] * l.strides[pos[a]];
              offsets_.push_back(kGuardBytes + static_cast<size_t>(element) * elementSize_);
            }
  }

  ~GuardedTensor() {
    DestroyAclTensor();
    if (base_ != nullptr) aclrtFree(base_);
  }
  GuardedTensor(const GuardedTensor &) = delete;
  GuardedTensor &operator=(const GuardedTensor &) = delete;

  aclTensor *get() const { return tensor_; }
  // The whole allocation, guard bands included (what Bytes() copies).
  const void *base() const { return base_; }
  size_t allocBytes() const { return allocBytes_; }
  const Shape5 &logical() const { return logical_; }

  // What a user may do right after GetWorkspaceSize: the executor copied what it needs.
  void DestroyAclTensor() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
    tensor_ = nullptr;
  }

  // Writes values (logical NCDHW order) into the view; returns them as stored in the dtype.
  std::vector<double> Upload(const std::vector<double> &values) {
    EXPECT_EQ(values.size(), offsets_.size());
    std::vector<uint8_t> image = Bytes();
    std::vector<double> stored(offsets_.size());
    for (size_t i = 0; i < offsets_.size() && i < values.size(); ++i) {
      test::EncodeElement(dtype_, values[i], image.data() + offsets_[i]);
      stored[i] = test::DecodeElement(dtype_, image.data() + offsets_[i]);
    }
    Store(image);
    return stored;
  }

  // Every element of the view becomes NaN: an element the operator fails to write stays NaN.
  void PoisonView() {
    Upload(std::vector<double>(offsets_.size(), std::numeric_limits<double>::quiet_NaN()));
  }

  std::vector<double> Download() const {
    const std::vector<uint8_t> image = Bytes();
    std::vector<double> values(offsets_.size());
    for (size_t i = 0; i < offsets_.size(); ++i)
      values[i] = test::DecodeElement(dtype_, image.data() + offsets_[i]);
    return values;
  }

  // The whole allocation: guards, gaps and view.
  std::vector<uint8_t> Bytes() const {
    std::vector<uint8_t> image(allocBytes_);
    EXPECT_EQ(aclrtMemcpy(image.data(), image.size(), base_, allocBytes_, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    return image;
  }

  // Whether every byte the view does not cover still holds the canary.
  ::testing::AssertionResult CanaryIntact() const {
    const std::vector<uint8_t> image = Bytes();
    std::vector<bool> inView(allocBytes_, false);
    for (size_t offset : offsets_) {
      for (size_t b = 0; b < elementSize_; ++b) inView[offset + b] = true;
    }
    for (size_t i = 0; i < allocBytes_; ++i) {
      if (!inView[i] && image[i] != test::kCanaryByte) {
        return ::testing::AssertionFailure()
               << "byte " << i << " of " << allocBytes_ << " (storage starts at " << kGuardBytes
               << ") is outside the view and changed from the canary to " << int(image[i]);
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  void Store(const std::vector<uint8_t> &image) {
    EXPECT_EQ(aclrtMemcpy(base_, allocBytes_, image.data(), image.size(), ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
  }

  Shape5 logical_;
  aclDataType dtype_;
  aclFormat format_;
  size_t elementSize_;
  void *base_ = nullptr;
  aclTensor *tensor_ = nullptr;
  size_t allocBytes_ = 0;
  std::vector<size_t> offsets_;
};

// One call of either operator: its sizes and attributes (a BackwardProblem describes the forward
// too: inputSize is self's shape, GradOutShape() out's), dtype, and each tensor's format and layout.
// src is the tensor read (self / gradOut), dst the one written (out / gradInput).
struct OpCase {
  bool backward = true;
  aclDataType dtype = ACL_FLOAT;
  BackwardProblem problem;
  aclFormat srcFormat = ACL_FORMAT_NCDHW;
  aclFormat dstFormat = ACL_FORMAT_NCDHW;
  MemLayout srcLayout = MemLayout::kContiguous;
  MemLayout dstLayout = MemLayout::kContiguous;
  uint64_t dataSeed = 0;

  Shape5 SrcShape() const { return backward ? problem.GradOutShape() : problem.inputSize; }
  Shape5 DstShape() const { return backward ? problem.inputSize : problem.GradOutShape(); }

  std::string Describe() const {
    std::ostringstream os;
    os << (backward ? "backward " : "forward ") << test::DtypeName(dtype) << " " << problem.Describe()
       << " src " << test::FormatName(srcFormat) << "/" << LayoutName(srcLayout) << " dst "
       << test::FormatName(dstFormat) << "/" << LayoutName(dstLayout) << " dataSeed " << dataSeed;
    return os.str();
  }
};

// Phase one of either operator; the int arrays are destroyed before returning.
inline aclnnStatus GetWorkspaceSize(const OpCase &c, const aclTensor *src, aclTensor *dst,
                                    uint64_t *workspaceSize, aclOpExecutor **executor) {
  const BackwardProblem &p = c.problem;
  aclIntArray *outputSize = aclCreateIntArray(p.outputSize.data(), 3);
  aclnnStatus status;
  if (c.backward) {
    aclIntArray *inputSize = aclCreateIntArray(p.inputSize.data(), 5);
    status = aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(src, outputSize, inputSize, p.alignCorners,
                                                              p.scales[0], p.scales[1], p.scales[2], dst,
                                                              workspaceSize, executor);
    aclDestroyIntArray(inputSize);
  } else {
    status = aclnnUpsampleTrilinear3dGetWorkspaceSize(src, outputSize, p.alignCorners, p.scales[0],
                                                      p.scales[1], p.scales[2], dst, workspaceSize, executor);
  }
  aclDestroyIntArray(outputSize);
  return status;
}

// Phase two of either operator.
inline aclnnStatus RunOp(bool backward, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                         aclrtStream stream) {
  return backward ? aclnnUpsampleTrilinear3dBackward(workspace, workspaceSize, executor, stream)
                  : aclnnUpsampleTrilinear3d(workspace, workspaceSize, executor, stream);
}

// The float64 forward in the shape of test::ReferenceResult, so that test::MatchesReference and
// docs/spec.md §5's bound apply unchanged: golden = sum of the 8 corner terms, A = the same over |x|,
// T = |x| summed over every tap a rounded source index can select.
inline test::ReferenceResult ForwardReference(const BackwardProblem &p, const std::vector<double> &x) {
  const std::array<math::AxisSpec, 3> axes = test::MakeAxes(p);
  std::array<std::vector<math::Tap>, 3> taps;
  std::array<test::AxisCandidates, 3> candidates;
  for (int a = 0; a < 3; ++a) {
    taps[a] = math::ForwardTaps(axes[a]);
    candidates[a] = test::MakeCandidates(axes[a]);
  }
  const int64_t iD = p.inputSize[2], iH = p.inputSize[3], iW = p.inputSize[4];
  const int64_t oD = p.outputSize[0], oH = p.outputSize[1], oW = p.outputSize[2];
  const size_t count = static_cast<size_t>(test::ElementCount(p.GradOutShape()));
  test::ReferenceResult r;
  r.golden.assign(count, 0.0);
  r.absSum.assign(count, 0.0);
  r.tapSum.assign(count, 0.0);
  r.exempt.assign(count, false);
  size_t i = 0;
  for (int64_t plane = 0; plane < p.inputSize[0] * p.inputSize[1]; ++plane) {
    auto at = [&](int64_t d, int64_t h, int64_t w) {
      return x[static_cast<size_t>(((plane * iD + d) * iH + h) * iW + w)];
    };
    for (int64_t od = 0; od < oD; ++od) {
      for (int64_t oh = 0; oh < oH; ++oh) {
        for (int64_t ow = 0; ow < oW; ++ow, ++i) {
          const math::Tap &td = taps[0][static_cast<size_t>(od)];
          const math::Tap &th = taps[1][static_cast<size_t>(oh)];
          const math::Tap &tw = taps[2][static_cast<size_t>(ow)];
          const int64_t id[2] = {td.i0, td.i1}, ih[2] = {th.i0, th.i1}, iw[2] = {tw.i0, tw.i1};
          const double ld[2] = {td.l0, td.l1}, lh[2] = {th.l0, th.l1}, lw[2] = {tw.l0, tw.l1};
          for (int a = 0; a < 2; ++a) {
            for (int b = 0; b < 2; ++b) {
              for (int c = 0; c < 2; ++c) {
                const double weight = ld[a] * lh[b] * lw[c];
                r.golden[i] += weight * at(id[a], ih[b], iw[c]);
                r.absSum[i] += weight * std::abs(at(id[a], ih[b], iw[c]));
              }
            }
          }
          for (int64_t d : candidates[0].indices[static_cast<size_t>(od)]) {
            for (int64_t h : candidates[1].indices[static_cast<size_t>(oh)]) {
              for (int64_t w : candidates[2].indices[static_cast<size_t>(ow)])
                r.tapSum[i] += std::abs(at(d, h, w));
            }
          }
        }
      }
    }
  }
  return r;
}

// The float64 result of a case, for the values the library read (already rounded to the dtype).
inline test::ReferenceResult Reference(const OpCase &c, const std::vector<double> &srcValues) {
  return c.backward ? test::BackwardReference(c.problem, srcValues) : ForwardReference(c.problem, srcValues);
}

// FNV-1a over bytes: enough to compare results bit for bit without keeping them.
inline uint64_t HashBytes(const std::vector<uint8_t> &bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  return h;
}

// Consistent user scales for a problem: floor(in * s) == out on every axis (docs/spec.md §2).
inline std::array<double, 3> ConsistentScales(const BackwardProblem &p) {
  std::array<double, 3> s{};
  for (int a = 0; a < 3; ++a) {
    const double in = static_cast<double>(p.inputSize[2 + a]);
    s[a] = (static_cast<double>(p.outputSize[a]) + 0.25) / in;  // floor(in * s) = out: away from the edge
  }
  return s;
}

// A random small case of either operator: every dtype, format and layout; identity, up- and
// down-sampled axes; both align modes; user scales in a quarter of the cases.
inline OpCase RandomCase(std::mt19937_64 &rng) {
  auto pick = [&rng](int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng)); };
  static const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  static const aclFormat kFormats[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND};
  static const MemLayout kLayouts[] = {MemLayout::kContiguous, MemLayout::kPermuted, MemLayout::kSliced};
  OpCase c;
  c.backward = pick(2) == 0;
  c.dtype = kDtypes[pick(4)];
  BackwardProblem &p = c.problem;
  p.inputSize[0] = 1 + pick(2);
  p.inputSize[1] = pick(4) == 0 ? 8 + pick(9) : 1 + pick(3);  // C >= 8 takes the channels-inner path
  for (int a = 0; a < 3; ++a) {
    p.inputSize[2 + a] = 1 + pick(9);
    const int kind = pick(3);  // identity, upsample, downsample
    p.outputSize[a] = kind == 0   ? p.inputSize[2 + a]
                      : kind == 1 ? p.inputSize[2 + a] + 1 + pick(10)
                                  : 1 + pick(9);
  }
  p.alignCorners = pick(2) == 0;
  if (pick(4) == 0) p.scales = ConsistentScales(p);
  c.srcFormat = kFormats[pick(3)];
  c.dstFormat = kFormats[pick(3)];
  c.srcLayout = kLayouts[pick(3)];
  c.dstLayout = kLayouts[pick(3)];
  c.dataSeed = rng();
  return c;
}

// A case with its tensors and planned executor: src uploaded from dataSeed, dst poisoned with NaN,
// both aclTensors already destroyed (the executor must not need them), workspace allocated.
struct PreparedCase {
  OpCase c;
  std::unique_ptr<GuardedTensor> src;
  std::unique_ptr<GuardedTensor> dst;
  std::vector<double> srcValues;  // as stored in the dtype
  aclOpExecutor *executor = nullptr;
  uint64_t workspaceSize = 0;
  void *workspace = nullptr;

  PreparedCase() = default;
  PreparedCase(const PreparedCase &) = delete;
  PreparedCase &operator=(const PreparedCase &) = delete;
  ~PreparedCase() {
    if (workspace != nullptr) aclrtFree(workspace);
  }
};

inline ::testing::AssertionResult Prepare(const OpCase &c, PreparedCase *out) {
  out->c = c;
  out->src = std::make_unique<GuardedTensor>(c.SrcShape(), c.dtype, c.srcFormat, c.srcLayout);
  out->dst = std::make_unique<GuardedTensor>(c.DstShape(), c.dtype, c.dstFormat, c.dstLayout);
  std::mt19937_64 rng(c.dataSeed);
  out->srcValues = out->src->Upload(
      test::RandomValues(rng, test::ElementCount(c.SrcShape()), test::Distribution::kUnitNormal));
  out->dst->PoisonView();
  const aclnnStatus status =
      GetWorkspaceSize(c, out->src->get(), out->dst->get(), &out->workspaceSize, &out->executor);
  out->src->DestroyAclTensor();
  out->dst->DestroyAclTensor();
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure() << "GetWorkspaceSize returned " << status << " ("
                                         << aclGetRecentErrMsg() << ") for " << c.Describe();
  }
  if (out->workspaceSize > 0 &&
      aclrtMalloc(&out->workspace, out->workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ::testing::AssertionFailure() << "cannot allocate " << out->workspaceSize << " workspace bytes";
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult Enqueue(PreparedCase *p, aclrtStream stream) {
  const aclnnStatus status = RunOp(p->c.backward, p->workspace, p->workspaceSize, p->executor, stream);
  p->executor = nullptr;  // consumed by a successful run
  if (status != ACLNN_SUCCESS) {
    return ::testing::AssertionFailure() << "the run phase returned " << status << " ("
                                         << aclGetRecentErrMsg() << ") for " << p->c.Describe();
  }
  return ::testing::AssertionSuccess();
}

// Seconds the stress tests run: TRILINEAR3D_STRESS_SECONDS when set to a positive number, else fallback.
inline double StressSeconds(double fallback) {
  if (const char *text = std::getenv("TRILINEAR3D_STRESS_SECONDS")) {
    const double v = std::strtod(text, nullptr);
    if (v > 0.0) return v;
  }
  return fallback;
}

}  // namespace trilinear3d::reliability

#endif  // TRILINEAR3D_TESTS_RELIABILITY_RELIABILITY_SUPPORT_H_
