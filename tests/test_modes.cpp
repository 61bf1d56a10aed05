// Every mode against the double-double reference, with tolerances from the error analysis (docs/numerics.md),
// and the paper's Table 4 reproduced.
#include <gtest/gtest.h>

#include <cmath>

#include "check/exact_gemm.hpp"
#include "check/inputs.hpp"
#include "check/metrics.hpp"
#include "gemm_fixture.hpp"
#include "host/host_blas.hpp"

using namespace bf16x;
using bf16x::test::Problem;

namespace {

constexpr double kU64 = 0x1p-53, kU32 = 0x1p-24;
double gamma(double n, double u) { return n * u / (1 - n * u); }

// alpha * op(A) op(B) + beta * C0 with the product from the double-double reference.
template <typename T>
check::Mat<double> expected(const Problem<T>& p, check::Mat<double>* absab) {
  check::Mat<double> r = check::exact_gemm(p.opa, p.opb);
  *absab = check::abs_gemm(p.opa, p.opb);
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) r(i, j) = double(p.alpha) * r(i, j) + double(p.beta) * double(p.c0(i, j));
  return r;
}

// fp64x(d): |C - R| <= |alpha| k 2^(Ea+Eb) (T_d + gamma_n + 2u) + 2u |beta C0| + u |R|, where n counts the FP64
// additions per element (groups x k-blocks) and T_d is the fixed-point truncation bound.
void check_fp64(Problem<double>& p, int mode, int d, int engine = BF16X_ENGINE_AUTO) {
  ASSERT_EQ(p.run(mode, engine), BF16X_OK);
  check::Mat<double> absab;
  const auto r = expected(p, &absab);
  const auto sa = test::row_scales(p.opa, true), sb = test::row_scales(p.opb, false);
  const double adds = double((d * (d + 1)) / 2) * double((p.k + 255) / 256) + 2;
  const double rel = test::fp64_truncation_bound(d) + gamma(adds, kU64) * 1.01 + 2 * kU64;
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const double tol = std::fabs(p.alpha) * double(p.k) * sa[i] * sb[j] * rel +
                         2 * kU64 * std::fabs(p.beta * p.c0(i, j)) + kU64 * std::fabs(r(i, j));
      ASSERT_LE(std::fabs(p.cval(i, j) - r(i, j)), tol)
          << bf16x_mode_name(mode) << " (" << i << "," << j << ") m,n,k=" << p.m << "," << p.n << "," << p.k;
    }
}

// fp32x6: slices exact, dropped products A1B2 + A2B1 + A2B2 <= 3 * 2^-24 |a||b| (|A_1| <= 2^-8 |a|, |A_2| <=
// 2^-16 |a| up to rounding). fp32x3: two slices leave |a - A_0 - A_1| <= 2^-16 |a| (each slice rounded to 8 bits);
// with B's and the dropped A1B1 (<= 2^-16 (1 + 2^-8)^2 |a||b|) under 3.1 * 2^-16 |a||b|. Then FP32 sums of
// 2 * products * 64 pair additions per k-block plus one add per k-block, DAZ of slices below 2^-126 of the row
// scale, alpha/beta in FP64 and one rounding to FP32.
void check_fp32(Problem<float>& p, int mode = BF16X_MODE_FP32X6, int engine = BF16X_ENGINE_AUTO) {
  ASSERT_EQ(p.run(mode, engine), BF16X_OK);
  check::Mat<double> absab;
  const auto r = expected(p, &absab);
  const auto sa = test::row_scales(p.opa, true), sb = test::row_scales(p.opb, false);
  const bool x3 = mode == BF16X_MODE_FP32X3;
  const double n = 2.0 * (x3 ? 3 : 6) * 64 + double((p.k + 63) / 64);
  const double rel = gamma(n, kU32) * 1.02 + (x3 ? 3.1 * 0x1p-16 : 3.1 * kU32);
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const double tol = std::fabs(p.alpha) * (absab(i, j) * rel + double(p.k) * sa[i] * sb[j] * 0x1p-120) +
                         kU32 * std::fabs(r(i, j)) + 2 * kU64 * std::fabs(p.beta * p.c0(i, j));
      ASSERT_LE(std::fabs(double(p.cval(i, j)) - r(i, j)), tol)
          << bf16x_mode_name(mode) << " (" << i << "," << j << ")";
    }
}

}  // namespace

TEST(Modes, Fp64AllModesWithinFixedPointBound) {
  for (int d = 3; d <= 6; ++d) {
    Problem<double> p(70, 45, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 10 + d, 0, -20, 20);
    check_fp64(p, BF16X_MODE_FP64X6 + (d - 3), d);
  }
}

TEST(Modes, Fp32WithinSummationBound) {
  for (int mode : {BF16X_MODE_FP32X6, BF16X_MODE_FP32X3}) {
    Problem<float> p(70, 45, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 3, 0, -20, 20);
    check_fp32(p, mode);
  }
}

TEST(Modes, OddShapesLayoutsTransposesAlphaBeta) {
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 1}, {257, 3, 1000}, {5, 7, 1}, {33, 65, 17}, {1, 40, 513}, {64, 1, 256}};
  int seed = 0;
  for (const Shape& s : shapes)
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
      for (int ta : {BF16X_NO_TRANS, BF16X_TRANS})
        for (int tb : {BF16X_NO_TRANS, BF16X_CONJ_TRANS}) {
          ++seed;
          if (s.m * s.n * s.k > 100000) {
            // The large shape once per layout keeps the runtime low; the small ones cover every combination.
            if (ta != BF16X_NO_TRANS || tb != BF16X_NO_TRANS) continue;
          }
          Problem<double> pd(s.m, s.n, s.k, layout, ta, tb, seed, 3);
          pd.alpha = -1.5;
          pd.beta = 0.25;
          check_fp64(pd, BF16X_MODE_FP64X10, 4);
          Problem<float> pf(s.m, s.n, s.k, layout, ta, tb, seed, 2);
          pf.alpha = 2.0f;
          pf.beta = -1.0f;
          Problem<float> pf3 = pf;
          check_fp32(pf);
          check_fp32(pf3, BF16X_MODE_FP32X3);
        }
}

TEST(Modes, BetaZeroIgnoresNaNInC) {
  Problem<double> p(40, 30, 20, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 1);
  for (auto& x : p.c) x = NAN;
  p.beta = 0;
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) p.c0(i, j) = 0;
  check_fp64(p, BF16X_MODE_FP64X21, 6);
  Problem<float> q(40, 30, 20, BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, 2);
  for (auto& x : q.c) x = NAN;
  q.beta = 0;
  for (std::int64_t j = 0; j < q.n; ++j)
    for (std::int64_t i = 0; i < q.m; ++i) q.c0(i, j) = 0;
  check_fp32(q);
}

// Paper Table 4 (uniform [-1,1], N = 256): eF of fp64x6/10/15 is 1.49e-8, 3.26e-11, 6.95e-14. At these levels the
// native DGEMM's own error (~4e-16) is negligible, so eF against the exact reference must match within 15%.
// fp64x21 sits at the rounding level: it must be no less accurate than the host DGEMM. fp32x6 must be within 2x
// of the host SGEMM's own error.
TEST(Modes, PaperTable4Uniform256) {
  const std::int64_t n = 256;
  const auto a = check::make_input<double>(check::Dist::uniform, n, n, 1, 0);
  const auto b = check::make_input<double>(check::Dist::uniform, n, n, 1, 1);
  const auto ex = check::exact_gemm(a, b), ab = check::abs_gemm(a, b);
  const double paper[] = {1.49e-8, 3.26e-11, 6.95e-14};
  check::Mat<double> nat(n, n);
  ASSERT_TRUE(host::dgemm(111, 111, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, nat.data(), n));
  const double native_eF = check::errors(nat, ex, ab).eF;
  for (int d = 3; d <= 6; ++d) {
    check::Mat<double> c(n, n);
    ASSERT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                          c.data(), n, bf16x_mode(BF16X_MODE_FP64X6 + d - 3)),
              BF16X_OK);
    const double eF = check::errors(c, ex, ab).eF;
    if (d < 6) {
      EXPECT_NEAR(eF, paper[d - 3], 0.15 * paper[d - 3]) << "d=" << d;
    } else {
      EXPECT_LE(eF, native_eF) << "fp64x21 less accurate than the host DGEMM";
    }
  }
  const auto a32 = check::make_input<float>(check::Dist::uniform, n, n, 1, 0);
  const auto b32 = check::make_input<float>(check::Dist::uniform, n, n, 1, 1);
  const auto ex32 = check::exact_gemm(a32, b32), ab32 = check::abs_gemm(a32, b32);
  check::Mat<float> s(n, n), c32(n, n);
  ASSERT_TRUE(host::sgemm(111, 111, n, n, n, 1.f, a32.data(), n, b32.data(), n, 0.f, s.data(), n));
  ASSERT_EQ(bf16x_sgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.f, a32.data(), n, b32.data(), n,
                        0.f, c32.data(), n, BF16X_MODE_FP32X6),
            BF16X_OK);
  EXPECT_LE(check::errors(c32, ex32, ab32).eF, 2.0 * check::errors(s, ex32, ab32).eF);
}

// alpha's exponent joins the row/column scale exponents (docs/numerics.md, "alpha"): with A = 2^ea U, B = 2^eb V
// and alpha = 1.7 * 2^e, the result is 2^(ea + eb + e) times that of U, V and alpha = 1.7, bit for bit, wherever
// the result is a normal number, however far 2^(ea + eb) alone lies outside the range (it once gave -Inf for
// A, B x 2^1000, alpha = 2^-1000 and -0 for 2^-1000, 2^1000). The unscaled call is checked against the exact
// reference with the mode's bound, so the scaled one is too. A subnormal A (2^-1050) keeps fewer bits, and the
// unscaled problem is built from those bits.
template <typename T>
void check_alpha_folded(int mode, int d, int ea, int eb, int e_alpha, int layout) {
  Problem<T> p(37, 29, 300, layout, BF16X_NO_TRANS, BF16X_TRANS, 100 + std::uint64_t(d), 3);
  Problem<T> u = p;
  auto scale = [](T x, int e) { return std::isnan(x) ? x : T(std::ldexp(x, e)); };
  for (T& x : p.a) x = scale(x, ea);
  for (T& x : p.opa.v) x = scale(x, ea);
  for (T& x : p.b) x = scale(x, eb);
  for (T& x : p.opb.v) x = scale(x, eb);
  for (std::size_t i = 0; i < p.a.size(); ++i) u.a[i] = scale(p.a[i], -ea);  // the bits that survived, unscaled
  for (std::size_t i = 0; i < p.opa.v.size(); ++i) u.opa.v[i] = scale(p.opa.v[i], -ea);
  u.alpha = T(1.7);
  p.alpha = T(std::ldexp(1.7, e_alpha));
  if constexpr (sizeof(T) == 8)
    check_fp64(u, mode, d);
  else
    check_fp32(u);
  ASSERT_EQ(p.run(mode), BF16X_OK);
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const T want = T(std::ldexp(u.cval(i, j), ea + eb + e_alpha));
      ASSERT_TRUE(std::isnormal(want)) << i << "," << j;
      ASSERT_EQ(p.cval(i, j), want) << bf16x_mode_name(mode) << " ea,eb,e_alpha=" << ea << "," << eb << "," << e_alpha
                                    << " at (" << i << "," << j << ")";
    }
}

TEST(Modes, AlphaJoinsTheScaleExponentsFp64) {
  const int cases[][3] = {{1000, 1000, -1000}, {-1000, -1000, 1000}, {-1050, -20, 1023}, {900, -900, 0}};
  for (int d = 3; d <= 6; ++d)
    for (const auto& c : cases)
      for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
        check_alpha_folded<double>(BF16X_MODE_FP64X6 + (d - 3), d, c[0], c[1], c[2], layout);
}

TEST(Modes, AlphaJoinsTheScaleExponentsFp32) {
  const int cases[][3] = {{90, 90, -100}, {-90, -90, 100}, {-140, -20, 126}};
  for (const auto& c : cases)
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
      check_alpha_folded<float>(BF16X_MODE_FP32X6, 0, c[0], c[1], c[2], layout);
}
