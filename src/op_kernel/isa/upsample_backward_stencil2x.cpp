// UpsampleTrilinear3dBackward kernel for an exact doubling on every axis (TilingData::stencil2x):
// each axis is the fixed stencil of stencil2x_steps.h, applied W -> H -> D.
//
// An item is (plane, D chunk, H chunk) of gradInput. For each gradOut plane od the D chunk reads
// (increasing), the H chunk's gradOut rows are read in order, each W-reduced (2 -> 1, lane
// permutes) and added into the two open H sums; a finished H row goes into the two open D sums
// (two accumulator planes of scratch, chosen by parity), and a finished D index is stored into
// gradInput. So gradOut is read once, in order, plane after plane (or four planes at a time,
// below), which is faster than the width-last kernel's passes over whole rows.
// With AVX-512 and AVX2 the W and H steps run on strips of up to 128 (AVX2: 32) gradInput columns
// with the H sums in registers, so each gradOut row is loaded once and only finished H rows touch
// memory, and a D index finished in a plane of one strip per row (AVX2: or of rows of whole 64-byte
// lines) is streamed to gradInput as its rows finish; the baseline ISA runs the same steps
// (StencilSteps' list) on whole rows of scratch. The two ISAs share that code through Lanes (their
// vectors) and differ in the W step of a vector (WStep, WBlock) and in Quad's block width. Rows of
// 128 (B1) or 64 go four planes at a time where their D steps allow, row by row (Quad): the D sums
// then stay in L1 and in registers instead of L2, and gradOut streams faster; with AVX2 the planes
// between (the D axis's ends, D chunk ends) also go row by row, a few at a time (Lockstep).
// Every element sums its terms in StencilSteps' order whatever the item split: the same bits for
// every core count. The vector code spells that order out as fixed code (see Strip): a walk over
// the list is as fast in cache but slower with gradOut in memory, where the loop's loads of the list
// and of spilled pointers delay the gradOut loads. docs/performance.md has the measurements.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "op_kernel/kernel_args.h"
#include "op_kernel/stencil2x_steps.h"

#include "op_kernel/isa_begin.h"

#include "op_kernel/item_loop.h"
#include "op_kernel/row_arith.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

using tiling::TilingData;

// Where a W strip ends (vector kernels): inside the row, or at its end. The row's last vector is
// loaded with masks (AVX2: through a buffer; nothing past the row read; all lanes when it is whole)
// and its last output's g[2k + 2] is the row's last element.
enum class RowEnd { kNo, kEnd };

#if defined(TRILINEAR3D_HAVE_AVX2)  // AVX-512 builds too
// The W step leaves out its factor 1/4: 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]) is two adds
// and an FMA, on both of Zen 4's FP pipe pairs (its adds and its FMAs), where 1/4, 3/4, 3/4, 1/4
// take a multiply and three FMAs on one (the difference shows with gradOut in L2, not by itself
// with gradOut in memory). The H step puts the 1/4 back: its weights are 1/16 and 3/16 (exact:
// powers of two apart from 1/4 and 3/4). A W result is then at most 8 times the largest |gradOut|
// instead of 2 times: its sums overflow above about 4e37 instead of 1.7e38.
constexpr float kHFar = 1.0f / 16, kHNear = 3.0f / 16;

// The vectors of the strip code: AVX-512's 16 lanes or AVX2's 8, and a strip's widest (the H sums of
// a strip, two per vector, stay in registers: 32 zmm or 16 ymm). Load and Store are aligned
// (accumulator rows and Quad's sums start 64-byte lines); Stream is a non-temporal store.
#if defined(TRILINEAR3D_HAVE_AVX512)
struct Lanes {
  using Vec = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kMaxStrip = 8;
  // Strips of whole rows (B1's): planes outside Quad's shape read gradOut in order plane by plane.
  static constexpr bool kLockstepAll = false;
  __attribute__((always_inline)) static Vec Zero() { return _mm512_setzero_ps(); }
  __attribute__((always_inline)) static Vec Set1(float x) { return _mm512_set1_ps(x); }
  __attribute__((always_inline)) static Vec Load(const float *p) { return _mm512_load_ps(p); }
  __attribute__((always_inline)) static void Store(float *p, Vec v) { _mm512_store_ps(p, v); }
  __attribute__((always_inline)) static void Stream(float *p, Vec v) { _mm512_stream_ps(p, v); }
  __attribute__((always_inline)) static Vec Mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  __attribute__((always_inline)) static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
};
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
struct Lanes {
  using Vec = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kMaxStrip = 4;
  static constexpr bool kLockstepAll = true;  // every plane of a lockstep row width (Lockstep)
  __attribute__((always_inline)) static Vec Zero() { return _mm256_setzero_ps(); }
  __attribute__((always_inline)) static Vec Set1(float x) { return _mm256_set1_ps(x); }
  __attribute__((always_inline)) static Vec Load(const float *p) { return _mm256_load_ps(p); }
  __attribute__((always_inline)) static void Store(float *p, Vec v) { _mm256_store_ps(p, v); }
  __attribute__((always_inline)) static void Stream(float *p, Vec v) { _mm256_stream_ps(p, v); }
  __attribute__((always_inline)) static Vec Mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  __attribute__((always_inline)) static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
};
#endif
#endif

#if defined(TRILINEAR3D_HAVE_AVX512)
// Lanes kShift .. kShift + 15 of the 32 lanes (b, then a): valignd. The all-lanes masked form: the
// plain intrinsic starts from _mm512_undefined_epi32(), which GCC 12's -Wuninitialized reports.
template <int kShift>
inline __m512 ShiftIn(__m512i a, __m512i b) {
  return _mm512_castsi512_ps(_mm512_mask_alignr_epi32(a, __mmask16(0xffff), a, b, kShift));
}

// The W step's pieces, shared by Stencil2xRunner::WStep and WStepWholeRow so that both give the
// same bits (which of them runs for a plane follows the D chunks, i.e. the core count). EvenOdd:
// the even and odd elements of 32 consecutive gradOut elements (lo, hi). WRight: g[2k + 2] per
// output lane (nextEven's lane 0 shifted in; WStep blends the row's last element into a partial
// last vector). WOutput: lane k = 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]), g[2k - 1] from
// odd shifted by one lane with prevOdd's lane 15.
__attribute__((always_inline)) inline void EvenOdd(__m512 lo, __m512 hi, __m512 *even, __m512 *odd) {
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odds = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  *even = _mm512_permutex2var_ps(lo, evens, hi);
  *odd = _mm512_permutex2var_ps(lo, odds, hi);
}

__attribute__((always_inline)) inline __m512 WRight(__m512 even, __m512 nextEven) {
  return ShiftIn<1>(_mm512_castps_si512(nextEven), _mm512_castps_si512(even));
}

__attribute__((always_inline)) inline __m512 WOutput(__m512 even, __m512 odd, __m512 prevOdd, __m512 right) {
  const __m512 left = ShiftIn<15>(_mm512_castps_si512(odd), _mm512_castps_si512(prevOdd));
  return _mm512_fmadd_ps(_mm512_set1_ps(3.0f), _mm512_add_ps(even, odd), _mm512_add_ps(left, right));
}
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
// The AVX2 W step of one vector: outputs k = 0 .. 7 from the 16 gradOut elements g[0 .. 15] at its
// start, as AVX-512's WOutput: 3 (g[2k] + g[2k + 1]) + (g[2k - 1] + g[2k + 2]). AVX2 has no
// two-source permute, but _mm256_shuffle_ps picks the even (or odd) elements of two vectors within
// each 128-bit half: from a = g[0 .. 7] and b = g[8 .. 15], lanes in the order of outputs
// 0 1 4 5 | 2 3 6 7. The same shuffle of the vectors at g - 1 and g + 7 gives g[2k - 1] in that
// order, and of those at g + 1 and g + 9 (odd elements) g[2k + 2]: six loads per vector (two of
// them across a 64-byte line where g starts one), where unaligned loads at offsets -1, 0, 1, 2 of
// both halves took eight (three across a line) and twice the adds; one permute puts the outputs in
// order. The same operands in the same order: the same bits as AVX-512's.
__attribute__((always_inline)) inline __m256 WCombine(__m256 a, __m256 b, __m256 before0, __m256 before8,
                                                      __m256 after1, __m256 after9) {
  const __m256 even = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));              // g[2k]
  const __m256 odd = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));               // g[2k + 1]
  const __m256 left = _mm256_shuffle_ps(before0, before8, _MM_SHUFFLE(2, 0, 2, 0));  // g[2k - 1]
  const __m256 right = _mm256_shuffle_ps(after1, after9, _MM_SHUFFLE(3, 1, 3, 1));   // g[2k + 2]
  const __m256 out =
      _mm256_fmadd_ps(_mm256_set1_ps(3.0f), _mm256_add_ps(even, odd), _mm256_add_ps(left, right));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(out), _MM_SHUFFLE(3, 1, 2, 0)));
}

// A whole vector at g. kFirst: g starts the row (g[-1] is g[0], clamped); kLast: g[15] ends it
// (g[16] is g[15]); those come from lane permutes (of the lanes the shuffles read), so nothing
// outside the row is read.
template <bool kFirst, bool kLast>
__attribute__((always_inline)) inline __m256 WVector(const float *g) {
  const __m256 a = _mm256_loadu_ps(g), b = _mm256_loadu_ps(g + 8);
  const __m256 before0 = kFirst ? _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6))
                                : _mm256_loadu_ps(g - 1);
  const __m256 after9 =
      kLast ? _mm256_permutevar8x32_ps(b, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7)) : _mm256_loadu_ps(g + 9);
  return WCombine(a, b, before0, _mm256_loadu_ps(g + 7), _mm256_loadu_ps(g + 1), after9);
}

// The row's partial last vector: its n gradOut elements at g (n even, below 16; masks lo and hi of
// the halves), copied into a buffer between g[-1] (g[0] where g starts the row) and copies of the
// row's last element, then WCombine from the buffer: the same values as WVector's, nothing past the
// row read. Lanes of outputs past the row hold what the copies give (stored into scratch padding).
__attribute__((always_inline)) inline __m256 WVectorPartial(const float *g, int64_t n, bool first, __m256i lo,
                                                            __m256i hi) {
  alignas(32) float buf[48];
  buf[0] = first ? g[0] : g[-1];
  _mm256_storeu_ps(buf + 1, _mm256_maskload_ps(g, lo));
  _mm256_storeu_ps(buf + 9, _mm256_maskload_ps(g + 8, hi));
  const __m256 last = _mm256_set1_ps(g[n - 1]);
  _mm256_storeu_ps(buf + 1 + n, last);
  _mm256_storeu_ps(buf + 9 + n, last);
  return WCombine(_mm256_loadu_ps(buf + 1), _mm256_loadu_ps(buf + 9), _mm256_loadu_ps(buf),
                  _mm256_loadu_ps(buf + 8), _mm256_loadu_ps(buf + 2), _mm256_loadu_ps(buf + 10));
}
#endif

class Stencil2xRunner {
 public:
  using A = float;
#if defined(TRILINEAR3D_HAVE_AVX2)  // AVX-512 builds too
  using L = Lanes;
  using Vec = L::Vec;
  static constexpr int kL = L::kLanes;
#endif

  Stencil2xRunner(const KernelArgs &args, float *scratch)
      : t_(*args.tiling), src_(args.src), dst_(args.dst), out_(dst_, t_, true) {
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
    // The row's last vector: its gradOut elements (masks of its two loads) and its last output.
    const int64_t left = 2 * t_.w.inSize - 32 * ((t_.w.inSize - 1) / 16);  // 1 .. 32
    lastLo_ = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
    lastHi_ =
        left >= 32 ? __mmask16(0xffff) : (left > 16 ? __mmask16((1u << (left - 16)) - 1) : __mmask16(0));
    lastLane_ = __mmask16(1u << ((t_.w.inSize - 1) % 16));
    partialEnd_ = t_.w.inSize % 16 != 0;
    zeroTapLane_ = __mmask16(t_.w.inSize > 1 ? 2 : 1);
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
    // Every gradInput row starts a 64-byte line and spans whole lines: streamed from the registers,
    // strip by strip (each strip is whole lines: 4 or 2 vectors, as the row has an even count).
    const int64_t inW = t_.w.inSize, vectors = (inW + 7) / 8;
    const int64_t *ds = dst_.strides;
    alignedRows_ = t_.streamStores && ds[4] == 1 && inW % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(dst_.data) % 64 == 0 && ds[0] % 16 == 0 && ds[1] % 16 == 0 &&
                   ds[2] % 16 == 0 && ds[3] % 16 == 0;
    // Direct: aligned rows, or one strip per row (1, 2 or 4 vectors: a finished row is whole at once,
    // for the line joiner).
    directRows_ = alignedRows_ || vectors == 1 || vectors == 2 || vectors == 4;
    // The row's last vector: its gradOut elements (2 .. 16) and the masks of its two halves.
    lastN_ = 2 * inW - 16 * ((inW - 1) / 8);
    lastLo_ = Avx2Lanes<float>::FirstLanes(lastN_);
    lastHi_ = Avx2Lanes<float>::FirstLanes(lastN_ - 8);
    partialEnd_ = inW % 8 != 0;
    zeroTapLane_ = _mm256_castsi256_ps(Avx2Lanes<float>::FirstLanes(inW > 1 ? 2 : 1) ^
                                       Avx2Lanes<float>::FirstLanes(inW > 1 ? 1 : 0));
#endif
  }

  void Run(int64_t item, int64_t /*nextItem*/) {
    const ItemBounds b = DecodeItem(t_, item, t_.d.inSize, t_.h.inSize, t_.w.inSize);
    h0_ = b.h0;
    h1_ = b.h1;
    srcBase_ = PlaneBase<const float>(src_, t_, b.plane);
    dstBase_ = PlaneBase<float>(dst_, t_, b.plane);
    StencilSteps(b.d0, b.d1, t_.d.inSize, &dSteps_);
#if !defined(TRILINEAR3D_HAVE_AVX2)
    StencilSteps(b.h0, b.h1, t_.h.inSize, &hSteps_);  // the vector code spells the H steps out
#endif
#if defined(TRILINEAR3D_HAVE_AVX2)  // AVX-512 builds too
    // Rows of 128 or 64 gradInput columns (8 or 4 zmm, 16 or 8 ymm vectors).
    const int quadV = !alignedRows_ ? 0 : t_.w.inSize == 128 ? 128 / kL : t_.w.inSize == 64 ? 64 / kL : 0;
    const bool quads = quadV != 0;
#endif
    for (size_t i = 0; i < dSteps_.size(); ++i) {
#if defined(TRILINEAR3D_HAVE_AVX2)
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

 private:
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

#if defined(TRILINEAR3D_HAVE_AVX2)  // AVX-512 builds too
  // W then H steps of one gradOut plane on strips of 8, 4, 2 or 1 vectors of gradInput columns (AVX2:
  // 4, 2 or 1; the last strip ends the row). Four strip widths and two strip kinds keep the
  // instantiations few: all of 1 to 8 times three row ends made the file take minutes and gigabytes
  // under clang's sanitizers.
  void WAndHSteps(const StencilStep &plane, const float *planeBase) {
    const int64_t vectors = (t_.w.inSize + kL - 1) / kL;
    for (int64_t j0 = 0; j0 < vectors;) {
      const int64_t left = vectors - j0;
      const int v = left >= L::kMaxStrip ? L::kMaxStrip : left >= 4 ? 4 : left >= 2 ? 2 : 1;
      const bool end = j0 + v == vectors;
      switch (v) {
        case 8:
          if constexpr (L::kMaxStrip >= 8) {
            end ? Strip<8, RowEnd::kEnd>(plane, planeBase, j0) : Strip<8, RowEnd::kNo>(plane, planeBase, j0);
          }
          break;
        case 4:
          end ? Strip<4, RowEnd::kEnd>(plane, planeBase, j0) : Strip<4, RowEnd::kNo>(plane, planeBase, j0);
          break;
        case 2:
          end ? Strip<2, RowEnd::kEnd>(plane, planeBase, j0) : Strip<2, RowEnd::kNo>(plane, planeBase, j0);
          break;
        default:
          end ? Strip<1, RowEnd::kEnd>(plane, planeBase, j0) : Strip<1, RowEnd::kNo>(plane, planeBase, j0);
          break;
      }
      j0 += v;
    }
  }

  // A strip's source elements outside its vectors, relative to its first (g[32 j0] of the row):
  // g[32 j0 - 1] (g[0] at the row start) and g[32 (j0 + V)] (g[outW - 1] at the row end). The
  // caller keeps the strip's address as its only pointer: derived per vector from the row and j0,
  // the offsets end up on the stack and every gradOut load waits for a stack load.
  struct StripEdges {
    int64_t before, after;
    bool first;  // the strip starts the row
  };

#if defined(TRILINEAR3D_HAVE_AVX512)
  // r = the W step of gradOut row `row` for gradInput columns kL * j0 .. kL * (j0 + V): output
  // lane k of vector j sums 1/4 g[2k - 1], 3/4 g[2k], 3/4 g[2k + 1], 1/4 g[2k + 2] (clamped),
  // from the row's even and odd elements shifted by one lane across vector boundaries. kRowEnd:
  // the strip ends the row (its last vector may be partial: loaded with masks, nothing past the
  // row read, and its last output's g[2k + 2] is the row's last element).
  template <int V, RowEnd kEnd>
  __attribute__((always_inline)) void WStep(const float *strip, const StripEdges &edges, Vec (&r)[V]) const {
    constexpr bool kRowEnd = kEnd == RowEnd::kEnd;
    Vec even[V], odd[V];
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      const float *at = strip + 32 * j;
      const bool masked = kRowEnd && j + 1 == V && partialEnd_;  // a whole last vector: plain loads
      const Vec lo = masked ? _mm512_maskz_loadu_ps(lastLo_, at) : _mm512_loadu_ps(at);
      const Vec hi = masked ? _mm512_maskz_loadu_ps(lastHi_, at + 16) : _mm512_loadu_ps(at + 16);
      EvenOdd(lo, hi, &even[j], &odd[j]);
    }
    // g[2k - 1] before the strip (g[0] at the row start) and g[2k + 2] after it (g[outW - 1] at the end).
    const Vec oddBefore = L::Set1(strip[edges.before]);
    const Vec evenAfter = L::Set1(strip[edges.after]);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      Vec right = WRight(even[j], j + 1 == V ? evenAfter : even[j + 1]);
      if (kRowEnd && j + 1 == V && partialEnd_) right = _mm512_mask_blend_ps(lastLane_, right, evenAfter);
      r[j] = WOutput(even[j], odd[j], j == 0 ? oddBefore : odd[j - 1], right);
    }
    if (edges.first) {  // 0 * g[0] into output min(1, inW - 1): the zero-weight tap (stencil2x_steps.h)
      r[0] = _mm512_mask3_fmadd_ps(L::Zero(), L::Set1(strip[0]), r[0], zeroTapLane_);
    }
  }

  // WStep for a whole row of 16 V gradInput columns (V whole vectors: no masks, edges at the row's
  // ends, the zero-weight tap on lane 1): the same operations, with nothing left to decide at run
  // time: in Quad's row loop, WStep's checks of partialEnd_ and of the edges cost a fifth of B1's time.
  template <int V>
  __attribute__((always_inline)) static void WStepWholeRow(const float *row, Vec (&r)[V]) {
    Vec even[V], odd[V];
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j)
      EvenOdd(_mm512_loadu_ps(row + 32 * j), _mm512_loadu_ps(row + 32 * j + 16), &even[j], &odd[j]);
    const Vec first = L::Set1(row[0]), last = L::Set1(row[32 * V - 1]);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      r[j] = WOutput(even[j], odd[j], j == 0 ? first : odd[j - 1],
                     WRight(even[j], j == V - 1 ? last : even[j + 1]));
    }
    r[0] = _mm512_mask3_fmadd_ps(L::Zero(), first, r[0], __mmask16(2));  // 0 * g[0] into output 1
  }

  // A block of S whole vectors of a row at `at` (Quad's strips; here the whole row, kFirst and kLast).
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) static void WBlock(const float *at, Vec (&r)[S]) {
    static_assert(kFirst && kLast, "AVX-512 blocks are whole rows");
    WStepWholeRow<S>(at, r);
  }
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
  // r = the W step of gradOut row `row` for gradInput columns 8 j0 .. 8 (j0 + V) (WVector per
  // vector, the same values whatever the strips): output lane k of vector j sums 1/4 g[2k - 1],
  // 3/4 g[2k], 3/4 g[2k + 1], 1/4 g[2k + 2] (clamped; the 1/4 left out, see kHFar). kRowEnd: the
  // strip ends the row (its last vector may be partial: WVectorPartial, nothing past the row read).
  template <int V, RowEnd kEnd>
  __attribute__((always_inline)) void WStep(const float *strip, const StripEdges &edges, Vec (&r)[V]) const {
    constexpr bool kRowEnd = kEnd == RowEnd::kEnd;
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      const float *at = strip + 16 * j;
      const bool first = j == 0 && edges.first;
      if (kRowEnd && j + 1 == V) {
        if (partialEnd_) {
          r[j] = WVectorPartial(at, lastN_, first, lastLo_, lastHi_);
        } else {
          r[j] = first ? WVector<true, true>(at) : WVector<false, true>(at);
        }
      } else {
        r[j] = first ? WVector<true, false>(at) : WVector<false, false>(at);
      }
    }
    if (edges.first) {  // 0 * g[0] into output min(1, inW - 1): the zero-weight tap (stencil2x_steps.h)
      r[0] = _mm256_blendv_ps(r[0], L::Fma(L::Zero(), L::Set1(strip[0]), r[0]), zeroTapLane_);
    }
  }

  // WStep for S whole vectors at `at` of a row of whole vectors (kFirst: at starts the row, whose
  // zero-weight tap is then on lane 1; kLast: the block ends it): the same operations, with nothing
  // left to decide at run time (Quad's row loop).
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) static void WBlock(const float *at, Vec (&r)[S]) {
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) {
      const float *g = at + 16 * j;
      if (kFirst && j == 0) {
        r[j] = kLast && j + 1 == S ? WVector<true, true>(g) : WVector<true, false>(g);
      } else {
        r[j] = kLast && j + 1 == S ? WVector<false, true>(g) : WVector<false, false>(g);
      }
    }
    if constexpr (kFirst) r[0] = _mm256_blend_ps(r[0], L::Fma(L::Zero(), L::Set1(at[0]), r[0]), 2);
  }
#endif

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

  // The W and H steps of one gradOut plane for gradInput columns kL * j0 .. kL * (j0 + V), in the
  // order of StencilSteps (stencil2x_steps.h) spelled out as fixed code: entering index k, `cur`
  // holds k's sum from row 2k - 1 and `prev` k - 1's, which row 2k finishes (the step list itself,
  // walked in this loop, is slower with gradOut in memory: see the file comment).
  template <int V, RowEnd kRowEnd>
  __attribute__((noinline)) void Strip(const StencilStep &plane, const float *planeBase, int64_t j0) {
    const int64_t h0 = h0_, h1 = h1_, outW = 2 * t_.w.inSize;
    const float *strips = planeBase + 2 * kL * j0;  // the strip of the plane's row 0
    const DPlan d = PlanD(plane, j0, directRows_);
    const StripEdges edges{j0 == 0 ? 0 : -1, kRowEnd != RowEnd::kNo ? outW - 1 - 2 * kL * j0 : 2 * kL * V,
                           j0 == 0};
    Vec cur[V] = {}, prev[V] = {};
    OpenFirst<V, kRowEnd>(strips, edges, cur);
    // The first index (k = h0: no open sum below it, or k = 0), then the rows between the chunk's
    // ends as a loop without branches (SteadyRows, for the plane's kind of D step), then the last
    // index. The two sums alternate roles instead of being swapped (a swap of the arrays compiled to
    // memmove calls through the stack): `sumIsPrev` says which array holds the open index k.
    int64_t k = h0;
    if (RowPair<V, kRowEnd>(d, strips, edges, k++, cur, prev)) return;
    bool sumIsPrev = true;
    const int64_t steadyEnd = std::min(h1, t_.h.inSize - 1);
    bool odd = false;
    // The fixed D shapes for full strips only (narrow strips, where the W step is a small part of the
    // work, take the general D step: fewer instantiations).
    const DKind kind = V == L::kMaxStrip ? KindOf(d) : DKind::kGeneric;
    if constexpr (V == L::kMaxStrip) {
      if (kind == DKind::kAddAssign) {
        k = SteadyRows<V, kRowEnd, DKind::kAddAssign>(d, strips, edges, k, steadyEnd, prev, cur, &odd);
      } else if (kind == DKind::kStreamAdd) {
        k = SteadyRows<V, kRowEnd, DKind::kStreamAdd>(d, strips, edges, k, steadyEnd, prev, cur, &odd);
      }
    }
    if (kind == DKind::kGeneric) {
      k = SteadyRows<V, kRowEnd, DKind::kGeneric>(d, strips, edges, k, steadyEnd, prev, cur, &odd);
    }
    if (odd) sumIsPrev = false;
    for (;; ++k, sumIsPrev = !sumIsPrev) {
      if (k >= h1) {  // the last index is the other array's
        return sumIsPrev ? LastTerm<V, kRowEnd>(d, strips, edges, cur)
                         : LastTerm<V, kRowEnd>(d, strips, edges, prev);
      }
      const bool done = sumIsPrev ? RowPair<V, kRowEnd>(d, strips, edges, k, prev, cur)
                                  : RowPair<V, kRowEnd>(d, strips, edges, k, cur, prev);
      if (done) return;
    }
  }

  // cur = the terms of index h0_ from the rows before 2 h0_ (none for index 0).
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) void OpenFirst(const float *strips, const StripEdges &edges, Vec (&cur)[V]) {
    const int64_t h0 = h0_, rowStride = src_.strides[3];
    const Vec hFar = L::Set1(kHFar), zero = L::Zero();
    Vec r[V];
    if (h0 == 1) {  // index 1's first terms: the zero-weight tap of row 0, then row 1
      WStep<V, kRowEnd>(strips, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = L::Mul(zero, r[j]);
      WStep<V, kRowEnd>(strips + rowStride, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = L::Fma(hFar, r[j], cur[j]);
    } else if (h0 > 1) {
      WStep<V, kRowEnd>(strips + (2 * h0 - 1) * rowStride, edges, r);
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) cur[j] = L::Mul(hFar, r[j]);
    }
  }

  // Quad: four gradOut planes 2m .. 2m + 3 whose D steps are the common ones (an even plane finishing
  // m - 1 and adding to m, an odd one adding to m and starting m + 1, and again for m + 1), rows of
  // 128 or 64 gradInput columns streamed from the registers (alignedRows_): row k of all four, then row
  // k + 1 of all four. The D sums of m and m + 1 stay in registers across the four planes, so a row
  // of the accumulator planes is read and written once per four planes instead of about three
  // times per plane. Plane by plane (Strip), those rows (two planes of 64 KB on B1) have left L1
  // before the next plane comes back to them, and their L2 loads and stores among gradOut's stream
  // keep fewer gradOut lines in flight; four planes at a time come close to a plain read of
  // gradOut. Each plane's two open H sums wait in lockState_ (L1) between its rows. The bits are
  // Strip's: every element takes the same terms in the same order, whatever the grouping. Other
  // planes (at the D axis's ends, at D chunk ends) take the general D step (Lockstep).
  //
  // QuadFits: whether planes[0 .. 4) have that shape; d: their D plans.
  bool QuadFits(const StencilStep *planes, DPlan (&d)[4]) const {
    for (int p = 0; p < 4; ++p) d[p] = PlanD(planes[p], 0, true);
    return KindOf(d[0]) == DKind::kStreamAdd && KindOf(d[1]) == DKind::kAddAssign &&
           KindOf(d[2]) == DKind::kStreamAdd && KindOf(d[3]) == DKind::kAddAssign &&
           d[1].target[0].slot == d[0].target[1].slot && d[2].target[0].slot == d[1].target[0].slot &&
           d[2].target[1].slot == d[1].target[1].slot && d[3].target[0].slot == d[2].target[1].slot;
  }

  // The planes from dSteps_[i] in lockstep: four through Quad where they fit it, else (where
  // L::kLockstepAll) the planes before the next four that fit (at most four) with their D steps
  // through DStepVectors: on B1 the D axis's first two planes and its last two, a quarter of its
  // gradOut. Row by row, they read gradOut in order with Quad's prefetch, and the accumulator rows
  // the planes share stay in L1 from one plane to the next; plane by plane (Strip), AVX2's strips of
  // a quarter row read each plane four times down its rows, 256 of every 1024 bytes. Returns how
  // many planes ran (0: none, plane i then goes through Strip).
  template <int V>
  size_t Lockstep(size_t i) {
    const size_t n = dSteps_.size();
    DPlan d[4];
    if (i + 4 <= n && QuadFits(&dSteps_[i], d)) {
      RunLockstep<V, true>(&dSteps_[i], 4, d);
      return 4;
    }
    if constexpr (!L::kLockstepAll) return 0;
    size_t count = 1;
    DPlan next[4];
    while (count < 4 && i + count < n && !(i + count + 4 <= n && QuadFits(&dSteps_[i + count], next)))
      ++count;
    for (size_t p = 0; p < count; ++p) d[p] = PlanD(dSteps_[i + p], 0, true);
    RunLockstep<V, false>(&dSteps_[i], static_cast<int>(count), d);
    return count;
  }

  // Planes planes[0 .. n) in lockstep (kQuad: Quad's four, n = 4), d: their D plans.
  template <int V, bool kQuad>
  void RunLockstep(const StencilStep *planes, int n, const DPlan (&d)[4]) {
    const int64_t h0 = h0_, h1 = h1_;
    const float *strips[4] = {};
    for (int p = 0; p < n; ++p) strips[p] = srcBase_ + planes[p].src * src_.strides[2];
    QuadRows<V>(QuadOp::kOpen, planes, n, strips, h0);
    const int64_t steadyEnd = std::min(h1, t_.h.inSize - 1);
    for (int64_t k = h0;; ++k) {
      if (k >= h1) {  // the chunk ends inside the axis
        QuadRows<V>(QuadOp::kLastTerm, planes, n, strips, k);
        return;
      }
      if (k > h0 && k < steadyEnd) {
        QuadSteadyRows<V, kQuad>(d, n, strips, k, steadyEnd);
        k = steadyEnd - 1;
        continue;
      }
      if (QuadRows<V>(QuadOp::kRowPair, planes, n, strips, k)) return;  // the same for every plane
    }
  }

  // The lockstep's rows outside QuadSteadyRows, plane by plane (planes[0 .. n)), on strips of at
  // most L::kMaxStrip vectors (AVX-512: the whole row; AVX2: 4 or 2 strips), each through Strip's
  // steps with its sums in lockState_: kOpen, OpenFirst (into both sums: the finishing one is not
  // read before RowPair sets it); kRowPair, RowPair of rows 2k and 2k + 1 (returns whether it
  // finished the axis); kLastTerm, LastTerm.
  enum class QuadOp { kOpen, kRowPair, kLastTerm };

  template <int V>
  bool QuadRows(QuadOp op, const StencilStep *planes, int n, const float *const (&strips)[4], int64_t k) {
    constexpr int kVs = V < L::kMaxStrip ? V : L::kMaxStrip, kStrips = V / kVs;
    bool done = false;
    for (int p = 0; p < n; ++p) {
      for (int s = 0; s < kStrips; ++s) {
        done = s + 1 == kStrips ? QuadStrip<kVs, RowEnd::kEnd>(op, planes[p], p, strips[p], s * kVs, k)
                                : QuadStrip<kVs, RowEnd::kNo>(op, planes[p], p, strips[p], s * kVs, k);
      }
    }
    return done;
  }

  template <int V, RowEnd kRowEnd>
  __attribute__((noinline)) bool QuadStrip(QuadOp op, const StencilStep &plane, int p, const float *rows,
                                           int64_t j0, int64_t k) {
    const float *strips = rows + 2 * kL * j0;
    const StripEdges edges{j0 == 0 ? 0 : -1,
                           kRowEnd != RowEnd::kNo ? 2 * t_.w.inSize - 1 - 2 * kL * j0 : 2 * kL * V, j0 == 0};
    float *finishing = FinishingSum(p) + kL * j0, *open = OpenSum(p) + kL * j0;
    Vec sum[V] = {}, last[V] = {};
    if (op == QuadOp::kOpen) {
      OpenFirst<V, kRowEnd>(strips, edges, sum);
      StoreSums<V>(open, sum);
      StoreSums<V>(finishing, sum);
      return false;
    }
    const DPlan d = PlanD(plane, j0, true);
    LoadSums<V>(finishing, last);
    if (op == QuadOp::kLastTerm) {
      LastTerm<V, kRowEnd>(d, strips, edges, last);
      return true;
    }
    LoadSums<V>(open, sum);
    const bool done = RowPair<V, kRowEnd>(d, strips, edges, k, sum, last);
    StoreSums<V>(finishing, sum);
    StoreSums<V>(open, last);
    return done;
  }

  // Rows k0 .. k1 - 1 of the planes: SteadyRow's W and H steps, and (kQuad) DStepFixed's kStreamAdd,
  // kAddAssign, kStreamAdd, kAddAssign with the sums of m and m + 1 in registers between the planes,
  // or DStepVectors; on blocks of kQuadBlock vectors (AVX-512: the whole row; AVX2: 2 of 16 or 8, as
  // 16 ymm hold the sums of a block and its W and H results, not of a row): block after block, each
  // of the planes.
#if defined(TRILINEAR3D_HAVE_AVX512)
  template <int V>
  static constexpr int kQuadBlock = V;
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
  template <int V>
  static constexpr int kQuadBlock = 2;
#endif

  template <int V, bool kQuad>
  __attribute__((noinline)) void QuadSteadyRows(const DPlan (&d)[4], int n, const float *const (&strips)[4],
                                                int64_t k0, int64_t k1) {
    constexpr int S = kQuadBlock<V>, kBlocks = V / S;
    static_assert(V % S == 0, "whole blocks");
    const int64_t rowStride = src_.strides[3];
    for (int64_t k = k0; k < k1; ++k) {
      const float *src[4] = {};
      for (int p = 0; p < n; ++p) src[p] = strips[p] + 2 * k * rowStride;
      if constexpr (!kQuad) {
        for (int p = 0; p < n; ++p) PlaneRow<V>(d[p], p, src[p], k - 1);
        continue;
      }
      const int64_t row = k - 1 - h0_;  // the finished H index k - 1, as a row of the chunk
      if constexpr (kBlocks == 1) {
        QuadBlock<S, true, true>(d, src, row, 0);
      } else {
        QuadBlock<S, true, false>(d, src, row, 0);
        for (int c = 1; c + 1 < kBlocks; ++c) QuadBlock<S, false, false>(d, src, row, c);
        QuadBlock<S, false, true>(d, src, row, kBlocks - 1);
      }
    }
  }

  // One row step of plane p outside Quad (src: its row 2k): the W and H steps block by block into a
  // whole finished row ih = k - 1, then its D step once for the row (DStepVectors' choices are made
  // per row, not per block: per block they took as many instructions as the vector arithmetic).
  template <int V>
  __attribute__((always_inline)) void PlaneRow(const DPlan &d, int p, const float *src, int64_t ih) {
    constexpr int S = kQuadBlock<V>, kBlocks = V / S;
    Vec h[V];
    if constexpr (kBlocks == 1) {
      HBlockInto<S, true, true>(src, p, 0, h);
    } else {
      HBlockInto<S, true, false>(src, p, 0, h);
      for (int c = 1; c + 1 < kBlocks; ++c) HBlockInto<S, false, false>(src, p, c, h);
      HBlockInto<S, false, true>(src, p, kBlocks - 1, h);
    }
    DStepVectors<V>(d, ih, h);
  }

  template <int S, bool kFirst, bool kLast, int V>
  __attribute__((always_inline)) void HBlockInto(const float *src, int p, int c, Vec (&h)[V]) {
    Vec block[S];
    HStepBlock<S, kFirst, kLast>(src + 2 * kL * S * c, p, kL * S * c, block);
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) h[S * c + j] = block[j];
  }

  // The W and H steps of rows 2k and 2k + 1 of plane p for the S vectors at column col (gradOut at
  // `at`, row 2k): h = the finished sum of index k - 1; lockState_ then holds k's sum (finished by
  // row 2k + 2) and k + 1's.
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) void HStepBlock(const float *at, int p, int64_t col, Vec (&h)[S]) {
    const Vec hFar = L::Set1(kHFar), hNear = L::Set1(kHNear);
    const int64_t rowStride = src_.strides[3];
    PrefetchAhead<S>(at, rowStride);
    float *finishing = FinishingSum(p) + col, *open = OpenSum(p) + col;
    Vec r0[S], r1[S];
    WBlock<S, kFirst, kLast>(at, r0);
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) h[j] = L::Fma(hFar, r0[j], L::Load(finishing + kL * j));
    WBlock<S, kFirst, kLast>(at + rowStride, r1);
#pragma GCC unroll 8
    for (int j = 0; j < S; ++j) {
      const Vec sum = L::Fma(hNear, r0[j], L::Load(open + kL * j));
      L::Store(finishing + kL * j, L::Fma(hNear, r1[j], sum));  // k, finished next
      L::Store(open + kL * j, L::Mul(hFar, r1[j]));             // k + 1
    }
  }

  // Block c (vectors S c .. S c + S - 1) of one row step of QuadSteadyRows; src: row 2k of each plane.
  template <int S, bool kFirst, bool kLast>
  __attribute__((always_inline)) void QuadBlock(const DPlan (&d)[4], const float *const (&src)[4],
                                                int64_t row, int c) {
    const int64_t outStride = dst_.strides[3];
    const int64_t col = kL * S * c;  // the block's first gradInput column
    Vec a[S], b[S];                  // the sums of m and m + 1
    for (int p = 0; p < 4; ++p) {
      const Vec w0 = L::Set1(d[p].target[0].w[0]), w1 = L::Set1(d[p].target[1].w[0]);
      Vec h[S];
      HStepBlock<S, kFirst, kLast>(src[p] + 2 * col, p, col, h);
      if (p == 0) {  // finishes m - 1 (streamed), adds to m
        const float *before = d[0].target[0].slot + row * stride_ + col,
                    *slotM = d[0].target[1].slot + row * stride_ + col;
        float *out = d[0].target[0].out + row * outStride + col;
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          L::Stream(out + kL * j, L::Fma(w0, h[j], L::Load(before + kL * j)));
          a[j] = L::Fma(w1, h[j], L::Load(slotM + kL * j));
        }
      } else if (p == 1) {  // adds to m, starts m + 1
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          a[j] = L::Fma(w0, h[j], a[j]);
          b[j] = L::Mul(w1, h[j]);
        }
      } else if (p == 2) {  // finishes m (streamed), adds to m + 1
        float *out = d[2].target[0].out + row * outStride + col;
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          L::Stream(out + kL * j, L::Fma(w0, h[j], a[j]));
          b[j] = L::Fma(w1, h[j], b[j]);
        }
      } else {  // adds to m + 1, starts m + 2 (the slots of m - 1 and m)
        float *next = d[3].target[0].slot + row * stride_ + col,
              *after = d[3].target[1].slot + row * stride_ + col;
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
          L::Store(next + kL * j, L::Fma(w0, h[j], b[j]));
          L::Store(after + kL * j, L::Mul(w1, h[j]));
        }
      }
    }
  }

  // Requests into L1 the gradOut of rows 2k + 8 and 2k + 9 under the S vectors of gradInput columns
  // at `at` (row 2k) in QuadSteadyRows, which reads rows 2k and 2k + 1 of four planes (with AVX2 a
  // block at a time): the hardware prefetchers alone do not keep enough of these rows in flight
  // (eight rows ahead is the best distance measured). Strip's rows gain nothing from it.
  template <int S>
  __attribute__((always_inline)) static void PrefetchAhead(const float *at, int64_t rowStride) {
#pragma GCC unroll 16
    for (int q = 0; q < 2 * S * kL; q += 16) {
      _mm_prefetch(reinterpret_cast<const char *>(at + 8 * rowStride + q), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(at + 9 * rowStride + q), _MM_HINT_T0);
    }
  }

  // Quad's open H sums of plane p: the one row 2k finishes (index k - 1) and the one it continues (k).
  float *FinishingSum(int p) { return lockState_[p][0]; }
  float *OpenSum(int p) { return lockState_[p][1]; }

  template <int V>
  __attribute__((always_inline)) static void LoadSums(const float *at, Vec (&v)[V]) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) v[j] = L::Load(at + kL * j);
  }
  template <int V>
  __attribute__((always_inline)) static void StoreSums(float *at, const Vec (&v)[V]) {
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) L::Store(at + kL * j, v[j]);
  }

  // The common shapes of a plane's D step (PlanD) in the row loop: two indices, one term each, the
  // first adding; the second assigning (an odd plane), or adding while the first is finished and
  // streamed (an even plane); anything else (the axis ends, rows not streamed straight) goes through
  // DStepVectors.
  enum class DKind { kGeneric, kAddAssign, kStreamAdd };

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

  // Indices k .. end - 1, each past the chunk's first and before the axis's last (so row 2k
  // finishes k - 1 and row 2k + 1 starts k + 1), two per iteration with the sums' roles exchanged.
  // Returns the next k; *odd: an odd count was done (the roles end exchanged).
  template <int V, RowEnd kRowEnd, DKind kKind>
  __attribute__((always_inline)) int64_t SteadyRows(const DPlan &d, const float *strips,
                                                    const StripEdges &edges, int64_t k, int64_t end,
                                                    Vec (&sum)[V], Vec (&last)[V], bool *odd) {
    for (; k + 2 <= end; k += 2) {
      SteadyRow<V, kRowEnd, kKind>(d, strips, edges, k, sum, last);
      SteadyRow<V, kRowEnd, kKind>(d, strips, edges, k + 1, last, sum);
    }
    if (k < end) {
      SteadyRow<V, kRowEnd, kKind>(d, strips, edges, k, sum, last);
      *odd = true;
      return k + 1;
    }
    return k;
  }

  template <int V, RowEnd kRowEnd, DKind kKind>
  __attribute__((always_inline)) void SteadyRow(const DPlan &d, const float *strips, const StripEdges &edges,
                                                int64_t k, Vec (&sum)[V], Vec (&last)[V]) {
    const Vec hFar = L::Set1(kHFar), hNear = L::Set1(kHNear);
    const int64_t rowStride = src_.strides[3];
    const float *row = strips + 2 * k * rowStride;
    Vec r[V];
    WStep<V, kRowEnd>(row, edges, r);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) last[j] = L::Fma(hFar, r[j], last[j]);
    DStepFixed<V, kKind>(d, k - 1, last);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) sum[j] = L::Fma(hNear, r[j], sum[j]);
    WStep<V, kRowEnd>(row + rowStride, edges, r);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      sum[j] = L::Fma(hNear, r[j], sum[j]);
      last[j] = L::Mul(hFar, r[j]);
    }
  }

  // Rows 2k and 2k + 1: row 2k finishes k - 1 (`last`) and continues k (`sum`); row 2k + 1 continues
  // k and starts k + 1 in `last` (or, at the axis end, finishes k: returns true).
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) bool RowPair(const DPlan &d, const float *strips, const StripEdges &edges,
                                              int64_t k, Vec (&sum)[V], Vec (&last)[V]) {
    const int64_t inH = t_.h.inSize, rowStride = src_.strides[3];
    const Vec hFar = L::Set1(kHFar), hNear = L::Set1(kHNear);
    const Vec zero = L::Zero();
    const float *row = strips + 2 * k * rowStride;
    Vec r[V];
    WStep<V, kRowEnd>(row, edges, r);  // row 2k
    if (k == 0) {
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) {
        sum[j] = L::Fma(hNear, r[j], L::Mul(hFar, r[j]));  // 2k - 1 clamped
        if (inH == 1) {
          sum[j] = L::Fma(zero, r[j], sum[j]);  // the zero-weight tap, on index 0 itself
        } else {
          last[j] = L::Mul(zero, r[j]);  // index 1's zero-weight tap
        }
      }
    } else {
      if (k > h0_) {
#pragma GCC unroll 8
        for (int j = 0; j < V; ++j) last[j] = L::Fma(hFar, r[j], last[j]);
        DStepVectors<V>(d, k - 1, last);
      }
#pragma GCC unroll 8
      for (int j = 0; j < V; ++j) sum[j] = L::Fma(hNear, r[j], sum[j]);
    }
    WStep<V, kRowEnd>(row + rowStride, edges, r);  // row 2k + 1
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) {
      sum[j] = L::Fma(hNear, r[j], sum[j]);
      last[j] = k == 0 ? L::Fma(hFar, r[j], last[j]) : L::Mul(hFar, r[j]);  // k + 1
    }
    if (k + 1 < inH) return false;  // else the axis end: row 2k + 2 is row 2k + 1
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) sum[j] = L::Fma(hFar, r[j], sum[j]);
    DStepVectors<V>(d, k, sum);
    return true;
  }

  // The chunk ends inside the axis: index h1 - 1 (`last`) takes its last term, row 2 h1.
  template <int V, RowEnd kRowEnd>
  __attribute__((always_inline)) void LastTerm(const DPlan &d, const float *strips, const StripEdges &edges,
                                               Vec (&last)[V]) {
    Vec r[V];
    WStep<V, kRowEnd>(strips + 2 * h1_ * src_.strides[3], edges, r);
    const Vec hFar = L::Set1(kHFar);
#pragma GCC unroll 8
    for (int j = 0; j < V; ++j) last[j] = L::Fma(hFar, r[j], last[j]);
    DStepVectors<V>(d, h1_ - 1, last);
  }
#else
  // W then H steps of one gradOut plane on whole rows of scratch.
  void WAndHSteps(const StencilStep &plane, const float *planeBase) {
    const int64_t inW = t_.w.inSize;
    for (const StencilStep &step : hSteps_) {
      WStep(SrcRow(planeBase, step.src), inW, rowW_);
      for (int e = 0; e < step.count; ++e) {
        const StencilEntry &en = step.e[e];
        AxpyRow(rowH_[en.dst & 1], rowW_, en.w, inW, en.assign);
      }
      if (step.finish >= 0) DStepRow(plane, step.finish, rowH_[step.finish & 1]);
    }
  }

  // The D step of the finished H row ih (a whole row, `values`) for gradOut plane `plane`.
  void DStepRow(const StencilStep &plane, int64_t ih, const float *values) {
    for (int e = 0; e < plane.count; ++e) {
      const StencilEntry &en = plane.e[e];
      AxpyRow(Slot(en.dst) + (ih - h0_) * stride_, values, en.w, t_.w.inSize, en.assign);
    }
  }

  // r[k] = 1/4 g[2k - 1] + 3/4 g[2k] + 3/4 g[2k + 1] + 1/4 g[2k + 2] (clamped), and r[min(1, inW - 1)]
  // += 0 * g[0] (the zero-weight tap).
  static void WStep(const float *g, int64_t inW, float *r) {
    const int64_t last = 2 * inW - 1;
    for (int64_t k = 0; k < inW; ++k) {
      const float before = g[k == 0 ? 0 : 2 * k - 1];
      const float after = g[2 * k + 2 <= last ? 2 * k + 2 : last];
      r[k] = 0.25f * before + 0.75f * g[2 * k] + 0.75f * g[2 * k + 1] + 0.25f * after;
    }
    r[inW > 1 ? 1 : 0] += 0.0f * g[0];
  }
#endif

  const TilingData &t_;
  const TensorView5d &src_;
  const TensorView5d &dst_;
  DstRowWriter<float> out_;
  int64_t stride_ = 0, planeElems_ = 0, h0_ = 0, h1_ = 0;
  bool directRows_ = false;                 // finished rows go straight to gradInput (DStepVectors)
  bool alignedRows_ = false;                // ... as whole lines, streamed from the registers
#if defined(TRILINEAR3D_HAVE_AVX2)          // AVX-512 builds too
  alignas(64) float lockState_[4][2][128];  // Quad's open H sums, per plane (rows of up to 128)
  bool partialEnd_ = false;                 // the row's last vector is partial (masks needed)
#endif
#if defined(TRILINEAR3D_HAVE_AVX512)
  __mmask16 lastLo_ = 0, lastHi_ = 0, lastLane_ = 0, zeroTapLane_ = 0;
#endif
#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
  __m256i lastLo_, lastHi_;  // the masks of the last vector's halves (WVectorPartial)
  __m256 zeroTapLane_;       // lane min(1, inW - 1)
  int64_t lastN_ = 0;        // gradOut elements of the row's last vector
#endif
  float *slots_[2] = {nullptr, nullptr};
  float *rowW_ = nullptr, *rowH_[2] = {nullptr, nullptr};
  const float *srcBase_ = nullptr;
  float *dstBase_ = nullptr;
  std::vector<StencilStep> dSteps_, hSteps_;  // hSteps_: the portable path only
};

}  // namespace

void RunBackwardStencil2x(const KernelArgs &args, int blockIdx) { RunItems<Stencil2xRunner>(args, blockIdx); }

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
