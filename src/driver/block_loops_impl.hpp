// The bodies of driver/block_loops.hpp, included once by each variant's translation unit. Everything here has
// internal linkage, so each variant keeps its own code: the linker never merges a copy built for one ISA into
// another.
#pragma once
#include <cstdint>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "driver/block_loops.hpp"
#include "pack/layout.hpp"

namespace bf16x::driver {
namespace {

using pack::kTileM;
using pack::kTileN;

void add_tile_fp32_loop(float* dst, int ld, const float* part) {
  for (int r = 0; r < kTileM; ++r)
    for (int c = 0; c < kTileN; ++c) dst[std::int64_t(r) * ld + c] += part[r * kTileN + c];
}

// The sums of a row are widened and added in registers, two rows (AVX-512) or one (AVX2) at a time: independent
// chains of adds that overlap. The compiler left the plain loop below scalar (one store per element per group: a
// fifth of fp64x21's run time), so the vector levels spell it out; every element's adds are the same, in order.
void add_groups_fp64_loop(double* dst, int ld, const float* const* src, int n, bool first) {
#if defined(__AVX512F__)
  for (int r = 0; r < kTileM; r += 2) {
    __m512d v[2][4];
    for (int i = 0; i < 2; ++i)
      for (int q = 0; q < 4; ++q)
        v[i][q] = first ? _mm512_setzero_pd() : _mm512_loadu_pd(dst + std::int64_t(r + i) * ld + 8 * q);
    for (int g = 0; g < n; ++g)
      for (int i = 0; i < 2; ++i) {
        const float* s = src[g] + (r + i) * kTileN;
        for (int h = 0; h < 2; ++h) {
          const __m512 f = _mm512_loadu_ps(s + 16 * h);
          v[i][2 * h] = _mm512_add_pd(v[i][2 * h], _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
          v[i][2 * h + 1] = _mm512_add_pd(
              v[i][2 * h + 1], _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
        }
      }
    for (int i = 0; i < 2; ++i)
      for (int q = 0; q < 4; ++q) _mm512_storeu_pd(dst + std::int64_t(r + i) * ld + 8 * q, v[i][q]);
  }
#elif defined(__AVX2__)
  for (int r = 0; r < kTileM; ++r) {
    double* d = dst + std::int64_t(r) * ld;
    __m256d v[8];
    for (int q = 0; q < 8; ++q) v[q] = first ? _mm256_setzero_pd() : _mm256_loadu_pd(d + 4 * q);
    for (int g = 0; g < n; ++g) {
      const float* s = src[g] + r * kTileN;
      for (int q = 0; q < 8; ++q) v[q] = _mm256_add_pd(v[q], _mm256_cvtps_pd(_mm_loadu_ps(s + 4 * q)));
    }
    for (int q = 0; q < 8; ++q) _mm256_storeu_pd(d + 4 * q, v[q]);
  }
#else
  for (int r = 0; r < kTileM; ++r) {
    double row[kTileN];
    double* d = dst + std::int64_t(r) * ld;
    for (int c = 0; c < kTileN; ++c) row[c] = first ? 0.0 : d[c];
    for (int g = 0; g < n; ++g) {
      const float* s = src[g] + r * kTileN;
      for (int c = 0; c < kTileN; ++c) row[c] += double(s[c]);
    }
    for (int c = 0; c < kTileN; ++c) d[c] = row[c];
  }
#endif
}

template <typename T>
void write_column_loop(T* col, const T* acc, int ld, int rows, double alpha, double beta, const double* s) {
  if (beta == 0.0) {
    for (int r = 0; r < rows; ++r) col[r] = T((alpha * double(acc[std::int64_t(r) * ld])) * s[r]);
  } else {
    for (int r = 0; r < rows; ++r) {
      const double v = (alpha * double(acc[std::int64_t(r) * ld])) * s[r];
      const double w = beta * double(col[r]);
      col[r] = T(v + w);
    }
  }
}

constexpr BlockLoops make_block_loops() {
  return {add_tile_fp32_loop, add_groups_fp64_loop, write_column_loop<float>, write_column_loop<double>};
}

}  // namespace
}  // namespace bf16x::driver
