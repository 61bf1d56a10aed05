// In-register 16 x 16 transposes of 32-bit elements and 8 x 8 of doubles, for the AVX-512 translation units of pack
// (the split of column-major operands), driver (the write of row-major accumulators down the columns of C) and crt
// (residue panels in the VNNI layout, lines across memory). Internal linkage:
// only *_avx512_isa.cpp files include it, so no baseline object can end up with this code (docs/isa.md).
#pragma once
#ifndef __AVX512F__
#error "transpose_avx512.hpp is for *_avx512_isa.cpp files only"
#endif
#include <immintrin.h>

namespace bf16x::pack {
namespace {

// 8 x 8 double transpose in place: pairs within 128-bit lanes, then lanes.
inline void transpose8(__m512d* r) {
  __m512d t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
  }
  for (int h = 0; h < 2; ++h) {  // rows 0-3 and 4-7
    u[4 * h + 0] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0x88);
    u[4 * h + 2] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0xdd);
    u[4 * h + 1] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0x88);
    u[4 * h + 3] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0xdd);
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm512_shuffle_f64x2(u[c], u[4 + c], 0x88);
    r[4 + c] = _mm512_shuffle_f64x2(u[c], u[4 + c], 0xdd);
  }
}

// r[0..15] are the rows; afterwards r[i] holds column i. 4x4 within 128-bit lanes (unpack 32/64), then 4x4 of
// lanes (two shuffles).
inline void transpose16(__m512i* r) {
  __m512i t[16], v[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // v[4i + c]: lane l holds rows 4i .. 4i+3 of column 4l + c.
  for (int i = 0; i < 4; ++i) {
    v[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    v[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    v[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    v[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    const __m512i x0 = _mm512_shuffle_i32x4(v[c], v[4 + c], 0x88), x1 = _mm512_shuffle_i32x4(v[c], v[4 + c], 0xdd);
    const __m512i x2 = _mm512_shuffle_i32x4(v[8 + c], v[12 + c], 0x88);
    const __m512i x3 = _mm512_shuffle_i32x4(v[8 + c], v[12 + c], 0xdd);
    r[c] = _mm512_shuffle_i32x4(x0, x2, 0x88);
    r[4 + c] = _mm512_shuffle_i32x4(x1, x3, 0x88);
    r[8 + c] = _mm512_shuffle_i32x4(x0, x2, 0xdd);
    r[12 + c] = _mm512_shuffle_i32x4(x1, x3, 0xdd);
  }
}

}  // namespace
}  // namespace bf16x::pack
