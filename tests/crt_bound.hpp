// The error bound of the CRT modes (docs/numerics.md, "CRT modes"), evaluated from the scales a call used.
//
// With A^ = diag(2^-ea) op(A), B^ = op(B) diag(2^-eb), alpha_il = A^_il 2^sa_i and A'_il = trunc(alpha_il) (so
// |alpha - A'| < 1 and |A'| <= |alpha|), likewise beta_lj and B'_lj:
//   |alpha beta - A' B'| = |(alpha - A') beta + A' (beta - B')| <= |beta| + |alpha|,
// so, back in the units of C (factor 2^(ea_i + eb_j - sa_i - sb_j)):
//   |sum_l a_il b_lj - 2^(...) (A'B')_ij| <= 2^(ea_i - sa_i) ||b_j||_1 + 2^(eb_j - sb_j) ||a_i||_1       (trunc)
// The CRT returns X^ = hi + lo with |X^ - X| <= 2^(g-34) (moduli.hpp: the S2 sum and K P2), rounded once,
// X~ = fl(X^); we allow 2^(g-33) 2^(...) (recon). The write (crt_write_bound) applies alpha and the scales with
// the reconstruction and rounds only alpha R + beta C0 itself to T.
// The scaling invariant the CRT needs is checked separately: sa_i + sb_j + log2 (|A^||B^|)_ij <= L.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

#include "check/exact_gemm.hpp"
#include "crt/crt_driver.hpp"
#include "crt/moduli.hpp"

namespace bf16x::test {

struct CrtBound {
  check::Mat<double> tol;  // per-entry bound of |C - (alpha R + beta C0)| without the final rounding terms
  double max_invariant_excess = -1e300;  // max over ij of sa_i + sb_j + log2 G_ij - L (must be <= 0)
};

// a, b: op(A) = 2^shift_a a and op(B) = 2^shift_b b, s the scales of the call on op(A), op(B); the bound is
// returned in the units of a b (the bound of op(A) op(B) is 2^(shift_a + shift_b) tol), so that operands near the
// ends of the exponent range need no intermediate outside it.
template <typename T>
CrtBound crt_bound(const check::Mat<T>& a, const check::Mat<T>& b, const crt::CrtScales& s, int moduli, int shift_a = 0,
                   int shift_b = 0) {
  const crt::CrtPlan& plan = crt::crt_plan(moduli);
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  const auto ea = [&](std::int64_t i) { return s.ea[std::size_t(i)] - shift_a; };
  const auto eb = [&](std::int64_t j) { return s.eb[std::size_t(j)] - shift_b; };
  std::vector<double> na(std::size_t(m), 0.0), nb(std::size_t(n), 0.0);
  check::Mat<double> ah(m, k), bh(k, n);
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t i = 0; i < m; ++i) {
      na[i] += std::fabs(double(a(i, l)));
      ah(i, l) = std::fabs(std::ldexp(double(a(i, l)), -ea(i)));
    }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l) {
      nb[j] += std::fabs(double(b(l, j)));
      bh(l, j) = std::fabs(std::ldexp(double(b(l, j)), -eb(j)));
    }
  const check::Mat<double> g = check::abs_gemm(ah, bh);
  CrtBound r;
  r.tol = check::Mat<double>(m, n);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      const int e = ea(i) + eb(j) - s.sa[i] - s.sb[j];
      r.tol(i, j) =
          std::ldexp(nb[j], ea(i) - s.sa[i]) + std::ldexp(na[i], eb(j) - s.sb[j]) + std::ldexp(1.0, e + plan.g - 33);
      if (g(i, j) > 0)
        r.max_invariant_excess =
            std::max(r.max_invariant_excess, s.sa[i] + s.sb[j] + std::log2(g(i, j)) * (1 + 1e-12) - plan.L);
    }
  return r;
}

// The write of the CRT driver (docs/numerics.md, "CRT write"): with alpha = m_alpha 2^e_alpha, m_alpha in
// [0.5, 1), v = fl(m_alpha X~) 2^(e_ij + e_alpha) (the power of two exact, or one rounding where v is subnormal),
// w = fl(beta C0) and C = fl_T(fl64(v + w)) (fp64c: the last two are one rounding). With S = alpha R + beta C0,
// R = (AB)_ij, and E = |alpha| (trunc + recon):
//   fp64c  |C - S| <= E (1 + 3u) + (2u + u^2) |alpha R| + u |beta C0| + u |C| + 2^-1074
//   fp32c  |C - S| <= E (1 + 3u) + (2u + u^2) |alpha R| + u |beta C0| + (u32 + 2u) |C| + 2^-149
// (u = 2^-53: X~ and m_alpha X~ round once each, beta C0 once; the FP64 sum once, u |D| <= u (1 + u32) |C| +
// 2^-150; fp32c rounds D to FP32 once, u32 |C| + 2^-150). Arguments and result in one unit, 2^t (the checks scale
// far-out problems back to the unit range); tiny is the last term, 2^-1074 or 2^-149, in that unit.
inline double crt_write_bound(bool fp32, double alpha_trunc_recon, double alpha_r, double beta_c0, double c,
                              double tiny) {
  constexpr double u = 0x1p-53, u32 = 0x1p-24;
  return alpha_trunc_recon * (1 + 3 * u) + (2 * u + u * u) * std::fabs(alpha_r) + u * std::fabs(beta_c0) +
         (fp32 ? u32 + 2 * u : u) * std::fabs(c) + tiny;
}

}  // namespace bf16x::test
