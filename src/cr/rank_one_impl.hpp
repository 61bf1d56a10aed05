// cr/tile_sums.hpp's RankOne written once over a vector type V (util/f64_vectors.hpp), compiled per ISA with the
// tiles: each entry one FMA, which rounds alpha a b + beta c once (alpha = +-1, beta in {0, +-1}: both products
// exact), so the entry is correctly rounded by the FMA unit itself; the same bits on every ISA.
#pragma once
#include <cmath>
#include <cstdint>

#include "cr/tile_sums.hpp"

// Internal linkage: each ISA file's copy stays its own (an inline function would be one weak symbol for all).
namespace bf16x::cr {
namespace {
namespace rank1 {

template <typename V>
std::int64_t rank_one(std::int64_t rows, const double* a, std::int64_t sa, double b, double alpha, double beta,
                      double* c, std::int64_t sc) {
  std::int64_t i = 0;
  if constexpr (V::kLanes > 1) {
    using R = typename V::reg;
    constexpr int L = V::kLanes;
    if (sa == 1 && sc == 1) {
      const R bv = V::set1(b), av = V::set1(alpha), cv = V::set1(beta), zero = V::zero(), huge = V::set1(HUGE_VAL);
      for (; i + L <= rows; i += L) {
        const R x = V::mul(av, V::load(a + i));
        const R r = beta == 0 ? V::mul(x, bv) : V::fmadd(x, bv, V::mul(cv, V::load(c + i)));
        const R mag = V::abs(r);
        if ((V::lt(zero, mag) & V::lt(mag, huge)) != (1 << L) - 1) break;  // a zero, NaN or Inf: entry by entry
        V::store(c + i, r);
      }
    }
  }
  for (; i < rows; ++i) {
    const double x = alpha * a[i * sa];
    const double r = beta == 0 ? x * b : std::fma(x, b, beta * c[i * sc]);
    if (r == 0 || !std::isfinite(r)) return i;
    c[i * sc] = r;
  }
  return rows;
}

}  // namespace rank1
}  // namespace
}  // namespace bf16x::cr
