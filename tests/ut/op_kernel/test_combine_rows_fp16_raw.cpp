// CombineRowsFp16Raw (op_kernel/combine_rows_fp16_raw.h, compiled here as the baseline tier's code): the
// width-last backward's fp16 D step on the SSE2 tier, which widens its sources raw as it loads them, must
// give the bits CombineRows gives over the same rows widened exactly (LoadRow) with the unscaled weights,
// into one slab or two (a pair), from zero or onto what they hold; and must refuse (return false) a row
// holding an inf or a NaN anywhere, or MXCSR's denormals-are-zero or flush-to-zero modes. On a tier
// without it, it refuses every call.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "op_kernel/isa_begin.h"

#include "op_kernel/combine_rows_fp16_raw.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace trilinear3d::kernel::TRILINEAR3D_ISA {
namespace {

uint32_t Bits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// k rows of n finite fp16 from every part of the range (subnormals, the largest normals, both signs).
std::vector<std::vector<Fp16>> FiniteRows(std::mt19937 &rng, int k, int64_t n) {
  std::uniform_int_distribution<uint32_t> bits(0, 0xffff);
  std::vector<std::vector<Fp16>> rows(static_cast<size_t>(k), std::vector<Fp16>(static_cast<size_t>(n)));
  for (auto &row : rows) {
    for (auto &x : row) {
      uint32_t h = bits(rng);
      while ((h & 0x7fffu) > 0x7bffu) h = bits(rng);
      x.bits = static_cast<uint16_t>(h);
    }
  }
  return rows;
}

std::vector<float> Weights(std::mt19937 &rng, int k) {
  std::uniform_real_distribution<float> w(-1.0f, 1.0f);
  std::vector<float> out(static_cast<size_t>(k));
  for (auto &x : out) x = w(rng);
  return out;
}

std::vector<float> Scaled(const std::vector<float> &w) {
  std::vector<float> out(w);
  for (auto &x : out) x *= 0x1p112f;
  return out;
}

// CombineRows over the rows widened exactly (the widened slabs' D step), into dst.
void ExactCombine(float *dst, const std::vector<std::vector<Fp16>> &rows, const std::vector<float> &w,
                  int64_t n, bool accumulate) {
  std::vector<std::vector<float>> widened(rows.size(), std::vector<float>(static_cast<size_t>(n)));
  std::vector<const float *> src;
  for (size_t j = 0; j < rows.size(); ++j) {
    LoadRow(rows[j].data(), 1, widened[j].data(), n);
    src.push_back(widened[j].data());
  }
  CombineRows(dst, src.data(), w.data(), static_cast<int>(rows.size()), n, accumulate);
}

std::vector<const Fp16 *> Pointers(const std::vector<std::vector<Fp16>> &rows) {
  std::vector<const Fp16 *> out;
  for (const auto &row : rows) out.push_back(row.data());
  return out;
}

void ExpectSameBits(const std::vector<float> &got, const std::vector<float> &want, const char *what, int k,
                    int64_t n) {
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(Bits(got[i]), Bits(want[i])) << what << " element " << i << " of " << n << ", " << k << " taps";
  }
}

// Rows of 1 to 40 elements (each offset into the eight-lane steps and the tail) and a piece of 1024, 1 to
// 11 taps (over eight: a second sweep), single and paired, from zero and accumulating.
TEST(CombineRowsFp16Raw, SameBitsAsTheExactlyWidenedRows) {
  std::mt19937 rng(20261207);
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(1024);
  for (const int64_t n : lengths) {
    for (int k = 1; k <= 11; ++k) {
      for (int mode = 0; mode < 6; ++mode) {  // single from zero or onto dst; a pair, each of its four
        const bool pair = mode >= 2, accumulate = (mode % 2) == 1, accumulateB = mode >= 4;
        const auto rows = FiniteRows(rng, k, n);
        const std::vector<float> w = Weights(rng, k), wB = Weights(rng, k);
        const std::vector<float> start = Weights(rng, static_cast<int>(n)),
                                 startB = Weights(rng, static_cast<int>(n));
        std::vector<float> want = start, wantB = startB, got = start, gotB = startB;
        ExactCombine(want.data(), rows, w, n, accumulate);
        if (pair) ExactCombine(wantB.data(), rows, wB, n, accumulateB);
        const auto src = Pointers(rows);
        const std::vector<float> ws = Scaled(w), wsB = Scaled(wB);
        const bool raw = CombineRowsFp16Raw(got.data(), pair ? gotB.data() : nullptr, src.data(), ws.data(),
                                            wsB.data(), k, n, accumulate, accumulateB);
        ASSERT_EQ(raw, kHaveFp16RawRows) << n << " elements, " << k << " taps";
        if (!raw) continue;
        ExpectSameBits(got, want, "dst", k, n);
        if (pair) ExpectSameBits(gotB, wantB, "dstB", k, n);
      }
    }
  }
}

// An inf or a NaN in any row, at any position of a row of 40 (the vector steps and the tail): refused.
TEST(CombineRowsFp16Raw, RefusesRowsWithInfOrNan) {
  std::mt19937 rng(7);
  constexpr uint16_t kSpecials[] = {0x7c00, 0xfc00, 0x7c01, 0x7e00, 0xffff};
  constexpr int kTaps = 3;
  constexpr int64_t kN = 40;
  const std::vector<float> w = Scaled(Weights(rng, kTaps));
  std::vector<float> dst(kN), dstB(kN);
  for (int row = 0; row < kTaps; ++row) {
    for (int64_t position = 0; position < kN; ++position) {
      for (const uint16_t special : kSpecials) {
        auto rows = FiniteRows(rng, kTaps, kN);
        rows[static_cast<size_t>(row)][static_cast<size_t>(position)].bits = special;
        const auto src = Pointers(rows);
        EXPECT_FALSE(CombineRowsFp16Raw(dst.data(), dstB.data(), src.data(), w.data(), w.data(), kTaps, kN,
                                        false, false))
            << "0x" << std::hex << special << std::dec << " in row " << row << " at " << position;
      }
    }
  }
}

#if defined(__SSE2__)
// Under DAZ or FTZ a raw subnormal would read, or a raw sum flush, as zero: refused.
TEST(CombineRowsFp16Raw, RefusedUnderDazOrFtz) {
  std::mt19937 rng(11);
  const auto rows = FiniteRows(rng, 2, 24);
  const auto src = Pointers(rows);
  const std::vector<float> w = Scaled(Weights(rng, 2));
  std::vector<float> dst(24);
  const unsigned saved = _mm_getcsr();
  for (const unsigned mode : {1u << 6, 1u << 15}) {
    _mm_setcsr(saved | mode);
    const bool raw =
        CombineRowsFp16Raw(dst.data(), nullptr, src.data(), w.data(), w.data(), 2, 24, false, false);
    _mm_setcsr(saved);
    EXPECT_FALSE(raw) << "MXCSR bit " << mode;
  }
}
#endif

}  // namespace
}  // namespace trilinear3d::kernel::TRILINEAR3D_ISA

#include "op_kernel/isa_end.h"
