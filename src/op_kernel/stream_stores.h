// Streaming stores: rows written with non-temporal stores of whole 64-byte lines, for destinations
// written once and not read again soon (TilingData::streamStores), which skips the read-for-
// ownership of every line, and LineStreamer, which joins the rows of one contiguous span so that
// only the span's ends are part-written lines. The stores copy values unchanged, so results do not
// depend on them. Compiled once per ISA (included only from src/op_kernel/isa/*.cpp).
//
// Why LineStreamer does not stream each row: a row whose length is not a multiple of 16 floats
// leaves a part-written line at both ends, and a part-written line costs a read-modify-write in
// memory that a whole line does not, so streaming short rows (131 floats in bench case F5) one by
// one is slower than ordinary stores. Joined, only the span's first and last lines can be partial,
// and those use ordinary stores.
#ifndef TRILINEAR3D_OP_KERNEL_STREAM_STORES_H_
#define TRILINEAR3D_OP_KERNEL_STREAM_STORES_H_

#if !defined(TRILINEAR3D_ISA_REGION)
#error "an ISA header: include op_kernel/isa_begin.h before it"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "op_kernel/convert_rows.h"
#include "op_kernel/element_types.h"
#include "op_kernel/vector_lanes.h"

namespace trilinear3d::kernel::TRILINEAR3D_ISA {

// The 64-byte line at dst (64-byte aligned) copied from src (any alignment, bits unchanged) with
// non-temporal stores: one 64-byte store, or two 32-byte ones back to back, which fill the same
// write-combining buffer (16-byte ones did not, on this project's bench machine: far slower).
// StreamLineScaled: the same for w * src (each element w * src[i], rounded once).
#if defined(TRILINEAR3D_HAVE_AVX512)
inline void StreamLine(void *dst, const void *src) {
  _mm512_stream_si512(static_cast<__m512i *>(dst), _mm512_loadu_si512(src));
}

inline void StreamLineScaled(float *dst, const float *src, float w) {
  _mm512_stream_ps(dst, _mm512_mul_ps(_mm512_set1_ps(w), _mm512_loadu_ps(src)));
}
#elif defined(TRILINEAR3D_HAVE_AVX2)
inline void StreamLine(void *dst, const void *src) {
  __m256i *d = static_cast<__m256i *>(dst);
  const __m256i *s = static_cast<const __m256i *>(src);
  _mm256_stream_si256(d, _mm256_loadu_si256(s));
  _mm256_stream_si256(d + 1, _mm256_loadu_si256(s + 1));
}

inline void StreamLineScaled(float *dst, const float *src, float w) {
  const __m256 wv = _mm256_set1_ps(w);
  _mm256_stream_ps(dst, _mm256_mul_ps(wv, _mm256_loadu_ps(src)));
  _mm256_stream_ps(dst + 8, _mm256_mul_ps(wv, _mm256_loadu_ps(src + 8)));
}
#endif

// StoreRow for a contiguous destination that is written once and not read again soon (the
// forward's output): non-temporal stores skip the read-for-ownership of every destination line.
// The caller issues StreamFence() before the data is handed to another thread.
template <typename T>
inline void StoreRowStreaming(const Acc<T> *__restrict src, T *dst, int64_t n) {
#if defined(TRILINEAR3D_HAVE_AVX2)
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    constexpr int64_t kLineElems = 64 / sizeof(T);
    int64_t i = 0;
    while (i < n && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0) {
      dst[i] = src[i];
      ++i;
    }
    for (; i + kLineElems <= n; i += kLineElems) StreamLine(dst + i, src + i);
    for (; i < n; ++i) dst[i] = src[i];
    return;
  }
#endif
  StoreRow<T>(src, dst, 1, n);
}

// dst = w * src for a contiguous fp32 destination written once (StoreRowStreaming with the scale
// fused in: one pass instead of scaling into a buffer first).
inline void StoreRowStreamingScaled(const float *__restrict src, float w, float *dst, int64_t n) {
  int64_t i = 0;
#if defined(TRILINEAR3D_HAVE_AVX2)
  while (i < n && (reinterpret_cast<uintptr_t>(dst + i) & 63) != 0) {
    dst[i] = w * src[i];
    ++i;
  }
  for (; i + 16 <= n; i += 16) StreamLineScaled(dst + i, src + i, w);
#endif
  for (; i < n; ++i) dst[i] = w * src[i];
}

#if defined(TRILINEAR3D_HAVE_AVX2) || defined(TRILINEAR3D_HAVE_VEC128)  // AVX-512 builds too
// dst = w0 * a + w1 * b (b null: w0 * a), n fp32 elements, for a 64-byte aligned destination of whole
// lines (n a multiple of 16) written once: non-temporal stores of the results (a plain store on
// aarch64). The operations are BlendRows' (the AVX tiers: w1 * b rounded, then w0 * a added with one
// FMA; the 128-bit tier: w0 * a rounded, then w1 * b added by Vec128Lanes::Fma), so the same bits.
inline void StreamBlendRows(float *dst, const float *a, float w0, const float *b, float w1, int64_t n) {
  using L = TierLanes<float>;
  constexpr int64_t kL = L::kLanes;
  const typename L::Vec v0 = L::Broadcast(w0), v1 = L::Broadcast(w1);
  if (b == nullptr) {
    for (int64_t i = 0; i < n; i += kL) L::Stream(dst + i, L::Mul(v0, L::Load(a + i)));
    return;
  }
  for (int64_t i = 0; i < n; i += kL) {
#if defined(TRILINEAR3D_HAVE_AVX2)
    L::Stream(dst + i, L::Fma(v0, L::Load(a + i), L::Mul(v1, L::Load(b + i))));
#else
    L::Stream(dst + i, L::Fma(v1, L::Load(b + i), L::Mul(v0, L::Load(a + i))));
#endif
  }
}
#endif

inline void StreamFence() {
#if defined(TRILINEAR3D_HAVE_AVX2) || (defined(TRILINEAR3D_HAVE_VEC128) && defined(__SSE2__))  // and SSE2's
  _mm_sfence();
#endif
}

// Writes one contiguous destination span, handed over piece by piece in order (the rows of a dense
// plane), with non-temporal stores of whole 64-byte lines only. T: float or double (stored as
// computed, no conversion).
template <typename T>
class LineStreamer {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "stores the accumulation type");

 public:
  static constexpr int64_t kLineElems = 64 / static_cast<int64_t>(sizeof(T));

  // Starts a span at dst (any alignment); the previous span must have been finished.
  void Begin(T *dst) {
    next_ = dst;
    count_ = 0;
  }

  // Appends src[0, n) to the span.
  void Put(const T *src, int64_t n) {
#if defined(TRILINEAR3D_HAVE_AVX2)  // AVX-512 builds too
    while (n > 0) {
      if (count_ == 0 && LineOffset(next_) == 0) {
        const int64_t whole = n / kLineElems * kLineElems;
        for (int64_t i = 0; i < whole; i += kLineElems) StreamLine(next_ + i, src + i);
        next_ += whole;
        src += whole;
        n -= whole;
        CopyIn(pending_, src, n);
        count_ = n;
        return;
      }
      // pending_ holds [next_, next_ + count_), the start of the line that ends at lineEnd.
      const int64_t room = kLineElems - LineOffset(next_) - count_;
      const int64_t k = std::min(room, n);
      CopyIn(pending_ + count_, src, k);
      count_ += k;
      src += k;
      n -= k;
      if (k == room) {  // the line is complete: whole (streamed) or the span's unaligned head
        if (count_ == kLineElems) {
          StreamLine(next_, pending_);
        } else {
          CopyFew(next_, pending_, count_);
        }
        next_ += count_;
        count_ = 0;
      }
    }
#else
    // The baseline build (no AVX2) uses ordinary stores throughout (StoreRowStreaming).
    std::memcpy(next_, src, static_cast<size_t>(n) * sizeof(T));
    next_ += n;
#endif
  }

  // Stores what is pending (the span's last, partial line) with ordinary stores. (In the baseline
  // build Put keeps nothing pending.)
  void Finish() {
#if defined(TRILINEAR3D_HAVE_AVX2)
    CopyFew(next_, pending_, count_);
    next_ += count_;
    count_ = 0;
#endif
  }

 private:
  // Elements between the start of p's line and p.
  static int64_t LineOffset(const T *p) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p) & 63) / static_cast<int64_t>(sizeof(T));
  }

#if defined(TRILINEAR3D_HAVE_AVX512)
  // dst[0, k) = src[0, k) for k <= kLineElems, one masked load and store (no library call: this
  // runs twice per row).
  static void CopyFew(T *dst, const T *src, int64_t k) {
    const auto mask = static_cast<uint32_t>((uint64_t{1} << k) - 1);
    if constexpr (std::is_same_v<T, float>) {
      _mm512_mask_storeu_ps(dst, static_cast<__mmask16>(mask),
                            _mm512_maskz_loadu_ps(static_cast<__mmask16>(mask), src));
    } else {
      _mm512_mask_storeu_pd(dst, static_cast<__mmask8>(mask),
                            _mm512_maskz_loadu_pd(static_cast<__mmask8>(mask), src));
    }
  }
#elif defined(TRILINEAR3D_HAVE_AVX2)
  // CopyFew with AVX2's masked loads and stores, one per 32-byte half of the line: nothing outside
  // [0, k) is read or written.
  static void CopyFew(T *dst, const T *src, int64_t k) {
    using L = Avx2Lanes<T>;
    for (int64_t h = 0; h < k; h += L::kLanes) {
      const typename L::Mask m = L::FirstLanes(k - h);
      L::Store(dst + h, L::Load(src + h, m), m);
    }
  }
#endif

#if defined(TRILINEAR3D_HAVE_AVX2) && !defined(TRILINEAR3D_HAVE_AVX512)
  // CopyFew into pending_ (at its element count_ < kLineElems): masked loads, whole stores, whose lanes
  // past k (zeros) land in pending_'s second line or on elements a later Put writes before they are
  // read. AVX2's masked stores are slow on AMD CPUs, and this runs twice per row.
  static void CopyIn(T *dst, const T *src, int64_t k) {
    using L = Avx2Lanes<T>;
    for (int64_t h = 0; h < k; h += L::kLanes) L::Store(dst + h, L::Load(src + h, L::FirstLanes(k - h)));
  }
#elif defined(TRILINEAR3D_HAVE_AVX2)
  static void CopyIn(T *dst, const T *src, int64_t k) { CopyFew(dst, src, k); }
#endif

  T *next_ = nullptr;  // where pending_[0] goes
  // The pending line, and room for CopyIn's whole stores past it.
  T pending_[2 * kLineElems] = {};
  int64_t count_ = 0;  // elements in pending_
};

}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#endif  // TRILINEAR3D_OP_KERNEL_STREAM_STORES_H_
