// Views whose elements lie more than 2^31 elements (2^33 bytes in fp32) into their storage: every
// element offset the library forms (plane bases, row starts, positions within a row, the streamed
// stores' alignment heads) must be 64-bit, on both pass orders and both row layouts, backward and
// forward. The storage is reserved address space (mmap with MAP_NORESERVE): only the pages that hold
// view elements are ever touched, so a case needs well under a megabyte of memory. Values are written
// and read straight through the pointer (on this CPU runtime device memory is host memory): copying
// 8 GiB storages in and out with aclrtMemcpy would commit them.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "acl_test_environment.h"
#include "op_runner.h"

namespace trilinear3d::test {
namespace {

// The stride (elements) of the view's outermost non-unit dim: C under NCDHW (N is 1 there), N under
// NDHWC. Odd, so the far planes are not 64-byte aligned either; index 2 of that dim sits at
// 2^31 + 6 elements.
constexpr int64_t kFarStride = (int64_t{1} << 30) + 3;

// Address space for `bytes`, committed page by page on first touch.
class SparseStorage {
 public:
  explicit SparseStorage(size_t bytes) : bytes_(bytes) {
    void *p =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
  }
  ~SparseStorage() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  SparseStorage(const SparseStorage &) = delete;
  SparseStorage &operator=(const SparseStorage &) = delete;

  uint8_t *data() const { return data_; }

 private:
  size_t bytes_;
  uint8_t *data_ = nullptr;
};

// A view of logical NCDHW dims in `format`: contiguous inner dims, the far dim kFarStride apart.
class FarView {
 public:
  FarView(const Shape5 &logical, aclDataType dtype, aclFormat format) : dtype_(dtype) {
    const Shape5 view = ViewDimsOf(logical, format);
    const int far = format == ACL_FORMAT_NDHWC ? 0 : 1;
    std::array<int64_t, 5> strides{};
    strides[4] = 1;
    for (int i = 3; i >= 0; --i) strides[i] = strides[i + 1] * view[i + 1];
    strides[far] = kFarStride;
    if (far == 1) strides[0] = kFarStride * view[1];
    int64_t span = 1;
    for (int i = 0; i < 5; ++i) span += (view[i] - 1) * strides[i];
    storage_ = std::make_unique<SparseStorage>(static_cast<size_t>(span) * DtypeSize(dtype));
    if (storage_->data() == nullptr) return;
    const int64_t storageDims[1] = {span};
    tensor_ =
        aclCreateTensor(view.data(), 5, dtype, strides.data(), 0, format, storageDims, 1, storage_->data());
    // Storage element of every logical NCDHW index, in logical order.
    const std::array<int, 5> position = ViewPositionOf(format);
    int64_t idx[5];
    for (idx[0] = 0; idx[0] < logical[0]; ++idx[0])
      for (idx[1] = 0; idx[1] < logical[1]; ++idx[1])
        for (idx[2] = 0; idx[2] < logical[2]; ++idx[2])
          for (idx[3] = 0; idx[3] < logical[3]; ++idx[3])
            for (idx[4] = 0; idx[4] < logical[4]; ++idx[4]) {
              int64_t offset = 0;
              for (int d = 0; d < 5; ++d) offset += idx[d] * strides[position[d]];
              offsets_.push_back(offset);
            }
  }
  ~FarView() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  }
  FarView(const FarView &) = delete;
  FarView &operator=(const FarView &) = delete;

  bool ok() const { return tensor_ != nullptr; }
  aclTensor *get() const { return tensor_; }
  int64_t MaxOffset() const {
    return offsets_.empty() ? 0 : *std::max_element(offsets_.begin(), offsets_.end());
  }

  // Stores values (logical order) and returns them as the dtype holds them.
  std::vector<double> Write(const std::vector<double> &values) {
    std::vector<double> stored(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      uint8_t *at = storage_->data() + static_cast<size_t>(offsets_[i]) * DtypeSize(dtype_);
      EncodeElement(dtype_, values[i], at);
      stored[i] = DecodeElement(dtype_, at);
    }
    return stored;
  }

  std::vector<double> Read() const {
    std::vector<double> values(offsets_.size());
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] =
          DecodeElement(dtype_, storage_->data() + static_cast<size_t>(offsets_[i]) * DtypeSize(dtype_));
    }
    return values;
  }

 private:
  aclDataType dtype_;
  std::unique_ptr<SparseStorage> storage_;
  aclTensor *tensor_ = nullptr;
  std::vector<int64_t> offsets_;
};

struct FarCase {
  const char *name;
  aclDataType dtype;
  aclFormat format;
  Shape5 small;                  // gradInput (backward) / self (forward)
  std::array<int64_t, 3> large;  // gradOut / out spatial sizes
};

// NCDHW with 3 channels (the third at 2^31 + 6 elements); NDHWC with 16 channels (the channels-inner
// row layout) and 3 batches.
const FarCase kFarCases[] = {
    {"Fp32Ncdhw", ACL_FLOAT, ACL_FORMAT_NCDHW, {1, 3, 4, 10, 12}, {8, 20, 24}},
    {"Bf16Ncdhw", ACL_BF16, ACL_FORMAT_NCDHW, {1, 3, 3, 7, 9}, {5, 13, 20}},
    {"Fp32Ndhwc", ACL_FLOAT, ACL_FORMAT_NDHWC, {3, 16, 2, 6, 8}, {4, 12, 16}},
    {"Fp16Ndhwc", ACL_FLOAT16, ACL_FORMAT_NDHWC, {3, 16, 3, 5, 7}, {6, 9, 13}},
};

// One case's two views for problem p (both checked to reach past 2^31 elements), the tensor read
// filled with random values and the one written with NaN (an element left unwritten fails the
// comparison); the operator's result is compared with the float64 reference.
template <typename Problem>
void CheckFarViews(const FarCase &c, const Problem &p, std::mt19937_64 &rng) {
  FarView src(ReadShape(p), c.dtype, c.format);
  FarView dst(WrittenShape(p), c.dtype, c.format);
  ASSERT_TRUE(src.ok() && dst.ok()) << "no address space for the sparse storages";
  ASSERT_GT(src.MaxOffset(), int64_t{1} << 31);
  ASSERT_GT(dst.MaxOffset(), int64_t{1} << 31);
  const std::vector<double> values =
      src.Write(RandomValues(rng, ElementCount(ReadShape(p)), Distribution::kUnitNormal));
  dst.Write(std::vector<double>(ElementCount(WrittenShape(p)), std::nan("")));
  PreparedOp op;
  ASSERT_TRUE(EnqueueAndSynchronize(Prepare(src.get(), p, dst.get(), &op), &op, nullptr));
  EXPECT_TRUE(ResultMatchesReference(values, p, c.dtype, dst.Read()));
}

// The case as a problem of either operator, for both alignments, with a fresh seed (reported on failure).
template <typename Problem>
void CheckFarCase(const FarCase &c) {
  TracedRng rng;
  for (bool alignCorners : {false, true}) {
    SCOPED_TRACE(alignCorners ? "alignCorners" : "no alignCorners");
    CheckFarViews(c, Problem{c.small, c.large, alignCorners}, rng);
  }
}

class LargeOffsetsBackward : public BackwardKernelsTest<FarCase> {};

TEST_P(LargeOffsetsBackward, BeyondTwoToThe31Elements) { CheckFarCase<BackwardProblem>(TestCase()); }

INSTANTIATE_TEST_SUITE_P(Views, LargeOffsetsBackward, WithBackwardKernels(kFarCases), CaseAndKernelName());

class LargeOffsetsForward : public ::testing::TestWithParam<FarCase> {};

TEST_P(LargeOffsetsForward, BeyondTwoToThe31Elements) { CheckFarCase<ForwardProblem>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Views, LargeOffsetsForward, ::testing::ValuesIn(kFarCases), CaseName());

}  // namespace
}  // namespace trilinear3d::test
