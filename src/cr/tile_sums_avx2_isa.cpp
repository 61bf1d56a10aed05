#include <immintrin.h>

#include <algorithm>

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
inline void step(__m256d av, __m256d bv, __m256d& s, __m256d& c) {
  const __m256d p = _mm256_mul_pd(av, bv);
  const __m256d e = _mm256_fmsub_pd(av, bv, p);
  const __m256d s1 = _mm256_add_pd(s, p);
  const __m256d q = _mm256_sub_pd(p, _mm256_sub_pd(s1, s));
  s = s1;
  c = _mm256_add_pd(c, _mm256_add_pd(q, e));
}

// Rebias s from sigma_old to sigma_new >= sigma_old: s - sigma_old is exact (Sterbenz), its FastTwoSum with
// sigma_new (the larger) is exact with the error in c.
inline void rebias(__m256d& s, __m256d& c, __m256d from, __m256d to) {
  const __m256d d = _mm256_sub_pd(s, from);
  const __m256d s1 = _mm256_add_pd(to, d);
  c = _mm256_add_pd(c, _mm256_sub_pd(d, _mm256_sub_pd(s1, to)));
  s = s1;
}

// Lanes over the NR = 4 columns; the MR = 3 rows broadcast one at a time, their accumulators in registers. k runs
// in blocks small enough for the two passes' panel slices to stay in L1: per block, the magnitudes' FMA sums t
// (two chains per row: one would wait on the FMA's latency), then the bias raised to cover the t so far, then the
// block's products.
template <bool DD>
void tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  static_assert(kNR == 4 && kMR == 3, "three rows by one AVX2 vector of columns");
  constexpr std::int64_t kBlock = 256;
  const __m256d sign = _mm256_set1_pd(-0.0);
  const auto fma_sums = [&](std::int64_t l0, std::int64_t l1, int offset, bool magnitudes, __m256d(&acc)[kMR]) {
    __m256d e0 = acc[0], e1 = acc[1], e2 = acc[2], o0 = _mm256_setzero_pd(), o1 = o0, o2 = o0;
    const auto bload = [&](std::int64_t l) {
      const __m256d v = _mm256_loadu_pd(b + l * kNR);
      return magnitudes ? _mm256_andnot_pd(sign, v) : v;
    };
    std::int64_t l = l0;
    for (; l + 1 < l1; l += 2) {
      const double* al = a + l * 2 * kMR + offset;
      const __m256d be = bload(l), bo = bload(l + 1);
      e0 = _mm256_fmadd_pd(_mm256_broadcast_sd(al), be, e0);
      e1 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 1), be, e1);
      e2 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 2), be, e2);
      o0 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 2 * kMR), bo, o0);
      o1 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 2 * kMR + 1), bo, o1);
      o2 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 2 * kMR + 2), bo, o2);
    }
    if (l < l1) {
      const double* al = a + l * 2 * kMR + offset;
      const __m256d be = bload(l);
      e0 = _mm256_fmadd_pd(_mm256_broadcast_sd(al), be, e0);
      e1 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 1), be, e1);
      e2 = _mm256_fmadd_pd(_mm256_broadcast_sd(al + 2), be, e2);
    }
    acc[0] = _mm256_add_pd(e0, o0), acc[1] = _mm256_add_pd(e1, o1), acc[2] = _mm256_add_pd(e2, o2);
  };
  const __m256d zero = _mm256_setzero_pd();
  __m256d t[kMR] = {zero, zero, zero}, sp[kMR] = {zero, zero, zero};
  __m256d g0 = _mm256_set1_pd(0x1p-900), g1 = g0, g2 = g0;  // bias_for(0)
  __m256d s0 = g0, s1 = g1, s2 = g2, c0 = zero, c1 = zero, c2 = zero;
  for (std::int64_t l0 = 0; l0 < k; l0 += kBlock) {
    const std::int64_t l1 = std::min(k, l0 + kBlock);
    fma_sums(l0, l1, kMR, true, t);
    if constexpr (DD) {
      const __m256d n0 = bias_for(t[0]), n1 = bias_for(t[1]), n2 = bias_for(t[2]);
      rebias(s0, c0, g0, n0), rebias(s1, c1, g1, n1), rebias(s2, c2, g2, n2);
      g0 = n0, g1 = n1, g2 = n2;
      for (std::int64_t l = l0; l < l1; ++l) {
        const double* al = a + l * 2 * kMR;
        const __m256d bv = _mm256_loadu_pd(b + l * kNR);
        step(_mm256_broadcast_sd(al), bv, s0, c0);
        step(_mm256_broadcast_sd(al + 1), bv, s1, c1);
        step(_mm256_broadcast_sd(al + 2), bv, s2, c2);
      }
    } else {
      fma_sums(l0, l1, 0, false, sp);
    }
  }
  if constexpr (!DD) s0 = sp[0], s1 = sp[1], s2 = sp[2], g0 = g1 = g2 = zero;
  // s - sigma is exact (Sterbenz: s stays within sigma / 2 .. 3 sigma / 2)
  const __m256d out[3][3] = {
      {_mm256_sub_pd(s0, g0), c0, t[0]}, {_mm256_sub_pd(s1, g1), c1, t[1]}, {_mm256_sub_pd(s2, g2), c2, t[2]}};
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
