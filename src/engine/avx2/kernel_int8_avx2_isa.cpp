// The AVX2 INT8 engine: bytes sign-extended to int16 (VPMOVSXBW) and multiplied pairwise by VPMADDWD, which sums
// two exact products into each int32 lane: lanes hold (column, k pair) partial sums, added pairwise at the end.
// Compiled with -mavx2 -mfma (cmake/isa.cmake); called only after cpu::has_avx2_fma().
#include <immintrin.h>

#include "engine/int8_kernel.hpp"

namespace bf16x::engine::int8 {

void kernel_avx2(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc) {
  const int quads = kc / 4;
  // Passes of 4 rows x 8 columns: 8 accumulators (4 columns x 2 k pairs each), 2 B vectors, 1 broadcast.
  for (int rp = 0; rp < 8; ++rp)
    for (int cg = 0; cg < 4; ++cg) {
      __m256i acc[4][2];
      for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
      const std::int8_t* ab = a + rp * 4 * 64;
      for (int q = 0; q < quads; ++q) {
        const std::int8_t* bq = b + q * 128 + cg * 32;
        const __m256i b0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bq)));
        const __m256i b1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bq + 16)));
        const std::int8_t* ap = ab + (q / 16) * 2048 + (q % 16) * 4;
#pragma GCC unroll 4
        for (int r = 0; r < 4; ++r) {
          std::int32_t w;
          __builtin_memcpy(&w, ap + r * 64, 4);
          const __m256i av = _mm256_broadcastq_epi64(_mm_cvtepi8_epi16(_mm_cvtsi32_si128(w)));
          acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b0));
          acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b1));
        }
      }
      for (int r = 0; r < 4; ++r) {
        // hadd: [c0 c1 c4 c5 | c2 c3 c6 c7] -> permute the 64-bit halves into column order.
        const __m256i s = _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[r][0], acc[r][1]), 0xD8);
        std::int32_t* cr = c + (rp * 4 + r) * ldc + cg * 8;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(cr),
                            _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cr)), s));
      }
    }
}

}  // namespace bf16x::engine::int8
