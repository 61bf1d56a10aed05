#include <algorithm>
#include <cmath>

#include "cpu/features.hpp"
#include "cr/entry_rounding_impl.hpp"
#include "cr/extract_sum_impl.hpp"
#include "cr/few_products_impl.hpp"
#include "cr/tile_sums.hpp"
#include "util/f64_vectors.hpp"

namespace bf16x::cr {
namespace {

constexpr int kMR = 3, kNR = 4;

// sigma = 2^ceil(log2(4.1 t)) (at least 2^-900): the power of two at most 8.2 t that bounds 4 sum |p| (tile_sums.hpp).
double bias_for(double t) {
  const double x = std::max(4.1 * t, 0x1p-900);
  int e;
  std::frexp(x, &e);  // x < 2^e
  return std::ldexp(1.0, e);
}

template <bool DD>
void tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  double s[kMR * kNR], c[kMR * kNR] = {}, t[kMR * kNR] = {}, g[kMR * kNR];
  for (std::int64_t l = 0; l < k; ++l)
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < kNR; ++j)
        t[i * kNR + j] = std::fma(a[l * 2 * kMR + kMR + i], std::fabs(b[l * kNR + j]), t[i * kNR + j]);
  for (int x = 0; x < kMR * kNR; ++x) s[x] = g[x] = DD ? bias_for(t[x]) : 0.0;
  for (std::int64_t l = 0; l < k; ++l) {
    const double* al = a + l * 2 * kMR;
    const double* bl = b + l * kNR;
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < kNR; ++j) {
        const int x = i * kNR + j;
        if constexpr (DD) {
          const double s1 = std::fma(al[i], bl[j], s[x]), h = s1 - s[x];  // h exact (cr/tile_sums.hpp)
          c[x] = c[x] + std::fma(al[i], bl[j], -h);
          s[x] = s1;
        } else {
          s[x] = std::fma(al[i], bl[j], s[x]);
        }
      }
  }
  for (int x = 0; x < kMR * kNR; ++x) so[x] = s[x] - g[x], co[x] = c[x], to[x] = t[x];
}

// The textbook double-double step (Dot2), for the bench's baseline.
void dot2_tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  double s[kMR * kNR] = {}, c[kMR * kNR] = {};
  for (std::int64_t l = 0; l < k; ++l)
    for (int i = 0; i < kMR; ++i)
      for (int j = 0; j < kNR; ++j) {
        const int x = i * kNR + j;
        const double p = a[l * 2 * kMR + i] * b[l * kNR + j], e = std::fma(a[l * 2 * kMR + i], b[l * kNR + j], -p);
        const double s1 = s[x] + p, bb = s1 - s[x];
        c[x] = c[x] + (((s[x] - (s1 - bb)) + (p - bb)) + e);
        s[x] = s1;
      }
  for (int x = 0; x < kMR * kNR; ++x) so[x] = s[x], co[x] = c[x], to[x] = 0;
}

}  // namespace

const TileKernels& tile_kernels_generic() {
  static const TileKernels k{tile<true>,
                             nullptr,  // (no refined rows here: no tile skips its decision)
                             tile<false>,
                             decide::decide<double, 1>,
                             decide::decide<double, 2>,
                             nullptr,
                             decide::decide<float, 1>,
                             decide::decide<float, 2>,
                             nullptr,
                             dot2_tile,
                             extract::extract_dot<util::F64x1>,
                             nullptr,
                             nullptr,
                             decide::round_parts<double>,
                             decide::round_parts<float>,
                             nullptr,
                             few::rank_one<util::F64x1>,
                             few::few_products<util::F64x1>,
                             kMR,
                             kNR,
                             "generic"};
  return k;
}

const TileKernels& tile_kernels(cpu::Level level) {
  const cpu::Level cpu = cpu::vector_level();
  if (level == cpu::Level::avx512 && cpu == cpu::Level::avx512) return tile_kernels_avx512();
  if (level != cpu::Level::generic && cpu != cpu::Level::generic) return tile_kernels_avx2();
  return tile_kernels_generic();
}

}  // namespace bf16x::cr
