// write_block's exact-scale path with AVX-512: the row-major block accumulator is read in 16 x 16 (FP32) or
// 8 x 8 (FP64) sub-blocks, transposed in registers and written down the columns of C, with the same IEEE
// operations per element as the element loop (widen, times alpha's significand, times 2^(ea + eb + e_alpha), plus beta
// * C, round once), so the results are equal bit for bit. Built for AVX-512 F/BW/VL/DQ without FMA contraction
// (cmake/isa.cmake); called only where cpu::vector_level() is avx512.
#include <immintrin.h>

#include <algorithm>

#include "driver/write_block_avx512.hpp"
#include "pack/transpose_avx512.hpp"

namespace bf16x::driver {
namespace {

inline __mmask8 lanes8(int n) { return n >= 8 ? __mmask8(0xff) : __mmask8((1u << (n > 0 ? n : 0)) - 1); }
inline __mmask16 lanes16(int n) { return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n > 0 ? n : 0)) - 1); }

// 8 results of one column: (alpha * acc) * s [+ beta * c], in FP64.
inline __m512d finish(__m512d acc, __m512d s, __m512d alpha, __m512d beta, __m512d c, bool use_beta) {
  const __m512d v = _mm512_mul_pd(_mm512_mul_pd(alpha, acc), s);
  return use_beta ? _mm512_add_pd(v, _mm512_mul_pd(beta, c)) : v;
}

}  // namespace

void write_block_avx512(float* c, std::int64_t ldc, const float* acc, int ld, int rows, int cols, double alpha,
                        double beta, const double* sa, const double* sb) {
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  const bool use_beta = beta != 0.0;
  __m512i blk[16];
  // Down each strip of 16 columns: the 16 columns of C being written stay in the TLB and in L1.
  for (int c0 = 0; c0 < cols; c0 += 16) {
    const int nc = std::min(16, cols - c0);
    const __mmask16 mc = lanes16(nc);
    for (int r0 = 0; r0 < rows; r0 += 16) {
      const int nr = std::min(16, rows - r0);
      const __mmask16 mr = lanes16(nr);
      const __m512d s_lo = _mm512_maskz_loadu_pd(__mmask8(mr), sa + r0);
      const __m512d s_hi = _mm512_maskz_loadu_pd(__mmask8(mr >> 8), sa + r0 + 8);
      for (int i = 0; i < 16; ++i)
        blk[i] = i < nr ? _mm512_maskz_loadu_epi32(mc, acc + std::int64_t(r0 + i) * ld + c0) : _mm512_setzero_si512();
      pack::transpose16(blk);  // blk[j]: column c0 + j, rows r0 .. r0+15
      for (int j = 0; j < nc; ++j) {
        float* col = c + std::int64_t(c0 + j) * ldc + r0;
        const __m512 a = _mm512_castsi512_ps(blk[j]);
        const __m512d sc = _mm512_set1_pd(sb[c0 + j]);
        const __m512d s0 = _mm512_mul_pd(s_lo, sc), s1 = _mm512_mul_pd(s_hi, sc);
        __m512d c_lo = _mm512_setzero_pd(), c_hi = _mm512_setzero_pd();
        if (use_beta) {
          c_lo = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(__mmask8(mr), col));
          c_hi = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(__mmask8(mr >> 8), col + 8));
        }
        const __m512d lo = finish(_mm512_cvtps_pd(_mm512_castps512_ps256(a)), s0, va, vb, c_lo, use_beta);
        const __m512d hi = finish(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1))), s1,
                                  va, vb, c_hi, use_beta);
        _mm256_mask_storeu_ps(col, __mmask8(mr), _mm512_cvtpd_ps(lo));
        _mm256_mask_storeu_ps(col + 8, __mmask8(mr >> 8), _mm512_cvtpd_ps(hi));
      }
    }
  }
}

void write_block_avx512(double* c, std::int64_t ldc, const double* acc, int ld, int rows, int cols, double alpha,
                        double beta, const double* sa, const double* sb) {
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  const bool use_beta = beta != 0.0;
  __m512d blk[8];
  for (int c0 = 0; c0 < cols; c0 += 8) {
    const int nc = std::min(8, cols - c0);
    const __mmask8 mc = lanes8(nc);
    for (int r0 = 0; r0 < rows; r0 += 8) {
      const int nr = std::min(8, rows - r0);
      const __mmask8 mr = lanes8(nr);
      const __m512d s_r = _mm512_maskz_loadu_pd(mr, sa + r0);
      for (int i = 0; i < 8; ++i)
        blk[i] = i < nr ? _mm512_maskz_loadu_pd(mc, acc + std::int64_t(r0 + i) * ld + c0) : _mm512_setzero_pd();
      pack::transpose8(blk);  // blk[j]: column c0 + j, rows r0 .. r0+7
      for (int j = 0; j < nc; ++j) {
        double* col = c + std::int64_t(c0 + j) * ldc + r0;
        const __m512d s = _mm512_mul_pd(s_r, _mm512_set1_pd(sb[c0 + j]));
        const __m512d cv = use_beta ? _mm512_maskz_loadu_pd(mr, col) : _mm512_setzero_pd();
        _mm512_mask_storeu_pd(col, mr, finish(blk[j], s, va, vb, cv, use_beta));
      }
    }
  }
}

}  // namespace bf16x::driver
