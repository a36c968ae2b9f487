// The fp16 widening of op_kernel/convert_rows.h on the 128-bit tier (compiled here as the baseline tier's
// code), against the scalar HalfToFloat, for every one of the 65536 fp16 patterns: LoadRow (on SSE2 the
// integer widening eight or sixteen lanes a step, a row holding an inf or a NaN widened again exactly) and
// the raw widening the width-last backward's fp16 slabs take (2^-112 times the values, exact once
// multiplied by 2^112), at every row offset and length that changes which of its steps takes an element.
// The tier's bits rest on these widenings being exact: the kernels' tests see them only through sums.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "op_kernel/isa_begin.h"

#include "op_kernel/convert_rows.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

// n as the compiler cannot see it: a row length it knew would let it reason about LoadRow's loops for
// that length alone (GCC then warns of an overflow in a tail loop that never runs).
int64_t Opaque(int64_t n) {
  volatile int64_t hidden = n;
  return hidden;
}

uint32_t Bits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// The non-finite patterns a row's fast path must notice: +inf, -inf, a signalling and a quiet NaN, and the
// all-ones NaN.
constexpr uint16_t kSpecials[] = {0x7c00, 0xfc00, 0x7c01, 0x7e00, 0xffff};

// The patterns from `first` on (wrapping), n of them, as a row.
std::vector<Fp16> PatternRow(uint32_t first, int64_t n) {
  std::vector<Fp16> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) row[static_cast<size_t>(i)].bits = static_cast<uint16_t>(first + i);
  return row;
}

// A row of 40 finite values with `special` at `position`.
std::vector<Fp16> RowWithSpecial(uint16_t special, int position) {
  std::vector<Fp16> row = PatternRow(0x3c00, 40);
  row[static_cast<size_t>(position)].bits = special;
  return row;
}

// Every pattern through LoadRow, in rows of lengths 1 to 40 (each offset into the vector steps and the
// tail) and in one row of all 65536; and rows of finite values with one inf or NaN.
void ExpectLoadRowExact() {
  std::vector<float> out(65536);
  const std::vector<Fp16> all = PatternRow(0, 65536);
  LoadRow(all.data(), 1, out.data(), Opaque(65536));
  for (uint32_t h = 0; h < 65536; ++h) {
    ASSERT_EQ(Bits(out[h]), Bits(HalfToFloat(static_cast<uint16_t>(h)))) << "fp16 0x" << std::hex << h;
  }
  for (int64_t n = 1; n <= 40; ++n) {
    for (uint32_t first = 0; first < 65536; first += static_cast<uint32_t>(n) * 97) {
      const std::vector<Fp16> row = PatternRow(first, n);
      LoadRow(row.data(), 1, out.data(), Opaque(n));
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = row[static_cast<size_t>(i)].bits;
        ASSERT_EQ(Bits(out[static_cast<size_t>(i)]), Bits(HalfToFloat(h)))
            << "fp16 0x" << std::hex << h << std::dec << " at " << i << " of a row of " << n;
      }
    }
  }
  // One inf or NaN among finite values, at each position of a row of 40: the row widened exactly.
  for (int position = 0; position < 40; ++position) {
    for (const uint16_t special : kSpecials) {
      const std::vector<Fp16> row = RowWithSpecial(special, position);
      LoadRow(row.data(), 1, out.data(), Opaque(40));
      for (int i = 0; i < 40; ++i) {
        const uint16_t h = row[static_cast<size_t>(i)].bits;
        ASSERT_EQ(Bits(out[static_cast<size_t>(i)]), Bits(HalfToFloat(h)))
            << "fp16 0x" << std::hex << h << std::dec << " at " << i << ", the special at " << position;
      }
    }
  }
}

TEST(ConvertRowsFp16, LoadRowWidensEveryPatternExactly) { ExpectLoadRowExact(); }

#if defined(__SSE2__)
// Under DAZ and FTZ an fp16 subnormal, which the integer widening first builds as an fp32 denormal, must
// still widen to its value (the fast path steps aside).
TEST(ConvertRowsFp16, LoadRowWidensEveryPatternExactlyUnderDazAndFtz) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | (1u << 6) | (1u << 15));
  ExpectLoadRowExact();
  _mm_setcsr(saved);
}
#endif

// The raw widening: every finite pattern at 2^-112 times its value, at every offset of 0 to 18 into a row
// of all of them; a row holding an inf or a NaN anywhere in its first 40 elements refused. On a tier
// without it, it refuses every row.
TEST(ConvertRowsFp16, RawWideningIsExactOrRefused) {
  std::vector<Fp16> finite;
  for (uint32_t h = 0; h < 65536; ++h) {
    if ((h & 0x7fffu) <= 0x7bffu) finite.push_back(Fp16{static_cast<uint16_t>(h)});
  }
  std::vector<float> out(finite.size());
  for (size_t offset = 0; offset < 19; ++offset) {
    const int64_t n = static_cast<int64_t>(finite.size() - offset);
    const bool widened = WidenFp16Raw(finite.data() + offset, out.data(), Opaque(n));
    ASSERT_EQ(widened, kWidensFp16Raw) << "offset " << offset;
    if (!widened) continue;
    for (int64_t i = 0; i < n; ++i) {
      const uint16_t h = finite[offset + static_cast<size_t>(i)].bits;
      ASSERT_EQ(Bits(out[static_cast<size_t>(i)] * 0x1p112f), Bits(HalfToFloat(h)))
          << "fp16 0x" << std::hex << h << std::dec << " at offset " << offset;
    }
  }
  for (int position = 0; position < 40; ++position) {
    for (const uint16_t special : kSpecials) {
      const std::vector<Fp16> row = RowWithSpecial(special, position);
      EXPECT_FALSE(WidenFp16Raw(row.data(), out.data(), Opaque(40)))
          << "0x" << std::hex << special << std::dec << " at " << position;
    }
  }
}

}  // namespace
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
