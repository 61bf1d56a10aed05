// Shared helpers for tests that call the C API: random operands in any layout/transpose, the double-double
// reference of alpha*op(A)op(B) + beta*C, and per-element scales for the fixed-point error bounds.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "support/bounds.hpp"

namespace bf16x::test {

template <typename T>
struct Problem {
  int layout = BF16X_COL_MAJOR, ta = BF16X_NO_TRANS, tb = BF16X_NO_TRANS;
  std::int64_t m, n, k, lda, ldb, ldc;
  T alpha = 1, beta = 0;
  std::vector<T> a, b, c;
  check::Mat<T> opa, opb;  // op(A), op(B) as column-major m x k, k x n
  check::Mat<T> c0;        // C before the call, column-major m x n

  // Element (i,j) of a stored matrix, given the layout.
  static std::size_t at(int layout, std::int64_t i, std::int64_t j, std::int64_t ld) {
    return std::size_t(layout == BF16X_COL_MAJOR ? i + j * ld : j + i * ld);
  }

  Problem(std::int64_t m_, std::int64_t n_, std::int64_t k_, int layout_, int ta_, int tb_, std::uint64_t seed,
          std::int64_t pad = 0, double emin = 0, double emax = 0)
      : layout(layout_), ta(ta_), tb(tb_), m(m_), n(n_), k(k_), opa(m_, k_), opb(k_, n_), c0(m_, n_) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1), e(emin, emax);
    auto draw = [&] { return T(u(rng) * std::exp2(e(rng))); };
    const bool tra = ta != BF16X_NO_TRANS, trb = tb != BF16X_NO_TRANS;
    // Stored shapes (rows x cols in the layout's sense) and leading dimensions with padding.
    const std::int64_t ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
    lda = (layout == BF16X_COL_MAJOR ? ar : ac) + pad;
    ldb = (layout == BF16X_COL_MAJOR ? br : bc) + pad;
    ldc = (layout == BF16X_COL_MAJOR ? m : n) + pad;
    a.assign(std::size_t(lda * std::max<std::int64_t>(1, layout == BF16X_COL_MAJOR ? ac : ar)), T(NAN));
    b.assign(std::size_t(ldb * std::max<std::int64_t>(1, layout == BF16X_COL_MAJOR ? bc : br)), T(NAN));
    c.assign(std::size_t(ldc * std::max<std::int64_t>(1, layout == BF16X_COL_MAJOR ? n : m)), T(NAN));
    for (std::int64_t i = 0; i < ar; ++i)
      for (std::int64_t j = 0; j < ac; ++j) {
        const T v = draw();
        a[at(layout, i, j, lda)] = v;
        if (tra)
          opa(j, i) = v;
        else
          opa(i, j) = v;
      }
    for (std::int64_t i = 0; i < br; ++i)
      for (std::int64_t j = 0; j < bc; ++j) {
        const T v = draw();
        b[at(layout, i, j, ldb)] = v;
        if (trb)
          opb(j, i) = v;
        else
          opb(i, j) = v;
      }
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c[at(layout, i, j, ldc)] = c0(i, j) = T(u(rng));
  }

  T cval(std::int64_t i, std::int64_t j) const { return c[at(layout, i, j, ldc)]; }

  double auto_target = 0;           // bf16x_options.auto_target of run()
  int guard = BF16X_GUARD_DEFAULT;  // bf16x_options.guard of run()

  int run(int mode, int engine = BF16X_ENGINE_AUTO, bf16x_stats* stats = nullptr) {
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    o.engine = engine;
    o.stats = stats;
    o.auto_target = auto_target;
    o.guard = bf16x_guard(guard);
    if constexpr (sizeof(T) == 8)
      return bf16x_dgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(),
                            lda, b.data(), ldb, beta, c.data(), ldc, &o);
    else
      return bf16x_sgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(),
                            lda, b.data(), ldb, beta, c.data(), ldc, &o);
  }
};

// 2^E with |x| < 2^E for the row i of op(A) (column j of op(B)): the scale the fixed-point bound is stated in.
template <typename T>
std::vector<double> row_scales(const check::Mat<T>& x, bool rows) {
  std::vector<double> s(std::size_t(rows ? x.rows : x.cols), 0);
  for (std::int64_t i = 0; i < x.rows; ++i)
    for (std::int64_t j = 0; j < x.cols; ++j) {
      double& t = s[std::size_t(rows ? i : j)];
      t = std::max(t, std::fabs(double(x(i, j))));
    }
  for (double& t : s) {
    int e = 0;
    if (t > 0) std::frexp(t, &e);
    t = t > 0 ? std::ldexp(1.0, e) : 0;
  }
  return s;
}

}  // namespace bf16x::test
