// The decision of round_from_sums (cr/entry_rounding.hpp) as inline code, compiled once per ISA by
// cr/tile_sums_*.cpp (with FMA where the CPU has it: the TwoProducts are single instructions there).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "cr/entry_rounding.hpp"
#include "cr/extract_sum.hpp"
#include "cr/refine_sum.hpp"
#include "cr/tile_sums.hpp"
#include "util/pow2.hpp"

// Internal linkage: each ISA file's copy stays its own (an inline function would be one weak symbol for all).
namespace bf16x::cr {
namespace {
namespace decide {

inline constexpr double kU = 0x1p-53;      // unit roundoff of FP64
inline constexpr double kEta = 0x1p-1074;  // the smallest subnormal

// The tile sums' error against the exact sum of the scaled products, |s + c - sum a b| <= rel t + floor. FP64
// (cr/tile_sums.hpp): c sums n = k + ceil(k / kSumsBlock) terms of at most u sigma (each FMA's rest and each
// rebias's error), so gamma_(n-1) n u sigma, plus the rests' own roundings, k u^2 sigma, with sigma <= max(8.2 t,
// 2^-899) (the bias floor). FP32: k roundings of partial sums within (1 + k u) t. Both plus eta per product for
// the scaling's, the products' and t's underflow (16 k eta).
struct SumsBound {
  double rel, floor;
};
inline SumsBound sums_bound(const Terms& x) {
  const double k = double(x.k), eta = 16 * k * kEta;
  if (!x.dd) return {1.02 * (k + 1) * kU, eta};
  const double n = k + std::ceil(k / double(kSumsBlock));
  const double terms = (k + n * (n - 1) / (1 - (n - 1) * kU)) * kU * kU * (1 + 0x1p-20);
  return {8.2 * terms, eta + terms * 0x1p-899};
}

// 2^e for -1022 <= e <= 1023.
inline double pow2(int e) {
  const std::uint64_t bits = std::uint64_t(e + 1023) << 52;
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// v 2^e in two steps of one sign (|e| <= 1900), so that an intermediate underflow only makes the result smaller.
inline double scale2(double v, int e) {
  const int e1 = e / 2;
  return v * pow2(e1) * pow2(e - e1);
}

struct TwoSum {
  double hi, lo;
};
inline TwoSum two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// Half the smaller of the two gaps around x in the format with `digits` significand bits (x normal there, != 0):
// the gap above is 2^(e + 1 - digits) for |x| in [2^e, 2^(e+1)); below, half that at a power of two.
inline double half_gap(double x, int digits) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int e = int((bits >> 52) & 0x7ff) - 1023;
  const std::uint64_t mantissa = bits & ((std::uint64_t(1) << 52) - 1);
  // a power of two: no significand bit set within the format's precision
  const bool power = (mantissa >> (53 - digits)) == 0;
  return pow2(e - digits - (power ? 1 : 0));
}

// A scalar |v| in {0} or [2^-20, 2^20]: alpha and beta for which round_in_frame's products stay normal.
inline bool moderate(double v) {
  const double a = std::fabs(v);
  return a == 0 || (a >= 0x1p-20 && a <= 0x1p20);
}

template <typename T, int R>
std::optional<T> round_from_sums(const EntrySums (&e)[2], const Terms& x, const double (&c0)[2]);

// round_from_sums<double, 1> where the value lies below 2^-960 in true units and the scale is negative (operands
// near the bottom of the range, LAPACK's scaled test matrices): the same decision in the frame of the scaled products
// (value / 2^scale), round_from_sums itself on the sums at scale 0 with C's term brought into the frame exactly
// (times 2^-scale >= 1, below 2^1000), its candidate taken where it is normal in true units (the frame's gaps are then
// the true ones over 2^scale). The checks keep every value and TwoProd error the decision forms in FP64's normal
// range, so no step raises the underflow or overflow flag. decide_rows' frame_lanes makes the same checks.
inline std::optional<double> round_in_frame(const EntrySums& q, const Terms& x, double c0) {
  const double w = x.w[0], beta = x.beta[0];
  if (w == 0 || !moderate(w) || !moderate(beta) || q.scale >= 0 || q.scale < -kScaleRange) return std::nullopt;
  const int e1 = q.scale / 2;  // scale2's factors
  const double f1 = pow2(e1), f2 = pow2(q.scale - e1), g1 = pow2(-e1), g2 = pow2(e1 - q.scale);
  const double as = std::fabs(q.s), ac = std::fabs(q.c);
  if (!(as >= 0x1p-880 && as < 0x1p1000) || !(q.t >= 0x1p-800 && q.t < 0x1p1000) ||
      !(ac == 0 || (ac >= 0x1p-900 && ac < 0x1p1000)))
    return std::nullopt;
  double cf = 0;
  if (beta != 0) {
    if (!(std::fabs(c0) < 0x1p1000 * f1 * f2)) return std::nullopt;
    cf = c0 * g1 * g2;
    if (cf != 0 && std::fabs(cf) < 0x1p-880) return std::nullopt;
  }
  const EntrySums frame[2] = {{q.s, q.c, q.t, 0}, {0, 0, 0, 0}};
  const double c_frame[2] = {cf, 0};
  const std::optional<double> r = round_from_sums<double, 1>(frame, x, c_frame);
  if (!r || !(std::fabs(*r) >= 0x1p-1022 * g1 * g2)) return std::nullopt;
  return *r * f1 * f2;
}

// R: the number of sums and C terms in use (1: a real GEMM, 2: a part of a complex one).
template <typename T, int R>
std::optional<T> round_from_sums(const EntrySums (&e)[2], const Terms& x, const double (&c0)[2]) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const SumsBound sums = sums_bound(x);  // the sums' error against the exact sum of the scaled products
  // w_r (s_r + c_r) and beta_q c_q as exact pairs hi + lo (TwoProd) but for w_r c_r, rounded once; the his summed
  // exactly (TwoSum), the los in floating point (kLo - 1 additions: gamma_kLo). Each sum's own error times |w_r|;
  // scale2 below the normal range costs eta for each of s, c and the bound, times |w_r|. his: w_r s_r (r < R), then
  // beta_q c_q; los: their TwoProd errors, the w_r c_r, then the TwoSums' errors
  constexpr int kHi = 2 * R, kLo = 3 * R + kHi - 1;
  double hi[kHi] = {}, lo[kLo] = {}, err = 16 * kEta, rounded = 0;
  for (int r = 0; r < R; ++r) {
    const double w = x.w[r];
    if (w == 0) continue;
    const EntrySums& q = e[r];
    if (!std::isfinite(q.s) || !std::isfinite(q.c) || !std::isfinite(q.t) || q.scale < -kScaleRange ||
        q.scale > kScaleRange)
      return std::nullopt;
    const double sr = scale2(q.s, q.scale), cr = scale2(q.c, q.scale);
    const double er = scale2(sums.rel * q.t + sums.floor, q.scale);
    hi[r] = w * sr;
    lo[2 * r] = std::fma(w, sr, -hi[r]);
    lo[2 * r + 1] = w * cr;
    rounded += std::fabs(lo[2 * r + 1]);
    err += std::fabs(w) * (er * (1 + 4 * kU) + 4 * kEta);
  }
  for (int q = 0; q < R; ++q)
    if (x.beta[q] != 0) {
      hi[R + q] = x.beta[q] * c0[q];
      lo[2 * R + q] = std::fma(x.beta[q], c0[q], -hi[R + q]);
    }
  TwoSum h{hi[0], 0};
  for (int z = 1; z < kHi; ++z) {
    h = two_sum(h.hi, hi[z]);
    lo[3 * R + z - 1] = h.lo;
  }
  double l = 0, labs = 0;
  for (double v : lo) l += v, labs += std::fabs(v);
  const TwoSum v = two_sum(h.hi, l);
  const double w = (err + kU * rounded + (kLo + 0.1) * kU * labs) * (1 + 8 * kU);
  if (!std::isfinite(v.hi) || !std::isfinite(w)) return std::nullopt;
  const double mag = std::fabs(v.hi);
  if constexpr (is_double) {
    if (mag < 0x1p-960) {
      if constexpr (R == 1) return round_in_frame(e[0], x, c0[0]);
      return std::nullopt;
    }
    if (mag >= 0x1p1022) return std::nullopt;
    // v.hi = RN(h + l): the candidate, when the value lies strictly inside its rounding interval
    if ((std::fabs(v.lo) + w) * (1 + 4 * kU) < half_gap(v.hi, 53)) return v.hi;
  } else {
    if (mag < 0x1p-120 || mag >= 0x1p126) return std::nullopt;
    const float r = float(v.hi);
    const double d = (v.hi - double(r)) + v.lo;  // v.hi - r exact: within half a float gap of each other
    if ((std::fabs(d) * (1 + 2 * kU) + w) * (1 + 4 * kU) < half_gap(double(r), 24)) return r;
  }
  return std::nullopt;
}

template <typename T, int R>
bool decide(const EntrySums (&e)[2], const Terms& x, const double (&c0)[2], T& out) {
  const std::optional<T> r = round_from_sums<T, R>(e, x, c0);
  if (r) out = *r;
  return bool(r);
}

// RoundParts, in the frame of the scaled products (value / 2^scale): beta c / 2^scale and each w tau_q as exact
// pairs hi + lo (TwoProd, every hi in [2^-900, 2^1000): c / 2^scale exact there, and no TwoProd underflows), the his
// then the los summed by TwoSum (VecSum: the list's sum unchanged, exactly; his first, so that a C term and a
// product that cancel leave no large error behind), the 2n - 1 TwoSum errors of the n pairs in floating point within
// (2n + 0.1) u sum |e|. A normal value is decided as round_from_sums decides (FP64 in the frame, whose gaps are the
// true ones over 2^scale; FP32 in true units), a smaller one on T's subnormal grid; an exact zero (the sum and every
// error zero) is +0, as the ExactSum gives it (docs/numerics.md "Correctly rounded modes"). Parts whose sum lies
// within slack of the dot product (cr/refine_sum.hpp; 0: exact) add |w| slack to the bound and decide no exact zero.
template <typename T>
bool round_parts(const double* parts, int count, int scale, const Terms& x, const double (&c0)[2], double slack,
                 T& out) {
  const auto in_range = [](double v) { return std::fabs(v) >= 0x1p-900 && std::fabs(v) < 0x1p1000; };
  if (scale < -kScaleRange || scale > kScaleRange) return false;
  double f1, f2;  // 2^scale in two steps of one sign
  util::pow2_pair(scale, f1, f2);
  double hi[kMaxParts + 1], lo[kMaxParts + 1];
  int n = 0;
  const double w = x.w[0], beta = x.beta[0];
  if (beta != 0 && c0[0] != 0) {
    // c0 2^-scale in two steps of one sign (no division): exact wherever it lands in range, as is any other split
    double g1, g2;
    util::pow2_pair(-scale, g1, g2);
    const double c = c0[0] * g1 * g2;
    if (!in_range(c)) return false;
    hi[n] = beta * c;
    if (!in_range(hi[n])) return false;
    lo[n] = std::fma(beta, c, -hi[n]);
    ++n;
  }
  for (int q = 0; q < count; ++q, ++n) {
    hi[n] = w * parts[q];
    if (!in_range(hi[n])) return false;
    lo[n] = std::fma(w, parts[q], -hi[n]);
  }
  if (n == 0) return false;
  double sum = hi[0], e = 0, eabs = 0;
  const auto add = [&](double v) {
    const TwoSum t = two_sum(sum, v);
    sum = t.hi, e += t.lo, eabs += std::fabs(t.lo);
  };
  for (int i = 1; i < n; ++i) add(hi[i]);
  for (int i = 0; i < n; ++i)
    if (lo[i] != 0) add(lo[i]);  // a zero leaves sum, e and eabs as they are (alpha, beta = +-1: every lo)
  if (sum == 0 && eabs == 0 && slack == 0) {
    out = T(0);
    return true;
  }
  const TwoSum r = two_sum(sum, e);
  const double mag = std::fabs(r.hi);
  double bound = (2 * n + 0.1) * kU * eabs * (1 + 8 * kU);
  if (slack != 0) bound = (bound + std::fabs(w) * slack) * (1 + 4 * kU);
  if (mag < 0x1p-1000 || mag >= 0x1p1000) return false;
  constexpr bool is_double = std::is_same_v<T, double>;
  constexpr int kMinNormal = is_double ? -1022 : -126, kTiny = is_double ? -1074 : -149;
  std::uint64_t mag_bits;
  std::memcpy(&mag_bits, &mag, sizeof mag_bits);
  const int at = int(mag_bits >> 52) - 1023 + scale;  // the candidate's exponent in true units (mag normal)
  if (at > kMinNormal && at < (is_double ? 1021 : 125)) {
    if constexpr (is_double) {
      // normal in true units: decided in the frame, whose gaps are the true ones over 2^scale (half_gap's power of
      // two normal: mag >= 2^-960); the candidate times 2^scale exactly
      if (mag < 0x1p-960 || (std::fabs(r.lo) + bound) * (1 + 4 * kU) >= half_gap(r.hi, 53)) return false;
      out = r.hi * f1 * f2;
    } else {
      // in true units (FP32's range lies deep inside FP64's normal one): 2^scale exact on the candidate, at most
      // eta lost on its rest and on the bound in each step, 4 eta in all; the bound taken at least 2^-1000, whose
      // 4 u covers them (and this product's rounding), so that no step here rounds a subnormal (the underflow flag,
      // which a caller's runtime reports: the usual exact bound 0 plus 4 eta did), far below FP32's gaps
      const double vh = r.hi * f1 * f2, vl = r.lo * f1 * f2;
      const double vb = std::max(bound * f1 * f2, 0x1p-1000) * (1 + 4 * kU);
      const float f = float(vh);
      const double d = (vh - double(f)) + vl;  // vh - f exact: within half a float gap of each other
      if ((std::fabs(d) * (1 + 2 * kU) + vb) * (1 + 4 * kU) >= half_gap(double(f), 24)) return false;
      out = f;
    }
    return true;
  }
  if (at >= kMinNormal - 1 || kTiny - scale < -900 || kTiny - scale > 1000) return false;
  // below half the smallest normal: the grid of T's subnormals, g = 2^kTiny in the frame. Where |y| >= 1/4, y and
  // y - nearest are exact (|y| < 2^52) and so is their product with g (above 2^-955); below, the value rounds to zero
  const double g = pow2(kTiny - scale);
  double nearest = 0, d = r.hi + r.lo;
  if (mag >= g / 4) {
    const double y = r.hi / g;
    nearest = util::round_to_even(y);
    d = (y - nearest) * g + r.lo;
  }
  if ((std::fabs(d) * (1 + 2 * kU) + bound) * (1 + 4 * kU) >= g / 2) return false;
  if (nearest == 0) {  // a signed zero: the value's sign, where the rest and the bound cannot change it
    if ((std::fabs(r.lo) + bound) * (1 + 4 * kU) >= mag) return false;
    out = T(std::copysign(0.0, r.hi));
  } else {
    out = T(nearest * g * f1 * f2);  // nearest 2^kTiny: exact
  }
  return true;
}

#if defined(__AVX2__)
// round_from_sums<T, 1> on V::kLanes entries at once (DecideRows): the same operations in the same order, lane by
// lane, with the scaling's factors given; a lane whose factors, sums or result fail a check is undecided. V:
// util/f64_vectors.hpp (with lt, le, eq as lane bits, and to_float: each lane rounded to FP32 and back).
template <typename V>
typename V::reg two_sum(typename V::reg a, typename V::reg b, typename V::reg& lo) {
  const typename V::reg sum = V::add(a, b), bb = V::sub(sum, a);
  lo = V::add(V::sub(a, V::sub(sum, bb)), V::sub(b, bb));
  return sum;
}

template <typename V>
int finite(typename V::reg v) {
  return V::lt(V::abs(v), V::set1(HUGE_VAL));
}

// bit i: lhs_i < half_gap(v_i, digits) (v_i normal in that format): 2^(e + 1 - digits) / 2, halved again at a power.
template <typename V>
int within_half_gap(typename V::reg lhs, typename V::reg v, double half_ulp) {
  // pw at least 2^-961: the lanes below the range (2^-960) are undecided anyway, and their gaps would underflow
  const typename V::reg mag = V::abs(v), pw = V::max(V::power(mag), V::set1(0x1p-961));
  const int at_power = V::eq(mag, pw);
  return (V::lt(lhs, V::mul(pw, V::set1(half_ulp))) & ~at_power) |
         (V::lt(lhs, V::mul(pw, V::set1(half_ulp / 2))) & at_power);
}

// The end of round_from_sums on lanes: vh = RN(h + l), vl its rest, bound the error bound; the lanes of ok whose
// value's interval lies inside the rounding interval of one number of T, that number in out.
template <typename V, typename T>
int round_lanes(typename V::reg vh, typename V::reg vl, typename V::reg bound, int ok, double* out) {
  using R = typename V::reg;
  const R mag = V::abs(vh);
  ok &= finite<V>(vh) & finite<V>(bound);
  if constexpr (std::is_same_v<T, double>) {
    ok &= V::le(V::set1(0x1p-960), mag) & V::lt(mag, V::set1(0x1p1022));
    // vh: the candidate, when the value lies strictly inside its rounding interval
    ok &= within_half_gap<V>(V::mul(V::add(V::abs(vl), bound), V::set1(1 + 4 * kU)), vh, 0x1p-53);
    V::store(out, vh);
  } else {
    ok &= V::le(V::set1(0x1p-120), mag) & V::lt(mag, V::set1(0x1p126));
    const R vf = V::select(ok, vh, V::set1(1.0));  // no FP32 underflow or overflow on the lanes out of range
    const R rf = V::to_float(vf);
    const R d = V::add(V::sub(vf, rf), vl);  // vh - rf exact: within half a float gap of each other
    const R lhs = V::mul(V::add(V::mul(V::abs(d), V::set1(1 + 2 * kU)), bound), V::set1(1 + 4 * kU));
    ok &= within_half_gap<V>(lhs, rf, 0x1p-24);
    V::store(out, rf);
  }
  return ok;
}

// round_from_sums' sum on lanes: the high terms hi0 + hi1 by TwoSum, then the low ones (lo0, lo1, lo2 and that
// TwoSum's error) in that order, into vh + vl (returned: vh); bound: err + u |lo1| (lo1 rounded once) + 4.1 u sum
// |lo| (the low parts' additions), times 1 + 8 u.
template <typename V>
typename V::reg sum_terms(typename V::reg hi0, typename V::reg hi1, typename V::reg lo0, typename V::reg lo1,
                          typename V::reg lo2, typename V::reg err, typename V::reg& vl, typename V::reg& bound) {
  using R = typename V::reg;
  const R zero = V::zero();
  R lo3;
  const R h = two_sum<V>(hi0, hi1, lo3);
  const R l = V::add(V::add(V::add(V::add(zero, lo0), lo1), lo2), lo3);
  const R labs = V::add(V::add(V::add(V::add(zero, V::abs(lo0)), V::abs(lo1)), V::abs(lo2)), V::abs(lo3));
  const R vh = two_sum<V>(h, l, vl);
  bound = V::mul(V::add(V::add(err, V::mul(V::set1(kU), V::abs(lo1))), V::mul(V::set1((4 + 0.1) * kU), labs)),
                 V::set1(1 + 8 * kU));
  return vh;
}

// round_from_sums<T, 1>'s value on lanes, the same operations in the same order: the sums sv, cv, tv times their
// scale's factors g1 g2, times alpha, beside beta cz, into vh (returned) + vl with its bound. ok: the lanes whose
// sums and factors pass the checks (alpha = 0: every lane; their sums are not looked at, as round_from_sums skips
// them). A lane that fails a check goes on with harmless values (0 sums, t = 1, factors 1, no C term), written back:
// no operation the entry decision would not have made raises a floating-point flag (underflow, overflow) here, which
// a caller's runtime reports (gfortran at STOP). Lanes with t = 0 are left to the entry decision for the same reason
// (their bound's terms are subnormal): round_c_terms takes most of them before any decision.
template <typename V>
struct LaneTerms {  // a call's constants of lane_value, broadcast once
  using R = typename V::reg;
  const Terms& x;
  R w, aw, beta, rel, floor_t;
  explicit LaneTerms(const Terms& t) : LaneTerms(t, sums_bound(t)) {}
  LaneTerms(const Terms& t, const SumsBound& b)
      : x(t),
        w(V::set1(t.w[0])),
        aw(V::set1(std::fabs(t.w[0]))),
        beta(V::set1(t.beta[0])),
        rel(V::set1(b.rel)),
        floor_t(V::set1(b.floor)) {}
};

template <typename V>
typename V::reg lane_value(const LaneTerms<V>& c, typename V::reg& sv, typename V::reg& cv, typename V::reg& tv,
                           typename V::reg& g1, typename V::reg& g2, typename V::reg& cz, int& ok, typename V::reg& vl,
                           typename V::reg& bound) {
  using R = typename V::reg;
  const R zero = V::zero(), one = V::set1(1.0);
  R hi0 = zero, lo0 = zero, lo1 = zero, err = V::set1(16 * kEta);
  if (c.x.w[0] != 0) {
    ok &= finite<V>(sv) & finite<V>(cv) & finite<V>(tv) & finite<V>(g1) & finite<V>(g2) & V::lt(zero, tv);
    sv = V::select(ok, sv, zero), cv = V::select(ok, cv, zero), tv = V::select(ok, tv, one);
    g1 = V::select(ok, g1, one), g2 = V::select(ok, g2, one);
    const R sr = V::mul(V::mul(sv, g1), g2), cr = V::mul(V::mul(cv, g1), g2);
    const R er = V::mul(V::mul(V::add(V::mul(c.rel, tv), c.floor_t), g1), g2);
    hi0 = V::mul(c.w, sr), lo0 = V::fmsub(c.w, sr, hi0), lo1 = V::mul(c.w, cr);
    err = V::add(err, V::mul(c.aw, V::add(V::mul(er, V::set1(1 + 4 * kU)), V::set1(4 * kEta))));
  }
  R hi1 = zero, lo2 = zero;
  if (c.x.beta[0] != 0) {
    cz = V::select(ok, cz, zero);
    hi1 = V::mul(c.beta, cz);
    lo2 = V::fmsub(c.beta, cz, hi1);
  }
  return sum_terms<V>(hi0, hi1, lo0, lo1, lo2, err, vl, bound);
}

// round_in_frame on the lanes of `lanes` (round_lanes' FP64 lanes left below 2^-960 in true units): the same checks
// in the same order, lane by lane, then lane_value and round_lanes on the sums at unit factors with C in the frame;
// the other lanes compute on harmless values (factors 1, no C term). Returns the lanes it decided, their roundings in
// out.
template <typename V>
int frame_lanes(int lanes, typename V::reg sv, typename V::reg cv, typename V::reg tv, typename V::reg f1,
                typename V::reg f2, typename V::reg cz, const LaneTerms<V>& c, double* out) {
  using R = typename V::reg;
  const Terms& x = c.x;
  if (x.w[0] == 0 || !moderate(x.w[0]) || !moderate(x.beta[0])) return 0;
  const R zero = V::zero(), one = V::set1(1.0);
  lanes &= V::lt(f2, one);  // a negative scale (f2 = 2^(scale - scale / 2))
  f1 = V::select(lanes, f1, one), f2 = V::select(lanes, f2, one);
  const R g1 = V::inverse_power(f1), g2 = V::inverse_power(f2);
  const R as = V::abs(sv), ac = V::abs(cv);
  lanes &= V::le(V::set1(0x1p-880), as) & V::lt(as, V::set1(0x1p1000)) & V::le(V::set1(0x1p-800), tv) &
           V::lt(tv, V::set1(0x1p1000)) &
           (V::eq(ac, zero) | (V::le(V::set1(0x1p-900), ac) & V::lt(ac, V::set1(0x1p1000))));
  R cf = zero;
  if (x.beta[0] != 0) {
    lanes &= V::lt(V::abs(cz), V::mul(V::mul(V::set1(0x1p1000), f1), f2));
    cf = V::mul(V::mul(V::select(lanes, cz, zero), g1), g2);
    const R acf = V::abs(cf);
    lanes &= V::eq(acf, zero) | V::le(V::set1(0x1p-880), acf);
  }
  if (!lanes) return 0;
  R u1 = one, u2 = one, vl, bound;
  const R vh = lane_value<V>(c, sv, cv, tv, u1, u2, cf, lanes, vl, bound);
  double frame[kMaxLanes];
  lanes = round_lanes<V, double>(vh, vl, bound, lanes, frame);
  lanes &= V::le(V::mul(V::mul(V::set1(0x1p-1022), g1), g2), V::abs(vh));  // the candidate normal in true units
  // the candidate in true units, exactly (normal there), on the decided lanes only
  V::store(out, V::select(lanes, V::mul(V::mul(V::select(lanes, vh, zero), f1), f2), V::load(out)));
  return lanes;
}

template <typename V, typename T>
std::uint64_t decide_rows(int rows, const double* s, const double* c, const double* t, const int* scale,
                          const double* c0, const Terms& x, double* out) {
  using R = typename V::reg;
  constexpr int L = V::kLanes;
  static_assert(std::is_same_v<int, std::int32_t>);
  const R zero = V::zero();
  const LaneTerms<V> terms(x);
  std::uint64_t decided = 0;
  for (int r = 0; r < rows; ++r) {
    const int o = r * L;
    // 2^scale as scale2's two factors 2^(scale / 2) 2^(scale - scale / 2), on the lanes within the range (the only
    // ones decided where the sums are looked at: alpha != 0, as round_from_sums)
    R ev = V::from_i32(scale + o);
    const int within = V::le(V::abs(ev), V::set1(kScaleRange));
    int ok = x.w[0] != 0 ? within : (1 << L) - 1;
    ev = V::select(within, ev, zero);
    const R e1 = V::trunc(V::mul(ev, V::set1(0.5)));
    R sv = zero, cv = zero, tv = zero, g1 = V::pow2i(e1), g2 = V::pow2i(V::sub(ev, e1)), cz = zero;
    if (x.w[0] != 0) sv = V::load(s + o), cv = V::load(c + o), tv = V::load(t + o);
    if (x.beta[0] != 0) cz = V::load(c0 + o);
    R vl, bound;
    const R vh = lane_value<V>(terms, sv, cv, tv, g1, g2, cz, ok, vl, bound);
    const int in = ok;
    ok = round_lanes<V, T>(vh, vl, bound, ok, out + o);
    if constexpr (std::is_same_v<T, double>) {
      // round_from_sums' frame decision for the values below 2^-960 in true units
      if (in & ~ok && x.w[0] != 0) {  // (rows all decided, the common case, pay one test)
        const int below = in & ~ok & finite<V>(vh) & finite<V>(bound) & V::lt(V::abs(vh), V::set1(0x1p-960));
        if (below) ok |= frame_lanes<V>(below, sv, cv, tv, g1, g2, cz, terms, out + o);
      }
    }
    decided |= std::uint64_t(unsigned(ok) & ((1u << L) - 1)) << o;
  }
  return decided;
}

// round_parts on the lanes (RoundPartsLanes): the same terms in the same order (the C term's pair, the parts' his then
// every lo through one TwoSum chain; a zero part, C term or lo adds nothing to the chain, so the sum, its errors and
// their magnitudes are round_parts' own, and the los are left out where alpha = +-1 and beta is 0 or +-1), the bound
// taken with n = kRefinedParts + 1 pairs (at least round_parts' n); the normal-in-true-units and exact-zero decisions
// only. The lanes outside `lanes` compute on zeros, factors 1.
template <typename V>
unsigned round_parts_lanes(const double* parts, const double* slack, const int* scale, const double* c0, const Terms& x,
                           unsigned lanes, double* out) {
  using R = typename V::reg;
  constexpr int L = V::kLanes, P = kRefinedParts;
  static_assert(L <= kMaxLanes);
  // per lane: 2^scale in two steps of one sign (f1 f2: util::pow2_pair, as round_parts), 2^-scale (g1 g2), and the
  // magnitudes between which the candidate is normal in true units: 2^(-1021 - scale) <= |v| < 2^(1021 - scale),
  // exponents clamped to the decided range [2^-960, 2^1000); lanes out of `lanes` or of the scale range at scale 0
  static_assert(std::is_same_v<int, std::int32_t>);
  const R range = V::set1(kScaleRange), half = V::set1(0.5);
  R ev = V::from_i32(scale);
  lanes &= unsigned(V::le(V::abs(ev), range));
  ev = V::select(int(lanes), ev, V::zero());
  const R ne = V::sub(V::zero(), ev), h = V::floor(V::mul(ev, half)), hn = V::floor(V::mul(ne, half));
  const R f1 = V::pow2i(h), f2 = V::pow2i(V::sub(ev, h)), g1 = V::pow2i(hn), g2 = V::pow2i(V::sub(ne, hn));
  const auto clamped = [&](double at) {
    return V::pow2i(V::max(V::set1(-961), V::min(V::set1(1001), V::sub(V::set1(at), ev))));
  };
  const R lo_t = clamped(-1021), hi_t = clamped(1021);
  const R zero = V::zero(), w = V::set1(x.w[0]), beta = V::set1(x.beta[0]);
  const R lo_range = V::set1(0x1p-900), hi_range = V::set1(0x1p1000);
  const auto in_range = [&](R v) {
    const R a = V::abs(v);
    return V::le(lo_range, a) & V::lt(a, hi_range);
  };
  int ok = int(lanes);
  const R sl = V::select(ok, V::load(slack), zero);
  ok &= V::le(zero, sl);
  R hi[P + 1], lo[P + 1];
  hi[0] = lo[0] = zero;
  if (x.beta[0] != 0) {
    const R cz = V::select(ok, V::load(c0), zero);
    const R c = V::mul(V::mul(cz, g1), g2);
    const int none = V::eq(cz, zero);
    ok &= none | in_range(c);
    const R hc = V::mul(beta, V::select(ok, c, zero));
    ok &= none | in_range(hc);
    // (the TwoProds only where round_parts makes them: no other lane's flag)
    const R cc = V::select(ok, c, zero);
    hi[0] = V::select(ok, hc, zero), lo[0] = V::fmsub(beta, cc, hi[0]);
  }
  R p[P];
  for (int q = 0; q < P; ++q) {
    p[q] = V::select(ok, V::load(parts + q * kMaxLanes), zero);
    hi[q + 1] = V::mul(w, p[q]);
    ok &= V::eq(p[q], zero) | in_range(hi[q + 1]);
  }
  for (int q = 0; q < P; ++q) {
    p[q] = V::select(ok, p[q], zero), hi[q + 1] = V::select(ok, hi[q + 1], zero);
    lo[q + 1] = V::fmsub(w, p[q], hi[q + 1]);
  }
  hi[0] = V::select(ok, hi[0], zero), lo[0] = V::select(ok, lo[0], zero);
  R sum = hi[0], e = zero, eabs = zero, t;
  for (int q = 1; q <= P; ++q) sum = two_sum<V>(sum, hi[q], t), e = V::add(e, t), eabs = V::add(eabs, V::abs(t));
  // (alpha = +-1 and beta in {0, +-1}, LAPACK's: every TwoProd error is zero and adds nothing to the chain)
  const bool exact_terms = std::fabs(x.w[0]) == 1 && (x.beta[0] == 0 || std::fabs(x.beta[0]) == 1);
  if (!exact_terms)
    for (int q = 0; q <= P; ++q) sum = two_sum<V>(sum, lo[q], t), e = V::add(e, t), eabs = V::add(eabs, V::abs(t));
  const int exact_zero = ok & V::eq(sum, zero) & V::eq(eabs, zero) & V::eq(sl, zero);
  R rl;
  const R rh = two_sum<V>(sum, e, rl), mag = V::abs(rh);
  R bound = V::mul(V::mul(V::set1((2 * (P + 1) + 0.1) * kU), eabs), V::set1(1 + 8 * kU));
  bound = V::select(V::eq(sl, zero), bound,
                    V::mul(V::add(bound, V::mul(V::set1(std::fabs(x.w[0])), sl)), V::set1(1 + 4 * kU)));
  int decided = ok & V::le(V::set1(0x1p-960), mag) & V::lt(mag, hi_range) & V::le(lo_t, mag) & V::lt(mag, hi_t);
  decided &= within_half_gap<V>(V::mul(V::add(V::abs(rl), bound), V::set1(1 + 4 * kU)), rh, 0x1p-53);
  const R v = V::mul(V::mul(V::select(decided, rh, zero), f1), f2);
  V::store(out, V::select(exact_zero, zero, v));
  return unsigned(decided | exact_zero);
}
#endif

}  // namespace decide
}  // namespace
}  // namespace bf16x::cr
