// Building blocks of the validation tests: raw tensors with any dims / strides / storage (also
// invalid ones) over device buffers, int arrays, and the check that a call was rejected with a useful
// message.
#ifndef TRILINEAR3D_TESTS_SUPPORT_VALIDATION_HELPERS_H_
#define TRILINEAR3D_TESTS_SUPPORT_VALIDATION_HELPERS_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "device_buffer.h"

namespace trilinear3d::test {

// Row-major strides of dims, computed without signed overflow (wraps are the caller's problem).
inline std::vector<int64_t> ContiguousStrides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> strides(dims.size());
  uint64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(std::max<int64_t>(dims[i], 1));
  }
  return strides;
}

// Destroys what aclCreateTensor / aclCreateIntArray made (the owners below hold it in a unique_ptr).
struct AclDestroy {
  void operator()(aclTensor *tensor) const { aclDestroyTensor(tensor); }
  void operator()(aclIntArray *array) const { aclDestroyIntArray(array); }
};

// An aclTensor exactly as described; strides default to contiguous, storage to the view dims.
class RawTensor {
 public:
  RawTensor(const std::vector<int64_t> &dims, aclDataType dtype, aclFormat format, void *data,
            std::vector<int64_t> strides = {}, int64_t offset = 0, std::vector<int64_t> storageDims = {}) {
    if (strides.empty()) strides = ContiguousStrides(dims);
    if (storageDims.empty()) storageDims = dims;
    tensor_.reset(aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), offset, format,
                                  storageDims.data(), storageDims.size(), data));
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
  }
  aclTensor *get() const { return tensor_.get(); }

 private:
  std::unique_ptr<aclTensor, AclDestroy> tensor_;
};

class IntArray {
 public:
  IntArray(std::initializer_list<int64_t> values) : IntArray(std::vector<int64_t>(values)) {}
  explicit IntArray(const std::vector<int64_t> &values)
      : array_(aclCreateIntArray(values.data(), values.size())) {
    EXPECT_NE(array_, nullptr);
  }
  aclIntArray *get() const { return array_.get(); }

 private:
  std::unique_ptr<aclIntArray, AclDestroy> array_;
};

inline std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

inline bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `word` occurs in `text` (case-insensitive) with no identifier character either side.
inline bool ContainsWord(const std::string &text, const std::string &word) {
  const std::string t = Lower(text), w = Lower(word);
  for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
    const bool before = at == 0 || !IsWordChar(t[at - 1]);
    const bool after = at + w.size() == t.size() || !IsWordChar(t[at + w.size()]);
    if (before && after) return true;
  }
  return false;
}

// How a rejection's message must name the parameter: anywhere, or as a whole word ("out" must not
// be satisfied by "outputSize").
enum class NameMatch { kSubstring, kWholeWord };

// The call returned `expected`, aclGetRecentErrMsg names one of `names` (case-insensitive), and
// reading the message again gives "" (it is cleared by reading).
// values: texts (the offending values) the message must also contain, each as is.
inline ::testing::AssertionResult Rejected(aclnnStatus status, aclnnStatus expected,
                                           std::initializer_list<const char *> names,
                                           NameMatch match = NameMatch::kSubstring,
                                           const std::vector<std::string> &values = {}) {
  const std::string message = aclGetRecentErrMsg();
  const std::string again = aclGetRecentErrMsg();
  if (status != expected) {
    return ::testing::AssertionFailure()
           << "status " << status << ", expected " << expected << " (message: \"" << message << "\")";
  }
  if (message.empty()) return ::testing::AssertionFailure() << "aclGetRecentErrMsg() is empty";
  bool named = false;
  std::string wanted;
  for (const char *name : names) {
    named = named || (match == NameMatch::kWholeWord ? ContainsWord(message, name)
                                                     : Lower(message).find(Lower(name)) != std::string::npos);
    wanted += std::string(wanted.empty() ? "" : " or ") + name;
  }
  if (!named)
    return ::testing::AssertionFailure() << "message \"" << message << "\" does not name " << wanted;
  for (const std::string &value : values) {
    if (message.find(value) == std::string::npos)
      return ::testing::AssertionFailure()
             << "message \"" << message << "\" does not show the value " << value;
  }
  if (!again.empty())
    return ::testing::AssertionFailure() << "second read gave \"" << again << "\", expected \"\"";
  return ::testing::AssertionSuccess();
}

// Rejected, each name to appear as a whole word.
inline ::testing::AssertionResult RejectedNaming(aclnnStatus status, aclnnStatus expected,
                                                 std::initializer_list<const char *> names) {
  return Rejected(status, expected, names, NameMatch::kWholeWord);
}

// RejectedNaming, the message also showing each of values.
inline ::testing::AssertionResult RejectedNamingValues(aclnnStatus status, aclnnStatus expected,
                                                       std::initializer_list<const char *> names,
                                                       const std::vector<std::string> &values) {
  return Rejected(status, expected, names, NameMatch::kWholeWord, values);
}

constexpr int64_t kDimLimit = int64_t{1} << 20;  // CANN's per-dim limit

// The GetWorkspaceSize validation matrices' valid baseline, which each test breaks in one thing: float
// NCDHW tensors on the resample's input side (1,2,2,3,4) (self / gradInput) and output side (1,2,3,4,5)
// (out / gradOut), over canary-filled buffers of 8-byte elements, and outputSize (3,4,5); the call's
// outputs. The recent error message is cleared before each test.
class ValidationBaseline : public ::testing::Test {
 protected:
  void SetUp() override { (void)aclGetRecentErrMsg(); }

  // The baseline's tensor on the input side (self / gradInput) and on the output side (out / gradOut).
  RawTensor In(aclDataType dtype = ACL_FLOAT, aclFormat format = ACL_FORMAT_NCDHW) const {
    return RawTensor(kInDims, dtype, format, inBuf_.data());
  }
  RawTensor Out(aclDataType dtype = ACL_FLOAT, aclFormat format = ACL_FORMAT_NCDHW) const {
    return RawTensor(kOutDims, dtype, format, outBuf_.data());
  }

  // body(dims) for each of the input side's dims with one spatial dim (D, H or W) 0 or negative.
  template <typename Body>
  void ForEachInDimsWithSpatialNotPositive(Body body) const {
    for (int axis = 2; axis < 5; ++axis) {
      for (int64_t bad : {int64_t{0}, int64_t{-2}}) {
        SCOPED_TRACE("input side dim " + std::to_string(axis) + " = " + std::to_string(bad));
        std::vector<int64_t> dims = kInDims;
        dims[static_cast<size_t>(axis)] = bad;
        body(dims);
      }
    }
  }

  const std::vector<int64_t> kInDims{1, 2, 2, 3, 4};
  const std::vector<int64_t> kOutDims{1, 2, 3, 4, 5};
  DeviceBuffer inBuf_{8 * 48};
  DeviceBuffer outBuf_{8 * 120};
  IntArray outputSize_{3, 4, 5};
  uint64_t workspaceSize_ = 0;
  aclOpExecutor *executor_ = nullptr;
};

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_SUPPORT_VALIDATION_HELPERS_H_
