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

// M with 2^M >= 2 n for n terms (the extraction's condition, docs/numerics.md).
inline int grid_bits(std::int64_t n) {
  int m = 1;
  while ((std::int64_t(1) << m) < 2 * n) ++m;
  return m;
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
  const int m = grid_bits(n);
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

// ExtractRow over V's lanes: per lane the operations of extract_dot, lane by lane (its sigma from its own top).
template <typename V>
void extract_row(const double* a, std::int64_t sa, const double* b, std::int64_t k, unsigned lanes, double* x,
                 double* parts, int* counts) {
  constexpr int L = V::kLanes;
  using R = typename V::reg;
  static_assert(L <= kMaxLanes);
  const int live = int(lanes) & ((1 << L) - 1);
  // The products of the lanes in `lanes` (the others zero: no operation on values the entry path would not touch),
  // their TwoProd errors beside them; the largest |x| of a lane is its largest |p| (|e| <= 2^-53 |p|).
  R top = V::zero();
  for (std::int64_t l = 0; l < k; ++l) {
    const R av = V::set1(a[l * sa]), bv = V::select(live, V::load(b + l * L), V::zero());
    const R p = V::mul(av, bv);
    V::store(x + 2 * l * L, p);
    V::store(x + (2 * l + 1) * L, V::fmsub(av, bv, p));
    top = V::max_magnitude(top, p);
  }
  const std::int64_t n = 2 * k;
  const int m = grid_bits(n);
  const R above = V::set1(util::pow2(m + 1));
  double taus[kMaxParts][kMaxLanes];
  int pass = 0, going = live & ~V::eq(top, V::zero());
  for (; going && pass < kMaxParts; ++pass) {
    // sigma = 2^(M + 1) times the power of two of top, as sigma_for; a lane whose top is subnormal (the far end of
    // the range: no power there) takes sigma_for itself, a finished lane (top = 0) sigma = 0 (its values are zeros)
    R sigma = V::mul(V::power(top), above);
    if (going & V::lt(top, V::set1(0x1p-1022))) {
      double tops[kMaxLanes], sig[kMaxLanes];
      V::store(tops, top);
      V::store(sig, sigma);
      for (int j = 0; j < L; ++j)
        if (tops[j] != 0 && tops[j] < 0x1p-1022) sig[j] = sigma_for(tops[j], m);
      sigma = V::load(sig);
    }
    R tau0 = V::zero(), tau1 = V::zero(), top0 = V::zero(), top1 = V::zero();
    for (std::int64_t i = 0; i < n; i += 2) {
      R v0 = V::load(x + i * L), v1 = V::load(x + (i + 1) * L);
      const R q0 = V::sub(V::add(sigma, v0), sigma), q1 = V::sub(V::add(sigma, v1), sigma);
      v0 = V::sub(v0, q0), v1 = V::sub(v1, q1);
      V::store(x + i * L, v0), V::store(x + (i + 1) * L, v1);
      tau0 = V::add(tau0, q0), tau1 = V::add(tau1, q1);
      top0 = V::max_magnitude(top0, v0), top1 = V::max_magnitude(top1, v1);
    }
    V::store(taus[pass], V::add(tau0, tau1));
    top = V::max(top0, top1);
    going = live & ~V::eq(top, V::zero());
  }
  for (int j = 0; j < L; ++j) {
    if (!(live >> j & 1)) continue;
    int count = 0;
    for (int q = 0; q < pass; ++q)
      if (taus[q][j] != 0) parts[j * kMaxParts + count++] = taus[q][j];
    counts[j] = going >> j & 1 ? -1 : count;  // still going after kMaxParts passes: extract_dot's -1
  }
}

}  // namespace extract
}  // namespace
}  // namespace bf16x::cr
