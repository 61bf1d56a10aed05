// The correctly rounded modes (fp64cr, fp32cr): every entry of C must equal RN(alpha op(A) op(B) + beta C0), the
// exact value rounded once, as MPFR computes it (check/exact_rounded.hpp) - bit for bit, with no tolerance: that is
// the mode's whole promise. Input classes that defeat fixed-point and double-double alike: graded rows, 2^+-1000,
// subnormal products, heavy cancellation, and ties built on purpose under a cancelling pair of large terms. Since
// the rounded value is unique, every engine, thread count, layout and transpose must give the same bits.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x_runtime.h"
#include "check/exact_rounded.hpp"
#include "check/inputs.hpp"
#include "gemm_fixture.hpp"

namespace bf16x::test {
namespace {

enum class Cls { uniform, loguniform, phi05, phi4, cancel, graded, huge, subnormal, ties, triangular, bottom };
const char* cls_name(Cls c) {
  static const char* const names[] = {"uniform",  "loguniform", "phi0.5", "phi4",       "cancel", "graded",
                                      "2^+-1000", "subnormal",  "ties",   "triangular", "bottom"};
  return names[int(c)];
}
constexpr Cls kClasses[] = {Cls::uniform, Cls::loguniform, Cls::phi05, Cls::phi4,       Cls::cancel, Cls::graded,
                            Cls::huge,    Cls::subnormal,  Cls::ties,  Cls::triangular, Cls::bottom};

template <typename T>
int mode_of() {
  return sizeof(T) == 8 ? BF16X_MODE_FP64CR : BF16X_MODE_FP32CR;
}

// op(A)(i, l) and op(B)(l, j) of p set from f and g, in p's storage and in its column-major copies.
template <typename T, typename F, typename G>
void set_ops(Problem<T>& p, F f, G g) {
  const bool tra = p.ta != BF16X_NO_TRANS, trb = p.tb != BF16X_NO_TRANS;
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t l = 0; l < p.k; ++l) {
      const T v = f(i, l);
      p.opa(i, l) = v;
      p.a[tra ? Problem<T>::at(p.layout, l, i, p.lda) : Problem<T>::at(p.layout, i, l, p.lda)] = v;
    }
  for (std::int64_t l = 0; l < p.k; ++l)
    for (std::int64_t j = 0; j < p.n; ++j) {
      const T v = g(l, j);
      p.opb(l, j) = v;
      p.b[trb ? Problem<T>::at(p.layout, j, l, p.ldb) : Problem<T>::at(p.layout, l, j, p.ldb)] = v;
    }
}

template <typename T>
void set_c(Problem<T>& p, std::int64_t i, std::int64_t j, T v) {
  p.c0(i, j) = v;
  p.c[Problem<T>::at(p.layout, i, j, p.ldc)] = v;
}

// The operands of class `c`. Ties: op(A) = [X | H | Y | -Y], op(B) = [I; I; I; I] (k = 4n, columns past n zero),
// so that (A B)_ij = X_ij + H_ij exactly, H_ij half a gap of X_ij in T: every entry a tie between two numbers of
// T, reached through a cancelling pair 2^30 times larger.
template <typename T>
void fill_class(Problem<T>& p, Cls c, std::uint64_t seed) {
  constexpr bool dbl = sizeof(T) == 8;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1), u01(0, 1);
  std::normal_distribution<double> nd(0, 1);
  auto draw = [&](int emax) {
    return (u(rng) < 0 ? -1.0 : 1.0) * std::exp2(std::floor(u(rng) * emax)) * (1 + u01(rng));
  };
  auto fill = [&](auto gen) {
    set_ops(
        p, [&](std::int64_t i, std::int64_t l) { return T(gen(i, l, true)); },
        [&](std::int64_t l, std::int64_t j) { return T(gen(l, j, false)); });
  };
  switch (c) {
    case Cls::uniform:
      fill([&](std::int64_t, std::int64_t, bool) { return u(rng); });
      break;
    case Cls::loguniform:
      fill([&](std::int64_t, std::int64_t, bool) { return draw(dbl ? 60 : 30); });
      break;
    case Cls::phi05:
    case Cls::phi4: {
      const double phi = c == Cls::phi05 ? 0.5 : 4;
      fill([&](std::int64_t, std::int64_t, bool) { return (u01(rng) - 0.5) * std::exp(phi * nd(rng)); });
      break;
    }
    case Cls::cancel: {
      const check::Mat<T> a = check::make_input<T>(check::Dist::cancel, p.m, p.k, seed, 0);
      const check::Mat<T> b = check::make_input<T>(check::Dist::cancel, p.k, p.n, seed, 1);
      set_ops(
          p, [&](std::int64_t i, std::int64_t l) { return a(i, l); },
          [&](std::int64_t l, std::int64_t j) { return b(l, j); });
      break;
    }
    case Cls::graded:  // rows of A over 2^0 .. 2^-4m, columns of B over 10^0 .. 10^-11; signs mixed
      fill([&](std::int64_t r, std::int64_t s, bool is_a) {
        return is_a ? std::ldexp(u(rng), -int(4 * r % (dbl ? 400 : 60))) : u(rng) * std::pow(10.0, -double(s % 12));
      });
      break;
    case Cls::huge:  // products up to 2^+-2000 (FP32: 2^+-240): overflow to Inf and underflow to 0 of the result
      fill([&](std::int64_t, std::int64_t, bool) { return draw(dbl ? 1000 : 120); });
      break;
    case Cls::subnormal:  // products around and below the smallest subnormal of T
      fill([&](std::int64_t, std::int64_t, bool) { return std::ldexp(u(rng), dbl ? -537 : -70); });
      for (std::int64_t j = 0; j < p.n; ++j)
        for (std::int64_t i = 0; i < p.m; ++i) set_c(p, i, j, T(std::ldexp(u(rng), dbl ? -1060 : -140)));
      break;
    case Cls::bottom:  // op(A) and C near the bottom of the range (FP64): values normal, below 2^-960 (the frame)
      fill(
          [&](std::int64_t, std::int64_t, bool is_a) { return is_a ? std::ldexp(u(rng), dbl ? -985 : -100) : u(rng); });
      for (std::int64_t j = 0; j < p.n; ++j)
        for (std::int64_t i = 0; i < p.m; ++i) set_c(p, i, j, T(std::ldexp(u(rng), dbl ? -986 : -101)));
      break;
    case Cls::triangular:  // upper triangular op(A) and op(B): below the diagonal every product is exactly zero
      fill([&](std::int64_t r, std::int64_t q, bool is_a) { return (is_a ? q >= r : r <= q) ? u(rng) : 0.0; });
      break;
    case Cls::ties: {
      const std::int64_t n = p.k / 4;
      check::Mat<T> x(p.m, n), h(p.m, n), y(p.m, n);
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          const T v = T(draw(dbl ? 20 : 10));
          x(i, j) = v;
          const T gap = std::nextafter(v, std::numeric_limits<T>::infinity()) - v;
          h(i, j) = (u(rng) < 0 ? -gap : gap) / 2;
          y(i, j) = T(std::ldexp(1 + u01(rng), 30) * std::fabs(double(v)));
        }
      set_ops(
          p,
          [&](std::int64_t i, std::int64_t l) {
            const std::int64_t q = l / n, j = l % n;
            return q == 0 ? x(i, j) : q == 1 ? h(i, j) : q == 2 ? y(i, j) : T(-y(i, j));
          },
          [&](std::int64_t l, std::int64_t j) { return T(l % n == j ? 1 : 0); });
      break;
    }
  }
}

template <typename T>
std::uint64_t bits(T x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof x);
  return b;
}

// Runs p and compares every entry with the exact rounding; returns the mismatches (the first few printed).
template <typename T>
std::int64_t mismatches(Problem<T>& p, int engine, const std::string& what, bf16x_stats* stats = nullptr) {
  const check::Mat<T> want = check::exact_rounded_gemm<T>(p.opa, p.opb, p.alpha, p.beta, p.c0);
  const std::vector<T> keep = p.c;
  EXPECT_EQ(p.run(mode_of<T>(), engine, stats), BF16X_OK) << what;
  std::int64_t bad = 0;
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const T got = p.cval(i, j);
      if (bits(got) == bits(want(i, j))) continue;
      if (bad++ < 3)
        ADD_FAILURE() << what << ": C(" << i << "," << j << ") = " << std::hexfloat << got << ", exact rounding "
                      << want(i, j) << std::defaultfloat;
    }
  p.c = keep;
  return bad;
}

template <typename T>
class CorrectRounding : public ::testing::Test {};
using Types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(CorrectRounding, Types);

// No step of an entry's rounding may round a subnormal where the result is normal: the underflow flag, which a
// caller's runtime reports (gfortran at STOP: the reference BLAS testers), stays clear. A cancelling dot product of
// four FP32 products whose value lies 2^-25 below its terms reaches the exact parts, whose FP32 rounding once added 4
// eta to an exact zero bound (fp32cr, the CHER2K tester's calls by parts); and the cancelling class on every engine.
template <typename T>
void flags_stay_clear(Problem<T>& p, int engine, const std::string& what) {
  const Problem<T> copy = p;
  std::feclearexcept(FE_ALL_EXCEPT);
  ASSERT_EQ(p.run(mode_of<T>(), engine), BF16X_OK) << what;
  const bool underflow = std::fetestexcept(FE_UNDERFLOW) != 0, overflow = std::fetestexcept(FE_OVERFLOW) != 0;
  bool normal = true;  // every result normal or zero: no rounding of a subnormal result either
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const T v = p.cval(i, j);
      normal = normal && (v == 0 || std::fabs(v) >= std::numeric_limits<T>::min());
    }
  if (normal) {
    EXPECT_FALSE(underflow) << what << ": the underflow flag was raised";
  }
  EXPECT_FALSE(overflow) << what;
  Problem<T> again = copy;
  EXPECT_EQ(mismatches(again, engine, what), 0) << what;
}

// The engines whose tile sums differ (engine::Record::sums): auto (the widest this CPU runs), avx2 where it runs (the
// AVX2 kernels on an AVX-512 CPU), reference (the scalar ones).
std::vector<int> cr_engines() {
  std::vector<int> e{BF16X_ENGINE_AUTO, BF16X_ENGINE_REFERENCE};
  if (bf16x_engine_available(BF16X_ENGINE_AVX2)) e.push_back(BF16X_ENGINE_AVX2);
  return e;
}

// Every class, every kernel level, alpha / beta combinations with inexact factors: 0 mismatches.
TYPED_TEST(CorrectRounding, EveryClassEveryEntry) {
  using T = TypeParam;
  const std::vector<int> engines = cr_engines();
  const T ab[][2] = {{T(1), T(0)}, {T(-0.7), T(1)}, {T(3), T(0.3)}};
  for (Cls c : kClasses) {
    const std::int64_t m = 19, n = 13, k = c == Cls::ties ? 4 * 13 : 150;
    for (int e : engines)
      for (const auto& x : ab) {
        Problem<T> p(m, n, k, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 11 + int(c));
        fill_class(p, c, 7 + int(c));
        p.alpha = c == Cls::ties ? T(1) : x[0];
        p.beta = c == Cls::ties ? T(0) : x[1];
        const std::string what = std::string(cls_name(c)) + " engine " + std::to_string(e) + " alpha " +
                                 std::to_string(double(p.alpha)) + " beta " + std::to_string(double(p.beta));
        EXPECT_EQ(mismatches(p, e, what), 0) << what;
      }
  }
}

TYPED_TEST(CorrectRounding, CancellingEntriesLeaveTheUnderflowFlagClear) {
  using T = TypeParam;
  const double a[4] = {-0x1.61f336p-3, -0x1.24924ap-3, 0x1.b5d58cp-4, -0x1.9d486p-4};
  const double b[4] = {0x1.97f698p-3, -0x1.d7cc08p-3, -0x1.2d2a2p-7, -0x1.95eadp-6};
  for (int e : cr_engines()) {
    Problem<T> p(1, 1, 4, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 1);
    set_ops(
        p, [&](std::int64_t, std::int64_t l) { return T(a[l]); },
        [&](std::int64_t l, std::int64_t) { return T(b[l]); });
    p.alpha = T(1), p.beta = T(0);
    flags_stay_clear(p, e, "four cancelling products, engine " + std::to_string(e));
    Problem<T> q(19, 13, 150, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 21);
    fill_class(q, Cls::cancel, 9);
    q.alpha = T(-1), q.beta = T(1);
    flags_stay_clear(q, e, "cancelling class, engine " + std::to_string(e));
    // and with products near the bottom of the scaled range in every cancelling row (2^-480 entries: the refined
    // parts' smallest errors subnormal, their bound not)
    if constexpr (sizeof(T) == 8) {
      Problem<T> r(19, 13, 150, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 22);
      fill_class(r, Cls::cancel, 10);
      set_ops(
          r,
          [&](std::int64_t i, std::int64_t l) { return l % 5 == 3 ? T(std::ldexp(r.opa(i, l), -480)) : r.opa(i, l); },
          [&](std::int64_t l, std::int64_t j) { return l % 5 == 3 ? T(std::ldexp(r.opb(l, j), -470)) : r.opb(l, j); });
      r.alpha = T(-1), r.beta = T(1);
      flags_stay_clear(r, e, "cancelling class with products at 2^-950, engine " + std::to_string(e));
    }
  }
}

// No BF16 or INT8 engine runs a correctly rounded call (its sums run on the FMA units): the stats name none, on every
// engine choice that sets the tile sums' vector level (the verbose line's engine=fma: tests/python).
TYPED_TEST(CorrectRounding, StatsNameNoEngine) {
  using T = TypeParam;
  Problem<T> p(9, 7, 28, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 5);
  fill_class(p, Cls::uniform, 3);
  for (int e : cr_engines()) {
    bf16x_stats st;
    bf16x_stats_init(&st);
    EXPECT_EQ(mismatches(p, e, "engine " + std::to_string(e), &st), 0);
    EXPECT_EQ(st.mode, mode_of<T>());
    EXPECT_EQ(st.engine, -1) << "engine option " << e;
  }
}

// Ties cannot be decided from any approximation: each entry must reach the exact sum (counted as repaired).
TYPED_TEST(CorrectRounding, TiesGoToTheExactSum) {
  using T = TypeParam;
  Problem<T> p(9, 7, 28, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 5);
  fill_class(p, Cls::ties, 3);
  bf16x_stats st;
  bf16x_stats_init(&st);
  EXPECT_EQ(mismatches(p, BF16X_ENGINE_AUTO, "ties", &st), 0);
  EXPECT_EQ(st.entries_repaired, std::uint64_t(p.m * p.n));
  // uniform data is decided by the tile sums almost everywhere
  Problem<T> q(40, 40, 200, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 6);
  fill_class(q, Cls::uniform, 4);
  EXPECT_EQ(mismatches(q, BF16X_ENGINE_AUTO, "uniform", &st), 0);
  EXPECT_LT(st.entries_repaired, std::uint64_t(q.m * q.n / 100));
}

// Layouts, transposes, 1-4 threads, skinny and deep shapes, k across the kernel's tile and column-block edges:
// the exact rounding everywhere (hence the same bits everywhere).
TYPED_TEST(CorrectRounding, ShapesLayoutsThreads) {
  using T = TypeParam;
  struct Shape {
    std::int64_t m, n, k;
  };
  // (70 x 1, 9 x 3 and, on AVX-512, 20 x 6: fewer columns than a tile, run as C^T; the last three above the tiles'
  // team threshold of 2^17 multiply-adds: the threads' shares of a skinny deep call)
  const Shape shapes[] = {{1, 1, 1},    {1, 70, 3},    {70, 1, 5},    {9, 3, 40},   {20, 6, 50},
                          {4, 5, 4100}, {2, 2, 20000}, {31, 67, 129}, {4, 5, 8200}, {2, 2, 40000}};
  int seed = 0;
  for (int threads = 1; threads <= 4; ++threads) {
    ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
    for (const Shape& s : shapes)
      for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
        for (int ta : {BF16X_NO_TRANS, BF16X_TRANS}) {
          const int tb = ta == BF16X_TRANS ? BF16X_NO_TRANS : BF16X_TRANS;
          Problem<T> p(s.m, s.n, s.k, layout, ta, tb, ++seed, 3);
          fill_class(p, seed % 2 ? Cls::phi4 : Cls::cancel, seed);
          p.alpha = T(-1.3);
          p.beta = T(0.7);
          const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                                   " threads " + std::to_string(threads) + " layout " + std::to_string(layout) +
                                   " ta " + std::to_string(ta);
          // auto's kernels, and on an AVX-512 CPU the AVX2 ones (another tile shape) on every other problem
          EXPECT_EQ(mismatches(p, BF16X_ENGINE_AUTO, what), 0) << what;
          if (seed % 2 && bf16x_engine_available(BF16X_ENGINE_AVX512BF16) &&
              bf16x_engine_available(BF16X_ENGINE_AVX2)) {
            EXPECT_EQ(mismatches(p, BF16X_ENGINE_AVX2, what + " avx2"), 0) << what;
          }
        }
  }
  bf16x_set_num_threads(0);
}

// Tiny calls (LAPACK's testers make millions): every class, both layouts and transposes, alpha and beta with inexact
// factors, shapes of a few entries and of one deep entry (1 x 1 x 511): the exact rounding, bit for bit.
TYPED_TEST(CorrectRounding, TinyCallsEveryClass) {
  using T = TypeParam;
  struct Shape {
    std::int64_t m, n, k;
  };
  const Shape shapes[] = {{7, 7, 7}, {3, 5, 30}, {1, 1, 511}, {8, 1, 60}, {2, 3, 1}, {8, 8, 8}};
  const T ab[][2] = {{T(1), T(0)}, {T(-0.7), T(1)}, {T(3), T(0.3)}};
  int seed = 40;
  for (const Shape& s : shapes)
    for (Cls c : kClasses)
      for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
        ++seed;
        const std::int64_t k = c == Cls::ties ? 4 * s.n : s.k;  // (ties: k = 4 n, fill_class)
        if (c == Cls::ties && s.m * s.n * k >= 512) continue;
        Problem<T> p(s.m, s.n, k, layout, seed % 2 ? BF16X_TRANS : BF16X_NO_TRANS, BF16X_NO_TRANS, seed);
        fill_class(p, c, seed);
        p.alpha = c == Cls::ties ? T(1) : ab[seed % 3][0];
        p.beta = c == Cls::ties ? T(0) : ab[seed % 3][1];
        const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(k) + " " +
                                 cls_name(c) + " layout " + std::to_string(layout);
        EXPECT_EQ(mismatches(p, BF16X_ENGINE_AUTO, what), 0) << what;
      }
}

// Auto with a target below the native GEMM's bound gamma_k runs the correctly rounded mode (docs/auto.md, "Targets
// tighter than native"): every entry the exact rounding; a target at gamma_k does not.
TYPED_TEST(CorrectRounding, AutoWithATargetTighterThanNative) {
  using T = TypeParam;
  Problem<T> p(23, 17, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 31, 2);
  fill_class(p, Cls::phi4, 31);
  const double u = sizeof(T) == 8 ? 0x1p-53 : 0x1p-24;
  bf16x_stats st;
  bf16x_stats_init(&st);
  const check::Mat<T> want = check::exact_rounded_gemm<T>(p.opa, p.opb, p.alpha, p.beta, p.c0);
  for (const double target : {u, 300 * u / 2}) {  // at u and well below gamma_300
    p.auto_target = target;
    const std::vector<T> keep = p.c;
    ASSERT_EQ(p.run(BF16X_MODE_AUTO, BF16X_ENGINE_AUTO, &st), BF16X_OK);
    EXPECT_EQ(st.mode, mode_of<T>()) << "target " << target;
    std::int64_t bad = 0;
    for (std::int64_t j = 0; j < p.n; ++j)
      for (std::int64_t i = 0; i < p.m; ++i) bad += bits(p.cval(i, j)) != bits(want(i, j));
    EXPECT_EQ(bad, 0) << "target " << target;
    p.c = keep;
  }
  p.auto_target = 1.01 * 300 * u;  // above gamma_300: native's bound meets it
  ASSERT_EQ(p.run(BF16X_MODE_AUTO, BF16X_ENGINE_AUTO, &st), BF16X_OK);
  EXPECT_NE(st.mode, mode_of<T>());
}

// NaN and Inf: an entry whose row of op(A) or column of op(B) holds one is IEEE's NaN / Inf as the host GEMM gives
// it; the other entries stay correctly rounded. A NaN C0 under beta = 0 is not read.
template <typename T>
void special_values(std::int64_t k) {
  Problem<T> p(6, 5, k, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 9);
  fill_class(p, Cls::uniform, 9);
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  p.a[Problem<T>::at(p.layout, 1, 3, p.lda)] = inf;  // row 1: +-Inf (B's entries are nonzero)
  p.a[Problem<T>::at(p.layout, 4, 0, p.lda)] = nan;  // row 4: NaN
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) p.c[Problem<T>::at(p.layout, i, j, p.ldc)] = nan;
  ASSERT_EQ(p.run(mode_of<T>()), BF16X_OK);
  for (std::int64_t j = 0; j < p.n; ++j) {
    EXPECT_TRUE(std::isinf(p.cval(1, j))) << j;
    EXPECT_TRUE(std::isnan(p.cval(4, j))) << j;
    for (std::int64_t i : {0, 2, 3, 5}) {
      check::Mat<T> a1(1, p.k), b1(p.k, 1), c1(1, 1);
      for (std::int64_t l = 0; l < p.k; ++l) a1(0, l) = p.opa(i, l), b1(l, 0) = p.opb(l, j);
      const T want = check::exact_rounded_gemm<T>(a1, b1, T(1), T(0), c1)(0, 0);
      EXPECT_EQ(bits(p.cval(i, j)), bits(want)) << i << "," << j;
    }
  }
  // Inf in C0 with beta != 0: that entry is +-Inf
  Problem<T> q(3, 3, 10, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 10);
  q.beta = T(-2);
  q.c[Problem<T>::at(q.layout, 2, 1, q.ldc)] = inf;
  ASSERT_EQ(q.run(mode_of<T>()), BF16X_OK);
  EXPECT_EQ(q.cval(2, 1), -inf);
}

TYPED_TEST(CorrectRounding, SpecialValues) {
  for (const std::int64_t k : {40, 12}) special_values<TypeParam>(k);  // a call of 1200 and of 360 multiply-adds
}

// The sweep of the few-products calls: every class (ties where k is a multiple of 4), each alpha / beta pair of ab,
// every kernel level, both layouts and transposes (op(A)'s column and C's columns contiguous, column-major with A not
// transposed, or strided; padded or not), rows(seed) x cols x k, seed counting on: the exact rounding of every entry.
template <typename T, std::size_t N, typename Rows>
void few_products_sweep(std::int64_t k, const T (&ab)[N][2], int& seed, Rows rows, std::int64_t cols) {
  for (const int e : cr_engines())
    for (Cls c : kClasses) {
      if (c == Cls::ties && k % 4 != 0) continue;
      for (const auto& x : ab)
        for (const int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
          for (const int ta : {BF16X_NO_TRANS, BF16X_TRANS}) {
            ++seed;
            Problem<T> p(rows(seed), cols, k, layout, ta, seed % 3 ? BF16X_NO_TRANS : BF16X_TRANS, seed, seed % 2);
            fill_class(p, c, seed);
            p.alpha = x[0], p.beta = x[1];
            const std::string what = std::string(cls_name(c)) + " k " + std::to_string(k) + " engine " +
                                     std::to_string(e) + " alpha " + std::to_string(double(p.alpha)) + " beta " +
                                     std::to_string(double(p.beta)) + " layout " + std::to_string(layout) + " ta " +
                                     std::to_string(ta);
            EXPECT_EQ(mismatches(p, e, what), 0) << what;
          }
    }
}

// k = 1 with alpha = +-1 and beta in {0, +-1} (LAPACK's rank-1 updates) takes one FMA an entry
// (cr/few_products_impl.hpp) where the kernels have FMAs: every class (and the subnormal class's products and C that
// round to zero, their sign), every kernel level, both layouts and transposes, the contiguous columns of the vector
// loop and strided ones: the exact rounding. Then the entries the FMA leaves: exact zeros (a b = c, and -0 products
// beside a -0 C: +0), and NaN and Inf, which are IEEE's as the tiles form them, alpha (a b) + beta c0 in FP64
// arithmetic (docs/numerics.md "Specials": an overflowing product beside -Inf in C is NaN).
template <typename T>
T host_value(T alpha, T a, T b, T beta, T c) {
  volatile double ab = double(a) * double(b);  // no contraction: the multiplication, then the addition
  volatile double head = double(alpha) * ab;
  return beta == 0 ? T(head) : T(head + double(beta) * double(c));
}

TYPED_TEST(CorrectRounding, RankOneUpdates) {
  using T = TypeParam;
  const T ab[][2] = {{T(1), T(0)}, {T(-1), T(1)}, {T(1), T(-1)}, {T(-1), T(0)}};
  int seed = 300;
  few_products_sweep<T>(
      1, ab, seed, [](int) { return 37; }, 29);
  few_products_sweep<T>(  // short columns: row by row (a column-major C's rows through a buffer)
      1, ab, seed, [](int seed_now) { return 1 + seed_now % 7; }, 300);
  // calls large enough for the columns (rows) to go to the call's threads: the same exact rounding at 1-3 threads
  for (int threads = 1; threads <= 3; ++threads) {
    ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
    for (const std::int64_t m : {401, 7}) {
      Problem<T> p(m, m == 7 ? 12000 : 200, 1, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 90 + threads);
      fill_class(p, threads == 2 ? Cls::subnormal : Cls::cancel, 90 + threads);
      p.alpha = T(-1), p.beta = T(1);
      const std::string what =
          std::to_string(m) + " x " + std::to_string(p.n) + " x 1, threads " + std::to_string(threads);
      EXPECT_EQ(mismatches(p, BF16X_ENGINE_AUTO, what), 0) << what;
    }
  }
  bf16x_set_num_threads(0);
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T big = T(sizeof(T) == 8 ? 0x1p600 : 0x1p70), tiny = T(sizeof(T) == 8 ? 0x1p-600 : 0x1p-80);
  const T as[] = {T(0.75), T(-0.0), T(0.0), tiny, T(-3), inf, nan, big, T(1) / 3};
  const T bs[] = {T(0.5), T(-1), T(1), -tiny, T(0.0), big, T(-0.0)};
  // flip: A from bs and B from as, fewer rows than columns (row by row)
  for (const bool flip : {false, true})
    for (const int e : cr_engines())
      for (const auto& x : ab) {
        const std::int64_t m = flip ? std::size(bs) : std::size(as), n = flip ? std::size(as) : std::size(bs);
        const auto a_of = [&](std::int64_t i) { return flip ? bs[i] : as[i]; };
        const auto b_of = [&](std::int64_t j) { return flip ? as[j] : bs[j]; };
        Problem<T> p(m, n, 1, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 7);
        set_ops(
            p, [&](std::int64_t i, std::int64_t) { return a_of(i); },
            [&](std::int64_t, std::int64_t j) { return b_of(j); });
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t i = 0; i < m; ++i) {
            const T prod = a_of(i) * b_of(j);  // exact but where it rounds (tiny, big, 1/3)
            // every fourth entry: the product itself (an exact zero where alpha = beta), -0, -Inf or a small value
            const T cv = (i + j) % 4 == 0 ? prod : (i + j) % 4 == 1 ? T(-0.0) : (i + j) % 4 == 2 ? -inf : T(0.125);
            set_c(p, i, j, cv);
          }
        p.alpha = x[0], p.beta = x[1];
        const check::Mat<T> want = check::exact_rounded_gemm<T>(p.opa, p.opb, p.alpha, p.beta, p.c0);
        ASSERT_EQ(p.run(mode_of<T>(), e), BF16X_OK);
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t i = 0; i < m; ++i) {
            const T a = a_of(i), b = b_of(j), cv = p.c0(i, j), got = p.cval(i, j);
            const bool special = !std::isfinite(a) || !std::isfinite(b) || (p.beta != 0 && !std::isfinite(cv));
            const T exp = special ? host_value(p.alpha, a, b, p.beta, cv) : want(i, j);
            const std::string where = "flip " + std::to_string(flip) + " engine " + std::to_string(e) + " alpha " +
                                      std::to_string(double(p.alpha)) + " beta " + std::to_string(double(p.beta)) +
                                      " C(" + std::to_string(i) + "," + std::to_string(j) + ")";
            if (std::isnan(exp)) {
              EXPECT_TRUE(std::isnan(got)) << where;
            } else {
              EXPECT_EQ(bits(got), bits(exp)) << where << ": " << got << " against " << exp;
            }
          }
      }
}

// 2 <= k <= 4 with alpha = +-1 and beta in {0, +-1} (LAPACK's blocks of NB = 2 and 3, small TRMMs) takes each
// entry's error-free sum (cr/few_products_impl.hpp): every class at each k (ties at k = 4), both layouts and
// transposes (contiguous, gathered and strided lanes), row counts off the vector width; residuals of a few ulps that
// take the second level (C0 the rounded dot product moved by -2..2 ulps, alpha = -1: each value a rounding error,
// exactly zero where C0 was not moved) without a floating-point flag; C's NaN, Inf, values past 2^1000 and
// subnormals; 1-3 threads. Every entry the exact rounding (IEEE's alpha (a b) + beta c0 where C is not finite).
TYPED_TEST(CorrectRounding, FewProductUpdates) {
  using T = TypeParam;
  const T ab[][2] = {{T(1), T(0)}, {T(-1), T(1)}, {T(1), T(-1)}};
  int seed = 500;
  for (int k = 2; k <= 4; ++k) {  // rows off the vector width: masked last lanes
    few_products_sweep<T>(
        k, ab, seed, [](int seed_now) { return 19 + seed_now % 5; }, 11);
    few_products_sweep<T>(  // short columns: row by row, 300 entries a row (a buffer of 256 and the rest)
        k, ab, seed, [](int seed_now) { return 1 + seed_now % 7; }, 300);
  }
  for (int k = 2; k <= 4; ++k)
    for (const int e : cr_engines())
      for (const std::int64_t m : {5, 8, 37})
        for (const int ta : {BF16X_NO_TRANS, BF16X_TRANS}) {
          Problem<T> p(m, 13, k, BF16X_COL_MAJOR, ta, BF16X_NO_TRANS, 40 + k);
          fill_class(p, Cls::uniform, 40 + k);
          const check::Mat<T> dot = check::exact_rounded_gemm<T>(p.opa, p.opb, T(1), T(0), p.c0);
          for (std::int64_t j = 0; j < p.n; ++j)
            for (std::int64_t i = 0; i < m; ++i) {
              T v = dot(i, j);
              for (std::int64_t d = (i + j) % 5 - 2; d != 0; d += d < 0 ? 1 : -1)
                v = std::nextafter(v, d < 0 ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity());
              set_c(p, i, j, v);
            }
          p.alpha = T(-1), p.beta = T(1);
          flags_stay_clear(p, e,
                           "residuals, k " + std::to_string(k) + " m " + std::to_string(m) + " engine " +
                               std::to_string(e) + " ta " + std::to_string(ta));
        }
  for (int threads = 1; threads <= 3; ++threads)
    for (const int e : cr_engines())
      for (const std::int64_t m : {401, 6}) {
        ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
        Problem<T> p(m, m == 6 ? 9000 : 200, 3, BF16X_COL_MAJOR, threads == 2 ? BF16X_TRANS : BF16X_NO_TRANS,
                     BF16X_TRANS, 95 + threads);
        fill_class(p, Cls::cancel, 95 + threads);
        p.alpha = T(-1), p.beta = T(1);
        const std::string what = std::to_string(m) + " x " + std::to_string(p.n) + " x 3, engine " + std::to_string(e) +
                                 ", threads " + std::to_string(threads);
        EXPECT_EQ(mismatches(p, e, what), 0) << what;
      }
  bf16x_set_num_threads(0);
  // Uniform data: the error-free sums decide their entries (a test that decides too few sends them to the exact sum:
  // the same bits, at a hundred times the price), on every kernel level, rows contiguous and gathered.
  if constexpr (sizeof(T) == 8)
    for (const int e : cr_engines())
      for (const int ta : {BF16X_NO_TRANS, BF16X_TRANS}) {
        Problem<T> p(61, 40, 3, BF16X_COL_MAJOR, ta, BF16X_NO_TRANS, 88);
        fill_class(p, Cls::uniform, 88);
        p.alpha = T(-1), p.beta = T(1);
        bf16x_stats st;
        bf16x_stats_init(&st);
        const std::string what = "uniform 61 x 40 x 3, engine " + std::to_string(e) + " ta " + std::to_string(ta);
        EXPECT_EQ(mismatches(p, e, what, &st), 0) << what;
        EXPECT_LE(st.entries_repaired, 61u * 40u / 100) << what;
      }
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T cs[] = {
      nan,     inf,     -inf, T(sizeof(T) == 8 ? 0x1p1001 : 0x1p120), std::numeric_limits<T>::denorm_min() * 3,
      T(-0.0), T(0.125)};
  for (const int e : cr_engines())
    for (const std::int64_t m : {11, 3}) {  // 3 x 40: row by row
      Problem<T> p(m, m == 3 ? 40 : 9, 3, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 77);
      fill_class(p, Cls::uniform, 77);
      for (std::int64_t j = 0; j < p.n; ++j)
        for (std::int64_t i = 0; i < p.m; ++i) set_c(p, i, j, cs[(i + 2 * j) % std::size(cs)]);
      p.alpha = T(-1), p.beta = T(1);
      const check::Mat<T> want = check::exact_rounded_gemm<T>(p.opa, p.opb, p.alpha, p.beta, p.c0);
      ASSERT_EQ(p.run(mode_of<T>(), e), BF16X_OK);
      for (std::int64_t j = 0; j < p.n; ++j)
        for (std::int64_t i = 0; i < p.m; ++i) {
          const T cv = p.c0(i, j), got = p.cval(i, j);
          const std::string where =
              "engine " + std::to_string(e) + " C(" + std::to_string(i) + "," + std::to_string(j) + ")";
          if (std::isnan(cv)) {
            EXPECT_TRUE(std::isnan(got)) << where;
          } else {
            EXPECT_EQ(bits(got), bits(std::isinf(cv) ? cv : want(i, j))) << where << ": " << got;
          }
        }
    }
}

}  // namespace
}  // namespace bf16x::test

namespace bf16x::test {
namespace {

// Complex: each part of each entry RN(Re / Im (alpha op(A) op(B) + beta C0)), alpha and beta complex, every
// transpose (conjugation included), both layouts, 1-3 threads, against MPFR's exact parts.
template <typename T>
void complex_case(int layout, int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, bool heavy,
                  std::uint64_t seed) {
  using C = std::conditional_t<sizeof(T) == 8, bf16x_complex_double, bf16x_complex_float>;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::normal_distribution<double> nd(0, 1);
  const auto draw = [&] { return T(heavy ? (u(rng) / 2) * std::exp(4 * nd(rng)) : u(rng)); };
  const bool tra = ta != BF16X_NO_TRANS, trb = tb != BF16X_NO_TRANS;
  const std::int64_t ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
  const std::int64_t lda = (layout == BF16X_COL_MAJOR ? ar : ac) + 1, ldb = (layout == BF16X_COL_MAJOR ? br : bc) + 2,
                     ldc = (layout == BF16X_COL_MAJOR ? m : n) + 1;
  const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t ld) {
    return std::size_t(layout == BF16X_COL_MAJOR ? i + j * ld : j + i * ld);
  };
  std::vector<C> a(std::size_t(lda * std::max(ac, ar) + 4)), b(std::size_t(ldb * std::max(bc, br) + 4)),
      c(std::size_t(ldc * std::max(m, n) + 4));
  check::CMat<T> opa(m, k), opb(k, n), c0(m, n);
  for (std::int64_t i = 0; i < ar; ++i)
    for (std::int64_t j = 0; j < ac; ++j) {
      const C v{draw(), draw()};
      a[at(i, j, lda)] = v;
      const std::int64_t r = tra ? j : i, q = tra ? i : j;
      opa.re(r, q) = v.re, opa.im(r, q) = ta == BF16X_CONJ_TRANS ? T(-v.im) : v.im;
    }
  for (std::int64_t i = 0; i < br; ++i)
    for (std::int64_t j = 0; j < bc; ++j) {
      const C v{draw(), draw()};
      b[at(i, j, ldb)] = v;
      const std::int64_t r = trb ? j : i, q = trb ? i : j;
      opb.re(r, q) = v.re, opb.im(r, q) = tb == BF16X_CONJ_TRANS ? T(-v.im) : v.im;
    }
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const C v{draw(), draw()};
      c[at(i, j, ldc)] = v;
      c0.re(i, j) = v.re, c0.im(i, j) = v.im;
    }
  const T alpha[2] = {T(0.7), T(-1.3)}, beta[2] = {T(0.3), T(0.2)};
  const check::CMat<T> want = check::exact_rounded_complex_gemm<T>(opa, opb, alpha, beta, c0);
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode_of<T>();
  int st;
  if constexpr (sizeof(T) == 8)
    st = bf16x_zgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, {alpha[0], alpha[1]},
                        a.data(), lda, b.data(), ldb, {beta[0], beta[1]}, c.data(), ldc, &o);
  else
    st = bf16x_cgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, {alpha[0], alpha[1]},
                        a.data(), lda, b.data(), ldb, {beta[0], beta[1]}, c.data(), ldc, &o);
  ASSERT_EQ(st, BF16X_OK);
  int bad = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const C got = c[at(i, j, ldc)];
      if (bits(got.re) == bits(want.re(i, j)) && bits(got.im) == bits(want.im(i, j))) continue;
      if (bad++ < 3)
        ADD_FAILURE() << "layout " << layout << " ta " << ta << " tb " << tb << " C(" << i << "," << j << ") = ("
                      << std::hexfloat << got.re << ", " << got.im << "), exact rounding (" << want.re(i, j) << ", "
                      << want.im(i, j) << ")" << std::defaultfloat;
    }
  EXPECT_EQ(bad, 0);
}

TYPED_TEST(CorrectRounding, ComplexEachPart) {
  using T = TypeParam;
  std::uint64_t seed = 100;
  for (int threads = 1; threads <= 3; ++threads) {
    ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
      for (int ta : {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS})
        for (int tb : {BF16X_NO_TRANS, BF16X_CONJ_TRANS}) {
          ++seed;
          complex_case<T>(layout, ta, tb, 7 + threads, 5, 33 + threads, (seed & 1) == 0, seed);
        }
  }
  bf16x_set_num_threads(0);
}

}  // namespace
}  // namespace bf16x::test

#include <mpfr.h>

#include "cr/extract_sum.hpp"
#include "cr/tile_sums.hpp"

namespace bf16x::test {
namespace {

// The tile sums' own bound (cr/tile_sums.hpp): |s + c - sum a b| <= (k + n (n - 1) / (1 - (n - 1) u)) u^2 sigma +
// k eta for the FP64 kernels, n = k + ceil(k / 256) terms summed into c, sigma <= max(8.2 t, 2^-899) the bias,
// against the exact sum from MPFR, for every kernel table this CPU runs (each with its own tile shape), k across
// the kernels' block edges, with products of mixed signs and magnitudes (cancellation), at unit scale and at 2^-920
// (t below the bias's floor); the measured errors must not all be zero (the bound is exercised, not just the exact
// cases). The magnitudes-only kernel gives dd's t bit for bit.
TEST(CorrectRoundingKernels, TileSumsWithinTheirBound) {
  using namespace bf16x::cr;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  mpfr_t exact, term;
  mpfr_init2(exact, 4000);
  mpfr_init2(term, 200);
  for (const cpu::Level level : {cpu::Level::generic, cpu::Level::avx2, cpu::Level::avx512}) {
    if (level > cpu::vector_level()) {
      std::printf("kernels at level %d: skipped, this CPU does not run them\n", int(level));
      continue;
    }
    const TileKernels& kern = tile_kernels(level);
    const int mr = kern.mr, nr = kern.nr;
    ASSERT_LE(mr * nr, kMaxTile);
    ASSERT_EQ(kItemRows % mr, 0);
    double worst = 0;
    for (const int scale : {0, -460})
      for (std::int64_t k : {1, 2, 7, 255, 256, 257, 513, 3001}) {
        std::vector<double> a(std::size_t(2 * mr * k)), b(std::size_t(nr * k));
        for (std::int64_t l = 0; l < k; ++l) {
          for (int i = 0; i < mr; ++i) {
            const double v =
                std::ldexp(u(rng) * std::ldexp(1.0, -int(u(rng) * u(rng) * 30 + 30)) + (l % 2 ? 1 : -1) * 0.5, scale);
            a[std::size_t(l * 2 * mr + i)] = v;
            a[std::size_t(l * 2 * mr + mr + i)] = std::fabs(v);
          }
          for (int j = 0; j < nr; ++j) b[std::size_t(l * nr + j)] = std::ldexp(1 + u(rng) * 0x1p-20, scale);
        }
        double s[kMaxTile], c[kMaxTile], t[kMaxTile];
        kern.dd(k, a.data(), b.data(), s, c, t);
        if (kern.magnitudes) {  // the residual runs' t alone: dd's t bit for bit, no sums
          double s2[kMaxTile], c2[kMaxTile], t2[kMaxTile];
          kern.magnitudes(k, a.data(), b.data(), s2, c2, t2);
          for (int e = 0; e < mr * nr; ++e) {
            EXPECT_EQ(std::memcmp(&t2[e], &t[e], sizeof t[e]), 0) << "k " << k << " " << kern.isa << " entry " << e;
            EXPECT_EQ(s2[e], 0.0);
            EXPECT_EQ(c2[e], 0.0);
          }
        }
        for (int i = 0; i < mr; ++i)
          for (int j = 0; j < nr; ++j) {
            mpfr_set_zero(exact, 1);
            for (std::int64_t l = 0; l < k; ++l) {
              mpfr_set_d(term, a[std::size_t(l * 2 * mr + i)], MPFR_RNDN);
              mpfr_mul_d(term, term, b[std::size_t(l * nr + j)], MPFR_RNDN);
              mpfr_add(exact, exact, term, MPFR_RNDN);
            }
            mpfr_sub_d(exact, exact, s[i * nr + j], MPFR_RNDN);
            mpfr_sub_d(exact, exact, c[i * nr + j], MPFR_RNDN);
            const double err = std::fabs(mpfr_get_d(exact, MPFR_RNDU));
            const double kk = double(k), n = kk + std::ceil(kk / 256), u2 = 0x1p-106;
            const double sigma = std::max(8.2 * (1 + 0x1p-52) * t[i * nr + j], 0x1p-899);
            const double bound = (kk + n * (n - 1) / (1 - (n - 1) * 0x1p-53)) * u2 * sigma + kk * 0x1p-1074;
            EXPECT_LE(err, bound) << "k " << k << " scale " << scale << " kernels " << kern.isa << " entry " << i << ","
                                  << j;
            worst = std::max(worst, err / bound);
          }
      }
    EXPECT_GT(worst, 0.0) << "no rounding error at all: the data does not exercise the bound";
    std::printf("kernels %s (%d x %d): largest error / bound %.3g\n", kern.isa, mr, nr, worst);
  }
  mpfr_clear(exact);
  mpfr_clear(term);
}

// The tile decision a vector at a time (decide_rows_d / decide_rows_f) against the entry decision it mirrors
// (decide_d / decide_f): on every kernel table this CPU runs, the same entries decided, to the same values, over
// sums of every size relation to their bound (decided and undecided ones), scales in and out of range, NaN and Inf
// sums or C terms, and alpha / beta with inexact, zero and negative values.
TEST(CorrectRoundingKernels, RowDecisionsAreTheEntryDecisions) {
  using namespace bf16x::cr;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> pick(0, 99);
  const double scalars[] = {1, -1, 0.7, 3, 0, -0x1p-30};
  for (const cpu::Level level : {cpu::Level::avx2, cpu::Level::avx512}) {
    if (level > cpu::vector_level()) {
      std::printf("kernels at level %d: skipped, this CPU does not run them\n", int(level));
      continue;
    }
    const TileKernels& kern = tile_kernels(level);
    ASSERT_NE(kern.decide_rows_d, nullptr);
    ASSERT_NE(kern.decide_rows_f, nullptr);
    for (const bool fp64 : {true, false}) {
      std::int64_t decided = 0, undecided = 0, in_frame = 0;
      for (int trial = 0; trial < 3000; ++trial) {
        const int count = kern.mr * kern.nr;
        const std::int64_t k = 1 + pick(rng) * 37;
        const Terms x{{scalars[pick(rng) % 6], 0}, {scalars[pick(rng) % 6], 0}, k, fp64};
        double s[kMaxTile], c[kMaxTile], t[kMaxTile], c0[kMaxTile], out[kMaxTile];
        int scale[kMaxTile];
        for (int e = 0; e < count; ++e) {
          s[e] = u(rng) * std::ldexp(1.0, int(u(rng) * 40));
          // t from just above |s| (cancellation-free: decided) to far above it (heavy cancellation: undecided)
          t[e] = std::fabs(s[e]) * (1 + std::ldexp(std::fabs(u(rng)), int(std::fabs(u(rng)) * 110)));
          c[e] = s[e] * u(rng) * (fp64 ? 0x1p-60 : 0.0);
          // scales near 0, anywhere, and at the bottom of the range (values below 2^-960: the frame decision)
          const int where = pick(rng);
          scale[e] = where < 75 ? int(u(rng) * 300) : where < 85 ? int(u(rng) * 2200) : -975 + int(u(rng) * 30);
          // C far from the products' value, near it (in the frame: a value below 2^-960 with its C term), or Inf
          const int cterm = pick(rng);
          c0[e] = cterm < 60   ? u(rng) * std::ldexp(1.0, int(u(rng) * 50) + scale[e] / 2)
                  : cterm < 95 ? u(rng) * std::ldexp(std::fabs(s[e]), int(u(rng) * 4) + scale[e])
                               : HUGE_VAL;
          if (pick(rng) < 2) s[e] = std::numeric_limits<double>::quiet_NaN();
          if (!fp64) c0[e] = double(float(c0[e]));
        }
        const std::uint64_t bits =
            (fp64 ? kern.decide_rows_d : kern.decide_rows_f)(kern.mr, s, c, t, scale, c0, x, out);
        for (int e = 0; e < count; ++e) {
          const EntrySums sums[2] = {{s[e], c[e], t[e], scale[e]}, {0, 0, 0, 0}};
          const double cs[2] = {c0[e], 0};
          double want = 0;
          bool scalar;
          if (fp64) {
            scalar = kern.decide_d(sums, x, cs, want);
          } else {
            float w = 0;
            scalar = kern.decide_f(sums, x, cs, w);
            want = w;
          }
          const bool vector = (bits >> e & 1) != 0;
          ASSERT_EQ(vector, scalar) << kern.isa << (fp64 ? " FP64" : " FP32") << " trial " << trial << " entry " << e
                                    << " s " << s[e] << " t " << t[e] << " scale " << scale[e];
          if (scalar) {
            EXPECT_EQ(std::memcmp(&want, &out[e], sizeof want), 0) << kern.isa << " trial " << trial;
            if (fp64 && want != 0 && std::fabs(want) < 0x1p-960) ++in_frame;
          }
          ++(scalar ? decided : undecided);
        }
      }
      EXPECT_GT(decided, 1000) << kern.isa;
      EXPECT_GT(undecided, 1000) << kern.isa;
      if (fp64) {
        EXPECT_GT(in_frame, 100) << kern.isa;  // decided in the frame of the scaled products
      }
      std::printf("kernels %s %s: %lld decided (%lld below 2^-960), %lld undecided, the same by rows and by entries\n",
                  kern.isa, fp64 ? "FP64" : "FP32", (long long)decided, (long long)in_frame, (long long)undecided);
    }
  }
}

// Tame scaled lines (cr/extract_sum.hpp: |v| < 2, nonzero ones at least 2^-480) of the extraction's input classes,
// element l of a at a[l * 3], of b at b[l * 5] (packed panels' strides): products of mixed signs cancelling in pairs
// (LAPACK's residuals), graded over 2^+-40, entries down to 2^-480 (remainders down to 2^-1064: subnormal sigmas),
// and zero lines.
void tame_lines(int cls, std::int64_t k, std::mt19937_64& rng, std::vector<double>& a, std::vector<double>& b) {
  std::uniform_real_distribution<double> u(-1, 1);
  a.assign(std::size_t(3 * k), 0.0);
  b.assign(std::size_t(5 * k), 0.0);
  for (std::int64_t l = 0; l < k; ++l) {
    double x = u(rng), y = u(rng);
    switch (cls) {
      case 0:  // pairs: x_l y_l close to -x_(l-1) y_(l-1)
        if (l % 2) x = -a[std::size_t(3 * (l - 1))] * (1 + u(rng) * 0x1p-30), y = b[std::size_t(5 * (l - 1))];
        break;
      case 1:
        x = std::ldexp(x, -int(std::fabs(u(rng)) * 40)), y = std::ldexp(y, -int(std::fabs(u(rng)) * 40));
        break;
      case 2:
        if (l % 3 == 0) x = std::ldexp(1 + std::fabs(u(rng)), -480) * (u(rng) < 0 ? -1 : 1);
        if (l % 5 == 1) y = std::ldexp(1 + std::fabs(u(rng)), -470);
        break;
      default:
        x = 0;
    }
    a[std::size_t(3 * l)] = x, b[std::size_t(5 * l)] = y;
  }
}

// A row of class cls (a, stride 3) and a B panel of L columns as the row kernels take them (element l of column j at
// panel[l L + j]), column j of class (cls + j) mod classes.
void tame_row_and_panel(int cls, int classes, std::int64_t k, int L, std::mt19937_64& rng, std::vector<double>& a,
                        std::vector<double>& panel) {
  std::vector<double> b, col;
  tame_lines(cls, k, rng, a, b);
  panel.assign(std::size_t(k * L), 0.0);
  for (int j = 0; j < L; ++j) {
    tame_lines((cls + j) % classes, k, rng, col, b);
    for (std::int64_t l = 0; l < k; ++l) panel[std::size_t(l * L + j)] = b[std::size_t(5 * l)];
  }
}

// The extraction's parts (cr/extract_sum.hpp) sum exactly to the dot product, as MPFR sums both (2400 bits hold
// every term from 2^3 down to 2^-1064 and their sums), on every kernel table this CPU runs, with the same parts on
// each (every pass's sum is exact, in any order); k across the vector widths and unroll (2 L) edges.
TEST(CorrectRoundingKernels, ExtractedPartsSumToTheDotExactly) {
  using namespace bf16x::cr;
  std::mt19937_64 rng(11);
  mpfr_t exact, sum, term;
  mpfr_inits2(2400, exact, sum, term, static_cast<mpfr_ptr>(nullptr));
  std::vector<double> a, b, room;
  int most = 0;
  for (int cls = 0; cls < 4; ++cls)
    for (std::int64_t k : {1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000, 4099}) {
      tame_lines(cls, k, rng, a, b);
      room.assign(std::size_t(2 * k + 16), 0.0);
      mpfr_set_zero(exact, 1);
      for (std::int64_t l = 0; l < k; ++l) {
        mpfr_set_d(term, a[std::size_t(3 * l)], MPFR_RNDN);
        mpfr_mul_d(term, term, b[std::size_t(5 * l)], MPFR_RNDN);
        mpfr_add(exact, exact, term, MPFR_RNDN);
      }
      double first[kMaxParts];
      int first_count = -2;
      for (const cpu::Level level : {cpu::Level::generic, cpu::Level::avx2, cpu::Level::avx512}) {
        if (level > cpu::vector_level()) continue;
        const TileKernels& kern = tile_kernels(level);
        double parts[kMaxParts];
        const int count = kern.extract(a.data(), 3, b.data(), 5, k, room.data(), parts);
        ASSERT_GE(count, 0) << kern.isa << " class " << cls << " k " << k;
        mpfr_set_zero(sum, 1);
        for (int q = 0; q < count; ++q) {
          EXPECT_NE(parts[q], 0.0);
          mpfr_add_d(sum, sum, parts[q], MPFR_RNDN);
        }
        EXPECT_EQ(mpfr_cmp(sum, exact), 0) << kern.isa << " class " << cls << " k " << k << " parts " << count;
        EXPECT_EQ(count == 0, cls == 3);
        if (first_count == -2) {
          first_count = count;
          std::copy(parts, parts + count, first);
        } else {
          ASSERT_EQ(count, first_count) << kern.isa;
          EXPECT_EQ(std::memcmp(parts, first, sizeof(double) * std::size_t(count)), 0) << kern.isa;
        }
        most = std::max(most, count);
      }
    }
  EXPECT_GE(most, 4) << "no sum needed several passes: the data does not exercise them";
  mpfr_clears(exact, sum, term, static_cast<mpfr_ptr>(nullptr));
}

// A row of a tile's entries at once (TileKernels::extract_row) gives each lane of `lanes` the parts that the entry
// alone gets from extract (whose parts the test above checks against MPFR), on every vector kernel this CPU runs:
// every lane set, lanes of different classes (so that they finish after different numbers of passes), and a lane
// whose last passes run below the normal range, where sigma comes from ilogb, not from the power of two: column 0
// against a = 2^-480 (1 + 2^-30, 1 + 2^-52, 0...) is 2^-960 (1 + 2^-30 + 2^-33) + 2^-960 (exact products) + 2^-1023
// - 2^-1064 (their TwoProd errors); past k = 1024 (2^M >= 4100) the grid of the pass whose top is 2^-1023
// (subnormal) is 2^-1062, so the parts are 2^-960 (2 + 2^-30 + 2^-33), 2^-1023, -2^-1064.
TEST(CorrectRoundingKernels, ExtractedRowsGiveEachEntryItsOwnParts) {
  using namespace bf16x::cr;
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<unsigned> pick(0, 255);
  std::vector<double> a, panel, room, single;
  int checked = 0;
  for (const cpu::Level level : {cpu::Level::avx2, cpu::Level::avx512}) {
    if (level > cpu::vector_level()) continue;
    const TileKernels& kern = tile_kernels(level);
    ASSERT_NE(kern.extract_row, nullptr) << kern.isa;
    const int L = kern.nr;
    for (int cls = 0; cls < 4; ++cls)
      for (std::int64_t k : {1, 2, 3, 8, 17, 40, 333, 1100}) {
        tame_row_and_panel(cls, 4, k, L, rng, a, panel);  // a: the row (stride 3)
        if (k >= 2) {
          a.assign(std::size_t(3 * k), 0.0);
          a[0] = std::ldexp(1 + 0x1p-30, -480), a[3] = std::ldexp(1 + 0x1p-52, -480);
          for (std::int64_t l = 0; l < k; ++l) panel[std::size_t(l * L)] = 0;
          panel[0] = std::ldexp(1 + 0x1p-33, -480), panel[std::size_t(L)] = std::ldexp(1 - 0x1p-52, -480);
        }
        room.assign(std::size_t(2 * k * kMaxLanes + 16), 0.0);
        single.assign(std::size_t(2 * k + 16), 0.0);
        for (const unsigned lanes : {(1u << L) - 1, 1u, 1u << (L - 1), pick(rng), pick(rng), pick(rng)}) {
          double parts[kMaxLanes * kMaxParts];
          int counts[kMaxLanes];
          kern.extract_row(a.data(), 3, panel.data(), k, lanes, room.data(), parts, counts);
          for (int j = 0; j < L; ++j) {
            if (!(lanes >> j & 1)) continue;
            double one[kMaxParts];
            const int count = kern.extract(a.data(), 3, panel.data() + j, L, k, single.data(), one);
            ASSERT_EQ(counts[j], count) << kern.isa << " class " << cls << " k " << k << " lane " << j;
            EXPECT_EQ(std::memcmp(parts + j * kMaxParts, one, sizeof(double) * std::size_t(std::max(count, 0))), 0)
                << kern.isa << " class " << cls << " k " << k << " lane " << j;
            if (k > 1024 && j == 0) {
              EXPECT_TRUE(count == 3 && one[1] == 0x1p-1023 && one[2] == -0x1p-1064) << kern.isa << " " << count;
            }
            ++checked;
          }
        }
      }
  }
  if (checked == 0) GTEST_SKIP() << "no vector kernel of the correctly rounded modes on this CPU (generic only)";
}

// A row's refined parts (TileKernels::refine_row, cr/refine_sum.hpp) lie within their slack of each lane's exact dot
// product (MPFR), on every vector kernel this CPU runs, k across the vector and block edges, lanes of the extraction's
// classes; and the rounding from them with that slack (round_parts) is MPFR's rounding of a residual C - a . b
// wherever it decides, which it must for most lanes (all but those within the slack of a rounding boundary).
TEST(CorrectRoundingKernels, RefinedPartsLieWithinTheirSlack) {
  using namespace bf16x::cr;
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(-1, 1);
  mpfr_t exact, sum, term, diff;
  mpfr_inits2(2400, exact, sum, term, diff, static_cast<mpfr_ptr>(nullptr));
  std::vector<double> a, panel;
  std::int64_t checked = 0, decided = 0, exact_parts = 0, decided_lanes = 0;
  for (const cpu::Level level : {cpu::Level::avx2, cpu::Level::avx512}) {
    if (level > cpu::vector_level()) continue;
    const TileKernels& kern = tile_kernels(level);
    ASSERT_NE(kern.refine_row, nullptr) << kern.isa;
    ASSERT_NE(kern.round_parts_lanes, nullptr) << kern.isa;
    const int L = kern.nr;
    for (int cls = 0; cls < 3; ++cls)
      for (std::int64_t k : {1, 2, 3, 8, 17, 40, 50, 333, 1100}) {
        tame_row_and_panel(cls, 3, k, L, rng, a, panel);  // a: the row (stride 3)
        double t[kMaxLanes] = {};
        for (int j = 0; j < L; ++j)
          for (std::int64_t l = 0; l < k; ++l)
            t[j] = std::fma(std::fabs(a[std::size_t(3 * l)]), std::fabs(panel[std::size_t(l * L + j)]), t[j]);
        double parts[kMaxLanes * kRefinedParts], slack[kMaxLanes];
        kern.refine_row(a.data(), 3, panel.data(), k, (1u << L) - 1, t, parts, slack);
        // the row's lanes rounded together (round_parts_lanes) at a scale: C - 2^scale a . b, C per lane
        const int scale = int(k % 3) * 7 - 7;
        int scales[kMaxLanes];
        double cs[kMaxLanes] = {}, wants[kMaxLanes] = {};
        unsigned lanes = 0;
        for (int j = 0; j < L; ++j) {
          mpfr_set_zero(exact, 1);
          for (std::int64_t l = 0; l < k; ++l) {
            mpfr_set_d(term, a[std::size_t(3 * l)], MPFR_RNDN);
            mpfr_mul_d(term, term, panel[std::size_t(l * L + j)], MPFR_RNDN);
            mpfr_add(exact, exact, term, MPFR_RNDN);
          }
          const std::string what = std::string(kern.isa) + " class " + std::to_string(cls) + " k " + std::to_string(k) +
                                   " lane " + std::to_string(j);
          ASSERT_GE(slack[j], 0.0) << what;  // (every t here above 2^-800)
          exact_parts += slack[j] == 0;
          EXPECT_LT(slack[j], std::ldexp(t[j], -100)) << what;
          mpfr_set_zero(sum, 1);
          double nonzero[kRefinedParts];
          int count = 0;
          for (int q = 0; q < kRefinedParts; ++q) {
            const double v = parts[q * kMaxLanes + j];
            mpfr_add_d(sum, sum, v, MPFR_RNDN);
            if (v != 0) nonzero[count++] = v;
          }
          mpfr_sub(diff, sum, exact, MPFR_RNDN);
          EXPECT_LE(std::fabs(mpfr_get_d(diff, MPFR_RNDU)), slack[j]) << what;
          ++checked;
          // C - a . b with C the dot product rounded (a residual of a few ulps) or a random value
          const double dot = mpfr_get_d(exact, MPFR_RNDN), c = checked % 2 ? dot * (1 + u(rng) * 0x1p-50) : u(rng);
          if (std::fabs(c) < 0x1p-900) continue;  // (round_parts' C term: in [2^-900, 2^1000))
          check::Mat<double> ma(1, k), mb(k, 1), mc(1, 1);
          for (std::int64_t l = 0; l < k; ++l)
            ma(0, l) = a[std::size_t(3 * l)], mb(l, 0) = panel[std::size_t(l * L + j)];
          mc(0, 0) = c;
          const double want = check::exact_rounded_gemm<double>(ma, mb, -1.0, 1.0, mc)(0, 0);
          const Terms x{{-1, 0}, {1, 0}, k, true};
          const double c0[2] = {c, 0};
          double got;
          for (std::int64_t l = 0; l < k; ++l) mb(l, 0) = std::ldexp(mb(l, 0), scale);  // (exact: tame values)
          scales[j] = scale, cs[j] = c, lanes |= 1u << j;
          wants[j] = check::exact_rounded_gemm<double>(ma, mb, -1.0, 1.0, mc)(0, 0);
          if (!kern.round_parts_d(nonzero, count, 0, x, c0, slack[j], got)) continue;
          ++decided;
          EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << what << " got " << got << " want " << want;
        }
        double out[kMaxLanes];
        const Terms x{{-1, 0}, {1, 0}, k, true};
        const unsigned done = kern.round_parts_lanes(parts, slack, scales, cs, x, lanes, out);
        EXPECT_EQ(done & ~lanes, 0u);
        for (int j = 0; j < L; ++j)
          if (done >> j & 1) {
            ++decided_lanes;
            EXPECT_EQ(std::memcmp(&out[j], &wants[j], sizeof out[j]), 0)
                << kern.isa << " lanes, class " << cls << " k " << k << " lane " << j << " got " << out[j] << " want "
                << wants[j];
          }
      }
  }
  mpfr_clears(exact, sum, term, diff, static_cast<mpfr_ptr>(nullptr));
  if (checked == 0) GTEST_SKIP() << "no vector kernel of the correctly rounded modes on this CPU (generic only)";
  std::printf(
      "refined parts: %lld lanes within their slack (%lld exact), %lld residuals decided from them (%lld as "
      "lanes at a scale)\n",
      (long long)checked, (long long)exact_parts, (long long)decided, (long long)decided_lanes);
  EXPECT_GT(decided, checked / 2);
  EXPECT_GT(decided_lanes, checked / 2);
}

// The rounding from the parts (TileKernels::round_parts_d / _f) against MPFR's rounding of the same exact value
// (check/exact_rounded.hpp, a 1 x 1 GEMM of the unscaled lines): every decision it makes is the correct rounding,
// over alpha and beta of every kind, C terms that cancel the product (residuals), and scales that put the value
// in the normal range, below it (subnormal and zero results) and past it; it must decide most entries of each
// class.
TEST(CorrectRoundingKernels, PartsRoundToTheExactRounding) {
  using namespace bf16x::cr;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> pick(0, 99);
  const double scalars[] = {1, -1, 0.7, 3, -0x1p-30};
  const int scales[] = {0, -40, 300, -970, -1000, -1060, -1100, -1500, 1800};
  std::vector<double> a, b, room;
  for (const cpu::Level level : {cpu::Level::generic, cpu::Level::avx2, cpu::Level::avx512}) {
    if (level > cpu::vector_level()) continue;
    const TileKernels& kern = tile_kernels(level);
    for (const bool fp64 : {true, false}) {
      std::int64_t decided = 0, tried = 0, below = 0;
      for (int trial = 0; trial < 600; ++trial) {
        const std::int64_t k = 1 + pick(rng) % 40;
        tame_lines(pick(rng) % 3, k, rng, a, b);
        if (!fp64)  // FP32 operands: the lines' values as floats (their products exact in FP64)
          for (double* v : {a.data(), b.data()})
            for (std::int64_t l = 0; l < k; ++l)
              v[(v == a.data() ? 3 : 5) * l] = double(float(v[(v == a.data() ? 3 : 5) * l]));
        const int scale = fp64 ? scales[pick(rng) % 9] : scales[pick(rng) % 3] / 4 - pick(rng) % 2 * 140;
        const int sa = scale / 2, sb = scale - sa;
        const double w = scalars[pick(rng) % 5], beta = pick(rng) < 30 ? 0.0 : scalars[pick(rng) % 5];
        room.assign(std::size_t(2 * k + 16), 0.0);
        double parts[kMaxParts];
        const int count = kern.extract(a.data(), 3, b.data(), 5, k, room.data(), parts);
        ASSERT_GE(count, 0);
        // C: the product's value (a residual to cancel against), a nearby value, or a random one
        double dot = 0;
        for (std::int64_t l = 0; l < k; ++l) dot += a[std::size_t(3 * l)] * b[std::size_t(5 * l)];
        const double scaled_dot = std::ldexp(dot, scale);
        double c = pick(rng) < 50 ? -w * scaled_dot / (beta != 0 ? beta : 1) : u(rng) * std::ldexp(1.0, scale);
        if (pick(rng) < 20) c *= 1 + u(rng) * 0x1p-45;
        if (!fp64) c = double(float(c));
        const double c0[2] = {c, 0};
        const Terms x{{w, 0}, {beta, 0}, k, fp64};
        // the same entry unscaled, as a 1 x 1 GEMM for MPFR (every unscaled value exact: the scales keep them finite
        // and normal or subnormal without loss, checked)
        // The entry in T (FP64 or FP32): its lines, C and scalars in T where they are exact in it.
        const auto entry = [&](auto type) {
          using T = decltype(type);
          check::Mat<T> ma(1, k), mb(k, 1), mc(1, 1);
          bool exact_inputs = true;
          for (std::int64_t l = 0; l < k; ++l) {
            ma(0, l) = T(std::ldexp(a[std::size_t(3 * l)], sa)), mb(l, 0) = T(std::ldexp(b[std::size_t(5 * l)], sb));
            exact_inputs &= std::ldexp(double(ma(0, l)), -sa) == a[std::size_t(3 * l)] &&
                            std::ldexp(double(mb(l, 0)), -sb) == b[std::size_t(5 * l)];
          }
          mc(0, 0) = T(c);
          if (!exact_inputs || !std::isfinite(T(c)) || T(w) != w || T(beta) != beta) return;
          const T want = check::exact_rounded_gemm<T>(ma, mb, T(w), T(beta), mc)(0, 0);
          T got;
          ++tried;
          bool rounded;
          if constexpr (std::is_same_v<T, double>)
            rounded = kern.round_parts_d(parts, count, scale, x, c0, 0.0, got);
          else
            rounded = kern.round_parts_f(parts, count, scale, x, c0, 0.0, got);
          if (!rounded) return;
          ++decided;
          below += std::fabs(want) < std::numeric_limits<T>::min();
          EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0)
              << kern.isa << (fp64 ? " trial " : " FP32 trial ") << trial << " got " << got << " want " << want
              << " scale " << scale;
        };
        fp64 ? entry(double{}) : entry(float{});
      }
      std::printf("parts %s %s: %lld of %lld decided (%lld below the normal range)\n", kern.isa, fp64 ? "FP64" : "FP32",
                  (long long)decided, (long long)tried, (long long)below);
      EXPECT_GT(tried, 200) << kern.isa;
      // undecided by design: values past 2^1021 (the scale 1800), ties and values within the bound of a boundary
      EXPECT_GT(decided, tried * 2 / 3) << kern.isa;
      EXPECT_GT(below, 10) << kern.isa;
    }
  }
}

}  // namespace
}  // namespace bf16x::test
