// libFuzzer target: GetWorkspaceSize and run of the resize family's entry points with arbitrary
// descriptors: the 3-D pair, aclnnUpsampleBilinear2d, aclnnUpsampleLinear1d,
// aclnnUpsampleBilinear2dBackward (V1) and ...BackwardV2, aclnnUpsampleLinear1dBackward; the nearest
// group's aclnnUpsampleNearest1dV2 / 2dV2 / 3d, the exact forwards and every nearest backward (the
// alignCorners bit picks the exact rule), with uint8 tensors among their dtypes; and the cubic group's six
// (aclnnUpsampleBicubic2d, aclnnUpsampleBilinear2dAA, aclnnUpsampleBicubic2dAA and their backwards).
//
// The input decodes (DecodeInput below; tests/fuzz/make_corpus.py writes the same format) into one
// call: operator, two tensors (rank 0-9, any dims, strides, offset, storage, dtype, format, null
// tensor or data), outputSize / inputSize arrays (null, any length, derived from the tensors or
// perturbed), three scales (NaN, +-inf, negative, huge, tiny, consistent) and null out-pointers.
// Each tensor gets a real buffer of exactly the elements its view reaches (min(view extent, declared
// storage)), so ASan sees any access outside the view; a buffer above 64 MiB is not allocated and the
// op is then only planned, not run.
//
// Properties checked (a violation aborts, which libFuzzer reports as a crash):
//  - GetWorkspaceSize returns 0, 161001 or 161002 (docs/spec.md §4); a 561xxx inner error is a bug;
//    every failure leaves a message for aclGetRecentErrMsg; a 3-D or 1-D forward whose self has C = 0
//    fails.
//  - A planned op with buffers runs: misuse of the run phase (null / short workspace, unknown
//    executor or stream) is rejected with 161001 / 161002 and leaves the executor usable; the real
//    run returns 0, the stream synchronizes, and a second run of the consumed executor is 161002.
//  - After the run: no element of the written view is left NaN (the view was poisoned with NaN, the
//    input is finite), no byte of the written buffer outside the view changed, the input buffer is
//    unchanged, and a second, independently planned run gives the same bytes.
// Crashes, hangs (-timeout), huge allocations (-malloc_limit_mb) and leaks are libFuzzer's to catch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
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

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRILINEAR3D_FUZZ_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TRILINEAR3D_FUZZ_LSAN 1
#endif
#ifdef TRILINEAR3D_FUZZ_LSAN
#include <sanitizer/lsan_interface.h>
// From the sanitizer runtime (clang's sanitizer/allocator_interface.h; gcc ships no header for it).
extern "C" size_t __sanitizer_get_current_allocated_bytes(void);
#endif

// CANN's way to free an executor that will not be run; used when the library provides it.
extern "C" __attribute__((weak)) aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

namespace {

constexpr int kMaxRank = 8;                               // CANN's limit; rank 9 is decoded too
constexpr uint64_t kMaxBufferBytes = uint64_t{64} << 20;  // per input: above it the op is not run
constexpr uint64_t kMaxWorkspaceBytes = uint64_t{256} << 20;
// Per tensor: bounds the run time. Linear-time work over 2^22 elements took up to ~5 s under this build's
// sanitizers (a scalar W pass over 2.4M gradOut elements: 4.5 s), too near the 10 s -timeout that is
// to catch work growing faster than the tensors (seed 14); with 2^21 such runs stay near 2.5 s.
constexpr int64_t kMaxRunElements = int64_t{1} << 21;
// Each row (the view's last dimension) costs the kernels a call or two and a list walk besides its
// elements: linear too, but under the sanitizers about as much as kRowCostElements elements. Rows of a
// few elements in the millions (a 65536-row H axis of W 4, bf16 channels-last: 1.6M elements in 393K
// rows, each gradOut row D-stepped by the width-last kernel) took 13-49 s; a view's elements plus
// kRowCostElements per row must stay within kMaxRunElements.
constexpr int64_t kRowCostElements = 32;
constexpr int64_t kMaxCheckedElements = int64_t{1} << 18;  // element-wise output checks: views up to this
constexpr uint64_t kMaxCheckedBytes = uint64_t{4} << 20;   // and output buffers up to this
constexpr uint8_t kPoisonByte = 0xFF;                      // all-ones is NaN in every supported dtype

[[noreturn]] void Fail(const char *what, long long value) {
  std::fprintf(stderr, "trilinear3d fuzz: PROPERTY VIOLATED: %s (%lld); last message: %s\n", what, value,
               aclGetRecentErrMsg());
  std::abort();
}

void Require(bool condition, const char *what, long long value = 0) {
  if (!condition) Fail(what, value);
}

// Reads the input front to back; past its end every read gives zeros.
class Reader {
 public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(U8()) << (8 * i);
    return v;
  }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  double F64() {
    const uint64_t bits = U64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }

 private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

// A dim, stride, offset or size: mostly small, sometimes one of the edge values, sometimes raw.
int64_t ReadDim(Reader &r) {
  static const int64_t kSpecial[] = {-1,
                                     -2,
                                     int64_t{1} << 20,
                                     (int64_t{1} << 20) + 1,
                                     int64_t{1} << 31,
                                     int64_t{1} << 32,
                                     int64_t{1} << 40,
                                     int64_t{1} << 62,
                                     std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max() - 1,
                                     -(int64_t{1} << 20),
                                     (int64_t{1} << 20) - 1,
                                     int64_t{1} << 21,
                                     100,
                                     255,
                                     256,
                                     1000,
                                     4097,
                                     65536};
  constexpr int kSpecialCount = sizeof(kSpecial) / sizeof(kSpecial[0]);
  const uint8_t b = r.U8();
  if (b < 0xE0) return b % 20;
  const int i = b - 0xE0;
  return i < kSpecialCount ? kSpecial[i] : r.I64();
}

// A user scale. kConsistent: floor(in * s) == out on this axis, so that CANN's rule passes.
constexpr double kConsistent = -12345.0;
double ReadScale(Reader &r) {
  static const double kScales[] = {0.0,
                                   0.0,
                                   -1.0,
                                   1.0,
                                   2.0,
                                   0.5,
                                   std::numeric_limits<double>::quiet_NaN(),
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   1e-300,
                                   1e300,
                                   -0.0,
                                   std::numeric_limits<double>::denorm_min(),
                                   kConsistent,
                                   kConsistent,
                                   1.5};
  const uint8_t b = r.U8() % 17;
  return b < 16 ? kScales[b] : r.F64();
}

size_t ElementSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_UINT8:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
      return 2;
    case ACL_FLOAT:
      return 4;
    default:
      return 8;  // unsupported dtypes never run; 8 covers any element
  }
}

// Any value of aclDataType / aclFormat: both enums hold -64..63 (their enumerators span -1..47).
// A value outside that range is not a value of the enum type at all (undefined in C++, and
// -fsanitize=enum reports the load), so a C caller can only pass it by breaking the type.
int RawEnumValue(Reader &r) { return static_cast<int>(r.U8() % 128) - 64; }

struct TensorSpec {
  bool null = false;
  bool nullData = false;
  bool copyNC = false;
  int strideMode = 0;
  int storageMode = 0;
  int zeroStrideDim = 0;
  int64_t storageDelta = 0;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCDHW;
  std::vector<int64_t> dims, strides, storageDims;
  int64_t offset = 0;
};

// The entry point: the 3-D pair, or (forward) Bilinear2d / Linear1d, (backward) V2 / V1 / Linear1d.
// kNearest*: the nearest group (Call::alignCorners set: the exact rule). A cubic-group pair (Bicubic2d,
// Bilinear2dAA, Bicubic2dAA): the same op for both directions.
enum class Op {
  kTrilinear3d,
  kBilinear2d,
  kBilinear2dV1,
  kLinear1d,
  kNearest3d,
  kNearest2d,
  kNearest1d,
  kBicubic2d,
  kBilinear2dAA,
  kBicubic2dAA
};

bool IsNearest(Op op) { return op == Op::kNearest3d || op == Op::kNearest2d || op == Op::kNearest1d; }

// The spatial rank of an op's tensors.
size_t SpatialRank(Op op) {
  if (op == Op::kTrilinear3d || op == Op::kNearest3d) return 3;
  return op == Op::kLinear1d || op == Op::kNearest1d ? 1 : 2;
}

// Op bytes from kCubicGroupOps on choose a cubic-group pair ((byte - kCubicGroupOps) % 3), so that the
// bytes below keep the meaning they had before the group existed.
constexpr uint8_t kCubicGroupOps = 0xF0;

TensorSpec ReadTensor(Reader &r, Op op) {
  TensorSpec t;
  const uint8_t flags = r.U8();
  t.null = flags & 1;
  t.nullData = flags & 2;
  t.strideMode = (flags >> 2) & 3;
  t.storageMode = (flags >> 4) & 3;
  const bool explicitOffset = flags & 0x40;
  t.copyNC = flags & 0x80;
  const int rank = r.U8() % (kMaxRank + 2);
  static const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_BF16};
  const uint8_t dtype = r.U8() & 7;
  t.dtype = dtype < 6 ? kDtypes[dtype] : dtype == 6 ? static_cast<aclDataType>(RawEnumValue(r)) : ACL_INT32;
  if (dtype == 7 && IsNearest(op)) t.dtype = ACL_UINT8;  // the nearest forwards take it, the backwards not
  // Per spatial rank: the op's formats first, then one it rejects (or reads as another).
  static const aclFormat kFormats[3][5] = {
      {ACL_FORMAT_ND, ACL_FORMAT_NCL, ACL_FORMAT_NCL, ACL_FORMAT_NCHW, ACL_FORMAT_NCDHW},
      {ACL_FORMAT_ND, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NCHW, ACL_FORMAT_NCDHW},
      {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW}};
  const uint8_t format = r.U8() % 6;
  t.format = format < 5 ? kFormats[SpatialRank(op) - 1][format] : static_cast<aclFormat>(RawEnumValue(r));
  for (int i = 0; i < rank; ++i) t.dims.push_back(ReadDim(r));
  if (t.strideMode == 2) {
    for (int i = 0; i < rank; ++i) t.strides.push_back(ReadDim(r));
  } else if (t.strideMode == 3) {
    t.zeroStrideDim = r.U8();
  }
  if (explicitOffset) t.offset = ReadDim(r);
  if (t.storageMode == 2) {
    const int count = r.U8() % (kMaxRank + 1);
    for (int i = 0; i < count; ++i) t.storageDims.push_back(ReadDim(r));
  } else if (t.storageMode == 3) {
    t.storageDelta = static_cast<int8_t>(r.U8());
  }
  return t;
}

// Positions of N and C among the view dims of a tensor of rank 3 to 5 in its format (channels last:
// NDHWC for rank 5, NHWC for rank 4; rank 3 is always NCL).
bool ChannelsLast(const TensorSpec &t) {
  return (t.dims.size() == 5 && t.format == ACL_FORMAT_NDHWC) ||
         (t.dims.size() == 4 && t.format == ACL_FORMAT_NHWC);
}
int NPos() { return 0; }
int CPos(const TensorSpec &t) { return ChannelsLast(t) ? static_cast<int>(t.dims.size()) - 1 : 1; }

// Element count of a view, or -1 when a dim is negative or the product overflows.
int64_t ViewCount(const std::vector<int64_t> &dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return -1;
  }
  return count;
}

// The run-time bound of a view of `count` elements (ViewCount >= 0): its elements plus kRowCostElements
// per row of its last dimension (RunsWithinBounds).
bool RunsWithinBounds(const std::vector<int64_t> &dims, int64_t count) {
  if (count < 0 || count > kMaxRunElements) return false;
  const int64_t last = dims.empty() ? 1 : dims.back();
  const int64_t rows = last > 0 ? count / last : 0;
  return count + kRowCostElements * rows <= kMaxRunElements;
}

// Fills in strides and storage dims from the modes (saturating: absurd values are the point).
void Complete(TensorSpec *t) {
  const size_t rank = t->dims.size();
  if (t->strideMode != 2) {
    t->strides.assign(rank, 0);
    // Mode 1: dim 1 innermost (channels-last under NCDHW), the rest row-major.
    std::vector<size_t> order;
    for (size_t i = 0; i < rank; ++i) order.push_back(i);
    if (t->strideMode == 1 && rank > 2) {
      order.erase(order.begin() + 1);
      order.push_back(1);
    }
    int64_t stride = 1;
    for (size_t k = rank; k-- > 0;) {
      t->strides[order[k]] = stride;
      if (__builtin_mul_overflow(stride, t->dims[order[k]] > 0 ? t->dims[order[k]] : 1, &stride)) {
        stride = std::numeric_limits<int64_t>::max();
      }
    }
    if (t->strideMode == 3 && rank > 0) t->strides[t->zeroStrideDim % rank] = 0;
  }
}

// The view's extent in elements (offset + sum (dim-1)*stride + 1), or -1 when it overflows or is
// meaningless (negative offset or stride); 0 for an empty view.
int64_t Extent(const TensorSpec &t) {
  const int64_t count = ViewCount(t.dims);
  if (count == 0) return 0;
  if (count < 0 || t.offset < 0) return -1;
  int64_t extent = t.offset;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    int64_t span = 0;
    if (t.strides[i] < 0 || __builtin_mul_overflow(t.dims[i] - 1, t.strides[i], &span) ||
        __builtin_add_overflow(extent, span, &extent)) {
      return -1;
    }
  }
  return extent == std::numeric_limits<int64_t>::max() ? -1 : extent + 1;
}

void SetStorage(TensorSpec *t, int64_t extent) {
  const int64_t base = extent > 0 ? extent : 1;
  switch (t->storageMode) {
    case 0:
      t->storageDims = {base};
      break;
    case 1:
      t->storageDims = t->dims;
      break;
    case 2:
      break;  // explicit, read already
    default: {
      int64_t count = 0;
      t->storageDims = {__builtin_add_overflow(base, t->storageDelta, &count) ? base : count};
      break;
    }
  }
}

// A buffer the runtime allocated, or nothing.
struct Buffer {
  void *data = nullptr;
  uint64_t bytes = 0;
  bool owned = false;
  ~Buffer() {
    if (owned) aclrtFree(data);
  }
};

// A finite pattern in the dtype (|v| <= 0.75), so that a NaN left in the output is the poison.
void FillFinite(aclDataType dtype, void *data, uint64_t bytes) {
  const size_t size = ElementSize(dtype);
  uint8_t *p = static_cast<uint8_t *>(data);
  for (uint64_t i = 0; i + size <= bytes; i += size) {
    const float v = static_cast<float>(static_cast<int>((i / size * 37) % 7) - 3) * 0.25f;
    if (dtype == ACL_FLOAT16) {
      const uint16_t h = aclFloatToFloat16(v);
      std::memcpy(p + i, &h, 2);
    } else if (dtype == ACL_BF16) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      const uint16_t b = static_cast<uint16_t>(bits >> 16);  // exact for these values
      std::memcpy(p + i, &b, 2);
    } else if (dtype == ACL_DOUBLE) {
      const double d = v;
      std::memcpy(p + i, &d, 8);
    } else if (dtype == ACL_UINT8) {
      p[i] = static_cast<uint8_t>(i % 7);
    } else {
      std::memcpy(p + i, &v, 4);
    }
  }
}

// (uint8 has no NaN: its unwritten elements go unseen here.)
bool IsNaN(aclDataType dtype, const uint8_t *p) {
  if (dtype == ACL_UINT8) return false;
  if (dtype == ACL_FLOAT16 || dtype == ACL_BF16) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return dtype == ACL_FLOAT16 ? (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0
                                : (bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0;
  }
  if (dtype == ACL_DOUBLE) {
    double d;
    std::memcpy(&d, p, 8);
    return std::isnan(d);
  }
  float f;
  std::memcpy(&f, p, 4);
  return std::isnan(f);
}

// Calls f(byte offset of the element from the data pointer) for every element of the view.
template <typename F>
void ForEachElement(const TensorSpec &t, F f) {
  const size_t rank = t.dims.size();
  std::vector<int64_t> index(rank, 0);
  const size_t size = ElementSize(t.dtype);
  for (;;) {
    int64_t element = t.offset;
    for (size_t i = 0; i < rank; ++i) element += index[i] * t.strides[i];
    f(static_cast<uint64_t>(element) * size);
    size_t k = rank;
    while (k > 0 && ++index[k - 1] == t.dims[k - 1]) index[--k] = 0;
    if (k == 0) return;
  }
}

aclTensor *Create(const TensorSpec &t, void *data) {
  if (t.null) return nullptr;
  return aclCreateTensor(t.dims.data(), t.dims.size(), t.dtype, t.strides.data(), t.offset, t.format,
                         t.storageDims.data(), t.storageDims.size(), data);
}

// Arrays: mode 0 derived from the tensors, 1 explicit, 2 null, 3 derived with one value replaced.
struct ArraySpec {
  bool null = false;
  std::vector<int64_t> values;
};

ArraySpec ReadArray(Reader &r, const std::vector<int64_t> &derived) {
  ArraySpec a;
  const uint8_t mode = r.U8();
  switch (mode & 3) {
    case 0:
      a.values = derived;
      break;
    case 1:
      for (int i = 0, n = (mode >> 2) % (kMaxRank + 1); i < n; ++i) a.values.push_back(ReadDim(r));
      break;
    case 2:
      a.null = true;
      break;
    default:
      a.values = derived;
      if (!a.values.empty()) a.values[r.U8() % a.values.size()] = ReadDim(r);
      break;
  }
  return a;
}

// Logical (N, C, spatial...) of a tensor as its format reads it (channels-last views are N, spatial..., C);
// other ranks pass through.
std::vector<int64_t> Logical(const TensorSpec &t) {
  if (!ChannelsLast(t)) return t.dims;
  std::vector<int64_t> l = {t.dims.front(), t.dims.back()};
  l.insert(l.end(), t.dims.begin() + 1, t.dims.end() - 1);
  return l;
}

// The last `rank` logical dims (all of them when there are fewer).
std::vector<int64_t> Spatial(const TensorSpec &t, size_t rank) {
  const std::vector<int64_t> l = Logical(t);
  if (l.size() >= rank) return std::vector<int64_t>(l.end() - static_cast<std::ptrdiff_t>(rank), l.end());
  return l;
}

// What the inputs reached, printed at exit when TRILINEAR3D_FUZZ_STATS=1 (docs/design.md lists it).
struct Stats {
  uint64_t inputs = 0, rejected = 0, planned = 0, ran = 0, abandoned = 0;
  ~Stats() {
    if (const char *env = std::getenv("TRILINEAR3D_FUZZ_STATS"); env != nullptr && env[0] == '1') {
      std::fprintf(stderr,
                   "trilinear3d fuzz stats: %llu inputs, %llu rejected by GetWorkspaceSize, %llu planned, "
                   "%llu planned executors ran, %llu not run (over the caps)\n",
                   static_cast<unsigned long long>(inputs), static_cast<unsigned long long>(rejected),
                   static_cast<unsigned long long>(planned), static_cast<unsigned long long>(ran),
                   static_cast<unsigned long long>(abandoned));
    }
  }
} g_stats;

aclrtStream g_stream = nullptr;
int g_unknownStream = 0;  // its address is a stream handle the runtime never made

void CheckStatus(aclnnStatus status, const char *what) {
  Require(status == ACLNN_SUCCESS || status == ACLNN_ERR_PARAM_NULLPTR || status == ACLNN_ERR_PARAM_INVALID,
          what, status);
  if (status != ACLNN_SUCCESS) {
    const char *message = aclGetRecentErrMsg();
    Require(message != nullptr && message[0] != '\0', "a failure without a message", status);
  }
}

// Heap bytes now in use (0 when unknown).
uint64_t HeapBytes() {
#ifdef TRILINEAR3D_FUZZ_LSAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return 0;
#endif
}

// Without aclDestroyAclOpExecutor, an executor that is planned but not run can never be freed. Those
// are kept (hidden from LeakSanitizer) up to this many heap bytes; past it, calls that will not be
// run (known from the descriptors before planning) are made with a null executor pointer instead,
// so that a long run does not end in an out-of-memory report of its own making.
constexpr uint64_t kAbandonedBudgetBytes = uint64_t{384} << 20;
uint64_t g_abandonedBytes = 0;

bool CanAbandon() { return aclDestroyAclOpExecutor != nullptr || g_abandonedBytes < kAbandonedBudgetBytes; }

// An executor that is planned but will not be run; heapBefore: HeapBytes() before it was planned.
void Abandon(aclOpExecutor *executor, uint64_t heapBefore) {
  ++g_stats.abandoned;
  if (aclDestroyAclOpExecutor != nullptr) {
    Require(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "aclDestroyAclOpExecutor failed");
    return;
  }
  const uint64_t now = HeapBytes();
  g_abandonedBytes += now > heapBefore ? now - heapBefore : 0;
#ifdef TRILINEAR3D_FUZZ_LSAN
  __lsan_ignore_object(executor);  // unreachable by design, not a library leak
#endif
}

struct Call {
  Op op = Op::kTrilinear3d;
  bool backward = false;
  bool alignCorners = false;
  bool nullWorkspaceSize = false;
  bool nullExecutor = false;
  bool createdStream = false;
  bool misuse = false;
  bool overlap = false;
  bool twice = false;
  TensorSpec src, dst;  // self / gradOut, out / gradInput
  ArraySpec outputSize, inputSize;
  double scales[3] = {0, 0, 0};
  int storesMode = 0;  // index into kStoresModes: how the first plan writes its destination
};

// TRILINEAR3D_STREAM_STORES for a plan: the library's choice (by size: small views, as here, get
// cached stores), or non-temporal stores forced on or off. A second plan (Call::twice) takes the
// next mode, so the comparison of the two runs also checks that streaming never changes a byte.
constexpr const char *kStoresModes[] = {nullptr, "always", "never"};

void SetStoresMode(int mode) {
  const char *value = kStoresModes[mode % 3];
  if (value == nullptr) {
    unsetenv("TRILINEAR3D_STREAM_STORES");
  } else {
    setenv("TRILINEAR3D_STREAM_STORES", value, 1);
  }
}

Call DecodeInput(const uint8_t *data, size_t size) {
  Reader r(data, size);
  Call c;
  const uint8_t header = r.U8();
  c.backward = header & 1;
  c.alignCorners = header & 2;
  c.nullWorkspaceSize = header & 4;
  c.nullExecutor = header & 8;
  c.createdStream = header & 0x10;
  c.misuse = header & 0x20;
  c.overlap = header & 0x40;
  c.twice = header & 0x80;
  // The entry point: 0 the 3-D op; forward 1 Bilinear2d, 2 Linear1d; backward 1 V2, 2 V1, 3 Linear1d.
  const uint8_t op = r.U8();
  // 0xF0 and up: the cubic group; 128 to 0xEF: the nearest group (3-D, 2-D, 1-D by op % 3); below, the
  // linear group as before.
  static const Op kForwardOps[] = {Op::kTrilinear3d, Op::kBilinear2d, Op::kLinear1d};
  static const Op kBackwardOps[] = {Op::kTrilinear3d, Op::kBilinear2d, Op::kBilinear2dV1, Op::kLinear1d};
  static const Op kNearestOps[] = {Op::kNearest3d, Op::kNearest2d, Op::kNearest1d};
  static const Op kCubicOps[] = {Op::kBicubic2d, Op::kBilinear2dAA, Op::kBicubic2dAA};
  c.op = op >= kCubicGroupOps ? kCubicOps[(op - kCubicGroupOps) % 3]
         : op >= 128          ? kNearestOps[op % 3]
         : c.backward         ? kBackwardOps[op % 4]
                              : kForwardOps[op % 3];
  const size_t rank = SpatialRank(c.op);
  c.src = ReadTensor(r, c.op);
  c.dst = ReadTensor(r, c.op);
  if (c.dst.copyNC && c.src.dims.size() >= 3 && c.src.dims.size() == c.dst.dims.size()) {
    c.dst.dims[NPos()] = c.src.dims[NPos()];
    c.dst.dims[CPos(c.dst)] = c.src.dims[CPos(c.src)];
  }
  Complete(&c.src);
  Complete(&c.dst);
  SetStorage(&c.src, Extent(c.src));
  SetStorage(&c.dst, Extent(c.dst));
  // outputSize: the spatial sizes of the tensor on the output side; inputSize: gradInput's shape (the 2-D
  // backwards: in the order of a format, NHWC's N, H, W, C; V1 orders it by out's, V2 by gradOut's).
  c.outputSize = ReadArray(r, Spatial(c.backward ? c.src : c.dst, rank));
  if (c.backward) {
    std::vector<int64_t> inputSize = Logical(c.dst);
    const TensorSpec &orderedBy = c.op == Op::kBilinear2dV1 || c.op == Op::kBicubic2d ? c.dst : c.src;
    if (rank == 2 && inputSize.size() == 4 && orderedBy.format == ACL_FORMAT_NHWC && !IsNearest(c.op))
      inputSize = {inputSize[0], inputSize[2], inputSize[3], inputSize[1]};
    c.inputSize = ReadArray(r, inputSize);
  }
  const std::vector<int64_t> in = Spatial(c.backward ? c.dst : c.src, rank);
  // The op's scales are the last `rank` of the three (scalesH, scalesW; scale).
  for (int i = 0; i < 3; ++i) {
    c.scales[i] = ReadScale(r);
    if (c.scales[i] == kConsistent) {
      const size_t k = static_cast<size_t>(i) + rank - 3;  // wraps for an axis the op lacks: unknown
      const bool known = k < in.size() && k < c.outputSize.values.size() && in[k] > 0;
      c.scales[i] =
          known ? (static_cast<double>(c.outputSize.values[k]) + 0.25) / static_cast<double>(in[k]) : 1.0;
    }
  }
  c.storesMode = r.U8() % 3;  // last, so that inputs written before it keep their meaning
  return c;
}

// Allocates exactly the bytes a view reaches (never more than its declared storage), or nothing when
// that is above the cap or not computable; the buffer is then a placeholder the op must not run on.
void Allocate(const TensorSpec &t, Buffer *b, bool *runnable) {
  const int64_t extent = Extent(t);
  const int64_t storage = ViewCount(t.storageDims);
  int64_t elements = extent < 0 ? -1 : extent;
  if (elements >= 0 && storage >= 0 && storage < elements) elements = storage;
  uint64_t bytes = 0;
  if (elements < 0 || __builtin_mul_overflow(static_cast<uint64_t>(elements), ElementSize(t.dtype), &bytes) ||
      bytes > kMaxBufferBytes) {
    *runnable = false;
    static uint64_t placeholder[8];
    b->data = placeholder;
    return;
  }
  b->bytes = bytes == 0 ? 1 : bytes;
  Require(aclrtMalloc(&b->data, b->bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc failed",
          static_cast<long long>(b->bytes));
  b->owned = true;
}

// The nearest group: forward V2 (1-D, 2-D) / Nearest3d, or the exact forwards; the backwards.
aclnnStatus NearestGetWorkspaceSize(const Call &c, aclTensor *src, aclTensor *dst, aclIntArray *outputSize,
                                    aclIntArray *inputSize, uint64_t *ws, aclOpExecutor **e) {
  const double sD = c.scales[0], sH = c.scales[1], sW = c.scales[2];
  const bool exact = c.alignCorners;
  const float fH = static_cast<float>(sH), fW = static_cast<float>(sW);
  switch (c.op) {
    case Op::kNearest3d:
      if (c.backward) {
        return exact ? aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(src, outputSize, inputSize, sD, sH,
                                                                           sW, dst, ws, e)
                     : aclnnUpsampleNearest3dBackwardGetWorkspaceSize(src, outputSize, inputSize, sD, sH, sW,
                                                                      dst, ws, e);
      }
      return exact ? aclnnUpsampleNearestExact3dGetWorkspaceSize(src, outputSize, sD, sH, sW, dst, ws, e)
                   : aclnnUpsampleNearest3dGetWorkspaceSize(src, outputSize, sD, sH, sW, dst, ws, e);
    case Op::kNearest2d:
      if (c.backward) {
        return exact ? aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(src, outputSize, inputSize, sH, sW,
                                                                           dst, ws, e)
                     : aclnnUpsampleNearest2dBackwardGetWorkspaceSize(src, outputSize, inputSize, sH, sW, dst,
                                                                      ws, e);
      }
      return exact ? aclnnUpsampleNearestExact2dGetWorkspaceSize(src, outputSize, sH, sW, dst, ws, e)
                   : aclnnUpsampleNearest2dV2GetWorkspaceSize(src, outputSize, fH, fW, dst, ws, e);
    default:
      if (c.backward) {
        return exact ? aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(src, outputSize, inputSize, sW,
                                                                           dst, ws, e)
                     : aclnnUpsampleNearest1dBackwardGetWorkspaceSize(src, outputSize, inputSize, sW, dst, ws,
                                                                      e);
      }
      return exact ? aclnnUpsampleNearestExact1dGetWorkspaceSize(src, outputSize, sW, dst, ws, e)
                   : aclnnUpsampleNearest1dV2GetWorkspaceSize(src, outputSize, fW, dst, ws, e);
  }
}

aclnnStatus NearestRun(const Call &c, void *workspace, uint64_t size, aclOpExecutor *executor,
                       aclrtStream stream) {
  const bool exact = c.alignCorners;
  switch (c.op) {
    case Op::kNearest3d:
      if (c.backward) {
        return exact ? aclnnUpsampleNearestExact3dBackward(workspace, size, executor, stream)
                     : aclnnUpsampleNearest3dBackward(workspace, size, executor, stream);
      }
      return exact ? aclnnUpsampleNearestExact3d(workspace, size, executor, stream)
                   : aclnnUpsampleNearest3d(workspace, size, executor, stream);
    case Op::kNearest2d:
      if (c.backward) {
        return exact ? aclnnUpsampleNearestExact2dBackward(workspace, size, executor, stream)
                     : aclnnUpsampleNearest2dBackward(workspace, size, executor, stream);
      }
      return exact ? aclnnUpsampleNearestExact2d(workspace, size, executor, stream)
                   : aclnnUpsampleNearest2dV2(workspace, size, executor, stream);
    default:
      if (c.backward) {
        return exact ? aclnnUpsampleNearestExact1dBackward(workspace, size, executor, stream)
                     : aclnnUpsampleNearest1dBackward(workspace, size, executor, stream);
      }
      return exact ? aclnnUpsampleNearestExact1d(workspace, size, executor, stream)
                   : aclnnUpsampleNearest1dV2(workspace, size, executor, stream);
  }
}

aclnnStatus GetWorkspaceSize(const Call &c, aclTensor *src, aclTensor *dst, aclIntArray *outputSize,
                             aclIntArray *inputSize, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const bool align = c.alignCorners;
  const double sH = c.scales[1], sW = c.scales[2];
  switch (c.op) {
    case Op::kTrilinear3d:
      break;
    case Op::kBilinear2d:
      return c.backward ? aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                              src, outputSize, inputSize, align, sH, sW, dst, workspaceSize, executor)
                        : aclnnUpsampleBilinear2dGetWorkspaceSize(src, outputSize, align, sH, sW, dst,
                                                                  workspaceSize, executor);
    case Op::kBilinear2dV1:
      return aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(src, outputSize, inputSize, align, sH, sW, dst,
                                                             workspaceSize, executor);
    case Op::kLinear1d:
      return c.backward ? aclnnUpsampleLinear1dBackwardGetWorkspaceSize(src, outputSize, inputSize, align, sW,
                                                                        dst, workspaceSize, executor)
                        : aclnnUpsampleLinear1dGetWorkspaceSize(src, outputSize, align, sW, dst,
                                                                workspaceSize, executor);
    case Op::kNearest3d:
    case Op::kNearest2d:
    case Op::kNearest1d:
      return NearestGetWorkspaceSize(c, src, dst, outputSize, inputSize, workspaceSize, executor);
    case Op::kBicubic2d:
      return c.backward ? aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(src, outputSize, inputSize, align,
                                                                         sH, sW, dst, workspaceSize, executor)
                        : aclnnUpsampleBicubic2dGetWorkspaceSize(src, outputSize, align, sH, sW, dst,
                                                                 workspaceSize, executor);
    case Op::kBilinear2dAA:
      return c.backward ? aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
                              src, outputSize, inputSize, align, sH, sW, dst, workspaceSize, executor)
                        : aclnnUpsampleBilinear2dAAGetWorkspaceSize(src, outputSize, align, sH, sW, dst,
                                                                    workspaceSize, executor);
    case Op::kBicubic2dAA:
      return c.backward ? aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(src, outputSize, inputSize, align, sH,
                                                                       sW, dst, workspaceSize, executor)
                        : aclnnUpsampleBicubic2dAAGetWorkspaceSize(src, outputSize, align, sH, sW, dst,
                                                                   workspaceSize, executor);
  }
  if (c.backward) {
    return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(src, outputSize, inputSize, c.alignCorners,
                                                            c.scales[0], c.scales[1], c.scales[2], dst,
                                                            workspaceSize, executor);
  }
  return aclnnUpsampleTrilinear3dGetWorkspaceSize(src, outputSize, c.alignCorners, c.scales[0], c.scales[1],
                                                  c.scales[2], dst, workspaceSize, executor);
}

aclnnStatus Run(const Call &c, void *workspace, uint64_t size, aclOpExecutor *executor, aclrtStream stream) {
  switch (c.op) {
    case Op::kTrilinear3d:
      break;
    case Op::kBilinear2d:
      return c.backward ? aclnnUpsampleBilinear2dBackwardV2(workspace, size, executor, stream)
                        : aclnnUpsampleBilinear2d(workspace, size, executor, stream);
    case Op::kBilinear2dV1:
      return aclnnUpsampleBilinear2dBackward(workspace, size, executor, stream);
    case Op::kLinear1d:
      return c.backward ? aclnnUpsampleLinear1dBackward(workspace, size, executor, stream)
                        : aclnnUpsampleLinear1d(workspace, size, executor, stream);
    case Op::kNearest3d:
    case Op::kNearest2d:
    case Op::kNearest1d:
      return NearestRun(c, workspace, size, executor, stream);
    case Op::kBicubic2d:
      return c.backward ? aclnnUpsampleBicubic2dBackward(workspace, size, executor, stream)
                        : aclnnUpsampleBicubic2d(workspace, size, executor, stream);
    case Op::kBilinear2dAA:
      return c.backward ? aclnnUpsampleBilinear2dAABackward(workspace, size, executor, stream)
                        : aclnnUpsampleBilinear2dAA(workspace, size, executor, stream);
    case Op::kBicubic2dAA:
      return c.backward ? aclnnUpsampleBicubic2dAAGrad(workspace, size, executor, stream)
                        : aclnnUpsampleBicubic2dAA(workspace, size, executor, stream);
  }
  return c.backward ? aclnnUpsampleTrilinear3dBackward(workspace, size, executor, stream)
                    : aclnnUpsampleTrilinear3d(workspace, size, executor, stream);
}

// Runs a planned executor the right way (after the misuse, when asked) and synchronizes.
void RunAndSync(const Call &c, aclOpExecutor *executor, uint64_t size, aclrtStream stream) {
  Buffer workspace;
  if (size > 0) {
    Require(aclrtMalloc(&workspace.data, size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS,
            "workspace aclrtMalloc");
    workspace.owned = true;
  }
  if (c.misuse) {
    if (size > 0) {
      Require(Run(c, nullptr, size, executor, stream) == ACLNN_ERR_PARAM_NULLPTR,
              "null workspace not 161001");
      Require(Run(c, workspace.data, size - 1, executor, stream) == ACLNN_ERR_PARAM_INVALID,
              "short workspace");
    }
    int notAnExecutor = 0;
    Require(Run(c, workspace.data, size, reinterpret_cast<aclOpExecutor *>(&notAnExecutor), stream) ==
                ACLNN_ERR_PARAM_INVALID,
            "unknown executor not 161002");
    Require(Run(c, workspace.data, size, executor, &g_unknownStream) == ACLNN_ERR_PARAM_INVALID,
            "unknown stream not 161002");
    Require(Run(c, workspace.data, size, nullptr, stream) == ACLNN_ERR_PARAM_NULLPTR,
            "null executor not 161001");
    (void)aclGetRecentErrMsg();
  }
  const aclnnStatus status = Run(c, workspace.data, size, executor, stream);
  Require(status == ACLNN_SUCCESS, "the run of a planned executor failed", status);
  ++g_stats.ran;
  if (c.misuse) {
    // Waited for through an event, as host code timing a call does: the event's record follows the
    // run on the stream. Then the stale event and an over-long async copy are rejected.
    aclrtEvent done = nullptr;
    Require(aclrtCreateEventWithFlag(&done, ACL_EVENT_TIME_LINE) == ACL_SUCCESS, "aclrtCreateEventWithFlag");
    Require(aclrtRecordEvent(done, stream) == ACL_SUCCESS, "aclrtRecordEvent");
    Require(aclrtSynchronizeEvent(done) == ACL_SUCCESS, "aclrtSynchronizeEvent");
    float ms = -1;
    Require(aclrtEventElapsedTime(&ms, done, done) == ACL_SUCCESS && ms == 0.0f, "aclrtEventElapsedTime");
    Require(aclrtDestroyEvent(done) == ACL_SUCCESS, "aclrtDestroyEvent");
    Require(aclrtSynchronizeEvent(done) == ACL_ERROR_INVALID_PARAM, "destroyed event not rejected");
    uint8_t byte = 0;
    Require(
        aclrtMemcpyAsync(&byte, 0, &byte, 1, ACL_MEMCPY_DEVICE_TO_HOST, stream) == ACL_ERROR_INVALID_PARAM,
        "aclrtMemcpyAsync above destMax not rejected");
    (void)aclGetRecentErrMsg();
  } else {
    Require(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream failed");
  }
  Require(Run(c, workspace.data, size, executor, stream) == ACLNN_ERR_PARAM_INVALID,
          "consumed executor not 161002");
  (void)aclGetRecentErrMsg();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  setenv("TRILINEAR3D_QUIET", "1", 1);  // rejected calls are the norm here
  Require(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  Require(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  Require(aclrtCreateStream(&g_stream) == ACL_SUCCESS, "aclrtCreateStream");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const Call c = DecodeInput(data, size);
  const aclrtStream stream = c.createdStream ? g_stream : nullptr;

  bool runnable = true;
  Buffer srcBuffer, dstBuffer;
  Allocate(c.src, &srcBuffer, &runnable);
  const bool overlapping = c.overlap && srcBuffer.owned;
  if (overlapping) {
    dstBuffer.data = srcBuffer.data;  // the output inside the input's buffer (unowned alias)
    dstBuffer.bytes = srcBuffer.bytes;
    const int64_t extent = Extent(c.dst);
    uint64_t bytes = 0;
    if (extent < 0 ||
        __builtin_mul_overflow(static_cast<uint64_t>(extent), ElementSize(c.dst.dtype), &bytes) ||
        bytes > dstBuffer.bytes) {
      runnable = false;
    }
  } else {
    Allocate(c.dst, &dstBuffer, &runnable);
  }
  const int64_t srcCount = ViewCount(c.src.dims), dstCount = ViewCount(c.dst.dims);
  if (!RunsWithinBounds(c.src.dims, srcCount) || !RunsWithinBounds(c.dst.dims, dstCount)) runnable = false;

  aclTensor *src = Create(c.src, c.src.nullData ? nullptr : srcBuffer.data);
  aclTensor *dst = Create(c.dst, c.dst.nullData ? nullptr : dstBuffer.data);
  (void)aclGetRecentErrMsg();  // aclCreateTensor may have refused (rank 9): the op then sees null
  aclIntArray *outputSize =
      c.outputSize.null ? nullptr : aclCreateIntArray(c.outputSize.values.data(), c.outputSize.values.size());
  aclIntArray *inputSize =
      c.inputSize.null ? nullptr : aclCreateIntArray(c.inputSize.values.data(), c.inputSize.values.size());

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  aclOpExecutor *second = nullptr;
  uint64_t secondSize = 0;
  const bool nullExecutor = c.nullExecutor || (!runnable && !CanAbandon());
  const uint64_t heapBefore = HeapBytes();
  SetStoresMode(c.storesMode);
  aclnnStatus status =
      GetWorkspaceSize(c, src, dst, outputSize, inputSize, c.nullWorkspaceSize ? nullptr : &workspaceSize,
                       nullExecutor ? nullptr : &executor);
  CheckStatus(status, "GetWorkspaceSize returned a code other than 0, 161001, 161002");
  ++g_stats.inputs;
  ++(status == ACLNN_SUCCESS ? g_stats.planned : g_stats.rejected);
  if (status == ACLNN_SUCCESS) {
    Require(executor != nullptr, "success without an executor");
    // CANN's 3-D, 1-D, Bicubic2d and Bilinear2dAA forwards reject C = 0 (161002); the backwards, Bilinear2d
    // and Bicubic2dAA (an empty x is an empty call) take empty channels. The nearest forwards reject it too,
    // but Nearest2dV2, which succeeds on any empty tensor first.
    const bool v2Empty = c.op == Op::kNearest2d && !c.alignCorners;
    const bool rejectsNoChannels =
        !c.backward && c.op != Op::kBilinear2d && c.op != Op::kBicubic2dAA && !v2Empty;
    Require(!rejectsNoChannels || c.src.dims.size() != SpatialRank(c.op) + 2 || Logical(c.src)[1] != 0,
            "a forward with C = 0 was planned");
    if (c.twice && runnable) {
      SetStoresMode(c.storesMode + 1);
      Require(GetWorkspaceSize(c, src, dst, outputSize, inputSize, &secondSize, &second) == ACLNN_SUCCESS,
              "a second GetWorkspaceSize of the same call failed");
      ++g_stats.planned;
      // The size may differ: streamed stores join partial lines in a per-core scratch, so a plan under
      // another stores mode can ask for another workspace. Each executor runs with its own size.
    }
  }
  // The executor must not need the descriptors any more.
  if (src != nullptr) aclDestroyTensor(src);
  if (dst != nullptr) aclDestroyTensor(dst);
  if (outputSize != nullptr) aclDestroyIntArray(outputSize);
  if (inputSize != nullptr) aclDestroyIntArray(inputSize);
  if (status != ACLNN_SUCCESS) return 0;

  // Null data passed validation only for an empty view, which the op must not touch.
  const bool srcReal = srcBuffer.owned && !c.src.nullData;
  const bool dstReal = (dstBuffer.owned || overlapping) && !c.dst.nullData;
  if ((!srcReal && srcCount != 0) || (!dstReal && dstCount != 0)) runnable = false;
  if (workspaceSize > kMaxWorkspaceBytes || secondSize > kMaxWorkspaceBytes) runnable = false;
  if (!runnable) {
    Abandon(executor, heapBefore);
    if (second != nullptr) Abandon(second, HeapBytes());
    return 0;
  }

  if (srcReal) FillFinite(c.src.dtype, srcBuffer.data, srcBuffer.bytes);
  if (dstReal && !overlapping) std::memset(dstBuffer.data, kPoisonByte, dstBuffer.bytes);
  std::vector<uint8_t> srcBefore;
  if (srcReal && !overlapping) {
    const uint8_t *p = static_cast<const uint8_t *>(srcBuffer.data);
    srcBefore.assign(p, p + srcBuffer.bytes);
  }

  RunAndSync(c, executor, workspaceSize, stream);

  if (!overlapping && srcReal) {
    Require(std::memcmp(srcBefore.data(), srcBuffer.data, srcBuffer.bytes) == 0, "the input buffer changed");
  }
  std::vector<uint8_t> result;
  // CANN's Bilinear2d forward: an empty self (H or W = 0) is an empty call whatever out's size, so a
  // non-empty out is left as it was (the only entry point that succeeds without writing its output).
  // Bicubic2dAA's forward and Nearest2dV2 likewise (an empty x is an empty call).
  const bool emptyFirst =
      c.op == Op::kBilinear2d || c.op == Op::kBicubic2dAA || (c.op == Op::kNearest2d && !c.alignCorners);
  const bool writesOutput = c.backward || !emptyFirst || srcCount != 0;
  // Elements of the output view that share memory get racing writes: their values may differ
  // from run to run (docs/spec.md §3: overlapping output is unspecified), so the runs are compared only when
  // the check below has seen every element at its own address.
  bool distinctOutput = false;
  if (dstReal && !overlapping) {
    const uint8_t *out = static_cast<const uint8_t *>(dstBuffer.data);
    // A view past its storage passes only an operator that returns an empty result before step 5
    // (Bicubic2dAA's empty x): such a call must write nothing, and its view is not walked.
    const int64_t extent = Extent(c.dst);
    const bool viewInBuffer =
        extent >= 0 && static_cast<uint64_t>(extent) <= dstBuffer.bytes / ElementSize(c.dst.dtype);
    if (!viewInBuffer) {
      Require(!writesOutput, "a call that writes its output accepted a view past its storage", extent);
      for (uint64_t i = 0; i < dstBuffer.bytes; ++i) {
        Require(out[i] == kPoisonByte, "an empty call changed its output buffer", static_cast<long long>(i));
      }
    } else if (dstCount > 0 && dstCount <= kMaxCheckedElements && dstBuffer.bytes <= kMaxCheckedBytes) {
      std::vector<bool> inView(dstBuffer.bytes, false);
      const size_t elementSize = ElementSize(c.dst.dtype);
      distinctOutput = true;
      ForEachElement(c.dst, [&](uint64_t offset) {
        Require(!writesOutput || !IsNaN(c.dst.dtype, out + offset),
                "an element of the output view was not written", static_cast<long long>(offset));
        for (size_t b = 0; b < elementSize; ++b) {
          if (inView[offset + b]) distinctOutput = false;
          inView[offset + b] = true;
        }
      });
      for (uint64_t i = 0; i < dstBuffer.bytes; ++i) {
        Require(inView[i] || out[i] == kPoisonByte, "a byte outside the output view changed",
                static_cast<long long>(i));
      }
    }
    result.assign(out, out + dstBuffer.bytes);
  }
  if (second != nullptr) {
    if (dstReal && !overlapping) std::memset(dstBuffer.data, kPoisonByte, dstBuffer.bytes);
    RunAndSync(c, second, secondSize, stream);
    if (distinctOutput) {
      Require(std::memcmp(result.data(), dstBuffer.data, dstBuffer.bytes) == 0,
              "two runs of one call differ");
    }
  }
  return 0;
}
