// UpsampleTrilinear3dBackward kernel for an exact doubling on every axis (Kernel::kBackwardStencil2x):
// each axis is the fixed stencil of stencil2x_steps.h, applied W -> H -> D.
//
// An item is (plane, D chunk, H chunk) of gradInput. For each gradOut plane od the D chunk reads
// (increasing), the H chunk's gradOut rows are read in order, each W-reduced (2 -> 1, lane
// permutes) and added into the two open H sums; a finished H row goes into the two open D sums
// (two accumulator planes of scratch, chosen by parity), and a finished D index is stored into
// gradInput. So gradOut is read once, in order, plane after plane (or four planes at a time,
// below), which is faster than the width-last kernel's passes over whole rows.
// With AVX-512, AVX2 and the baseline tier's 128-bit vectors (SSE2, NEON) the W and H steps run on
// strips of up to 128 (AVX2: 32, baseline: 16) gradInput columns with the H sums in registers, so each
// gradOut row is loaded once and only finished H rows touch memory, and a D index finished in a plane
// of one strip per row (AVX2, baseline: or of rows of whole 64-byte lines) is streamed to gradInput as
// its rows finish; a baseline tier without vectors runs the same steps (StencilSteps' list) on whole
// rows of scratch. The vector ISAs share that code through Lanes (their vectors) and differ in the W
// step of a vector (WStep, WBlock) and in Quad's block width. Rows of
// 128 (B1) or 64 go four planes at a time where their D steps allow, row by row (Quad): the D sums
// then stay in L1 and in registers instead of L2, and gradOut streams faster; with AVX2 the planes
// between (the D axis's ends, D chunk ends) also go row by row, a few at a time (Lockstep).
// Every element sums its terms in StencilSteps' order whatever the item split: the same bits for
// every core count. The vector code spells that order out as fixed code (see Strip): a walk over
// the list is as fast in cache but slower with gradOut in memory, where the loop's loads of the list
// and of spilled pointers delay the gradOut loads. docs/performance.md has the measurements.
//
// The pieces, one job per header: op_kernel/stencil2x_w_step.h (the W step of vectors, strips and
// blocks), op_kernel/stencil2x_d_step.h (a core's state and the D step), op_kernel/stencil2x_strips.h
// (a plane's W and H steps, strip by strip) and op_kernel/stencil2x_lockstep.h (several planes row
// by row); here the item loop that chooses between them.
#include <cstddef>
#include <cstdint>

#include "op_kernel/kernel_args.h"
#include "op_kernel/stencil2x_steps.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/item_loop.h"
#include "op_kernel/stencil2x_lockstep.h"
#include "op_kernel/stencil2x_strips.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
using Stencil2xBase = stencil2x::Stencil2xLockstep;
#else
using Stencil2xBase = stencil2x::Stencil2xStrips;
#endif

class Stencil2xRunner : public Stencil2xBase {
 public:
  using A = float;  // RunItems' accumulator type
  Stencil2xRunner(const KernelArgs &args, float *scratch) : Stencil2xBase(args, scratch) {}

  void Run(int64_t item, int64_t /*nextItem*/) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize, t_.w.inSize);
    h0_ = b.h0;
    h1_ = b.h1;
    srcBase_ = PlaneBase<const float>(src_, t_, b.plane);
    dstBase_ = PlaneBase<float>(dst_, t_, b.plane);
    StencilSteps(b.d0, b.d1, t_.d.inSize, &dSteps_);
#if !defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_VEC128)
    StencilSteps(b.h0, b.h1, t_.h.inSize, &hSteps_);  // the vector code spells the H steps out
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
    // Rows of 128 or 64 gradInput columns (8 or 4 zmm, 16 or 8 ymm vectors).
    const int quadV = !alignedRows_ ? 0 : t_.w.inSize == 128 ? 128 / kL : t_.w.inSize == 64 ? 64 / kL : 0;
    const bool quads = quadV != 0;
#endif
    for (size_t i = 0; i < dSteps_.size(); ++i) {
#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)
      if (quads) {
        const size_t ran = quadV == 128 / kL ? Lockstep<128 / kL>(i) : Lockstep<64 / kL>(i);
        if (ran > 0) {
          i += ran - 1;
          continue;
        }
      }
#endif
      const StencilStep &plane = dSteps_[i];
      const float *planeBase = srcBase_ + plane.src * src_.strides[2];
      if (plane.finish >= 0 && directRows_) {
        out_.Begin(DstRow(plane.finish, h0_));
        WAndHSteps(plane, planeBase);
        out_.Finish();
        continue;
      }
      WAndHSteps(plane, planeBase);
      if (plane.finish >= 0) StorePlane(plane.finish);
    }
  }
};

}  // namespace

void RunBackwardStencil2x(const KernelArgs &args, int blockIdx) { RunItems<Stencil2xRunner>(args, blockIdx); }

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
