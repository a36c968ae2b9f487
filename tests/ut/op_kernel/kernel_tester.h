// A builder that runs one registry kernel of one ISA tier directly (no C API, no environment variable)
// on fresh random data and checks the result against the float64 reference with docs/spec.md §5's
// bound, as the accuracy tests apply it:
//
//   KernelTester().Input(1, 3, 4, 5, 6).Output(8, 10, 12).DataType(ACL_BF16).Layout(ACL_FORMAT_NDHWC)
//       .Kernel("backward_width_last").Isa("avx2").Test();
//
// Input is the op's small side (the backward's inputSize, the forward's self) and Output the large
// side's D, H, W (outputSize); the kernel's registry entry gives the direction. The plan goes through
// the registry (op_api/plan_cache.h) with the kernel forced, and the tester asserts that it applies.
#ifndef TRILINEAR3D_TESTS_UT_OP_KERNEL_KERNEL_TESTER_H_
#define TRILINEAR3D_TESTS_UT_OP_KERNEL_KERNEL_TESTER_H_

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "op_api/plan_cache.h"
#include "op_api/tiling_input.h"
#include "op_host/kernel_registry.h"
#include "op_kernel/kernel_args.h"
#include "reference/forward_reference.h"
#include "reference/upsample_reference.h"
#include "test_tensor.h"
#include "trilinear3d/isa.h"

namespace trilinear3d::test {

// The names of the ISA tiers this CPU supports, best first.
inline std::vector<std::string> SupportedIsaNames() {
  std::vector<std::string> names;
  for (const kernel::IsaKernels *isa : kernel::SupportedIsaKernels()) names.emplace_back(isa->name);
  return names;
}

class KernelTester {
 public:
  KernelTester &Input(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) {
    return Set(input_, {n, c, d, h, w});
  }
  KernelTester &Output(int64_t d, int64_t h, int64_t w) { return Set(output_, {d, h, w}); }
  KernelTester &AlignCorners(bool alignCorners) { return Set(alignCorners_, alignCorners); }
  KernelTester &Scales(double d, double h, double w) { return Set(scales_, {d, h, w}); }
  KernelTester &DataType(aclDataType dtype) { return Set(dtype_, dtype); }
  // ACL_FORMAT_NCDHW (W innermost in memory) or ACL_FORMAT_NDHWC (C innermost); both tensors alike.
  KernelTester &Layout(aclFormat layout) { return Set(layout_, layout); }
  KernelTester &Kernel(const std::string &name) { return Set(kernel_, name); }
  KernelTester &Isa(const std::string &name) { return Set(isa_, name); }
  // Worker cores of the plan; the blocks run on as many threads.
  KernelTester &Cores(int64_t cores) { return Set(cores_, cores); }

  void Test() const {
    tiling::Kernel id = tiling::Kernel::kBackwardStencil2x;
    ASSERT_TRUE(tiling::KernelNamed(kernel_.c_str(), &id)) << kernel_ << " is not a registry kernel";
    const tiling::KernelEntry &entry = tiling::KernelEntryOf(id);
    const bool backward = entry.direction == tiling::Direction::kBackward;
    const kernel::IsaKernels *isa = nullptr;
    for (const kernel::IsaKernels *tier : kernel::SupportedIsaKernels()) {
      if (isa_ == tier->name) isa = tier;
    }
    ASSERT_NE(isa, nullptr) << "ISA " << isa_ << " is not one this CPU supports ("
                            << trilinear3dSupportedIsas() << ")";
    const Shape5 large = {input_[0], input_[1], output_[0], output_[1], output_[2]};
    const Shape5 &srcShape = backward ? large : input_;
    const Shape5 &dstShape = backward ? input_ : large;
    SCOPED_TRACE(Describe());
    const uint64_t seed = FreshSeed();
    SCOPED_TRACE(SeedTrace(seed));
    std::mt19937_64 rng(seed);

    // The source in the dtype's bits, and the values the kernel reads (rounded to the dtype).
    std::vector<double> srcValues = RandomValues(rng, ElementCount(srcShape), Distribution::kUnitNormal);
    for (double &v : srcValues) v = Quantize(dtype_, v);
    Buffer src(srcShape, dtype_, layout_);
    src.Store(srcValues);
    Buffer dst(dstShape, dtype_, layout_);
    dst.Poison();  // an element the kernel does not write reads NaN

    trilinear3d::DataType dataType = trilinear3d::DataType::kFloat32;
    ASSERT_TRUE(ToDataType(dtype_, &dataType));
    const double scales[3] = {scales_[0], scales_[1], scales_[2]};
    tiling::TilingInput in =
        op_api::TilingInputOf(entry.direction, dataType, src.View(), dst.View(), alignCorners_, scales);
    in.cores = cores_;
    in.forcedKernel = id;
    std::string error;
    const std::shared_ptr<const op_api::UpsamplePlan> plan =
        op_api::GetPlan(in, isa->lanesF32, isa->lanesF64, &error);
    ASSERT_TRUE(plan) << error;
    const tiling::TilingData &t = plan->tiling;
    ASSERT_EQ(t.kernel, id) << kernel_ << " does not apply here; the registry chose "
                            << tiling::KernelName(t.kernel);

    if (t.itemCount > 0) {
      std::vector<uint8_t> workspace(static_cast<size_t>(t.workspaceSize) + 64);
      std::atomic<int64_t> nextItem{0};
      kernel::KernelArgs args;
      args.tiling = &t;
      args.tables = plan->tablesF64 ? static_cast<const void *>(plan->tablesF64.get())
                                    : static_cast<const void *>(plan->tablesF32.get());
      args.src = src.View();
      args.dst = dst.View();
      args.workspace = Align64(workspace.data());
      args.nextItem = &nextItem;
      const kernel::KernelFn run = isa->EntryPoint(id);
      std::vector<std::thread> blocks;
      for (int b = 0; b < static_cast<int>(t.blockDim); ++b) blocks.emplace_back([&, b] { run(args, b); });
      for (std::thread &block : blocks) block.join();
    }

    const std::vector<double> got = dst.Load();
    if (backward) {
      const BackwardProblem p{input_, output_, alignCorners_, scales_};
      EXPECT_TRUE(MatchesReference(got, BackwardReference(p, srcValues), ToleranceFor(dtype_, p), input_));
    } else {
      const ForwardProblem p{input_, output_, alignCorners_, scales_};
      EXPECT_TRUE(ForwardMatchesReference(srcValues, p, dtype_, got));
    }
  }

  std::string Describe() const {
    std::string s =
        kernel_ + " on " + isa_ + ", " + DtypeName(dtype_) + " " + FormatName(layout_) + ", input (";
    for (size_t i = 0; i < input_.size(); ++i) s += (i ? "," : "") + std::to_string(input_[i]);
    s += ") output (" + std::to_string(output_[0]) + "," + std::to_string(output_[1]) + "," +
         std::to_string(output_[2]) + ")" + (alignCorners_ ? " align_corners" : "");
    if (scales_[0] > 0.0 || scales_[1] > 0.0 || scales_[2] > 0.0) {
      s += " scales (" + std::to_string(scales_[0]) + "," + std::to_string(scales_[1]) + "," +
           std::to_string(scales_[2]) + ")";
    }
    return s + ", cores " + std::to_string(cores_);
  }

 private:
  template <typename Field>
  KernelTester &Set(Field &field, const Field &value) {
    field = value;
    return *this;
  }

  static void *Align64(void *p) {
    return reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(p) + 63) / 64 * 64);
  }

  // A contiguous tensor of logical NCDHW shape in NCDHW or NDHWC memory, 64-byte aligned.
  class Buffer {
   public:
    Buffer(const Shape5 &shape, aclDataType dtype, aclFormat layout)
        : shape_(shape),
          dtype_(dtype),
          bytes_(static_cast<size_t>(ElementCount(shape)) * DtypeSize(dtype) + 64) {
      storage_.reset(new uint8_t[bytes_]);
      view_.data = Align64(storage_.get());
      // Memory order, outermost first: N, C, D, H, W or N, D, H, W, C.
      const int order[5] = {0, layout == ACL_FORMAT_NDHWC ? 2 : 1, layout == ACL_FORMAT_NDHWC ? 3 : 2,
                            layout == ACL_FORMAT_NDHWC ? 4 : 3, layout == ACL_FORMAT_NDHWC ? 1 : 4};
      int64_t stride = 1;
      for (int k = 4; k >= 0; --k) {
        view_.strides[order[k]] = stride;
        stride *= shape[static_cast<size_t>(order[k])];
      }
      for (int a = 0; a < 5; ++a) view_.dims[a] = shape[static_cast<size_t>(a)];
    }

    const kernel::TensorView5d &View() const { return view_; }

    void Store(const std::vector<double> &values) {
      ForEach([&](size_t logical, uint8_t *element) { EncodeElement(dtype_, values[logical], element); });
    }

    void Poison() {
      ForEach([&](size_t, uint8_t *element) { EncodeElement(dtype_, NAN, element); });
    }

    std::vector<double> Load() const {
      std::vector<double> values(static_cast<size_t>(ElementCount(shape_)));
      const_cast<Buffer *>(this)->ForEach(
          [&](size_t logical, uint8_t *element) { values[logical] = DecodeElement(dtype_, element); });
      return values;
    }

   private:
    // f(logical NCDHW index, element address) for every element.
    template <typename F>
    void ForEach(F &&f) {
      const size_t size = DtypeSize(dtype_);
      size_t logical = 0;
      for (int64_t n = 0; n < shape_[0]; ++n)
        for (int64_t c = 0; c < shape_[1]; ++c)
          for (int64_t d = 0; d < shape_[2]; ++d)
            for (int64_t h = 0; h < shape_[3]; ++h)
              for (int64_t w = 0; w < shape_[4]; ++w, ++logical) {
                const int64_t offset = n * view_.strides[0] + c * view_.strides[1] + d * view_.strides[2] +
                                       h * view_.strides[3] + w * view_.strides[4];
                f(logical, static_cast<uint8_t *>(view_.data) + static_cast<size_t>(offset) * size);
              }
    }

    Shape5 shape_;
    aclDataType dtype_;
    size_t bytes_;
    std::unique_ptr<uint8_t[]> storage_;
    kernel::TensorView5d view_;
  };

  Shape5 input_{1, 1, 1, 1, 1};
  std::array<int64_t, 3> output_{1, 1, 1};
  bool alignCorners_ = false;
  std::array<double, 3> scales_{0.0, 0.0, 0.0};
  aclDataType dtype_ = ACL_FLOAT;
  aclFormat layout_ = ACL_FORMAT_NCDHW;
  std::string kernel_;
  std::string isa_;
  int64_t cores_ = 3;
};

}  // namespace trilinear3d::test

#endif  // TRILINEAR3D_TESTS_UT_OP_KERNEL_KERNEL_TESTER_H_
