// cr/tile_sums.hpp's RankOne and FewProducts written once over a vector type V (util/f64_vectors.hpp), compiled per
// ISA with the tiles: the entries of a call with few products a column of C at a time on the FMA units, without the
// tiles' scan, packing and sums. Both need alpha = +-1 and beta in {0, +-1}, which make alpha a_l and beta c0 exact.
// - RankOne (k = 1): one FMA rounds alpha a b + beta c0 once, so the FMA unit gives the correctly rounded entry.
// - FewProducts (2 <= k <= kFewProducts): each product as an exact pair p + q (TwoProd); beta c0, p_1..p_k summed by a
//   chain of TwoSums (each exact) into s, their k errors and the k q in floating point into e (within gamma_{2k-1}
//   of the sum of their magnitudes), then s + e = vh + vl exactly: vh is the correctly rounded entry where vl and
//   that bound lie strictly inside half vh's gap (round_parts' test, cr/entry_rounding_impl.hpp); a residual of a few
//   ulps, whose errors are as large as its value, takes a second level (few_entry). Where s and every error are zero
//   the value is an exact zero: +0 (docs/numerics.md). The caller sees to the range (every a_l, b_l zero or of
//   magnitude in [2^-480, 2^480]: each product zero or in [2^-960, 2^960], its TwoProd error exact, no operation
//   raising a floating-point flag); lanes with C out of range (|c0| >= 2^1000, NaN), values below 2^-960 and
//   undecided values stop the kernel there, as RankOne stops at zero, NaN or Inf.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cr/entry_rounding_impl.hpp"
#include "cr/tile_sums.hpp"

// Internal linkage: each ISA file's copy stays its own (an inline function would be one weak symbol for all).
namespace bf16x::cr {
namespace {
namespace few {

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

// The bounds' factor (2k + 0.1) u (1 + 8 u), above gamma_{2k-1}; the errors' magnitude taken at least 2^-900, so that
// the bound's product never rounds a subnormal (its flag), far below the half gap of any value decided (>= 2^-960).
inline double few_bound_factor(int k) { return (2 * k + 0.1) * decide::kU * (1 + 8 * decide::kU); }
inline constexpr double kFewErrorFloor = 0x1p-900;

// One entry: the same operations as a lane of few_products. Level 1: the TwoSums' errors and the q (err_j) summed in
// floating point (e, within (2k + 0.1) u sum |err|), s + e = vh + vl exactly, vh decided where vl and the bound lie
// strictly inside half its gap. Level 2 (residuals of a few ulps, whose errors are as large as the value): the errors
// summed by TwoSums too (eh, and their errors f in floating point), s + eh = vh + vl exactly; where every f is zero the
// value is vh + vl itself and vh = RN(s + eh) its rounding (ties, an exact zero: +0), else vh is decided where vl + sum
// f and the bound on that sum lie strictly inside half its gap.
inline bool few_entry(int k, const double* a, std::int64_t la, const double* b, double alpha, double beta, double c0,
                      double& out) {
  if (beta != 0 && !(std::fabs(c0) < 0x1p1000)) return false;
  double s = beta == 0 ? 0.0 : beta * c0, e = 0, eabs = 0, q[kFewProducts], err[2 * kFewProducts] = {};
  int n = 0;
  const auto add = [&](double v) {
    const decide::TwoSum t = decide::two_sum(s, v);
    s = t.hi, e += t.lo, eabs += std::fabs(t.lo), err[n++] = t.lo;
  };
  for (int l = 0; l < k; ++l) {
    const double x = alpha * a[l * la], p = x * b[l];
    q[l] = std::fma(x, b[l], -p);
    add(p);
  }
  for (int l = 0; l < k; ++l) e += q[l], eabs += std::fabs(q[l]), err[n++] = q[l];
  if (s == 0 && eabs == 0) {
    out = 0.0;
    return true;
  }
  const double factor = few_bound_factor(k);
  decide::TwoSum r = decide::two_sum(s, e);
  double mag = std::fabs(r.hi);
  const bool in_range = mag >= 0x1p-960 && mag < 0x1p1022;
  if (in_range &&
      (std::fabs(r.lo) + std::max(eabs, kFewErrorFloor) * factor) * (1 + 4 * decide::kU) < decide::half_gap(r.hi, 53)) {
    out = r.hi;
    return true;
  }
  double eh = err[0], fs = 0, fa = 0;
  for (int j = 1; j < n; ++j) {
    const decide::TwoSum t = decide::two_sum(eh, err[j]);
    eh = t.hi, fs += t.lo, fa += std::fabs(t.lo);
  }
  r = decide::two_sum(s, eh);
  mag = std::fabs(r.hi);
  if (fa == 0 && r.hi == 0) {
    out = 0.0;
    return true;
  }
  if (!(mag >= 0x1p-960 && mag < 0x1p1022)) return false;
  const double rest = r.lo + fs;
  if (fa != 0 &&
      (std::fabs(rest) * (1 + 2 * decide::kU) + std::max(fa, kFewErrorFloor) * factor) * (1 + 4 * decide::kU) >=
          decide::half_gap(r.hi, 53))
    return false;
  out = r.hi;
  return true;
}

// Entries [0, rows) of a column of C: a[i sa + l la] = op(A)(i, l), b[l] = op(B)(l, j), c[i sc] = C(i, j).
template <typename V>
std::int64_t few_products(std::int64_t rows, int k, const double* a, std::int64_t sa, std::int64_t la, const double* b,
                          double alpha, double beta, double* c, std::int64_t sc) {
  std::int64_t i = 0;
#if defined(__AVX2__)  // (the vector decision's helpers: cr/entry_rounding_impl.hpp)
  if constexpr (V::kLanes > 1) {
    using R = typename V::reg;
    constexpr int L = V::kLanes, all = (1 << L) - 1;
    if (sc == 1) {
      const R av = V::set1(alpha), cv = V::set1(beta), zero = V::zero();
      const R factor = V::set1(few_bound_factor(k)), floor = V::set1(kFewErrorFloor), lo = V::set1(0x1p-960),
              hi = V::set1(0x1p1022);
      R bv[kFewProducts];
      for (int l = 0; l < k; ++l) bv[l] = V::set1(b[l]);
      const auto inside = [&](R rest, R bound, R vh) {  // |rest| + bound strictly inside half vh's gap
        return decide::within_half_gap<V>(V::mul(V::add(rest, bound), V::set1(1 + 4 * decide::kU)), vh, 0x1p-53);
      };
      // L entries from their a_l and c0 (few_entry's operations lane by lane): their roundings in out, the lanes
      // decided
      const auto lanes = [&](const R* a_l, R c0, R& out) {
        R s = zero, e = zero, eabs = zero, q[kFewProducts], err[2 * kFewProducts];
        int ok = all, n = 0;
        if (beta != 0) {
          ok &= V::lt(V::abs(c0), V::set1(0x1p1000));
          s = V::mul(cv, V::select(ok, c0, zero));
        }
        const auto add = [&](R v) {
          R t;
          s = decide::two_sum<V>(s, v, t);
          e = V::add(e, t), eabs = V::add(eabs, V::abs(t)), err[n++] = t;
        };
        for (int l = 0; l < k; ++l) {
          const R x = V::mul(av, a_l[l]), p = V::mul(x, bv[l]);
          q[l] = V::fmsub(x, bv[l], p);
          add(p);
        }
        for (int l = 0; l < k; ++l) e = V::add(e, q[l]), eabs = V::add(eabs, V::abs(q[l])), err[n++] = q[l];
        const int exact_zero = V::eq(s, zero) & V::eq(eabs, zero);
        R vl, vh = decide::two_sum<V>(s, e, vl), mag = V::abs(vh);
        int decided = (V::le(lo, mag) & V::lt(mag, hi) & inside(V::abs(vl), V::mul(V::max(eabs, floor), factor), vh)) |
                      exact_zero;
        out = V::select(exact_zero, zero, vh);
        if ((ok & decided) == ok) return ok;
        R eh = err[0], fs = zero, fa = zero;  // level 2
        for (int j = 1; j < n; ++j) {
          R t;
          eh = decide::two_sum<V>(eh, err[j], t);
          fs = V::add(fs, t), fa = V::add(fa, V::abs(t));
        }
        vh = decide::two_sum<V>(s, eh, vl), mag = V::abs(vh);
        const int exact = V::eq(fa, zero), zero2 = exact & V::eq(vh, zero);
        const R rest = V::mul(V::abs(V::add(vl, fs)), V::set1(1 + 2 * decide::kU));
        const int decided2 =
            (V::le(lo, mag) & V::lt(mag, hi) & (exact | inside(rest, V::mul(V::max(fa, floor), factor), vh))) | zero2;
        out = V::select(decided, out, V::select(zero2, zero, vh));
        return ok & (decided | decided2);
      };
      R r, ap[kFewProducts];
      for (; i + L <= rows; i += L) {
        for (int l = 0; l < k; ++l) ap[l] = sa == 1 ? V::load(a + i + l * la) : V::gather(a + i * sa + l * la, sa);
        if (lanes(ap, beta != 0 ? V::load(c + i) : zero, r) != all) break;  // entry by entry from here
        V::store(c + i, r);
      }
      if (i + L > rows && i < rows) {  // the last rows, in lanes whose others are zero (an exact zero each)
        const int n = int(rows - i);
        for (int l = 0; l < k; ++l)
          ap[l] = sa == 1 ? V::load_first(a + i + l * la, n) : V::gather_first(a + i * sa + l * la, sa, n);
        const int done = lanes(ap, beta != 0 ? V::load_first(c + i, n) : zero, r);
        const int stored = done == all ? n : std::min(n, __builtin_ctz(unsigned(~done)));  // up to the first undecided
        V::store_first(c + i, r, stored);
        i += stored;
        if (i < rows) return i;
      }
    }
  }
#endif
  for (; i < rows; ++i) {
    double r;
    if (!few_entry(k, a + i * sa, la, b, alpha, beta, beta == 0 ? 0.0 : c[i * sc], r)) return i;
    c[i * sc] = r;
  }
  return rows;
}

}  // namespace few
}  // namespace
}  // namespace bf16x::cr
