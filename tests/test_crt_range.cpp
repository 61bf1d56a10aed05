// CRT modes (fp64c<N>, fp32c<N>) over the whole exponent range: the write applies alpha and the row/column
// power-of-two scales together with the reconstruction (docs/numerics.md, "CRT write"), so only alpha op(A) op(B) +
// beta C itself is rounded to the output range, as in the BF16 modes. Before, A B was rounded to T first: A, B x
// 2^1000 with alpha 2^-1000 gave +-Inf everywhere, A, B x 2^-1000 with alpha 2^1000 gave C ~ 0, sgemm at 2^64 with
// alpha 2^-64 gave Inf, and beta C past the range cancelled by alpha A B gave NaN.
//
// Every result is checked against the double-double reference (check/exact_gemm.hpp) with the bound of
// tests/crt_bound.hpp: the truncation and reconstruction terms from the scales the call chose, and the write's
// roundings (crt_write_bound), plus the reference's own roundings. The problems are scaled copies of unit-range
// ones (op(A) = 2^sa U, op(B) = 2^sb V, alpha = alpha0 2^e_alpha, C0 = 2^t C0', t = sa + sb + e_alpha), and the
// check runs in the units of the unit-range problem (everything times 2^-t, exact), so no intermediate of the
// check itself leaves the range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "crt/crt_driver.hpp"
#include "crt/crt_mode.hpp"
#include "crt_bound.hpp"
#include "engine/records.hpp"
#include "gemm_fixture.hpp"

namespace bf16x::test {
namespace {

constexpr double kU = 0x1p-53;

template <typename T>
void scale_all(std::vector<T>& v, int e) {
  for (T& x : v)
    if (!std::isnan(x)) x = T(std::ldexp(double(x), e));
}

// Runs p (already scaled: op(A) = 2^sa U, op(B) = 2^sb V, C0 = 2^t C0') in `mode` and checks every entry against
// the reference with the CRT bound. Returns the largest |C - S| / bound (for the messages and the docs).
template <typename T>
double check_scaled(Problem<T>& p, int mode, int sa, int sb, int t, const char* what) {
  constexpr bool fp32 = sizeof(T) == 4;
  const int moduli = crt::crt_moduli(mode);
  // The unit-range operands the stored (scaled, possibly subnormal) values represent exactly.
  check::Mat<T> u = p.opa, v = p.opb, c0 = p.c0;
  scale_all(u.v, -sa);
  scale_all(v.v, -sb);
  scale_all(c0.v, -t);
  // The scales the driver chooses for the scaled op(A), op(B) (they do not depend on alpha, beta or the layout).
  crt::CrtScales s;
  crt::CrtConfig cfg;
  cfg.moduli = moduli;
  cfg.engine = engine::int8_engine(BF16X_ENGINE_REFERENCE);
  cfg.scales = &s;
  check::Mat<T> scratch(p.m, p.n);
  const pack::GemmArgs<T> args{
      p.m, p.n, p.k, T(1), {p.opa.data(), p.m, false}, {p.opb.data(), p.k, false}, T(0), scratch.data(), p.m};
  EXPECT_EQ(crt::gemm_crt(args, cfg), util::DriverStatus::ok);
  const CrtBound bd = crt_bound(u, v, s, moduli, sa, sb);
  EXPECT_LE(bd.max_invariant_excess, 0.0) << what;

  EXPECT_EQ(p.run(mode), BF16X_OK) << what;
  const check::Mat<double> r = check::exact_gemm(u, v);  // R' = U V rounded once to double
  // alpha = alpha0 2^e_alpha with e_alpha = t - sa - sb: in the units of 2^t, S' = alpha0 R' + beta C0'.
  const double alpha0 = std::ldexp(double(p.alpha), sa + sb - t), beta = double(p.beta);
  double worst = 0;
  int bad = 0;
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const double got = std::ldexp(double(p.cval(i, j)), -t);  // exact: C is finite and scales back into range
      const long double want = (long double)alpha0 * r(i, j) + (long double)beta * c0(i, j);
      const double err = double(std::fabs((long double)got - want));
      const double ar = alpha0 * r(i, j), bc = beta * double(c0(i, j));
      // The code's bound, plus the reference's own roundings: R' (u |R'|) and S' in long double.
      const double bound = crt_write_bound(fp32, std::fabs(alpha0) * bd.tol(i, j), ar, bc, got,
                                           std::ldexp(fp32 ? 0x1p-149 : 0x1p-1074, -t)) +
                           kU * std::fabs(ar) + 0x1p-62 * (std::fabs(ar) + std::fabs(bc));
      if (!std::isfinite(got) || !(err <= bound)) {
        if (bad++ < 5)
          ADD_FAILURE() << what << " " << bf16x_mode_name(mode) << " (" << i << "," << j << "): C 2^-t = " << got
                        << ", S 2^-t = " << double(want) << ", |C - S| 2^-t = " << err << " > bound " << bound;
        continue;
      }
      if (bound > 0) worst = std::max(worst, err / bound);
    }
  return worst;
}

// op(A) = 2^sa U, op(B) = 2^sb V, alpha = alpha0 2^e_alpha, beta C0 of the result's size (t = sa + sb + e_alpha).
// Besides the bound: the result is 2^t times that of the unit-range call (U, V, alpha0, C0') bit for bit wherever
// both are normal, as for the BF16 modes (Modes.AlphaJoinsTheScaleExponents*): the same X~, the same scales up to
// their exponents, and the same roundings.
template <typename T>
void scaled_case(int mode, int layout, int sa, int sb, int e_alpha, double alpha0, double beta, std::uint64_t seed,
                 const char* what) {
  Problem<T> p(37, 29, 300, layout, BF16X_NO_TRANS, BF16X_TRANS, seed, 3);
  const int t = sa + sb + e_alpha;
  scale_all(p.a, sa);
  scale_all(p.opa.v, sa);
  scale_all(p.b, sb);
  scale_all(p.opb.v, sb);
  scale_all(p.c, t);
  scale_all(p.c0.v, t);
  p.alpha = T(std::ldexp(double(T(alpha0)), e_alpha));
  p.beta = T(beta);
  ASSERT_TRUE(std::isnormal(p.alpha));
  Problem<T> u = p;  // the unit-range problem the stored values represent exactly
  scale_all(u.a, -sa);
  scale_all(u.opa.v, -sa);
  scale_all(u.b, -sb);
  scale_all(u.opb.v, -sb);
  scale_all(u.c, -t);
  scale_all(u.c0.v, -t);
  u.alpha = T(alpha0);
  check_scaled(p, mode, sa, sb, t, what);
  ASSERT_EQ(u.run(mode), BF16X_OK);
  std::int64_t compared = 0;
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const T want = T(std::ldexp(double(u.cval(i, j)), t));
      if (!std::isnormal(want) || !std::isnormal(u.cval(i, j))) continue;
      ++compared;
      ASSERT_EQ(p.cval(i, j), want) << what << " " << bf16x_mode_name(mode) << " (" << i << "," << j << ")";
    }
  EXPECT_GT(compared, p.m * p.n * 9 / 10) << what;
}

const int kFp64Modes[] = {BF16X_MODE_FP64C(15), BF16X_MODE_FP64C(20)};
const int kFp32Modes[] = {BF16X_MODE_FP32C(8), BF16X_MODE_FP32C(10)};

TEST(CrtRange, AlphaJoinsTheScaleExponentsFp64) {
  for (int mode : kFp64Modes)
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
      // A, B x 2^1000, alpha 2^-1000: A B ~ 2^2000, the result ~ 2^1000.
      scaled_case<double>(mode, layout, 1000, 1000, -1000, 1.7, 0, 1, "A, B x 2^1000, alpha 2^-1000");
      scaled_case<double>(mode, layout, 1000, 1000, -1000, -0.75, 0.5, 2, "A, B x 2^1000, alpha 2^-1000, beta");
      // A, B x 2^-1000, alpha 2^1000: A B ~ 2^-2000, the result ~ 2^-1000 (normal); the small entries of U, V are
      // subnormal after scaling and carry fewer bits, which U, V are built from.
      scaled_case<double>(mode, layout, -1000, -1000, 1000, 1.7, 0, 3, "A, B x 2^-1000, alpha 2^1000");
      scaled_case<double>(mode, layout, -1000, -1000, 1000, -0.75, 0.5, 4, "A, B x 2^-1000, alpha 2^1000, beta");
      // 2^(ea + eb) far outside the range both ways at once, alpha bringing every entry back.
      scaled_case<double>(mode, layout, 1020, 1000, -1022, 1.3, 0, 5, "A x 2^1020, B x 2^1000, alpha 2^-1022");
    }
}

TEST(CrtRange, AlphaJoinsTheScaleExponentsFp32) {
  for (int mode : kFp32Modes)
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
      scaled_case<float>(mode, layout, 64, 64, -64, 1.7, 0, 11, "A, B x 2^64, alpha 2^-64");
      scaled_case<float>(mode, layout, 64, 64, -64, -0.75, 0.5, 12, "A, B x 2^64, alpha 2^-64, beta");
      scaled_case<float>(mode, layout, -64, -64, 64, 1.7, 0, 13, "A, B x 2^-64, alpha 2^64");
      scaled_case<float>(mode, layout, -64, -64, 64, -0.75, 0.5, 14, "A, B x 2^-64, alpha 2^64, beta");
      scaled_case<float>(mode, layout, 100, 80, -120, 1.3, 0, 15, "A x 2^100, B x 2^80, alpha 2^-120");
    }
}

// SGEMM: beta C0 and alpha A B each past FLT_MAX, their sum back inside (docs/accuracy.md, "IEEE special values"):
// alpha = beta = 2^e with 2^e min R >= 2 FLT_MAX and C0 = -0.875 fl32(R) on positive operands, so that both terms
// overflow FP32 in every entry and S = 2^e (R - 0.875 fl32(R)) ~ 2^(e-3) R is finite. The write adds them in FP64;
// the old one added them in FP32 and gave NaN everywhere. (DGEMM terms past DBL_MAX overflow the FP64 write, as in
// the BF16 modes and the host DGEMM.)
template <typename T>
void beta_c_past_the_range(int mode, int layout) {
  const std::int64_t m = 23, n = 19, k = 64;
  Problem<T> p(m, n, k, layout, BF16X_TRANS, BF16X_NO_TRANS, 40 + std::uint64_t(mode) + std::uint64_t(layout));
  auto positive = [](T x) { return std::isnan(x) ? x : T(0.5 + 0.25 * (double(x) + 1)); };  // [0.5, 1]
  for (T& x : p.a) x = positive(x);
  for (T& x : p.opa.v) x = positive(x);
  for (T& x : p.b) x = positive(x);
  for (T& x : p.opb.v) x = positive(x);
  const check::Mat<double> r = check::exact_gemm(p.opa, p.opb);
  double lo = HUGE_VAL, hi = 0;
  for (double x : r.v) lo = std::min(lo, x), hi = std::max(hi, x);
  constexpr int emax = std::numeric_limits<T>::max_exponent;  // max(T) < 2^emax
  const int e = emax + 1 - int(std::floor(std::log2(lo)));    // 2^e lo >= 2^(emax + 1)
  const double big = double(std::numeric_limits<T>::max());
  ASSERT_LT(std::ldexp(0.13 * hi, e), big) << "the result must stay in range";
  p.alpha = p.beta = T(std::ldexp(1.0, e));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      p.c[Problem<T>::at(layout, i, j, p.ldc)] = p.c0(i, j) = T(-0.875 * double(T(r(i, j))));
      ASSERT_GT(std::ldexp(r(i, j), e), big);
      ASSERT_GT(std::ldexp(std::fabs(double(p.c0(i, j))), e), big);
    }
  // Checked in units of 2^e: alpha0 = 1, C0' = 2^-e C0, so S' = R + C0.
  check_scaled(p, mode, 0, 0, e, "beta C0 and alpha A B past the range, cancelling");
}

TEST(CrtRange, BetaCPastFltMaxCancelledByAlphaAB) {
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (int mode : kFp32Modes) beta_c_past_the_range<float>(mode, layout);
}

// Ordinary data, alpha and beta: the write's rounding is that of alpha A B + beta C alone (crt_write_bound). The
// old write rounded A B to T, then alpha (A B), beta C and their sum in T: four roundings of fp32c in FP32, up to
// 1.33x the docs' write terms read literally (fp32c10), and more than this bound wherever C cancels.
TEST(CrtRange, WriteWithAlphaAndBetaWithinItsBound) {
  const double alphas[][2] = {{-2.5, 0.5}, {0.75, -1}, {3, 1}, {1, 0}};
  std::uint64_t seed = 70;
  for (const auto& ab : alphas)
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
      for (int mode : kFp32Modes) {
        Problem<float> p(50, 66, 130, layout, BF16X_TRANS, BF16X_NO_TRANS, seed++, 2);
        p.alpha = float(ab[0]);
        p.beta = float(ab[1]);
        const double w = check_scaled(p, mode, 0, 0, 0, "alpha, beta");
        std::printf("[ info ] %s alpha %g beta %g: max |C - S| / bound = %.3f\n", bf16x_mode_name(mode), ab[0], ab[1],
                    w);
      }
      for (int mode : kFp64Modes) {
        Problem<double> p(50, 66, 130, layout, BF16X_TRANS, BF16X_NO_TRANS, seed++, 2);
        p.alpha = ab[0];
        p.beta = ab[1];
        check_scaled(p, mode, 0, 0, 0, "alpha, beta");
      }
    }
}

}  // namespace
}  // namespace bf16x::test
