// The doubling stencil's D step (op_kernel/isa/upsample_backward_stencil2x.cpp), compiled once per
// ISA: Stencil2xDStep holds a core's state for its items (the tiling, the views, the two D accumulator
// planes of scratch, the current item's planes and D steps) and applies a gradOut plane's D step to a
// finished H row, into the accumulators or, for an index the plane finishes, into gradInput: with
// the vector ISAs from registers (PlanD once per plane and strip, then DStepVectors, or DStepFixed
// for the common shapes), with the portable ISA from a row of scratch (DStepRow).
#ifndef TRILINEAR3D_OP_KERNEL_STENCIL2X_D_STEP_H_
#define TRILINEAR3D_OP_KERNEL_STENCIL2X_D_STEP_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <cstdint>
#include <vector>

#include "op_kernel/item_loop.h"
#include "op_kernel/kernel_args.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/stencil2x_w_step.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x {
namespace {

// A core's state for its items and the D step (constructed once per core, then Run per item).
class Stencil2xDStep : public Stencil2xWStep {
 protected:
  Stencil2xDStep(const KernelArgs &args, float *scratch)
      : Stencil2xWStep(*args.tiling), t_(*args.tiling), src_(args.src), dst_(args.dst), out_(dst_, t_, true) {
    stride_ = t_.stencilRowStride;
    planeElems_ = t_.hChunk * stride_;
    slots_[0] = scratch;
    slots_[1] = scratch + planeElems_;
    rowW_ = slots_[1] + planeElems_;
    rowH_[0] = rowW_ + stride_;
    rowH_[1] = rowH_[0] + stride_;
#if defined(TRILINEAR3D_HAVE_AVX512)
    // One strip per row (1, 2, 4 or 8 vectors): a finished row is whole at once.
    const int64_t vectors = (t_.w.inSize + 15) / 16;
    directRows_ = vectors == 1 || vectors == 2 || vectors == 4 || vectors == 8;
    // Every gradInput row starts a 64-byte line and spans whole lines: streamed without the
    // line joiner (DstRowWriter), straight from the registers.
    const int64_t *ds = dst_.strides;
    alignedRows_ = directRows_ && t_.streamStores && ds[4] == 1 && t_.w.inSize % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(dst_.data) % 64 == 0 && ds[0] % 16 == 0 && ds[1] % 16 == 0 &&
                   ds[2] % 16 == 0 && ds[3] % 16 == 0;
#endif
#if (defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)) || defined(TRILINEAR3D_HAVE_VEC128)
    // Every gradInput row starts a 64-byte line and spans whole lines: streamed from the registers,
    // strip by strip (each strip is whole lines: AVX2's 4 or 2 vectors, as the row has an even count;
    // the baseline's 4).
    const int64_t inW = t_.w.inSize, vectors = (inW + kL - 1) / kL;
    const int64_t *ds = dst_.strides;
    alignedRows_ = t_.streamStores && ds[4] == 1 && inW % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(dst_.data) % 64 == 0 && ds[0] % 16 == 0 && ds[1] % 16 == 0 &&
                   ds[2] % 16 == 0 && ds[3] % 16 == 0;
    // Direct: aligned rows, or one strip per row (1, 2 or 4 vectors: a finished row is whole at once,
    // for the line joiner).
    directRows_ = alignedRows_ || vectors == 1 || vectors == 2 || vectors == 4;
#endif
  }

  float *Slot(int64_t id) const { return slots_[id & 1]; }

  // gradInput[plane, id, h0_ .. h1_) = the accumulator plane of id.
  void StorePlane(int64_t id) {
    const float *acc = Slot(id);
    out_.Begin(DstRow(id, h0_));
    for (int64_t ih = h0_; ih < h1_; ++ih) out_.Put(acc + (ih - h0_) * stride_, DstRow(id, ih), t_.w.inSize);
    out_.Finish();
  }

  float *DstRow(int64_t id, int64_t ih) const {
    return dstBase_ + id * dst_.strides[2] + ih * dst_.strides[3];
  }
  const float *SrcRow(const float *planeBase, int64_t oh) const { return planeBase + oh * src_.strides[3]; }

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
  // What one gradOut plane's D step does with a finished H row, worked out once per plane and strip
  // (the row loop then reads nothing else): up to two gradInput indices, each taking its terms of
  // this plane in order (the first assigning or adding), into its accumulator row, or, its last,
  // into gradInput.
  struct DTargetPlan {
    float *slot = nullptr;  // the accumulator's row h0, at the strip's first column
    float *out = nullptr;   // gradInput's row h0 of the index, at the strip's first column (direct)
    float w[3] = {0, 0, 0};
    int terms = 0;
    bool assign = false;
    bool direct = false;  // the index is finished here and its rows go straight to gradInput
  };
  struct DPlan {
    DTargetPlan target[2];
    int count = 0;
  };

  // direct: finished rows may go straight to gradInput (directRows_, or Quad's whole-line strips).
  DPlan PlanD(const StencilStep &plane, int64_t j0, bool direct) const {
    DPlan d;
    for (int e = 0; e < plane.count; ++e) {
      const StencilEntry &en = plane.e[e];
      if (e == 0 || plane.e[e - 1].dst != en.dst) {  // a plane's entries on one index are adjacent
        DTargetPlan &t = d.target[d.count++];
        t.slot = Slot(en.dst) + kL * j0;
        t.assign = en.assign;
        t.direct = direct && en.dst == plane.finish;
        t.out = DstRow(en.dst, h0_) + kL * j0;
      }
      DTargetPlan &t = d.target[d.count - 1];
      t.w[t.terms++] = en.w;
    }
    return d;
  }

  // The D step of the finished H row ih held in registers (scratch rows are padded to whole vectors).
  template <int V>
  __attribute__((always_inline)) void DStepVectors(const DPlan &d, int64_t ih, const Vec (&h)[V]) {
    const int64_t row = ih - h0_;
    for (int k = 0; k < d.count; ++k) {
      const DTargetPlan &t = d.target[k];
      float *acc = t.slot + row * stride_;
      const Vec w0 = L::Set1(t.w[0]);
      Vec v[V];
      if (t.assign) {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) v[j] = L::Mul(w0, h[j]);
      } else {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) v[j] = L::Fma(w0, h[j], L::Load(acc + kL * j));
      }
      for (int m = 1; m < t.terms; ++m) {
        const Vec w = L::Set1(t.w[m]);
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) v[j] = L::Fma(w, h[j], v[j]);
      }
      if (!t.direct) {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) L::Store(acc + kL * j, v[j]);
        continue;
      }
      float *out = t.out + row * dst_.strides[3];
      if (alignedRows_) {  // whole lines of gradInput: streamed from the registers
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) L::Stream(out + kL * j, v[j]);
        continue;
      }
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) L::Store(rowW_ + kL * j, v[j]);
      out_.Put(rowW_, out, t_.w.inSize);  // direct rows are whole rows (one strip): j0 = 0
    }
  }

  // The common shapes of a plane's D step (PlanD) in the row loop: two indices, one term each, the
  // first adding; the second assigning (an odd plane), or adding while the first is finished and
  // streamed (an even plane); anything else (the axis ends, rows not streamed straight) goes through
  // DStepVectors.
  enum class DKind{kGeneric, kAddAssign, kStreamAdd};

  DKind KindOf(const DPlan &d) const {
    const DTargetPlan &a = d.target[0], &b = d.target[1];
    if (d.count != 2 || a.terms != 1 || b.terms != 1 || a.assign || b.direct) return DKind::kGeneric;
    if (!a.direct) return b.assign ? DKind::kAddAssign : DKind::kGeneric;
    return !b.assign && alignedRows_ ? DKind::kStreamAdd : DKind::kGeneric;
  }

  template <int V, DKind kKind>
  __attribute__((always_inline)) void DStepFixed(const DPlan &d, int64_t ih, const Vec (&h)[V]) {
    if constexpr (kKind == DKind::kGeneric) {
      DStepVectors<V>(d, ih, h);
    } else {
      const int64_t row = ih - h0_;
      float *a = d.target[0].slot + row * stride_, *b = d.target[1].slot + row * stride_;
      const Vec wa = L::Set1(d.target[0].w[0]), wb = L::Set1(d.target[1].w[0]);
      float *out = kKind == DKind::kStreamAdd ? d.target[0].out + row * dst_.strides[3] : nullptr;
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) {
        const Vec va = L::Fma(wa, h[j], L::Load(a + kL * j));
        if constexpr (kKind == DKind::kStreamAdd) {
          L::Stream(out + kL * j, va);
        } else {
          L::Store(a + kL * j, va);
        }
        const Vec vb = kKind == DKind::kAddAssign ? L::Mul(wb, h[j]) : L::Fma(wb, h[j], L::Load(b + kL * j));
        L::Store(b + kL * j, vb);
      }
    }
  }

#else
  // The D step of the finished H row ih (a whole row, `values`) for gradOut plane `plane`.
  void DStepRow(const StencilStep &plane, int64_t ih, const float *values) {
    for (int e = 0; e < plane.count; ++e) {
      const StencilEntry &en = plane.e[e];
      AxpyRow(Slot(en.dst) + (ih - h0_) * stride_, values, en.w, t_.w.inSize, en.assign);
    }
  }

#endif

  const TilingData &t_;
  const TensorView5d &src_;
  const TensorView5d &dst_;
  DstRowWriter<float> out_;
  int64_t stride_ = 0, planeElems_ = 0, h0_ = 0, h1_ = 0;
  bool directRows_ = false;   // finished rows go straight to gradInput (DStepVectors)
  bool alignedRows_ = false;  // ... as whole lines, streamed from the registers
  float *slots_[2] = {nullptr, nullptr};
  float *rowW_ = nullptr, *rowH_[2] = {nullptr, nullptr};
  const float *srcBase_ = nullptr;
  float *dstBase_ = nullptr;
  std::vector<StencilStep> dSteps_, hSteps_;  // hSteps_: the portable path only
};

}  // namespace
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA::stencil2x

#endif  // TRILINEAR3D_OP_KERNEL_STENCIL2X_D_STEP_H_
