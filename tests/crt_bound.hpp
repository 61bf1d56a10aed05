// The error bound of the CRT modes (docs/numerics.md, "CRT modes"), evaluated from the scales a call used.
//
// With A^ = diag(2^-ea) op(A), B^ = op(B) diag(2^-eb), alpha_il = A^_il 2^sa_i and A'_il = trunc(alpha_il) (so
// |alpha - A'| < 1 and |A'| <= |alpha|), likewise beta_lj and B'_lj:
//   |alpha beta - A' B'| = |(alpha - A') beta + A' (beta - B')| <= |beta| + |alpha|,
// so, back in the units of C (factor 2^(ea_i + eb_j - sa_i - sb_j)):
//   |sum_l a_il b_lj - 2^(...) (A'B')_ij| <= 2^(ea_i - sa_i) ||b_j||_1 + 2^(eb_j - sb_j) ||a_i||_1       (trunc)
// The CRT returns X = (A'B')_ij with |X~ - X| <= 2^(g-34) + u |X| (moduli.hpp: the S2 sum, K P2 and the final
// additions, each below 2^(g+13-53)); we allow 2^(g-33) 2^(...) (recon). The write rounds X~ 2^(...) once to
// FP64 (u = 2^-53; FP32 modes then round to float, u32 = 2^-24) and applies alpha and beta with one rounding each:
//   |C_ij - (alpha R_ij + beta C0_ij)| <= |alpha| (trunc + recon) (1 + 4u) + 3 u_T (|alpha R_ij| + |beta C0_ij|).
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

template <typename T>
CrtBound crt_bound(const check::Mat<T>& a, const check::Mat<T>& b, const crt::CrtScales& s, int moduli) {
  const crt::CrtPlan& plan = crt::crt_plan(moduli);
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  std::vector<double> na(std::size_t(m), 0.0), nb(std::size_t(n), 0.0);
  check::Mat<double> ah(m, k), bh(k, n);
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t i = 0; i < m; ++i) {
      na[i] += std::fabs(double(a(i, l)));
      ah(i, l) = std::fabs(std::ldexp(double(a(i, l)), -s.ea[i]));
    }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l) {
      nb[j] += std::fabs(double(b(l, j)));
      bh(l, j) = std::fabs(std::ldexp(double(b(l, j)), -s.eb[j]));
    }
  const check::Mat<double> g = check::abs_gemm(ah, bh);
  CrtBound r;
  r.tol = check::Mat<double>(m, n);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      const int e = s.ea[i] + s.eb[j] - s.sa[i] - s.sb[j];
      r.tol(i, j) = std::ldexp(nb[j], s.ea[i] - s.sa[i]) + std::ldexp(na[i], s.eb[j] - s.sb[j]) +
                    std::ldexp(1.0, e + plan.g - 33);
      if (g(i, j) > 0)
        r.max_invariant_excess =
            std::max(r.max_invariant_excess, s.sa[i] + s.sb[j] + std::log2(g(i, j)) * (1 + 1e-12) - plan.L);
    }
  return r;
}

}  // namespace bf16x::test
