// The AVX512-VNNI INT8 engine: VPDPBUSD multiplies unsigned by signed bytes, so B is biased by 128 (XOR of the
// sign bit) and 128 * rowsum(A) is subtracted at the end: sum_l (b + 128) a = sum_l a b + 128 sum_l a. All int32
// arithmetic wraps modulo 2^32 and the true result fits, so the result is exact. Compiled with AVX-512 flags;
// called only after cpu::has_avx512vnni().
//
// The part kernel (int8_kernel.hpp) runs the 8-row passes that hold live rows, one zmm of columns where cols <= 16,
// and the live quads of k only: the A bytes of a live row past depth are zero, so its row sum (over the whole kc)
// is the sum over the live depth, and the bias correction stays exact.
#include <immintrin.h>

#include "engine/int8_kernel.hpp"

namespace bf16x::engine::int8 {
namespace {

// Rows pass * 8 .. of the tile, `quads` groups of 4 k; Halves: zmm of 16 columns (1 or 2); live: rows stored (<= 8).
template <int Halves>
inline void pass8(const std::int8_t* a, const std::int8_t* b, int quads, const std::int32_t* rowsum, std::int32_t* c,
                  std::int64_t ldc, int pass, int live) {
  const __m512i bias = _mm512_set1_epi8(char(0x80));
  __m512i acc[8][2];
  for (int r = 0; r < 8; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  const std::int8_t* ab = a + pass * 8 * 64;
  for (int q = 0; q < quads; ++q) {
    const __m512i b0 = _mm512_xor_si512(_mm512_loadu_si512(b + q * 128), bias);
    const __m512i b1 = Halves == 2 ? _mm512_xor_si512(_mm512_loadu_si512(b + q * 128 + 64), bias) : b0;
    const std::int8_t* ap = ab + (q / 16) * 2048 + (q % 16) * 4;
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      std::int32_t w;
      __builtin_memcpy(&w, ap + r * 64, 4);
      const __m512i av = _mm512_set1_epi32(w);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], b0, av);
      if (Halves == 2) acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], b1, av);
    }
  }
  for (int r = 0; r < live; ++r) {
    const int i = pass * 8 + r;
    const __m512i corr = _mm512_set1_epi32(std::int32_t(std::uint32_t(rowsum[i]) * 128u));
    std::int32_t* cr = c + i * ldc;
    _mm512_storeu_si512(cr, _mm512_add_epi32(_mm512_loadu_si512(cr), _mm512_sub_epi32(acc[r][0], corr)));
    if (Halves == 2)
      _mm512_storeu_si512(cr + 16, _mm512_add_epi32(_mm512_loadu_si512(cr + 16), _mm512_sub_epi32(acc[r][1], corr)));
  }
}

}  // namespace

void kernel_avx512vnni(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc) {
  const std::int32_t* rowsum = a_rowsums(a, kc);
  // Four passes of 8 rows x 32 columns (16 accumulators), the B panel streaming from L1 each pass.
  for (int pass = 0; pass < 4; ++pass) pass8<2>(a, b, kc / 4, rowsum, c, ldc, pass, 8);
}

void part_avx512vnni(const std::int8_t* a, const std::int8_t* b, int kc, int depth, std::int32_t* c, std::int64_t ldc,
                     int rows, int cols) {
  const std::int32_t* rowsum = a_rowsums(a, kc);
  const int quads = depth / 4;
  for (int pass = 0; pass * 8 < rows; ++pass) {
    const int live = rows - pass * 8 < 8 ? rows - pass * 8 : 8;
    if (cols > 16)
      pass8<2>(a, b, quads, rowsum, c, ldc, pass, live);
    else
      pass8<1>(a, b, quads, rowsum, c, ldc, pass, live);
  }
}

}  // namespace bf16x::engine::int8
