// Process exit with queued work (src/runtime/stream.cpp): the work still runs to completion while
// the process exits, after main has returned, on streams nobody synchronized or destroyed.
//
//   exit_drain_probe write FILE   queues ops whose outputs live in FILE (a shared mapping) on a
//                                 created stream and the default stream, then returns from main
//   exit_drain_probe check FILE   recomputes the same ops and compares FILE with them (exit 0: equal)
//
// ctest runs write, then check (a fixture). Under ASan the write half also checks that nothing the
// queued work uses has been destroyed by then.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "reliability_support.h"

namespace trilinear3d::reliability {
namespace {

constexpr int kOps = 6;

// Op i: alternating operators and dtypes, contiguous NCDHW tensors. Large enough (milliseconds)
// that most of them are still queued when main returns.
OpCase ProbeCase(int i) {
  OpCase c;
  c.backward = i % 2 == 0;
  c.dtype = i % 3 == 0 ? ACL_FLOAT16 : ACL_FLOAT;
  c.problem.inputSize = {2, 3, 8, 20, 24};
  c.problem.outputSize = {13, 39, 41};
  c.dataSeed = 1000 + static_cast<uint64_t>(i);
  return c;
}

size_t DstBytes(const OpCase &c) {
  return static_cast<size_t>(test::ElementCount(c.DstShape())) * test::DtypeSize(c.dtype);
}

// Source tensor data (contiguous, the dtype's encoding of N(0,1) values from the case's seed).
std::vector<uint8_t> SourceBytes(const OpCase &c) {
  std::mt19937_64 rng(c.dataSeed);
  const std::vector<double> values =
      test::RandomValues(rng, test::ElementCount(c.SrcShape()), test::Distribution::kUnitNormal);
  std::vector<uint8_t> bytes(values.size() * test::DtypeSize(c.dtype));
  for (size_t i = 0; i < values.size(); ++i)
    test::EncodeElement(c.dtype, values[i], bytes.data() + i * test::DtypeSize(c.dtype));
  return bytes;
}

aclTensor *Contiguous(const Shape5 &dims, aclDataType dtype, void *data) {
  const Shape5 strides = test::MakeViewLayout(dims, ACL_FORMAT_NCDHW, MemLayout::kContiguous).strides;
  const int64_t storage[1] = {test::ElementCount(dims)};
  return aclCreateTensor(dims.data(), 5, dtype, strides.data(), 0, ACL_FORMAT_NCDHW, storage, 1, data);
}

// Plans case c reading src and writing dst, enqueues it on stream; the source memory is leaked on
// purpose (it must outlive the queued work, which outlives main). False on any failure.
bool Enqueue(const OpCase &c, void *dst, aclrtStream stream) {
  const std::vector<uint8_t> source = SourceBytes(c);
  void *src = nullptr;
  if (aclrtMalloc(&src, source.size(), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return false;
  std::memcpy(src, source.data(), source.size());
  aclTensor *srcTensor = Contiguous(c.SrcShape(), c.dtype, src);
  aclTensor *dstTensor = Contiguous(c.DstShape(), c.dtype, dst);
  test::PreparedOp op;
  ::testing::AssertionResult ok = PrepareOp(c, srcTensor, dstTensor, &op);
  aclDestroyTensor(srcTensor);
  aclDestroyTensor(dstTensor);
  if (ok) ok = EnqueueOp(c, &op, stream);
  op.workspace = nullptr;  // leaked on purpose, like the source: the queued work outlives main
  if (!ok) std::fprintf(stderr, "exit_drain_probe: %s\n", ok.message());
  return static_cast<bool>(ok);
}

size_t TotalBytes() {
  size_t total = 0;
  for (int i = 0; i < kOps; ++i) total += DstBytes(ProbeCase(i));
  return total;
}

int Write(const char *path) {
  const size_t total = TotalBytes();
  const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(total)) != 0) {
    std::perror(path);
    return 1;
  }
  void *map = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  std::memset(map, 0xA5, total);  // what an op that never ran would leave
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 1;
  uint8_t *out = static_cast<uint8_t *>(map);
  for (int i = 0; i < kOps; ++i) {
    const OpCase c = ProbeCase(i);
    if (!Enqueue(c, out, i % 2 == 0 ? stream : nullptr)) return 1;
    out += DstBytes(c);
  }
  // No synchronize, no aclrtDestroyStream, no aclFinalize, no munmap: the process exits now.
  return 0;
}

int Check(const char *path) {
  const size_t total = TotalBytes();
  std::vector<uint8_t> file(total);
  FILE *f = std::fopen(path, "rb");
  if (f == nullptr || std::fread(file.data(), 1, total, f) != total) {
    std::fprintf(stderr, "exit_drain_probe: cannot read %zu bytes from %s\n", total, path);
    return 1;
  }
  std::fclose(f);
  size_t offset = 0;
  int bad = 0;
  for (int i = 0; i < kOps; ++i) {
    const OpCase c = ProbeCase(i);
    void *dst = nullptr;
    if (aclrtMalloc(&dst, DstBytes(c), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
    if (!Enqueue(c, dst, nullptr) || aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) return 1;
    if (std::memcmp(dst, file.data() + offset, DstBytes(c)) != 0) {
      std::fprintf(stderr, "exit_drain_probe: op %d (%s) differs: lost or incomplete at exit\n", i,
                   c.Describe().c_str());
      ++bad;
    }
    aclrtFree(dst);
    offset += DstBytes(c);
  }
  if (bad == 0) std::printf("exit_drain_probe: all %d ops queued at exit completed\n", kOps);
  return bad == 0 ? 0 : 1;
}

}  // namespace
}  // namespace trilinear3d::reliability

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "write") return trilinear3d::reliability::Write(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "check") return trilinear3d::reliability::Check(argv[2]);
  std::fprintf(stderr, "usage: %s write|check FILE\n", argv[0]);
  return 2;
}
