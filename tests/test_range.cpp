// Beyond the paper's input range: with the default scaled split every finite input works.
//
// What a fixed-point method (one power-of-two scale per row of op(A) and column of op(B)) can promise:
//  - rows and columns of very different scale cost nothing. With A = diag(2^e_i) U and B = U' diag(2^f_j) the
//    slices of U and of A are the same numbers, so C = diag(2^e_i) C_U diag(2^f_j) bit for bit wherever that
//    result is normal, and e_scaled is exactly that of the uniform class;
//  - entries spread over many binades within one row keep only their bits above the row's grid: the error bound
//    is relative to k 2^(Ea_i+Eb_j), not to (|A||B|)_ij (docs/numerics.md), and e_scaled grows with the spread.
// The paper's unscaled split fails outside the BF16 exponent range; the scaled one does not.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "check/metrics.hpp"
#include "gemm_fixture.hpp"

using namespace bf16x;

namespace {

constexpr double kU64 = 0x1p-53, kU32 = 0x1p-24;
double gamma(double n, double u) { return n * u / (1 - n * u); }

// op(X) (column-major Mat) stored as the API sees it: transposed or not, in either layout.
template <typename T>
struct Stored {
  std::vector<T> v;
  std::int64_t ld;
};
template <typename T>
Stored<T> store(const check::Mat<T>& op, int layout, bool trans) {
  const std::int64_t r = trans ? op.cols : op.rows, c = trans ? op.rows : op.cols;  // stored shape
  Stored<T> s{std::vector<T>(std::size_t(std::max<std::int64_t>(1, r * c))), layout == BF16X_COL_MAJOR ? r : c};
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j)
      s.v[std::size_t(layout == BF16X_COL_MAJOR ? i + j * s.ld : i * s.ld + j)] = trans ? op(j, i) : op(i, j);
  return s;
}

struct Call {
  int layout = BF16X_COL_MAJOR, ta = BF16X_NO_TRANS, tb = BF16X_NO_TRANS;
  int mode = BF16X_MODE_FP64X21;
  int split = BF16X_SPLIT_SCALED;
};

// C = op(A) op(B) through the C API; returned column-major m x n.
template <typename T>
check::Mat<T> gemm(const Call& call, const check::Mat<T>& opa, const check::Mat<T>& opb) {
  const std::int64_t m = opa.rows, n = opb.cols, k = opa.cols;
  const auto a = store(opa, call.layout, call.ta != BF16X_NO_TRANS);
  const auto b = store(opb, call.layout, call.tb != BF16X_NO_TRANS);
  const std::int64_t ldc = call.layout == BF16X_COL_MAJOR ? m : n;
  std::vector<T> c(std::size_t(m * n), T(0));
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = call.mode;
  o.split = call.split;
  int st;
  if constexpr (sizeof(T) == 8)
    st = bf16x_dgemm_ex(bf16x_layout(call.layout), bf16x_transpose(call.ta), bf16x_transpose(call.tb), m, n, k, 1.0,
                        a.v.data(), a.ld, b.v.data(), b.ld, 0.0, c.data(), ldc, &o);
  else
    st = bf16x_sgemm_ex(bf16x_layout(call.layout), bf16x_transpose(call.ta), bf16x_transpose(call.tb), m, n, k, 1.0f,
                        a.v.data(), a.ld, b.v.data(), b.ld, 0.0f, c.data(), ldc, &o);
  EXPECT_EQ(st, BF16X_OK);
  check::Mat<T> out(m, n);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      out(i, j) = c[std::size_t(call.layout == BF16X_COL_MAJOR ? i + j * ldc : i * ldc + j)];
  return out;
}

template <typename T>
check::ErrorStats errors_vs_exact(const check::Mat<T>& c, const check::Mat<T>& a, const check::Mat<T>& b) {
  return check::errors(c, check::exact_gemm(a, b), check::abs_gemm(a, b));
}

template <typename T>
check::Mat<T> uniform(std::int64_t r, std::int64_t c, std::mt19937_64& rng) {
  // Strictly inside (-1, 1) so that a scale of 2^128 stays finite in FP32.
  std::uniform_real_distribution<double> u(-1 + 0x1p-20, 1 - 0x1p-20);
  check::Mat<T> m(r, c);
  for (auto& x : m.v) x = T(u(rng));
  return m;
}

std::vector<int> exponents(std::int64_t count, int lo, int hi, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> e(lo, hi);
  std::vector<int> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = e(rng);
  v.front() = lo;  // both ends of the range always occur
  v.back() = hi;
  return v;
}

// x(i, l) * 2^e_i (rows) or x(l, j) * 2^f_j (columns), rounded once to T (FP32 subnormals lose bits here), and the
// unscaled matrix those rounded values represent exactly.
template <typename T>
void scale_lines(const check::Mat<T>& x, const std::vector<int>& e, bool rows, check::Mat<T>& scaled,
                 check::Mat<T>& unscaled) {
  scaled = unscaled = x;
  for (std::int64_t i = 0; i < x.rows; ++i)
    for (std::int64_t j = 0; j < x.cols; ++j) {
      const int s = e[std::size_t(rows ? i : j)];
      scaled(i, j) = T(std::ldexp(double(x(i, j)), s));
      unscaled(i, j) = T(std::ldexp(double(scaled(i, j)), -s));  // exact: the result is normal
    }
}

// max_ij k 2^(Ea_i+Eb_j) / (|A||B|)_ij: the factor between the fixed-point bound and e_scaled.
template <typename T>
double fill_ratio_of(const check::Mat<T>& a, const check::Mat<T>& b) {
  const auto sa = test::row_scales(a, true), sb = test::row_scales(b, false);
  const auto ab = check::abs_gemm(a, b);
  double r = 0;
  for (std::int64_t j = 0; j < b.cols; ++j)
    for (std::int64_t i = 0; i < a.rows; ++i)
      if (ab(i, j) > 0) r = std::max(r, double(a.cols) * sa[std::size_t(i)] * sb[std::size_t(j)] / ab(i, j));
  return r;
}

// fp64x(d): |C - R| <= k 2^(Ea+Eb) (T_d + gamma_n + 2u) + u |R| (tests/test_modes.cpp), in e_scaled terms with
// the fill ratio R of the data; fp32x6: blocked FP32 sums, dropped products and the final rounding, relative to
// |A||B|, plus slices below 2^-126 of the line scale read as zero, relative to k 2^(Ea+Eb).
double fp64_escaled_bound(int d, std::int64_t k, double fill) {
  const double adds = double((d * (d + 1)) / 2) * double((k + 255) / 256) + 2;
  return (test::fp64_truncation_bound(d) + gamma(adds, kU64) * 1.01 + 2 * kU64) * fill + kU64;
}
double fp32_escaled_bound(std::int64_t k, double fill) {
  return gamma(2.0 * 6 * 64 + double((k + 63) / 64), kU32) * 1.02 + 3.1 * kU32 + kU32 + 0x1p-120 * fill;
}

const Call kLayouts[] = {
    {BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS},
    {BF16X_COL_MAJOR, BF16X_TRANS, BF16X_NO_TRANS},
    {BF16X_ROW_MAJOR, BF16X_NO_TRANS, BF16X_TRANS},
    {BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_CONJ_TRANS},
};

// Row scales 2^e_i on op(A), column scales 2^f_j on op(B): the result must be the unscaled one times
// 2^(e_i+f_j), bit for bit wherever that is a normal number, and e_scaled must be the unscaled one's.
// bound(fill) is the mode's e_scaled bound for the fill ratio of the unscaled data.
template <typename T>
void expect_scale_invariance(const check::Mat<T>& u, const check::Mat<T>& w, const std::vector<int>& e,
                             const std::vector<int>& f, int mode, const std::function<double(double)>& bound,
                             const char* what) {
  check::Mat<T> a, ua, b, ub;
  scale_lines(u, e, true, a, ua);
  scale_lines(w, f, false, b, ub);
  const double limit = bound(fill_ratio_of(ua, ub));
  for (const Call& layout : kLayouts) {
    Call call = layout;
    call.mode = mode;
    const auto c = gemm(call, a, b), cu = gemm(call, ua, ub);
    std::int64_t compared = 0;
    for (std::int64_t j = 0; j < c.cols; ++j)
      for (std::int64_t i = 0; i < c.rows; ++i) {
        const T want = T(std::ldexp(double(cu(i, j)), e[std::size_t(i)] + f[std::size_t(j)]));
        if (!std::isnormal(want) || !std::isnormal(cu(i, j))) continue;
        ++compared;
        ASSERT_EQ(c(i, j), want) << what << " " << bf16x_mode_name(mode) << " (" << i << "," << j << ") layout "
                                 << call.layout << " ta " << call.ta << " tb " << call.tb;
      }
    EXPECT_GT(compared, c.rows * c.cols * 9 / 10) << what;
    const auto es = errors_vs_exact(c, a, b), eu = errors_vs_exact(cu, ua, ub);
    EXPECT_EQ(es.nonfinite, 0) << what;
    // The references of the two problems round differently only far below the emulation error.
    EXPECT_NEAR(es.e_scaled, eu.e_scaled, 1e-6 * eu.e_scaled + 1e-300) << what << " " << bf16x_mode_name(mode);
    EXPECT_LE(es.e_scaled, limit) << what << " " << bf16x_mode_name(mode);
  }
}

}  // namespace

TEST(Range, Fp64RowAndColumnScalesOverTheWholeExponentRangeCostNothing) {
  std::mt19937_64 rng(601);
  const std::int64_t m = 37, n = 29, k = 300;
  const auto u = uniform<double>(m, k, rng), w = uniform<double>(k, n, rng);
  // Inputs from 2^-1000 to 2^1000 with every e_i + f_j inside the result range, both ways round.
  const auto e_lo = exponents(m, -1000, 0, rng), f_hi = exponents(n, 0, 1000, rng);
  const auto e_hi = exponents(m, 0, 1000, rng), f_lo = exponents(n, -1000, 0, rng);
  for (int d = 3; d <= 6; ++d) {
    const int mode = BF16X_MODE_FP64X6 + d - 3;
    const auto bound = [&](double fill) { return fp64_escaled_bound(d, k, fill); };
    expect_scale_invariance(u, w, e_lo, f_hi, mode, bound, "tiny rows, huge columns");
    expect_scale_invariance(u, w, e_hi, f_lo, mode, bound, "huge rows, tiny columns");
  }
}

TEST(Range, Fp64SubnormalRowsWorkThroughScaling) {
  // Rows of op(A) entirely subnormal, down to 4.9e-324 itself, against columns near 2^1000.
  std::mt19937_64 rng(602);
  const std::int64_t m = 33, n = 31, k = 90;
  auto u = uniform<double>(m, k, rng);
  const auto w = uniform<double>(k, n, rng);
  auto e = exponents(m, -1074, -1030, rng);
  u(0, 0) = 1;  // row 0, scale 2^-1074: an entry of exactly 4.9e-324
  e[0] = -1074;
  const auto f = exponents(n, 990, 1023, rng);
  check::Mat<double> a, ua, b, ub;
  scale_lines(u, e, true, a, ua);
  scale_lines(w, f, false, b, ub);
  ASSERT_EQ(a(0, 0), 4.9406564584124654e-324);
  for (std::int64_t i = 0; i < m; ++i) ASSERT_FALSE(std::isnormal(a(i, 1))) << "row " << i;
  for (int d = 3; d <= 6; ++d) {
    const auto bound = [&](double fill) { return fp64_escaled_bound(d, k, fill); };
    expect_scale_invariance(u, w, e, f, BF16X_MODE_FP64X6 + d - 3, bound, "subnormal rows");
  }
}

TEST(Range, Fp32ScalesFromSubnormalToFltMaxCostNothing) {
  std::mt19937_64 rng(603);
  const std::int64_t m = 35, n = 33, k = 200;
  auto u = uniform<float>(m, k, rng), w = uniform<float>(k, n, rng);
  // Columns of op(B) whose maximum is FLT_MAX itself: U' entry 1 - 2^-24 at scale 2^128.
  for (std::int64_t j = 0; j < n; j += 4) w(j % k, j) = 1 - 0x1p-24f;
  // Rows from 2^-150 (subnormal: 1e-45 and the like) to 2^-40 against columns from 2^40 to 2^128; and the
  // roles swapped. Every e_i + f_j stays inside the FP32 range of the result.
  auto e_sub = exponents(m, -150, -40, rng), f_max = exponents(n, 40, 128, rng);
  for (std::int64_t j = 0; j < n; j += 4) f_max[std::size_t(j)] = 128;
  const auto e_max = exponents(m, 40, 128, rng), f_sub = exponents(n, -150, -40, rng);
  check::Mat<float> a, ua, b, ub;
  scale_lines(w, f_max, false, b, ub);
  ASSERT_EQ(b(0, 0), FLT_MAX);
  scale_lines(u, e_sub, true, a, ua);
  ASSERT_EQ(std::fpclassify(a(0, 1)) == FP_SUBNORMAL || a(0, 1) == 0, true);
  // Subnormal rows hold fewer bits than U: the bound is that of the data they represent.
  const auto bound = [&](double fill) { return fp32_escaled_bound(k, fill); };
  expect_scale_invariance(u, w, e_sub, f_max, BF16X_MODE_FP32X6, bound, "subnormal rows, FLT_MAX columns");
  auto ut = u;  // rows near FLT_MAX: an entry of each even row at the top of the scale
  for (std::int64_t i = 0; i < m; i += 2) ut(i, i % k) = -(1 - 0x1p-24f);
  expect_scale_invariance(ut, w, e_max, f_sub, BF16X_MODE_FP32X6, bound, "FLT_MAX rows, subnormal columns");
}

// Entries spread over many binades within each row: the fixed-point split keeps each entry only down to the
// row's grid, so the bound holds relative to k 2^(Ea_i+Eb_j) while e_scaled, relative to (|A||B|)_ij, grows
// with the spread. Measured figures go to the test log (docs/accuracy.md quotes them).
TEST(Range, Fp64SpreadWithinRowsLosesOnlyBitsBelowTheRowGrid) {
  for (const int spread : {60, 1000}) {
    test::Problem<double> p(41, 37, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 604 + spread, 0, 0, 0);
    // op(A) entries 2^x with x uniform in [-spread, spread], random signs; op(B) uniform.
    std::mt19937_64 rng(spread);
    std::uniform_real_distribution<double> x(-spread, spread), s(-1, 1);
    for (auto& v : p.opa.v) v = std::copysign(std::exp2(x(rng)), s(rng));
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t l = 0; l < p.k; ++l) p.a[std::size_t(i + l * p.lda)] = p.opa(i, l);
    p.beta = 0;
    const auto ex = check::exact_gemm(p.opa, p.opb), ab = check::abs_gemm(p.opa, p.opb);
    const auto sa = test::row_scales(p.opa, true), sb = test::row_scales(p.opb, false);
    for (int d = 3; d <= 6; ++d) {
      const int mode = BF16X_MODE_FP64X6 + d - 3;
      ASSERT_EQ(p.run(mode), BF16X_OK);
      const double adds = double((d * (d + 1)) / 2) * double((p.k + 255) / 256) + 2;
      const double rel = test::fp64_truncation_bound(d) + gamma(adds, kU64) * 1.01 + 2 * kU64;
      check::Mat<double> c(p.m, p.n);
      for (std::int64_t j = 0; j < p.n; ++j)
        for (std::int64_t i = 0; i < p.m; ++i) {
          c(i, j) = p.cval(i, j);
          const double tol = double(p.k) * sa[std::size_t(i)] * sb[std::size_t(j)] * rel + kU64 * std::fabs(ex(i, j));
          ASSERT_LE(std::fabs(c(i, j) - ex(i, j)), tol) << bf16x_mode_name(mode) << " spread 2^" << spread;
        }
      const auto err = check::errors(c, ex, ab);
      EXPECT_EQ(err.nonfinite, 0);
      std::printf("[ spread  ] fp64 entries 2^-%d..2^%d within rows, %s: eF %.3e  e_scaled %.3e\n", spread, spread,
                  bf16x_mode_name(mode), err.eF, err.e_scaled);
    }
  }
}

TEST(Range, Fp32SpreadWithinRowsLosesOnlyBitsBelowTheRowGrid) {
  test::Problem<float> p(41, 37, 200, BF16X_ROW_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 605, 0, 0, 0);
  // op(A) entries 2^x, x uniform in [-140, 100]: subnormal to huge within one row; every fourth row entirely
  // below FLT_MIN (x in [-140, -127]); op(B) uniform.
  std::mt19937_64 rng(605);
  std::uniform_real_distribution<double> x(-140, 100), xsub(-140, -127), s(-1, 1);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t l = 0; l < p.k; ++l) {
      const float v = float(std::copysign(std::exp2(i % 4 ? x(rng) : xsub(rng)), s(rng)));
      p.opa(i, l) = v;
      p.a[std::size_t(i * p.lda + l)] = v;
    }
  p.beta = 0;
  ASSERT_EQ(p.run(BF16X_MODE_FP32X6), BF16X_OK);
  const auto ex = check::exact_gemm(p.opa, p.opb), ab = check::abs_gemm(p.opa, p.opb);
  const auto sa = test::row_scales(p.opa, true), sb = test::row_scales(p.opb, false);
  const double rel = gamma(2.0 * 6 * 64 + double((p.k + 63) / 64), kU32) * 1.02 + 3.1 * kU32;
  check::Mat<float> c(p.m, p.n);
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      c(i, j) = p.cval(i, j);
      const double tol = ab(i, j) * rel + double(p.k) * sa[std::size_t(i)] * sb[std::size_t(j)] * 0x1p-120 +
                         kU32 * std::fabs(ex(i, j));
      ASSERT_LE(std::fabs(double(c(i, j)) - ex(i, j)), tol) << "(" << i << "," << j << ")";
    }
  const auto err = check::errors(c, ex, ab);
  std::printf("[ spread  ] fp32 entries 2^-140..2^100 within rows, fp32x6: eF %.3e  e_scaled %.3e\n", err.eF,
              err.e_scaled);
  EXPECT_EQ(err.nonfinite, 0);
}

// Outside the BF16 exponent range the paper's unscaled slices overflow to Inf or are read as zero; the scaled
// split gives the uniform-class accuracy on the same inputs.
TEST(Range, PaperSplitFailsWhereTheScaledSplitSucceeds) {
  std::mt19937_64 rng(606);
  const std::int64_t m = 34, n = 30, k = 64;
  const auto u = uniform<double>(m, k, rng), w = uniform<double>(k, n, rng);
  const double fill = fill_ratio_of(u, w);
  struct Case {
    const char* what;
    int elo, ehi, flo, fhi;
  };
  const Case cases[] = {{"rows 2^600, columns 2^-600", 590, 600, -600, -590},
                        {"rows 2^-600, columns 2^600", -600, -590, 590, 600},
                        {"rows 2^-200, columns 2^200", -200, -190, 190, 200}};
  for (const Case& cs : cases) {
    check::Mat<double> a, ua, b, ub;
    scale_lines(u, exponents(m, cs.elo, cs.ehi, rng), true, a, ua);
    scale_lines(w, exponents(n, cs.flo, cs.fhi, rng), false, b, ub);
    for (int d = 3; d <= 6; ++d) {
      Call call;
      call.mode = BF16X_MODE_FP64X6 + d - 3;
      const auto scaled = errors_vs_exact(gemm(call, a, b), a, b);
      EXPECT_EQ(scaled.nonfinite, 0);
      EXPECT_LE(scaled.e_scaled, fp64_escaled_bound(d, k, fill)) << cs.what;
      call.split = BF16X_SPLIT_PAPER;
      const auto paper = errors_vs_exact(gemm(call, a, b), a, b);
      EXPECT_TRUE(paper.nonfinite > 0 || paper.e_scaled > 0.1) << cs.what << ": the paper split did not fail";
    }
  }
  // FP32 rows near FLT_MAX: the first BF16 slice rounds up to Inf.
  const auto u32 = uniform<float>(m, k, rng), w32 = uniform<float>(k, n, rng);
  check::Mat<float> a, ua, b, ub;
  std::vector<int> e(std::size_t(m), 128), f(std::size_t(n), -130);
  auto big = u32;
  for (auto& x : big.v) x = std::copysign(1 - 0x1p-24f, x);  // rows of +-FLT_MAX
  scale_lines(big, e, true, a, ua);
  scale_lines(w32, f, false, b, ub);
  ASSERT_EQ(std::fabs(a(0, 0)), FLT_MAX);
  Call call;
  call.mode = BF16X_MODE_FP32X6;
  const auto scaled = errors_vs_exact(gemm(call, a, b), a, b);
  EXPECT_EQ(scaled.nonfinite, 0);
  EXPECT_LE(scaled.e_scaled, fp32_escaled_bound(k, fill_ratio_of(ua, ub)));
  call.split = BF16X_SPLIT_PAPER;
  const auto paper = errors_vs_exact(gemm(call, a, b), a, b);
  EXPECT_TRUE(paper.nonfinite > 0 || paper.e_scaled > 0.1) << "FLT_MAX rows: the paper split did not fail";
}
