// The AVX512-VNNI INT8 engine: VPDPBUSD multiplies unsigned by signed bytes, so B is biased by 128 (XOR of the
// sign bit) and 128 * rowsum(A) is subtracted at the end: sum_l (b + 128) a = sum_l a b + 128 sum_l a. All int32
// arithmetic wraps modulo 2^32 and the true result fits, so the result is exact. Compiled with AVX-512 flags;
// called only after cpu::has_avx512vnni().
#include <immintrin.h>

#include "engine/int8_kernel.hpp"

namespace bf16x::engine::int8 {

void kernel_avx512vnni(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc) {
  const __m512i bias = _mm512_set1_epi8(char(0x80));
  const std::int32_t* rowsum = a_rowsums(a, kc);
  const int quads = kc / 4;
  // Four passes of 8 rows x 32 columns (16 accumulators), the B panel streaming from L1 each pass.
  for (int pass = 0; pass < 4; ++pass) {
    __m512i acc[8][2];
    for (int r = 0; r < 8; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
    const std::int8_t* ab = a + pass * 8 * 64;
    for (int q = 0; q < quads; ++q) {
      const __m512i b0 = _mm512_xor_si512(_mm512_loadu_si512(b + q * 128), bias);
      const __m512i b1 = _mm512_xor_si512(_mm512_loadu_si512(b + q * 128 + 64), bias);
      const std::int8_t* ap = ab + (q / 16) * 2048 + (q % 16) * 4;
#pragma GCC unroll 8
      for (int r = 0; r < 8; ++r) {
        std::int32_t w;
        __builtin_memcpy(&w, ap + r * 64, 4);
        const __m512i av = _mm512_set1_epi32(w);
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], b0, av);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], b1, av);
      }
    }
    for (int r = 0; r < 8; ++r) {
      const int i = pass * 8 + r;
      const __m512i corr = _mm512_set1_epi32(std::int32_t(std::uint32_t(rowsum[i]) * 128u));
      std::int32_t* cr = c + i * ldc;
      _mm512_storeu_si512(cr, _mm512_add_epi32(_mm512_loadu_si512(cr), _mm512_sub_epi32(acc[r][0], corr)));
      _mm512_storeu_si512(cr + 16, _mm512_add_epi32(_mm512_loadu_si512(cr + 16), _mm512_sub_epi32(acc[r][1], corr)));
    }
  }
}

}  // namespace bf16x::engine::int8
