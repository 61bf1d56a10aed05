#include <immintrin.h>

#include "cr/entry_rounding_impl.hpp"
#include "cr/tile_sums.hpp"

namespace bf16x::cr {
namespace {

// sigma = 2^ceil(log2(4.1 t)) (at least 2^-900): the power of two at most 8.2 t that bounds 4 sum |p| (tile_sums.hpp).
inline __m256d bias_for(__m256d t) {
  const __m256d x = _mm256_max_pd(_mm256_mul_pd(t, _mm256_set1_pd(4.1)), _mm256_set1_pd(0x1p-900));
  const __m256d pow = _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff0000000000000ll)));
  return _mm256_add_pd(pow, pow);
}

// One step of one row: the product's TwoProd, its FastTwoSum into the biased s, both errors into c.
template <bool DD>
inline void step(__m256d av, __m256d bv, __m256d& s, __m256d& c) {
  if constexpr (DD) {
    const __m256d p = _mm256_mul_pd(av, bv);
    const __m256d e = _mm256_fmsub_pd(av, bv, p);
    const __m256d s1 = _mm256_add_pd(s, p);
    const __m256d q = _mm256_sub_pd(p, _mm256_sub_pd(s1, s));
    s = s1;
    c = _mm256_add_pd(c, _mm256_add_pd(q, e));
  } else {
    s = _mm256_fmadd_pd(av, bv, s);
  }
}

// Lanes over the NR = 4 columns; the MR = 3 rows broadcast one at a time, their accumulators in registers.
template <bool DD>
void tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  static_assert(kNR == 4 && kMR == 3, "three rows by one AVX2 vector of columns");
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d t0 = _mm256_setzero_pd(), t1 = t0, t2 = t0;
  for (std::int64_t l = 0; l < k; ++l) {
    const double* al = a + l * 2 * kMR + kMR;
    const __m256d bm = _mm256_andnot_pd(sign, _mm256_loadu_pd(b + l * kNR));
    t0 = _mm256_fmadd_pd(_mm256_broadcast_sd(al), bm, t0);
    t1 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 1), bm, t1);
    t2 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 2), bm, t2);
  }
  const __m256d g0 = DD ? bias_for(t0) : _mm256_setzero_pd(), g1 = DD ? bias_for(t1) : g0, g2 = DD ? bias_for(t2) : g0;
  __m256d s0 = g0, s1 = g1, s2 = g2, c0 = _mm256_setzero_pd(), c1 = c0, c2 = c0;
  for (std::int64_t l = 0; l < k; ++l) {
    const double* al = a + l * 2 * kMR;
    const __m256d bv = _mm256_loadu_pd(b + l * kNR);
    step<DD>(_mm256_broadcast_sd(al), bv, s0, c0);
    step<DD>(_mm256_broadcast_sd(al + 1), bv, s1, c1);
    step<DD>(_mm256_broadcast_sd(al + 2), bv, s2, c2);
  }
  // s - sigma is exact (Sterbenz: s stays within sigma / 2 .. 3 sigma / 2)
  const __m256d out[3][3] = {
      {_mm256_sub_pd(s0, g0), c0, t0}, {_mm256_sub_pd(s1, g1), c1, t1}, {_mm256_sub_pd(s2, g2), c2, t2}};
  for (int i = 0; i < kMR; ++i) {
    _mm256_storeu_pd(so + i * kNR, out[i][0]);
    _mm256_storeu_pd(co + i * kNR, out[i][1]);
    _mm256_storeu_pd(to + i * kNR, out[i][2]);
  }
}

// The textbook vectorised double-double GEMM step (Dot2: TwoProd, TwoSum into s, both errors into c), for the
// bench's baseline: eleven operations a product against the biased FastTwoSum's five.
void dot2_tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  __m256d s[kMR], c[kMR];
  for (int i = 0; i < kMR; ++i) s[i] = c[i] = _mm256_setzero_pd();
  for (std::int64_t l = 0; l < k; ++l) {
    const __m256d bv = _mm256_loadu_pd(b + l * kNR);
    for (int i = 0; i < kMR; ++i) {
      const __m256d av = _mm256_broadcast_sd(a + l * 2 * kMR + i);
      const __m256d p = _mm256_mul_pd(av, bv), e = _mm256_fmsub_pd(av, bv, p);
      const __m256d s1 = _mm256_add_pd(s[i], p), bb = _mm256_sub_pd(s1, s[i]);
      const __m256d q = _mm256_add_pd(_mm256_sub_pd(s[i], _mm256_sub_pd(s1, bb)), _mm256_sub_pd(p, bb));
      s[i] = s1;
      c[i] = _mm256_add_pd(c[i], _mm256_add_pd(q, e));
    }
  }
  for (int i = 0; i < kMR; ++i) {
    _mm256_storeu_pd(so + i * kNR, s[i]);
    _mm256_storeu_pd(co + i * kNR, c[i]);
    _mm256_storeu_pd(to + i * kNR, _mm256_setzero_pd());
  }
}

}  // namespace

const TileKernels& tile_kernels_avx2() {
  static const TileKernels k{tile<true>,
                             tile<false>,
                             decide::decide<double, 1>,
                             decide::decide<double, 2>,
                             decide::decide<float, 1>,
                             decide::decide<float, 2>,
                             dot2_tile};
  return k;
}

}  // namespace bf16x::cr
