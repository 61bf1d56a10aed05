// cr/tile_sums.hpp's vector kernels for AVX-512 F/DQ: tiles of 4 rows by one vector of 8 columns (four rows keep
// the two adders busy past the latency of the s chains; s, c and the bias of each row stay in registers).
#include <immintrin.h>

#include "cr/tile_sums_impl.hpp"

namespace bf16x::cr {
namespace {

struct Avx512 {
  using reg = __m512d;
  static constexpr bool kAddsOnFma = true;
  static constexpr int kLanes = 8;
  static reg load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, reg x) { _mm512_storeu_pd(p, x); }
  static reg bcast(const double* p) { return _mm512_set1_pd(*p); }
  static reg set1(double x) { return _mm512_set1_pd(x); }
  static reg zero() { return _mm512_setzero_pd(); }
  static reg add(reg a, reg b) { return _mm512_add_pd(a, b); }
  static reg sub(reg a, reg b) { return _mm512_sub_pd(a, b); }
  static reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
  static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
  static reg fmsub(reg a, reg b, reg c) { return _mm512_fmsub_pd(a, b, c); }
  static reg abs(reg x) { return _mm512_abs_pd(x); }
  // a > b ? a : b, as MAXPD; written as a compare and blend (GCC 12 warns on _mm512_max_pd's undefined source)
  static reg max(reg a, reg b) { return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_GT_OQ), b, a); }
  static reg power(reg x) { return _mm512_and_pd(x, _mm512_castsi512_pd(_mm512_set1_epi64(0x7ff0000000000000ll))); }
};

}  // namespace

const TileKernels& tile_kernels_avx512() {
  static const TileKernels k = sums::kernels<Avx512, 4>("avx512");
  return k;
}

}  // namespace bf16x::cr
