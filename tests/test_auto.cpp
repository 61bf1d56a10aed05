// Mode auto: the cost model settles for native before any pass over the operands where emulation cannot win;
// elsewhere the error model (policy/error_model.hpp) picks the fewest products whose predicted e_scaled meets the
// target, and the chosen mode must meet it against the double-double reference (docs/auto.md).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "check/inputs.hpp"
#include "check/metrics.hpp"
#include "gemm_fixture.hpp"
#include "pack/panels.hpp"
#include "planner/mode_policy.hpp"
#include "policy/cost_model.hpp"
#include "policy/direct_fill.hpp"
#include "policy/error_model.hpp"
#include "settings/runtime.hpp"

using namespace bf16x;

namespace {

// max_ij k 2^(Ea_i+Eb_j) / (|A||B|)_ij over nonzero denominators: the quantity the fill envelope bounds.
template <typename T>
double true_fill_ratio(const check::Mat<T>& a, const check::Mat<T>& b) {
  const auto sa = test::row_scales(a, true), sb = test::row_scales(b, false);
  const auto ab = check::abs_gemm(a, b);
  double r = 0;
  for (std::int64_t j = 0; j < b.cols; ++j)
    for (std::int64_t i = 0; i < a.rows; ++i)
      if (ab(i, j) > 0) r = std::max(r, double(a.cols) * sa[std::size_t(i)] * sb[std::size_t(j)] / ab(i, j));
  return r;
}

template <typename T>
double estimated_fill_ratio(const check::Mat<T>& a, const check::Mat<T>& b) {
  const auto ea = policy::measure_fill(pack::MatrixView<T>{a.data(), a.rows, false}, a.rows, a.cols, true);
  const auto eb = policy::measure_fill(pack::MatrixView<T>{b.data(), b.rows, false}, b.rows, b.cols, false);
  return policy::fill_ratio(ea, eb);
}

template <typename T>
double measured_escaled(int mode, const check::Mat<T>& a, const check::Mat<T>& b) {
  check::Mat<T> c(a.rows, b.cols);
  int st;
  if constexpr (sizeof(T) == 8)
    st = bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, a.rows, b.cols, a.cols, 1.0, a.data(), a.rows,
                     b.data(), b.rows, 0.0, c.data(), c.rows, bf16x_mode(mode));
  else
    st = bf16x_sgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, a.rows, b.cols, a.cols, 1.0f, a.data(), a.rows,
                     b.data(), b.rows, 0.0f, c.data(), c.rows, bf16x_mode(mode));
  EXPECT_EQ(st, BF16X_OK);
  const auto e = check::errors(c, check::exact_gemm(a, b), check::abs_gemm(a, b));
  EXPECT_EQ(e.nonfinite, 0);
  return e.e_scaled;
}

// Input classes of the accuracy study plus the ones the model has to tell apart: rows and columns of very
// different scale (cost nothing), elementwise spread (costs), many zeros.
struct Input {
  const char* name;
  check::Dist dist;
  int emax;
  int row_scale;   // rows of op(A) and columns of op(B) scaled by 2^e, e uniform in [-row_scale, row_scale]
  int zero_every;  // every zero_every-th entry set to zero (0: none)
};
const Input kInputs[] = {
    {"uniform", check::Dist::uniform, 0, 0, 0},
    {"cancel", check::Dist::cancel, 0, 0, 0},
    {"loguniform 2^+-2", check::Dist::loguniform, 2, 0, 0},
    {"loguniform 2^+-8", check::Dist::loguniform, 8, 0, 0},
    {"loguniform 2^+-60", check::Dist::loguniform, 60, 0, 0},
    {"row-scaled 2^+-300", check::Dist::uniform, 0, 300, 0},
    {"uniform, a third zeros", check::Dist::uniform, 0, 0, 3},
};

template <typename T>
void make(const Input& in, std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed, check::Mat<T>& a,
          check::Mat<T>& b) {
  a = check::make_input<T>(in.dist, m, k, seed, 0, in.emax);
  b = check::make_input<T>(in.dist, k, n, seed, 1, in.emax);
  if (in.row_scale) {
    std::mt19937_64 rng(seed);
    const int range = sizeof(T) == 8 ? in.row_scale : std::min(in.row_scale, 40);  // FP32 results stay finite
    std::uniform_int_distribution<int> e(-range, range);
    for (std::int64_t i = 0; i < m; ++i) {
      const int s = e(rng);
      for (std::int64_t l = 0; l < k; ++l) a(i, l) = T(std::ldexp(double(a(i, l)), s));
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const int s = e(rng);
      for (std::int64_t l = 0; l < k; ++l) b(l, j) = T(std::ldexp(double(b(l, j)), s));
    }
  }
  if (in.zero_every) {
    for (std::size_t q = 0; q < a.v.size(); q += std::size_t(in.zero_every)) a.v[q] = 0;
    for (std::size_t q = 1; q < b.v.size(); q += std::size_t(in.zero_every)) b.v[q] = 0;
  }
}

// The fill envelope from its definition (policy/error_model.hpp), line by line in long double, where |x| 2^-E is
// exact for every finite FP64 x: v = f 2^-t (f in [1/2, 1)) lies in bin 1 + (127 - t) 4 + floor(8 f - 4), or bin 0
// below 2^-128; worst[b] is the most entries of any nonzero line in bins 0..b. Lines are rows of op(X) (per_row) or
// its columns; nonfinite is the only field defined once a NaN or Inf is seen.
template <typename T>
policy::FillEnvelope envelope_by_definition(const pack::MatrixView<T>& x, std::int64_t rows, std::int64_t cols,
                                            bool per_row) {
  using Env = policy::FillEnvelope;
  Env env;
  const std::int64_t count = per_row ? rows : cols, len = per_row ? cols : rows;
  env.len = len;
  auto at = [&](std::int64_t r, std::int64_t l) {
    const std::int64_t i = per_row ? r : l, j = per_row ? l : r;
    return static_cast<long double>(x.trans ? x.data[j + i * x.ld] : x.data[i + j * x.ld]);
  };
  for (std::int64_t r = 0; r < count; ++r) {
    long double mx = 0;
    for (std::int64_t l = 0; l < len; ++l) {
      const long double v = std::fabs(at(r, l));
      if (!std::isfinite(v)) env.nonfinite = true;
      mx = std::max(mx, v);
    }
    if (mx == 0 || env.nonfinite) continue;
    ++env.lines;
    int E;
    std::frexp(mx, &E);
    std::vector<std::int64_t> in_bin(Env::kBins);
    for (std::int64_t l = 0; l < len; ++l) {
      const long double v = std::ldexp(std::fabs(at(r, l)), -E);
      int bin = 0;
      if (v != 0) {
        int e;
        const long double f = std::frexp(v, &e);
        const int t = -e;
        if (t < Env::kBinades) bin = 1 + (Env::kBinades - 1 - t) * Env::kSubBins + int(8 * f - 4);
      }
      ++in_bin[std::size_t(bin)];
    }
    std::int64_t below = 0;
    for (int b = 0; b < Env::kBins; ++b) {
      below += in_bin[std::size_t(b)];
      env.worst[std::size_t(b)] = std::max(env.worst[std::size_t(b)], below);
    }
  }
  return env;
}

}  // namespace

TEST(ErrorModel, FillEnvelopeBoundsTheTrueFillRatio) {
  for (const Input& in : kInputs)
    for (const std::int64_t k : {1, 7, 64, 300}) {
      check::Mat<double> a, b;
      make(in, 45, 38, k, 21 + k, a, b);
      const double r = true_fill_ratio(a, b), est = estimated_fill_ratio(a, b);
      EXPECT_GE(est, r * (1 - 1e-12)) << in.name << " k=" << k;
      // The envelope pairs the worst line of A with the worst of B, sorted against each other, in bins up to 19%
      // below the values: within 3x of the truth where magnitudes are alike.
      if (in.dist != check::Dist::loguniform && !in.zero_every && k >= 64) {
        EXPECT_LE(est, 3 * r) << in.name << " k=" << k;
      }
      check::Mat<float> af, bf;
      make(in, 45, 38, k, 21 + k, af, bf);
      EXPECT_GE(estimated_fill_ratio(af, bf), true_fill_ratio(af, bf) * (1 - 1e-12)) << in.name << " fp32 k=" << k;
    }
  // Transposed storage measures the same lines.
  check::Mat<double> a, b;
  make(kInputs[3], 40, 30, 50, 5, a, b);
  check::Mat<double> at(50, 40), bt(30, 50);
  for (std::int64_t i = 0; i < 40; ++i)
    for (std::int64_t l = 0; l < 50; ++l) at(l, i) = a(i, l);
  for (std::int64_t l = 0; l < 50; ++l)
    for (std::int64_t j = 0; j < 30; ++j) bt(j, l) = b(l, j);
  const auto ea = policy::measure_fill(pack::MatrixView<double>{at.data(), 50, true}, 40, 50, true);
  const auto eb = policy::measure_fill(pack::MatrixView<double>{bt.data(), 30, true}, 50, 30, false);
  EXPECT_EQ(policy::fill_ratio(ea, eb), estimated_fill_ratio(a, b));
}

// The direct bound of tiny calls (policy/direct_fill.hpp): never below the true ratio, and within the rounding of
// its FP64 sums (2 (k + 2) u, with 1e-12 for the reference's own) above it, on every input class, FP64 and FP32,
// both storages; 0 for a zero operand or products that all vanish, +inf for a line whose nonzero entries span more
// than 2^500, nonfinite for NaN and Inf.
TEST(ErrorModel, DirectFillBoundsTheTrueFillRatio) {
  bool nonfinite = false;
  for (const Input& in : kInputs)
    for (const std::int64_t k : {1, 7, 16, 40}) {
      check::Mat<double> a, b;
      make(in, 9, 11, k, 5 + k, a, b);
      const double r = true_fill_ratio(a, b);
      const double d =
          policy::direct_fill_ratio(pack::MatrixView<double>{a.data(), a.rows, false},
                                    pack::MatrixView<double>{b.data(), b.rows, false}, 9, 11, k, nonfinite);
      EXPECT_FALSE(nonfinite);
      EXPECT_GE(d, r * (1 - 1e-12)) << in.name << " k=" << k;
      EXPECT_LE(d, r * (1 + 2 * (double(k) + 2) * 0x1p-53 + 1e-12)) << in.name << " k=" << k;
      // Stored transposed: the same lines.
      check::Mat<double> at(k, 9), bt(11, k);
      for (std::int64_t i = 0; i < 9; ++i)
        for (std::int64_t l = 0; l < k; ++l) at(l, i) = a(i, l);
      for (std::int64_t l = 0; l < k; ++l)
        for (std::int64_t j = 0; j < 11; ++j) bt(j, l) = b(l, j);
      EXPECT_EQ(policy::direct_fill_ratio(pack::MatrixView<double>{at.data(), k, true},
                                          pack::MatrixView<double>{bt.data(), 11, true}, 9, 11, k, nonfinite),
                d);
      check::Mat<float> af, bf;
      make(in, 9, 11, k, 5 + k, af, bf);
      EXPECT_GE(policy::direct_fill_ratio(pack::MatrixView<float>{af.data(), 9, false},
                                          pack::MatrixView<float>{bf.data(), k, false}, 9, 11, k, nonfinite),
                true_fill_ratio(af, bf) * (1 - 1e-12))
          << in.name << " fp32 k=" << k;
    }
  const auto ratio = [&](check::Mat<double>& a, check::Mat<double>& b) {
    return policy::direct_fill_ratio(pack::MatrixView<double>{a.data(), a.rows, false},
                                     pack::MatrixView<double>{b.data(), b.rows, false}, a.rows, b.cols, a.cols,
                                     nonfinite);
  };
  check::Mat<double> a(3, 4), b(4, 2);
  for (double& x : a.v) x = 1;
  EXPECT_EQ(ratio(a, b), 0.0);  // B = 0
  for (double& x : b.v) x = 1;
  // All ones: scales 2^1, v = w = 1/2, s = k / 4 = 1, R = k 2^2 / k = 4, and the bound's margin 2 (k + 2) u.
  EXPECT_EQ(ratio(a, b), 4.0 * (1 + 12 * 0x1p-53));
  // Disjoint supports: A's rows hold only l = 0, 1; B's columns only l = 2, 3: every product vanishes.
  for (std::int64_t i = 0; i < 3; ++i) a(i, 2) = a(i, 3) = 0;
  b(0, 0) = b(1, 0) = b(0, 1) = b(1, 1) = 0;
  EXPECT_EQ(ratio(a, b), 0.0);
  a(1, 2) = 0x1p-520;  // row 1 now spans 2^520: not bounded
  EXPECT_EQ(ratio(a, b), std::numeric_limits<double>::infinity());
  a(1, 2) = std::nan("");
  ratio(a, b);
  EXPECT_TRUE(nonfinite);
  a(1, 2) = 0;
  b(3, 1) = -std::numeric_limits<double>::infinity();
  ratio(a, b);
  EXPECT_TRUE(nonfinite);
}

// The pass over the operands gives the envelope of its definition, bin for bin, on every path: lines along memory
// and across it, FP64 and FP32, blocks of lines cut short, lines whose length is not a multiple of four, the
// parallel pass on 1-3 threads, and values in every corner of the binning: bin edges, subnormals, lines whose scale
// is so small that the fast form of the binning does not hold, zero lines and zero entries, triangles (short lines
// of zeros beside unit entries: the sorted path of lines up to 64 long). Single lines too: the envelope of many
// lines is their maximum, where one line binned wrongly can hide. The same read gives each line's scale exponent
// (frexp's of its largest magnitude, 0 for a zero line), which the guarded drivers take instead of their own scan:
// it must equal the definition and that scan (pack::scan_scales_a/b) exactly, or the results' bits would change.
template <typename T>
void check_envelope_definition() {
  const int threads_before = omp_get_max_threads();
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const auto& [rows, cols] : {std::pair{37, 53},
                                   {1, 9},
                                   {1, 300},
                                   {300, 1},
                                   {70, 3},
                                   {300, 261},
                                   {261, 300},
                                   {10, 10},
                                   {64, 64},
                                   {65, 65},
                                   {5, 65},
                                   {65, 5}})
    for (int kind = 0; kind < 8; ++kind) {
      check::Mat<T> a(rows, cols);
      for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < rows; ++i) {
          double v = u(g);
          switch (kind) {
            case 1:
              v = std::ldexp(v, -int((i * 7 + j) % 300));
              break;  // graded over many binades
            case 2:
              v = std::ldexp(v, -int((i * 13 + j * 5) % 1100));
              break;  // down into the subnormals
            case 3:
              v = std::ldexp(v, -880 - int(i % 120) - int(j % 120));
              break;  // line scales 2^-880..2^-999
            case 4:
              v = (i + j) % 3 ? 0.0 : v;
              break;  // sparse
            case 5:
              v = std::ldexp(1 + std::floor(4 * std::fabs(v)) / 4, -int((i + 3 * j) % 200));
              break;  // edges
            case 6:
              v = (i == 2 || j == 1) ? 0.0 : std::ldexp(v, int(j % 40) - 20);
              break;  // zero lines
            case 7:
              v = i > j ? 0.0 : i == j ? 1.0 : v;
              break;  // a unit upper triangle
          }
          a(i, j) = T(v);
        }
      check::Mat<T> at(cols, rows);  // the same op(X), stored transposed
      for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < rows; ++i) at(j, i) = a(i, j);
      for (const bool per_row : {true, false}) {
        const policy::FillEnvelope want =
            envelope_by_definition(pack::MatrixView<T>{a.data(), a.rows, false}, rows, cols, per_row);
        const std::int64_t lines = per_row ? rows : cols, len = per_row ? cols : rows;
        std::vector<int> want_exp(std::size_t(lines), 0);
        for (std::int64_t r = 0; r < lines; ++r) {
          double mx = 0;
          for (std::int64_t l = 0; l < len; ++l) mx = std::max(mx, std::fabs(double(per_row ? a(r, l) : a(l, r))));
          if (mx > 0) std::frexp(mx, &want_exp[std::size_t(r)]);
        }
        for (int threads = 1; threads <= 3; ++threads) {
          omp_set_num_threads(threads);
          for (const bool trans : {false, true}) {
            const pack::MatrixView<T> x{trans ? at.data() : a.data(), trans ? at.rows : a.rows, trans};
            std::vector<int> exp(std::size_t(lines), -9999), scanned;
            const policy::FillEnvelope got = policy::measure_fill(x, rows, cols, per_row, exp.data());
            if (per_row)
              pack::scan_scales_a(x, rows, cols, true, scanned);
            else
              pack::scan_scales_b(x, rows, cols, true, scanned);
            const std::string what = std::string(sizeof(T) == 8 ? "fp64" : "fp32") + " " + std::to_string(rows) + "x" +
                                     std::to_string(cols) + " kind " + std::to_string(kind) +
                                     (per_row ? " rows" : " columns") + (trans ? " transposed" : "") + " threads " +
                                     std::to_string(threads);
            ASSERT_FALSE(got.nonfinite) << what;
            EXPECT_EQ(got.len, want.len) << what;
            EXPECT_EQ(got.lines, want.lines) << what;
            EXPECT_EQ(got.worst, want.worst) << what;
            EXPECT_EQ(exp, want_exp) << what;
            EXPECT_EQ(scanned, want_exp) << what;
          }
        }
      }
    }
  omp_set_num_threads(threads_before);
}

TEST(ErrorModel, FillPassGivesTheEnvelopeOfItsDefinition) {
  check_envelope_definition<double>();
  check_envelope_definition<float>();
}

TEST(ErrorModel, FillPassSeesNanAndInfAndIgnoresZeroLines) {
  check::Mat<double> a(20, 30), b(30, 10);
  for (auto& x : a.v) x = 0.5;
  for (auto& x : b.v) x = 0.75;
  for (std::int64_t l = 0; l < 30; ++l) a(3, l) = 0;                 // an all-zero row adds no error
  EXPECT_NEAR(estimated_fill_ratio(a, b), 1 / (0.5 * 0.75), 1e-12);  // |v| = 0.5, |w| = 0.75, exactly on bin edges
  a(4, 7) = INFINITY;
  EXPECT_TRUE(policy::measure_fill(pack::MatrixView<double>{a.data(), 20, false}, 20, 30, true).nonfinite);
  b(2, 3) = NAN;
  EXPECT_TRUE(policy::measure_fill(pack::MatrixView<double>{b.data(), 30, false}, 30, 10, false).nonfinite);
  // Along and across memory, FP32 too, in the parallel pass: one NaN or Inf anywhere is seen.
  for (const bool per_row : {true, false}) {
    check::Mat<float> f(300, 261);
    for (auto& x : f.v) x = 0.25f;
    f(299, 260) = -INFINITY;
    EXPECT_TRUE(policy::measure_fill(pack::MatrixView<float>{f.data(), 300, false}, 300, 261, per_row).nonfinite);
    f(299, 260) = 0.25f;
    f(150, 3) = NAN;
    EXPECT_TRUE(policy::measure_fill(pack::MatrixView<float>{f.data(), 300, false}, 300, 261, per_row).nonfinite);
    f(150, 3) = 0.25f;
    EXPECT_FALSE(policy::measure_fill(pack::MatrixView<float>{f.data(), 300, false}, 300, 261, per_row).nonfinite);
  }
  check::Mat<double> z(20, 30);  // an all-zero operand: C = beta C exactly, nothing to predict
  EXPECT_EQ(estimated_fill_ratio(z, b), 0);
}

// The model's bound holds for every mode on every class when given the true fill ratio, and the estimated
// ratio is at least that: predicted e_scaled >= measured e_scaled.
TEST(ErrorModel, PredictionBoundsTheMeasuredErrorOfEveryMode) {
  const std::int64_t m = 64, n = 48, k = 300;
  for (const Input& in : kInputs) {
    check::Mat<double> a, b;
    make(in, m, n, k, 31, a, b);
    const double r = true_fill_ratio(a, b), est = estimated_fill_ratio(a, b);
    for (int mode = BF16X_MODE_FP64X6; mode <= BF16X_MODE_FP64X21; ++mode) {
      const double e = measured_escaled(mode, a, b);
      EXPECT_LE(e, policy::predicted_escaled(mode, k, 0, r)) << in.name << " " << bf16x_mode_name(mode);
      EXPECT_LE(policy::predicted_escaled(mode, k, 0, r), policy::predicted_escaled(mode, k, 0, est));
    }
    check::Mat<float> af, bf;
    make(in, m, n, k, 31, af, bf);
    for (int mode : {BF16X_MODE_FP32X6, BF16X_MODE_FP32X3})
      EXPECT_LE(measured_escaled(mode, af, bf), policy::predicted_escaled(mode, k, 0, true_fill_ratio(af, bf)))
          << in.name << " " << bf16x_mode_name(mode);
  }
}

// Auto's accuracy choice (with the cost model out of the way): the fewest products whose predicted e_scaled meets
// the target, which the measured e_scaled then meets too; where the model's pessimism is small (alike
// magnitudes) at most one anti-diagonal more than the measurements would have needed; native when no mode can.
TEST(Auto, ChosenModeMeetsTheTargetAgainstTheExactReference) {
  const std::int64_t m = 96, n = 80, k = 256;
  const double native_level = policy::native_escaled(true, k);  // gamma_k: the default target
  for (const Input& in : kInputs) {
    check::Mat<double> a, b;
    make(in, m, n, k, 41, a, b);
    const double fill = estimated_fill_ratio(a, b);
    double measured[7] = {};
    for (int d = 3; d <= 6; ++d) measured[d] = measured_escaled(BF16X_MODE_FP64X6 + d - 3, a, b);
    for (const double target : {native_level, 1e-6, 1e-9, 1e-12, 1e-14}) {
      const int mode = policy::fewest_products(true, k, 0, fill, target);
      const double got = measured_escaled(mode, a, b);
      EXPECT_LE(got, target) << in.name << ": " << bf16x_mode_name(mode) << " misses " << target;
      if (mode == BF16X_MODE_NATIVE) continue;
      const int d = mode - BF16X_MODE_FP64X6 + 3;
      EXPECT_LE(policy::predicted_escaled(mode, k, 0, fill), target);
      if (in.dist != check::Dist::loguniform && !in.zero_every) {
        int needed = 7;  // the fewest anti-diagonals that measured within the target (7: none did)
        for (int e = 6; e >= 3; --e)
          if (measured[e] <= target) needed = e;
        EXPECT_LE(d, needed + 1) << in.name << ": " << bf16x_mode_name(mode) << " for target " << target;
      }
    }
  }
  // What that means at the default target: fp64x21 for alike magnitudes, native for heavy spread.
  check::Mat<double> a, b;
  make(kInputs[0], m, n, k, 41, a, b);
  EXPECT_EQ(policy::fewest_products(true, k, 0, estimated_fill_ratio(a, b), native_level), BF16X_MODE_FP64X21);
  EXPECT_EQ(policy::fewest_products(true, k, 0, estimated_fill_ratio(a, b), 1e-6), BF16X_MODE_FP64X6);
  make(kInputs[1], m, n, k, 41, a, b);
  EXPECT_EQ(policy::fewest_products(true, k, 0, estimated_fill_ratio(a, b), native_level), BF16X_MODE_FP64X21);
  make(kInputs[4], m, n, k, 41, a, b);
  EXPECT_EQ(policy::fewest_products(true, k, 0, estimated_fill_ratio(a, b), native_level), BF16X_MODE_NATIVE);
  // FP32: fp32x6's blocked sums have a larger worst case than gamma_k below k of about 800.
  check::Mat<float> af, bf;
  make(kInputs[0], 64, 48, 1024, 42, af, bf);
  const double fill32 = estimated_fill_ratio(af, bf);
  EXPECT_EQ(policy::fewest_products(false, 1024, 0, fill32, policy::native_escaled(false, 1024)), BF16X_MODE_FP32X6);
  EXPECT_LE(measured_escaled(BF16X_MODE_FP32X6, af, bf), policy::native_escaled(false, 1024));
  EXPECT_EQ(policy::fewest_products(false, 256, 0, fill32, policy::native_escaled(false, 256)), BF16X_MODE_NATIVE);
}

TEST(Auto, IsNativeWithoutAnyPassWhereEmulationCannotWin) {
  for (const int engine : {int(BF16X_ENGINE_REFERENCE), int(BF16X_ENGINE_AVX512BF16), int(BF16X_ENGINE_AMX_MODEL), -1})
    for (const bool dbl : {false, true})
      for (const std::int64_t n : {16, 256, 4096, 65536}) {
        const planner::ModeRequest r{BF16X_MODE_AUTO, dbl, n, n, n, engine, 0.0};
        EXPECT_EQ(planner::resolve_mode(r), BF16X_MODE_NATIVE) << "engine " << engine << " n " << n;
        // choose_auto alone reaches the same verdict without reading A or B (null data would fault).
        const auto c = dbl ? planner::choose_auto<double>(r, settings::current_settings(), {nullptr, n, false},
                                                          {nullptr, n, false})
                           : planner::choose_auto<float>(r, settings::current_settings(), {nullptr, n, false},
                                                         {nullptr, n, false});
        EXPECT_EQ(c.mode, BF16X_MODE_NATIVE);
        EXPECT_FALSE(c.measured);
      }
  // Through the C API on this machine's engine.
  if (bf16x_engine_available(BF16X_ENGINE_AMX)) GTEST_SKIP() << "AMX present: auto may emulate here";
  std::vector<double> a(300 * 300, 0.5), b(300 * 300, 0.25), c(300 * 300);
  bf16x_stats st{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_AUTO;
  o.stats = &st;
  ASSERT_EQ(bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 300, 300, 300, 1.0, a.data(), 300, b.data(),
                           300, 0.0, c.data(), 300, &o),
            BF16X_OK);
  EXPECT_EQ(st.mode, BF16X_MODE_NATIVE);
  EXPECT_EQ(st.engine, -1);
  EXPECT_EQ(c[0], 0.5 * 0.25 * 300);
}

// On AMX (the rates measured there, engine/records.cpp) emulation wins only where products x T(bf16) plus the
// O((m+n)k) preprocessing beat T(native): fp32x6 on large problems (measured there: 0.98-1.06x SGEMM at n =
// 2048-4096, where the model still says native), no FP64 scheme (six products at 5.9x the host FP64 rate cost
// more than native before any preprocessing; measured: fp64x6 0.80-0.86x DGEMM) and no CRT mode (the residues:
// fp64c15 measured at 0.27-0.31x DGEMM).
TEST(Auto, CostModelLetsAmxWinOnlyWhereProductsTimesBf16TimeBeatNative) {
  const int amx = BF16X_ENGINE_AMX;
  EXPECT_TRUE(policy::emulation_wins(amx, BF16X_MODE_FP32X6, 16384, 16384, 16384));
  EXPECT_FALSE(policy::emulation_wins(amx, BF16X_MODE_FP32X6, 4096, 4096, 4096));
  EXPECT_FALSE(policy::emulation_wins(amx, BF16X_MODE_FP32X6, 256, 256, 256));  // preprocessing dominates
  // Once emulation wins at some size it wins at every larger one, and only the cheapest scheme is checked first.
  bool won = false;
  for (std::int64_t n = 64; n <= 65536; n *= 2) {
    for (int mode : {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X21})
      EXPECT_FALSE(policy::emulation_wins(amx, mode, n, n, n)) << bf16x_mode_name(mode) << " n = " << n;
    EXPECT_EQ(planner::resolve_mode({BF16X_MODE_AUTO, true, n, n, n, amx, 0.0}), BF16X_MODE_NATIVE) << n;
    for (std::int64_t k : {n, std::int64_t(64)}) {
      EXPECT_GE(policy::crt_cycles(amx, BF16X_FP64C_MIN, n, n, k), policy::native_cycles(true, n, n, k)) << n;
      EXPECT_GE(policy::crt_cycles(amx, BF16X_FP32C_MIN, n, n, k), policy::native_cycles(false, n, n, k)) << n;
    }
    const bool w = policy::emulation_wins(amx, BF16X_MODE_FP32X6, n, n, n);
    EXPECT_TRUE(w || !won) << n;
    won = won || w;
    EXPECT_EQ(planner::resolve_mode({BF16X_MODE_AUTO, false, n, n, n, amx, 0.0}),
              w ? BF16X_MODE_AUTO : BF16X_MODE_NATIVE);
    const double products =
        6 * 2.0 * double(n) * double(n) * double(n) / policy::engine_cost(amx).fp32_path_flops_per_cycle;
    EXPECT_GE(policy::emulation_cycles(amx, BF16X_MODE_FP32X6, n, n, n), products);
  }
  EXPECT_TRUE(won);
  // Small calls pay a fixed price and whole tiles (policy/cost_model.hpp): one more row of C past a tile costs a
  // second row of tiles of products, a tiny CRT call its fixed price alone, and no mode wins a call of one tile.
  const double tile = 6 * 2.0 * 32 * 32 * 32 / policy::engine_cost(amx).fp64_path_flops_per_cycle;
  EXPECT_GE(policy::emulation_cycles(amx, BF16X_MODE_FP64X6, 33, 32, 32) -
                policy::emulation_cycles(amx, BF16X_MODE_FP64X6, 32, 32, 32),
            tile);
  EXPECT_EQ(policy::crt_cycles(amx, 15, 8, 8, 8), policy::crt_cycles(amx, 15, 2, 2, 2));
  EXPECT_GT(policy::crt_cycles(amx, 15, 8, 8, 8), policy::native_cycles(true, 8, 8, 8));
  for (std::int64_t n : {1, 8, 32})
    for (int mode : {BF16X_MODE_FP32X6, BF16X_MODE_FP64X6, BF16X_MODE_FP64X21})
      EXPECT_FALSE(policy::emulation_wins(amx, mode, n, n, n)) << bf16x_mode_name(mode) << " n = " << n;
  // The model's bounds are those of the scaled split: with the paper's slices auto stays native.
  planner::ModeRequest paper{BF16X_MODE_AUTO, false, 16384, 16384, 16384, amx, 0.0};
  paper.scaled = false;
  EXPECT_EQ(planner::resolve_mode(paper), BF16X_MODE_NATIVE);
  // Explicit modes are never overridden by the cost model.
  EXPECT_EQ(planner::resolve_mode({BF16X_MODE_FP64X21, true, 64, 64, 64, BF16X_ENGINE_REFERENCE, 0.0}),
            BF16X_MODE_FP64X21);
}

// choose_auto as it would run on AMX: the fill pass, the accuracy choice, the cost check of the chosen scheme.
TEST(Auto, OnAmxChoosesByAccuracyThenCost) {
  const std::int64_t m = 16384, n = 16384, k = 64;  // large m, n: the products outweigh the O((m+n)k) preprocessing
  ASSERT_TRUE(policy::emulation_wins(BF16X_ENGINE_AMX, BF16X_MODE_FP32X6, m, n, k));
  check::Mat<float> a, b;
  make(kInputs[0], m, n, k, 51, a, b);
  pack::MatrixView<float> va{a.data(), m, false}, vb{b.data(), k, false};
  // fp32x6 at k = 64: e_scaled <= 1.02 gamma_769(2^-24) + 4.1 u, about 4.7e-5 (docs/auto.md).
  planner::ModeRequest r{BF16X_MODE_AUTO, false, m, n, k, BF16X_ENGINE_AMX, 1e-4};
  auto c = planner::choose_auto(r, settings::current_settings(), va, vb);
  EXPECT_TRUE(c.measured);
  EXPECT_EQ(c.mode, BF16X_MODE_FP32X6);
  EXPECT_LE(c.predicted, 1e-4);
  r.target = 1e-5;  // below fp32x6's bound at this k: native on accuracy, after the fill pass
  c = planner::choose_auto(r, settings::current_settings(), va, vb);
  EXPECT_EQ(c.mode, BF16X_MODE_NATIVE);
  EXPECT_TRUE(c.measured);
  r.target = 0;  // the native level, gamma_64
  c = planner::choose_auto(r, settings::current_settings(), va, vb);
  EXPECT_EQ(c.mode, BF16X_MODE_NATIVE);
  EXPECT_EQ(c.target, policy::native_escaled(false, k));
  r.target = 1e-4;
  a(17, 3) = NAN;  // NaN: native, and the fill pass says why
  c = planner::choose_auto(r, settings::current_settings(), va, vb);
  EXPECT_EQ(c.mode, BF16X_MODE_NATIVE);
  EXPECT_TRUE(c.nonfinite);
  // DGEMM: no scheme wins on cost, so auto is native before any pass over the operands, at any target.
  check::Mat<double> ad, bd;
  make(kInputs[0], m, n, k, 51, ad, bd);
  pack::MatrixView<double> vad{ad.data(), m, false}, vbd{bd.data(), k, false};
  for (double target : {1e-6, 1e-9, 0.0}) {
    const auto cd = planner::choose_auto({BF16X_MODE_AUTO, true, m, n, k, BF16X_ENGINE_AMX, target},
                                         settings::current_settings(), vad, vbd);
    EXPECT_EQ(cd.mode, BF16X_MODE_NATIVE) << target;
    EXPECT_FALSE(cd.measured) << target;
  }
}

// A target below the native bound gamma_k: native cannot promise it, so auto runs the correctly rounded mode
// (error at most u |C_ij|), whatever the cost model says; at gamma_k and above, the usual decision.
TEST(Auto, TargetTighterThanNativeRunsTheCorrectlyRoundedMode) {
  settings::Settings s = settings::current_settings();
  s.auto_target = 0;
  for (const bool dbl : {false, true}) {
    const double u = dbl ? 0x1p-53 : 0x1p-24, gamma = policy::native_escaled(dbl, 500);
    const int cr = dbl ? BF16X_MODE_FP64CR : BF16X_MODE_FP32CR;
    for (const int engine : {int(BF16X_ENGINE_REFERENCE), int(BF16X_ENGINE_AVX512BF16), int(BF16X_ENGINE_AMX_MODEL)}) {
      planner::ModeRequest r{BF16X_MODE_AUTO, dbl, 100, 100, 500, engine, u / 4};
      EXPECT_EQ(planner::resolve_mode(r, s), cr);
      r.target = gamma / 2;
      EXPECT_EQ(planner::resolve_mode(r, s), cr);
      r.target = gamma;  // native's own bound: native meets it
      EXPECT_NE(planner::resolve_mode(r, s), cr);
      r.target = 0;  // the default target is gamma_k
      EXPECT_NE(planner::resolve_mode(r, s), cr);
      s.auto_target = gamma / 2;  // BF16X_AUTO_TARGET
      EXPECT_EQ(planner::resolve_mode(r, s), cr);
      s.auto_target = 0;
      r.target = u;
      r.mode = BF16X_MODE_FP64X21;  // a mode named is run as named
      if (dbl) {
        EXPECT_EQ(planner::resolve_mode(r, s), BF16X_MODE_FP64X21);
      }
    }
    // without an engine (plan_call's first pass) nothing is chosen yet
    EXPECT_NE(planner::resolve_mode({BF16X_MODE_AUTO, dbl, 100, 100, 500, -1, u}, s), cr);
  }
}

TEST(Auto, TargetComesFromTheOptionsElseTheNativeBound) {
  planner::ModeRequest r{BF16X_MODE_AUTO, true, 100, 100, 500, BF16X_ENGINE_AMX, 1e-9};
  EXPECT_EQ(planner::auto_target(r, settings::current_settings()), 1e-9);
  r.target = 0;
  if (!std::getenv("BF16X_AUTO_TARGET")) {
    EXPECT_EQ(planner::auto_target(r, settings::current_settings()), policy::gamma(500, 0x1p-53));
    r.is_double = false;
    EXPECT_EQ(planner::auto_target(r, settings::current_settings()), policy::gamma(500, 0x1p-24));
  }
  // A negative or NaN target is an argument error.
  std::vector<double> x(16, 1.0), c(16);
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_AUTO;
  o.auto_target = -1;
  EXPECT_EQ(bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 4, 4, 4, 1.0, x.data(), 4, x.data(), 4, 0.0,
                           c.data(), 4, &o),
            BF16X_ERR_OPTIONS);
}
