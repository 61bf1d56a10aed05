// Checks of a successful call's C against independent references: the double-double product (check/) with the
// per-mode bound for entries whose inputs are finite, and the IEEE class elsewhere -- the host GEMM's class where
// the host ran (it is the library's exact fallback for NaN/Inf), the class IEEE arithmetic forces where an
// emulated mode ran with non-finite alpha, beta or C.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "check/exact_gemm.hpp"
#include "fuzz/error_bounds.hpp"

namespace bf16x::fuzz {

template <typename T>
struct Outcome {
  // Inputs of the call in column-major terms.
  std::int64_t m, n, k;
  double alpha, beta;
  const check::Mat<T>* opa;   // m x k
  const check::Mat<T>* opb;   // k x n
  std::vector<double> c0, c;  // column-major m x n, before and after
  std::vector<double> host;   // the host GEMM on the same call (only where non-finite inputs need it)
  int block_k;                // 0 = the mode's default
  int guard_option;           // bf16x_options.guard (BF16X_GUARD_DEFAULT for the plain API)
  bool by_auto;               // AUTO or DEFAULT was asked for: a mode auto chose is guarded unless the option is off
  double auto_target;         // bf16x_options.auto_target: the guard's target for a mode auto chose (0: 4 k u)
  bool paper;                 // unscaled slices: checked only for inputs inside the range they handle
};

// The exact product and the scales every candidate mode needs, computed once.
struct Reference {
  check::Mat<double> p, absab;
  std::vector<double> sa, sb;
  std::vector<char> row_finite, col_finite;
  // The unscaled (paper) path, where the bounds hold: FP32 slices of x itself stay normal and their products
  // neither flush nor overflow for |x| in [2^-40, 2^40]; the FP64 slices sit on the fixed grid of E = 0
  // (pack/scan_scales.cpp gives the paper path no row exponent), which holds |x| < 1 only.
  bool paper_fp32_in_range = true, paper_fp64_in_range = true;
};

template <typename T>
Reference make_reference(const Outcome<T>& o) {
  Reference r;
  r.p = check::exact_gemm(*o.opa, *o.opb);
  r.absab = check::abs_gemm(*o.opa, *o.opb);
  r.sa = test::row_scales(*o.opa, true);
  r.sb = test::row_scales(*o.opb, false);
  r.row_finite.assign(std::size_t(o.m), 1);
  r.col_finite.assign(std::size_t(o.n), 1);
  auto fp32_range = [](double v) { return v == 0 || (std::fabs(v) >= 0x1p-40 && std::fabs(v) <= 0x1p40); };
  auto fp64_range = [](double v) { return std::fabs(v) < 1; };
  for (std::int64_t l = 0; l < o.k; ++l) {
    for (std::int64_t i = 0; i < o.m; ++i) {
      const double v = double((*o.opa)(i, l));
      if (!std::isfinite(v)) r.row_finite[std::size_t(i)] = 0;
      r.paper_fp32_in_range = r.paper_fp32_in_range && fp32_range(v);
      r.paper_fp64_in_range = r.paper_fp64_in_range && fp64_range(v);
    }
    for (std::int64_t j = 0; j < o.n; ++j) {
      const double v = double((*o.opb)(l, j));
      if (!std::isfinite(v)) r.col_finite[std::size_t(j)] = 0;
      r.paper_fp32_in_range = r.paper_fp32_in_range && fp32_range(v);
      r.paper_fp64_in_range = r.paper_fp64_in_range && fp64_range(v);
    }
  }
  return r;
}

inline bool same_class(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  return true;
}

// Whether the products of entry (i, j) with finite factors, times alpha, could overflow a partial sum of T.
template <typename T>
bool finite_part_overflows(const Outcome<T>& o, std::int64_t i, std::int64_t j, double lim) {
  double sum = 0;
  for (std::int64_t l = 0; l < o.k; ++l) {
    const double a = double((*o.opa)(i, l)), b = double((*o.opb)(l, j));
    if (std::isfinite(a) && std::isfinite(b)) sum += std::fabs(a * b);
  }
  return std::max(1.0, std::fabs(o.alpha)) * sum > lim || !std::isfinite(sum);
}

// Empty if C is right for `mode` having run, else the first wrong entry.
template <typename T>
std::string check_values(const Outcome<T>& o, const Reference& ref, int mode) {
  constexpr bool dbl = sizeof(T) == 8;
  const double lim = double(std::numeric_limits<T>::max()) / 4;
  const bool native = mode == BF16X_MODE_NATIVE;
  const bool inputs_finite_ab = [&] {
    for (char f : ref.row_finite)
      if (!f) return false;
    for (char f : ref.col_finite)
      if (!f) return false;
    return true;
  }();
  // The correctly rounded modes round an entry of a NaN/Inf row or column themselves (in FP64 arithmetic, as the
  // host GEMM does); its class is not checked here, its finite entries are.
  const bool own_nonfinite = mode::is(mode, mode::Method::correctly_rounded);
  if (!native && !own_nonfinite && !inputs_finite_ab)
    return "an emulated mode ran on NaN/Inf in A or B (the host GEMM must)";
  const bool fp64_path = mode::is(mode, mode::Method::slices) && mode::fits(mode, true);
  const bool paper = o.paper && !native;
  // The componentwise guard (src/mode/records.cpp: the modes whose record has it on; every mode auto chose).
  const mode::Record* rec = mode::record(mode);
  const bool guarded = o.guard_option == BF16X_GUARD_ON ||
                       (o.guard_option != BF16X_GUARD_OFF && rec && (o.by_auto || rec->guard == mode::Guard::on));
  if (paper && !(fp64_path ? ref.paper_fp64_in_range : ref.paper_fp32_in_range)) return {};  // not checked
  // Fixed-point scale k 2^(Ea_i + Eb_j); the paper FP64 path's grid has E = 0.
  auto fixed = [&](std::int64_t i, std::int64_t j) {
    return paper && fp64_path ? double(o.k) : double(o.k) * ref.sa[std::size_t(i)] * ref.sb[std::size_t(j)];
  };
  char buf[512];
  for (std::int64_t j = 0; j < o.n; ++j)
    for (std::int64_t i = 0; i < o.m; ++i) {
      const std::size_t at = std::size_t(i + j * o.m);
      const double c = o.c[at], c0 = o.c0[at];
      const bool reads_c = o.beta != 0;
      const double y = reads_c ? o.beta * c0 : 0.0;
      const double p = ref.p(i, j);
      const bool finite_in = std::isfinite(o.alpha) && std::isfinite(o.beta) && (!reads_c || std::isfinite(c0)) &&
                             ref.row_finite[std::size_t(i)] && ref.col_finite[std::size_t(j)];
      if (finite_in) {
        const double r = o.alpha * p + y;
        const EntryScale e{std::fabs(o.alpha), std::fabs(y), std::fabs(r), ref.absab(i, j), fixed(i, j), o.k};
        const double tol = error_bound(mode, dbl, o.block_k, e, guarded, o.by_auto ? o.auto_target : 0);
        // Entries whose value or bound leaves the finite range are not value-checked (overflow is order-dependent).
        if (!std::isfinite(r) || !std::isfinite(tol) || std::fabs(r) + tol > lim ||
            std::fabs(o.alpha) * ref.absab(i, j) > lim || !(ref.absab(i, j) <= lim))
          continue;
        if (!(std::fabs(c - r) <= tol)) {
          std::snprintf(buf, sizeof buf, "%s: C(%lld,%lld) = %.17g, reference %.17g, |diff| %.3g > bound %.3g",
                        bf16x_mode_name(mode), (long long)i, (long long)j, c, r, std::fabs(c - r), tol);
          return buf;
        }
        continue;
      }
      if (native) {
        // Where the entry's finite products could overflow a partial sum, its class depends on the order of the sum
        // (Inf - Inf is NaN in one order, the infinity in another): the library's host path (auto's or the guard's,
        // column-major on a copy for a row-major C) may sum in another order than the host GEMM here. Any
        // non-finite class is then right.
        if (!same_class(c, o.host[at]) && !(!std::isfinite(c) && finite_part_overflows(o, i, j, lim))) {
          std::snprintf(buf, sizeof buf, "native: C(%lld,%lld) = %g, host GEMM %g (IEEE class differs)", (long long)i,
                        (long long)j, c, o.host[at]);
          return buf;
        }
        continue;
      }
      // Emulated with finite A, B: alpha * (product) + beta * C0 in IEEE arithmetic.
      if (!std::isfinite(p)) continue;
      const double tolp = error_bound(mode, dbl, o.block_k, {1, 0, std::fabs(p), ref.absab(i, j), fixed(i, j), o.k});
      enum { kFinite, kNaN, kPosInf, kNegInf, kNonFinite } x, want;
      if (std::isnan(o.alpha))
        x = kNaN;
      else if (std::isinf(o.alpha))
        x = std::fabs(p) > tolp ? ((o.alpha > 0) == (p > 0) ? kPosInf : kNegInf) : kNonFinite;
      else if (std::fabs(o.alpha) * (std::fabs(p) + tolp) > lim)
        continue;
      else
        x = kFinite;
      if (std::fabs(y) > lim && std::isfinite(y)) continue;
      const int yc = std::isnan(y) ? kNaN : (std::isinf(y) ? (y > 0 ? kPosInf : kNegInf) : kFinite);
      if (x == kNaN || yc == kNaN)
        want = kNaN;
      else if ((x == kPosInf && yc == kNegInf) || (x == kNegInf && yc == kPosInf))
        want = kNaN;
      else if (x == kPosInf || x == kNegInf)
        want = x;
      else if (x == kNonFinite)
        want = kNonFinite;
      else if (yc != kFinite)
        want = decltype(want)(yc);
      else
        continue;
      const bool ok = want == kNaN      ? std::isnan(c)
                      : want == kPosInf ? c == HUGE_VAL
                      : want == kNegInf ? c == -HUGE_VAL
                                        : !std::isfinite(c);
      if (!ok) {
        std::snprintf(buf, sizeof buf, "%s: C(%lld,%lld) = %g with alpha %g, beta %g, C0 %g, product %g: wrong class",
                      bf16x_mode_name(mode), (long long)i, (long long)j, c, o.alpha, o.beta, c0, p);
        return buf;
      }
    }
  return {};
}

}  // namespace bf16x::fuzz
