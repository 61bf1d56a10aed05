// cr/tile_sums.hpp's vector kernels for AVX2 + FMA: tiles of 3 rows by one vector of 4 columns.
#include <immintrin.h>

#include "cr/tile_sums_impl.hpp"

namespace bf16x::cr {
namespace {

struct Avx2 {
  using reg = __m256d;
  static constexpr bool kAddsOnFma = false;
  static constexpr int kLanes = 4;
  static reg load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, reg x) { _mm256_storeu_pd(p, x); }
  static reg bcast(const double* p) { return _mm256_broadcast_sd(p); }
  static reg set1(double x) { return _mm256_set1_pd(x); }
  static reg zero() { return _mm256_setzero_pd(); }
  static reg add(reg a, reg b) { return _mm256_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
  static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
  static reg fmsub(reg a, reg b, reg c) { return _mm256_fmsub_pd(a, b, c); }
  static reg abs(reg x) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x); }
  static reg max(reg a, reg b) { return _mm256_max_pd(a, b); }
  static reg power(reg x) { return _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff0000000000000ll))); }
};

}  // namespace

const TileKernels& tile_kernels_avx2() {
  static const TileKernels k = sums::kernels<Avx2, 3>("avx2");
  return k;
}

}  // namespace bf16x::cr
