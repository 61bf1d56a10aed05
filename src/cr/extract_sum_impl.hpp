// cr/extract_sum.hpp's extraction written once over a vector type V (util/f64_vectors.hpp: load, store, set1, zero,
// add, sub, max, max_magnitude, sum, largest), compiled per ISA by cr/tile_sums_<isa>_isa.cpp and
// cr/tile_sums_generic.cpp. The parts are the same on every ISA: each pass's tau is exact, whatever the order of its
// additions.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cr/extract_sum.hpp"
#include "util/pow2.hpp"

// Internal linkage: each ISA file's copy stays its own (an inline function would be one weak symbol for all).
namespace bf16x::cr {
namespace {
namespace extract {

// sigma = 2^(M + ilogb(top) + 1) >= 2^M top, top > 0: from the bits where both are normal (no library call), else
// ldexp (subnormal near the end of the range, where the sums are exact anyway).
inline double sigma_for(double top, int m) {
  std::uint64_t bits;
  std::memcpy(&bits, &top, sizeof bits);
  const int field = int(bits >> 52);  // top > 0: no sign bit
  const int e = (field == 0 ? std::ilogb(top) : field - 1023) + m + 1;
  return e >= -1022 ? util::pow2(e) : std::ldexp(1.0, e);
}

template <typename V>
int extract_dot(const double* a, std::int64_t sa, const double* b, std::int64_t sb, std::int64_t k, double* x,
                double* parts) {
  constexpr int L = V::kLanes;
  using R = typename V::reg;
  // p_l + e_l = a_l b_l exactly, then the largest |p_l| (|e_l| <= 2^-53 |p_l|)
  for (std::int64_t l = 0; l < k; ++l) {
    const double al = a[l * sa], bl = b[l * sb], p = al * bl;
    x[2 * l] = p;
    x[2 * l + 1] = std::fma(al, bl, -p);
  }
  const std::int64_t n = 2 * k, padded = (n + 2 * L - 1) / (2 * L) * (2 * L);
  std::fill(x + n, x + padded, 0.0);
  R top0 = V::zero(), top1 = V::zero();
  for (std::int64_t i = 0; i < padded; i += 2 * L)
    top0 = V::max_magnitude(top0, V::load(x + i)), top1 = V::max_magnitude(top1, V::load(x + i + L));
  double top = V::largest(V::max(top0, top1));
  int m = 1;  // 2^M >= 2 n
  while ((std::int64_t(1) << m) < 2 * n) ++m;
  int count = 0;
  for (int pass = 0; top != 0; ++pass) {
    if (pass == kMaxParts) return -1;
    const R sigma = V::set1(sigma_for(top, m));
    R tau0 = V::zero(), tau1 = V::zero();
    top0 = top1 = V::zero();
    for (std::int64_t i = 0; i < padded; i += 2 * L) {
      R v0 = V::load(x + i), v1 = V::load(x + i + L);
      const R q0 = V::sub(V::add(sigma, v0), sigma), q1 = V::sub(V::add(sigma, v1), sigma);
      v0 = V::sub(v0, q0), v1 = V::sub(v1, q1);
      V::store(x + i, v0), V::store(x + i + L, v1);
      tau0 = V::add(tau0, q0), tau1 = V::add(tau1, q1);
      top0 = V::max_magnitude(top0, v0), top1 = V::max_magnitude(top1, v1);
    }
    const double tau = V::sum(V::add(tau0, tau1));
    top = V::largest(V::max(top0, top1));
    if (tau != 0) parts[count++] = tau;
  }
  return count;
}

}  // namespace extract
}  // namespace
}  // namespace bf16x::cr
