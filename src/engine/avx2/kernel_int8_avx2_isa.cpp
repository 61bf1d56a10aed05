// The AVX2 INT8 engine: VPMADDWD multiplies int16 pairs and sums two exact products into each int32 lane, so the
// int8 operands are widened to int16 first. Each call widens its A and B panels once per segment of k (kSeg), into
// stack buffers that stay in L1/L2, instead of once per use: the loop then reads int16 B rows and broadcasts int16
// A quads from memory (no shuffles in it). Lanes hold (column, k pair) partial sums, added pairwise at the end. The
// sums are exact int32 sums, so any order gives the reference's values. The part kernel (int8_kernel.hpp) widens
// and runs only the live rows (in passes of 4), column groups of 8 and quads of k.
// Compiled with -mavx2 -mfma (cmake/isa.cmake); called only after cpu::has_avx2_fma().
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "engine/int8_kernel.hpp"

namespace bf16x::engine::int8 {
namespace {

constexpr int kSeg = 256;  // k per widened segment: 2 x 32 x 256 int16 = 32 KiB of stack

// A rows 0..rows-1, k l0..l0+len-1 (len a multiple of 16) -> a16[r * kSeg + l]; B quads of the same k, columns
// 0..8 groups-1 -> b16[q * 128 + c * 4 + l % 4] (the packed layout, widened).
inline void widen(const std::int8_t* a, const std::int8_t* b, int l0, int len, int rows, int groups, std::int16_t* a16,
                  std::int16_t* b16) {
  for (int r = 0; r < rows; ++r)
    for (int l = 0; l < len; l += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + a_index(r, l0 + l)));
      _mm256_store_si256(reinterpret_cast<__m256i*>(a16 + r * kSeg + l), _mm256_cvtepi8_epi16(x));
    }
  const std::int8_t* bs = b + std::size_t(l0) * kTile;
  if (groups == 4) {  // whole quads: one run
    for (int i = 0; i < len * kTile; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bs + i));
      _mm256_store_si256(reinterpret_cast<__m256i*>(b16 + i), _mm256_cvtepi8_epi16(x));
    }
    return;
  }
  const int row_bytes = groups * 32;  // of each quad's 128
  for (int q = 0; q < len / 4; ++q)
    for (int i = q * 128; i < q * 128 + row_bytes; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bs + i));
      _mm256_store_si256(reinterpret_cast<__m256i*>(b16 + i), _mm256_cvtepi8_epi16(x));
    }
}

// The live rows x cols of the tile from the first `depth` k (a multiple of 4): passes of 4 rows over the live rows
// (rows widened up to a multiple of 4), groups of 8 columns over the live columns, the live quads.
void tile(const std::int8_t* a, const std::int8_t* b, int depth, std::int32_t* c, std::int64_t ldc, int rows,
          int cols) {
  alignas(32) std::int16_t a16[kTile * kSeg];
  alignas(32) std::int16_t b16[kSeg * kTile];
  const int passes = (rows + 3) / 4, groups = (cols + 7) / 8;
  for (int l0 = 0; l0 < depth; l0 += kSeg) {
    const int len = std::min(kSeg, depth - l0), quads = len / 4;
    widen(a, b, l0, (len + 15) / 16 * 16, passes * 4, groups, a16, b16);
    // Passes of 4 rows x 8 columns: 8 accumulators (4 columns x 2 k pairs each), 2 B vectors, 1 broadcast.
    for (int rp = 0; rp < passes; ++rp)
      for (int cg = 0; cg < groups; ++cg) {
        __m256i acc[4][2];
        for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
        const std::int16_t* ar = a16 + rp * 4 * kSeg;
        for (int q = 0; q < quads; ++q) {
          const std::int16_t* bq = b16 + q * 128 + cg * 32;
          const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(bq));
          const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(bq + 16));
#pragma GCC unroll 4
          for (int r = 0; r < 4; ++r) {
            long long w;
            std::memcpy(&w, ar + r * kSeg + 4 * q, sizeof w);
            const __m256i av = _mm256_set1_epi64x(w);
            acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b0));
            acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b1));
          }
        }
        for (int r = 0; r < 4 && rp * 4 + r < rows; ++r) {
          // hadd: [c0 c1 c4 c5 | c2 c3 c6 c7] -> permute the 64-bit halves into column order.
          const __m256i s = _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[r][0], acc[r][1]), 0xD8);
          std::int32_t* cr = c + (rp * 4 + r) * ldc + cg * 8;
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(cr),
                              _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cr)), s));
        }
      }
  }
}

}  // namespace

void kernel_avx2(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc) {
  tile(a, b, kc, c, ldc, kTile, kTile);
}

void part_avx2(const std::int8_t* a, const std::int8_t* b, int, int depth, std::int32_t* c, std::int64_t ldc, int rows,
               int cols) {
  tile(a, b, depth, c, ldc, rows, cols);
}

}  // namespace bf16x::engine::int8
