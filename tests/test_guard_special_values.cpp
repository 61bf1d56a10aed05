// The componentwise guard on IEEE special values and at the ends of the exponent range, for every guarded mode and
// routine (docs/numerics.md, "Componentwise guard", "Range"): a guarded result is never less IEEE-correct, nor of
// smaller range, than the raw mode's. Issue 39: the repair's FP64 dot products overflowed into Inf - Inf = NaN, and
// the host GEMM that runs a call the guard gives up on computed alpha (A B) with A B overflowing where the result
// is normal.
//
// Each class runs twice, on uniform [-1, 1] parts and on log-uniform ones (magnitudes 2^-10 .. 2^10 within every
// row and column: the guard repairs entries or runs the host GEMM), and every entry is held to
//
//   - finite operands: the exact result R = RN(alpha (A B)_ij + beta C0_ij) of check/exact_rounded.hpp (MPFR).
//     Where R overflows, C_ij must be R, the correctly signed infinity; else C_ij finite and within the guarantee
//       real:    |C - R| <= 4 k u |alpha| (|A||B|)_ij + u |beta C0_ij| + u |R| + (k + 2) eta
//       complex: |C - R| <= (8 k + 4) u |alpha| (|A||B|)_ij + 4 u |beta| |C0_ij| + u |R| + (2 k + 4) eta, per part
//     (u = 2^-53 or 2^-24; eta half the smallest subnormal, per rounding below the normal range: the k products of
//     a repair, alpha's and beta's; complex: each part is one real product of length 2k, 4 (2k) u of the real
//     guard with |a_r||b_r| + |a_i||b_i| <= |a||b|, and the complex alpha P + beta C0 rounds up to 4 times more).
//     |alpha| (|A||B|)_ij is taken from the unscaled parts, 2^(ra_i + cb_j + e_alpha) |alpha_m| (|U||V|)_ij, so that
//     it neither overflows nor underflows where the operands are scaled by 2^+-1000.
//   - NaN or Inf in A or B: IEEE's class (NaN, +Inf, -Inf, finite) of every entry is the host GEMM's, and the
//     entries whose row and column hold no special value stay within the bound above of the exact result of the
//     operands with the specials replaced by zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_rounded.hpp"
#include "check/inputs.hpp"
#include "host/host_blas.hpp"

namespace {

using namespace bf16x;

enum Kind { kFiniteClass, kInfInA, kNanInB };

// One class: rows of op(A) scaled by 2^ra(i), columns of op(B) by 2^cb(j), alpha = alpha_m 2^alpha_e, beta C0
// with C0 scaled by 2^c_e; exponents for FP64, FP32 in brackets.
struct Class {
  const char* name;
  Kind kind;
  int ra_even, ra_odd, cb_mod3, cb_other;  // ra(i): i even / odd; cb(j): j % 3 == 0 / else
  double alpha_m;
  int alpha_e;
  double beta_m;  // 0: beta = 0
  int beta_e, c_e;
};

// FP64 and FP32 versions of every class.
const Class kClasses64[] = {
    {"inf_in_A", kInfInA, 0, 0, 0, 0, 1, 0, 0.5, 0, 0},
    {"nan_in_B", kNanInB, 0, 0, 0, 0, 1, 0, 0.5, 0, 0},
    {"overflow(2^1200)", kFiniteClass, 600, 0, 600, 0, 1, 0, 0, 0, 0},
    {"A,B*2^1000,alpha=2^-1000", kFiniteClass, 1000, 1000, 1000, 1000, 1, -1000, 0, 0, 0},
    {"A,B*2^-1000,alpha=2^1000", kFiniteClass, -1000, -1000, -1000, -1000, 1, 1000, 0, 0, 0},
    {"subnormal(2^-1080)", kFiniteClass, -540, -540, -540, -540, 1, 0, 0, 0, 0},
    {"alpha=1.5*2^700,beta=1.25*2^-600", kFiniteClass, -350, -350, -350, -350, 1.5, 700, 1.25, -600, 600},
    {"alpha=1.5*2^-700,beta=1.25*2^600", kFiniteClass, 350, 350, 350, 350, 1.5, -700, 1.25, 600, -600},
};
const Class kClasses32[] = {
    {"inf_in_A", kInfInA, 0, 0, 0, 0, 1, 0, 0.5, 0, 0},
    {"nan_in_B", kNanInB, 0, 0, 0, 0, 1, 0, 0.5, 0, 0},
    {"overflow(2^140)", kFiniteClass, 70, 0, 70, 0, 1, 0, 0, 0, 0},
    {"A,B*2^100,alpha=2^-100", kFiniteClass, 100, 100, 100, 100, 1, -100, 0, 0, 0},
    {"A,B*2^-100,alpha=2^100", kFiniteClass, -100, -100, -100, -100, 1, 100, 0, 0, 0},
    {"subnormal(2^-140)", kFiniteClass, -70, -70, -70, -70, 1, 0, 0, 0, 0},
    {"alpha=1.5*2^60,beta=1.25*2^-50", kFiniteClass, -30, -30, -30, -30, 1.5, 60, 1.25, -50, 50},
    {"alpha=1.5*2^-60,beta=1.25*2^50", kFiniteClass, 30, 30, 30, 30, 1.5, -60, 1.25, 50, -50},
};

constexpr std::int64_t kM = 24, kN = 20, kK = 40;

template <typename T>
constexpr double unit_roundoff() {
  return sizeof(T) == sizeof(double) ? 0x1p-53 : 0x1p-24;
}
// n halves of the smallest subnormal (2^-1075 itself is not a double).
template <typename T>
double half_subnormals(double n) {
  return std::ldexp(n, sizeof(T) == sizeof(double) ? -1075 : -150);
}

int ra(const Class& c, std::int64_t i) { return i % 2 == 0 ? c.ra_even : c.ra_odd; }
int cb(const Class& c, std::int64_t j) { return j % 3 == 0 ? c.cb_mod3 : c.cb_other; }

// The operands as they are passed (x 2^ra, 2^cb, rounded where that underflows) and the unscaled parts that
// represent them exactly (U = 2^-ra A).
template <typename T>
struct Parts {
  check::Mat<T> a, b, ua, ub;
};
template <typename T>
Parts<T> scaled_parts(const Class& c, check::Dist d, std::uint64_t seed) {
  Parts<T> p{check::make_input<T>(d, kM, kK, seed, 0, 10), check::make_input<T>(d, kK, kN, seed, 1, 10), {}, {}};
  p.ua = p.a;
  p.ub = p.b;
  for (std::int64_t l = 0; l < kK; ++l)
    for (std::int64_t i = 0; i < kM; ++i) {
      p.a(i, l) = T(std::ldexp(double(p.a(i, l)), ra(c, i)));
      p.ua(i, l) = T(std::ldexp(double(p.a(i, l)), -ra(c, i)));
    }
  for (std::int64_t j = 0; j < kN; ++j)
    for (std::int64_t l = 0; l < kK; ++l) {
      p.b(l, j) = T(std::ldexp(double(p.b(l, j)), cb(c, j)));
      p.ub(l, j) = T(std::ldexp(double(p.b(l, j)), -cb(c, j)));
    }
  return p;
}

// The special values of a class, in place; which rows (of A) and columns (of B) they touch.
template <typename T>
void put_specials(const Class& c, check::Mat<T>& a, check::Mat<T>& b, std::vector<bool>& row, std::vector<bool>& col) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  if (c.kind == kInfInA) {
    a(1, 3) = inf;   // an Inf row: signed infinities
    a(2, 5) = -inf;  // ... and NaN where it meets a zero (B(5, 4) = 0: zero_for_specials)
    a(3, 6) = inf;   // Infs of both signs in one row: NaN
    a(3, 7) = -inf;
    row[1] = row[2] = row[3] = true;
  } else if (c.kind == kNanInB) {
    b(9, 2) = nan;
    b(0, 7) = nan;
    col[2] = col[7] = true;
  }
}

// The finite entries the specials meet, set before the exact reference is taken.
template <typename T>
void zero_for_specials(const Class& c, Parts<T>& p) {
  if (c.kind == kInfInA) p.b(5, 4) = p.ub(5, 4) = T(0);
}

const char* ieee_class(double x) {
  return std::isnan(x) ? "NaN" : std::isinf(x) ? (x > 0 ? "+Inf" : "-Inf") : "finite";
}

// One cell of the table: entries checked, entries within their bound, the guard steps seen.
struct Cell {
  long pass = 0, total = 0;
  int steps = 0;  // bit g: stats.guard == g (0 none, 1 envelope, 2 entries, 3 native)
  std::string first_failure;
};

// The check of one entry: got against the exact rounded R, with the bound `tol` for a finite R.
bool entry_ok(double got, double ref, double tol) {
  if (std::isinf(ref)) return got == ref;
  return std::isfinite(got) && std::fabs(got - ref) <= tol;
}

template <typename T>
int modes_for_routine(int i) {
  static const int d[] = {BF16X_MODE_FP64X21, BF16X_MODE_FP64C(15), BF16X_MODE_FP64C(20), BF16X_MODE_AUTO};
  static const int s[] = {BF16X_MODE_FP32C(8), BF16X_MODE_FP32C(10), BF16X_MODE_AUTO};
  if constexpr (sizeof(T) == sizeof(double))
    return i < 4 ? d[i] : -1;
  else
    return i < 3 ? s[i] : -1;
}

bf16x_options options(int mode, bf16x_stats* st) {
  bf16x_stats_init(st);
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  o.stats = st;
  return o;
}

using Table = std::map<std::string, std::map<std::string, Cell>>;

void print_table(const char* routine, const std::vector<std::string>& classes, const std::vector<std::string>& modes,
                 const Table& t) {
  std::printf(
      "\nguard special-value sweep, %s: pass/entries per class and mode (guard steps seen: e envelope, "
      "r repaired entries, n host GEMM, - none)\n",
      routine);
  std::printf("%-34s", "class");
  for (const auto& m : modes) std::printf(" %-16s", m.c_str());
  std::printf("\n");
  for (const auto& c : classes) {
    std::printf("%-34s", c.c_str());
    for (const auto& m : modes) {
      const Cell& x = t.at(c).at(m);
      std::string steps;
      const char* names = "-ern";
      for (int g = 0; g < 4; ++g)
        if (x.steps >> g & 1) steps += names[g];
      char cell[64];
      std::snprintf(cell, sizeof cell, "%ld/%ld %s", x.pass, x.total, steps.c_str());
      std::printf(" %-16s", cell);
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

void expect_all_pass(const Table& t) {
  for (const auto& [c, row] : t)
    for (const auto& [m, x] : row) EXPECT_EQ(x.pass, x.total) << c << ", " << m << ": " << x.first_failure;
}

// The real routines (sgemm, dgemm).
template <typename T>
void real_sweep(const char* routine) {
  const auto& classes = sizeof(T) == sizeof(double) ? kClasses64 : kClasses32;
  constexpr double u = unit_roundoff<T>();
  Table table;
  std::vector<std::string> class_names, mode_names;
  for (int mi = 0; modes_for_routine<T>(mi) >= 0; ++mi) mode_names.push_back(bf16x_mode_name(modes_for_routine<T>(mi)));
  std::uint64_t seed = 39;
  for (const Class& c : classes) {
    class_names.push_back(c.name);
    for (const check::Dist d : {check::Dist::uniform, check::Dist::loguniform}) {
      Parts<T> p = scaled_parts<T>(c, d, ++seed);
      zero_for_specials(c, p);
      const T alpha = T(std::ldexp(c.alpha_m, c.alpha_e)), beta = T(c.beta_m == 0 ? 0 : std::ldexp(c.beta_m, c.beta_e));
      check::Mat<T> c0 = check::make_input<T>(check::Dist::uniform, kM, kN, seed, 2);
      for (T& x : c0.v) x = T(std::ldexp(double(x), c.c_e));
      // The exact reference of the finite operands; the specials go into copies.
      const check::Mat<T> ref = check::exact_rounded_gemm<T>(p.a, p.b, alpha, beta, c0);
      const check::Mat<double> absu = check::abs_gemm<T>(p.ua, p.ub);
      std::vector<bool> row(kM), col(kN);
      check::Mat<T> a = p.a, b = p.b;
      put_specials(c, a, b, row, col);
      std::vector<T> host;
      if (c.kind != kFiniteClass) {
        host = c0.v;
        if constexpr (sizeof(T) == sizeof(double))
          ASSERT_TRUE(host::dgemm(BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, alpha, a.data(), kM, b.data(), kK, beta,
                                  host.data(), kM));
        else
          ASSERT_TRUE(host::sgemm(BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, alpha, a.data(), kM, b.data(), kK, beta,
                                  host.data(), kM));
      }
      for (const std::string& mode_name : mode_names) {
        const int mode = bf16x_mode_from_name(mode_name.c_str());
        bf16x_stats st;
        const bf16x_options o = options(mode, &st);
        check::Mat<T> got = c0;
        int status;
        if constexpr (sizeof(T) == sizeof(double))
          status = bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, alpha, a.data(), kM,
                                  b.data(), kK, beta, got.data(), kM, &o);
        else
          status = bf16x_sgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, alpha, a.data(), kM,
                                  b.data(), kK, beta, got.data(), kM, &o);
        ASSERT_EQ(status, BF16X_OK) << c.name << ", " << mode_name;
        Cell& cell = table[c.name][mode_name];
        cell.steps |= 1 << st.guard;
        for (std::int64_t j = 0; j < kN; ++j)
          for (std::int64_t i = 0; i < kM; ++i) {
            const double g = double(got(i, j)), r = double(ref(i, j));
            bool ok = true;
            if (c.kind != kFiniteClass)
              ok = std::string(ieee_class(g)) == ieee_class(double(host[std::size_t(i + j * kM)]));
            if (ok && !row[std::size_t(i)] && !col[std::size_t(j)]) {
              const double scaled = std::ldexp(std::fabs(c.alpha_m) * absu(i, j), ra(c, i) + cb(c, j) + c.alpha_e);
              const double tol = 4 * double(kK) * u * scaled + u * std::fabs(double(beta) * double(c0(i, j))) +
                                 u * std::fabs(r) + half_subnormals<T>(double(kK + 2));
              ok = entry_ok(g, r, tol);
            }
            ++cell.total;
            cell.pass += ok;
            if (!ok && cell.first_failure.empty()) {
              char why[200];
              std::snprintf(why, sizeof why, "%s data, C(%lld,%lld) = %.17g, exact %.17g (host %.17g)",
                            check::dist_name(d), static_cast<long long>(i), static_cast<long long>(j), g, r,
                            host.empty() ? r : double(host[std::size_t(i + j * kM)]));
              cell.first_failure = why;
            }
          }
      }
    }
  }
  print_table(routine, class_names, mode_names, table);
  expect_all_pass(table);
}

// The complex routines (cgemm, zgemm): real and imaginary parts from the same generator, lines scaled alike.
template <typename T>
void complex_sweep(const char* routine) {
  using C = std::conditional_t<sizeof(T) == sizeof(double), bf16x_complex_double, bf16x_complex_float>;
  const auto& classes = sizeof(T) == sizeof(double) ? kClasses64 : kClasses32;
  constexpr double u = unit_roundoff<T>();
  Table table;
  std::vector<std::string> class_names, mode_names;
  for (int mi = 0; modes_for_routine<T>(mi) >= 0; ++mi) mode_names.push_back(bf16x_mode_name(modes_for_routine<T>(mi)));
  std::uint64_t seed = 3900;
  auto interleave = [](const check::CMat<T>& x) {
    std::vector<C> v(x.re.v.size());
    for (std::size_t e = 0; e < v.size(); ++e) v[e] = {x.re.v[e], x.im.v[e]};
    return v;
  };
  for (const Class& c : classes) {
    class_names.push_back(c.name);
    for (const check::Dist d : {check::Dist::uniform, check::Dist::loguniform}) {
      Parts<T> re = scaled_parts<T>(c, d, ++seed), im = scaled_parts<T>(c, d, ++seed);
      zero_for_specials(c, re);
      zero_for_specials(c, im);
      check::CMat<T> a, b, ua, ub, c0;
      a.re = re.a, a.im = im.a, b.re = re.b, b.im = im.b, ua.re = re.ua, ua.im = im.ua, ub.re = re.ub, ub.im = im.ub;
      c0.re = check::make_input<T>(check::Dist::uniform, kM, kN, seed, 2);
      c0.im = check::make_input<T>(check::Dist::uniform, kM, kN, seed, 3);
      for (T& x : c0.re.v) x = T(std::ldexp(double(x), c.c_e));
      for (T& x : c0.im.v) x = T(std::ldexp(double(x), c.c_e));
      const double am = std::ldexp(c.alpha_m, c.alpha_e);
      const T alpha[2] = {T(am), T(am / 2)};
      const T beta[2] = {T(c.beta_m == 0 ? 0 : std::ldexp(c.beta_m, c.beta_e)),
                         T(c.beta_m == 0 ? 0 : -std::ldexp(c.beta_m, c.beta_e) / 4)};
      const double abs_alpha_m = std::hypot(c.alpha_m, c.alpha_m / 2), abs_beta = std::hypot(beta[0], beta[1]);
      const check::CMat<T> ref = check::exact_rounded_complex_gemm<T>(a, b, alpha, beta, c0);
      const check::Mat<double> absu = check::complex_abs_gemm<T>(ua, ub);
      std::vector<bool> row(kM), col(kN);
      put_specials(c, a.re, b.re, row, col);
      const std::vector<C> va = interleave(a), vb = interleave(b), vc0 = interleave(c0);
      const C calpha{alpha[0], alpha[1]}, cbeta{beta[0], beta[1]};
      std::vector<C> host;
      if (c.kind != kFiniteClass) {
        host = vc0;
        if constexpr (sizeof(T) == sizeof(double))
          ASSERT_TRUE(host::zgemm(BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, &calpha.re, &va[0].re, kM, &vb[0].re, kK,
                                  &cbeta.re, &host[0].re, kM));
        else
          ASSERT_TRUE(host::cgemm(BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, &calpha.re, &va[0].re, kM, &vb[0].re, kK,
                                  &cbeta.re, &host[0].re, kM));
      }
      for (const std::string& mode_name : mode_names) {
        const int mode = bf16x_mode_from_name(mode_name.c_str());
        bf16x_stats st;
        const bf16x_options o = options(mode, &st);
        std::vector<C> got = vc0;
        int status;
        if constexpr (sizeof(T) == sizeof(double))
          status = bf16x_zgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, calpha, va.data(), kM,
                                  vb.data(), kK, cbeta, got.data(), kM, &o);
        else
          status = bf16x_cgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, kM, kN, kK, calpha, va.data(), kM,
                                  vb.data(), kK, cbeta, got.data(), kM, &o);
        ASSERT_EQ(status, BF16X_OK) << c.name << ", " << mode_name;
        Cell& cell = table[c.name][mode_name];
        cell.steps |= 1 << st.guard;
        for (std::int64_t j = 0; j < kN; ++j)
          for (std::int64_t i = 0; i < kM; ++i) {
            const std::size_t q = std::size_t(i + j * kM);
            const double scaled = std::ldexp(abs_alpha_m * absu(i, j), ra(c, i) + cb(c, j) + c.alpha_e);
            const double c0abs = std::hypot(double(vc0[q].re), double(vc0[q].im));
            for (int part = 0; part < 2; ++part) {
              const double g = double(part ? got[q].im : got[q].re), r = double(part ? ref.im.v[q] : ref.re.v[q]);
              bool ok = true;
              if (c.kind != kFiniteClass)
                ok = std::string(ieee_class(g)) == ieee_class(double(part ? host[q].im : host[q].re));
              if (ok && !row[std::size_t(i)] && !col[std::size_t(j)]) {
                const double tol = (8 * double(kK) + 4) * u * scaled + 4 * u * abs_beta * c0abs + u * std::fabs(r) +
                                   half_subnormals<T>(double(2 * kK + 4));
                ok = entry_ok(g, r, tol);
              }
              ++cell.total;
              cell.pass += ok;
              if (!ok && cell.first_failure.empty()) {
                char why[200];
                std::snprintf(why, sizeof why, "%s data, %s C(%lld,%lld) = %.17g, exact %.17g", check::dist_name(d),
                              part ? "Im" : "Re", static_cast<long long>(i), static_cast<long long>(j), g, r);
                cell.first_failure = why;
              }
            }
          }
      }
    }
  }
  print_table(routine, class_names, mode_names, table);
  expect_all_pass(table);
}

}  // namespace

TEST(GuardSpecialValues, Dgemm) { real_sweep<double>("dgemm"); }
TEST(GuardSpecialValues, Sgemm) { real_sweep<float>("sgemm"); }
TEST(GuardSpecialValues, Zgemm) { complex_sweep<double>("zgemm"); }
TEST(GuardSpecialValues, Cgemm) { complex_sweep<float>("cgemm"); }
