// IEEE special values: every entry of C falls in the same class (NaN, +Inf, -Inf, finite) as the host GEMM's,
// for every mode, both precisions, both layouts and all transposes.
//
// NaN or Inf in A or B: the scale pass (or auto's fill pass) sees it and the whole call goes to the host GEMM,
// which classifies exactly what an IEEE dot product gives (Inf * 0 = NaN, Inf - Inf = NaN, ...). Signed zeros and
// NaN/Inf in C with beta != 0 stay on the emulation path: C = alpha 2^(Ea+Eb) acc + beta C propagates them.
// Overflow: a finite accumulator scaled by 2^(Ea+Eb) overflows to a signed Inf, never to NaN; underflow rounds
// once, to the signed zero or subnormal of the exact product.
#include <gtest/gtest.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "host/host_blas.hpp"

namespace {

enum Class { kFinite, kNaN, kPosInf, kNegInf };
template <typename T>
Class classify(T x) {
  if (std::isnan(x)) return kNaN;
  if (std::isinf(x)) return x > 0 ? kPosInf : kNegInf;
  return kFinite;
}
const char* class_name(Class c) {
  static const char* const names[] = {"finite", "NaN", "+Inf", "-Inf"};
  return names[c];
}

// One GEMM call as stored: op(A) is m x k, op(B) k x n, in `layout`, with leading dimensions of the stored shapes.
template <typename T>
struct Gemm {
  int layout = BF16X_COL_MAJOR, ta = BF16X_NO_TRANS, tb = BF16X_NO_TRANS;
  std::int64_t m, n, k;
  T alpha = 1, beta = 0;
  std::vector<T> a, b, c;
  std::int64_t lda, ldb, ldc;

  Gemm(int layout_, int ta_, int tb_, std::int64_t m_, std::int64_t n_, std::int64_t k_)
      : layout(layout_), ta(ta_), tb(tb_), m(m_), n(n_), k(k_) {
    const bool col = layout == BF16X_COL_MAJOR;
    lda = col ? (ta == BF16X_NO_TRANS ? m : k) : (ta == BF16X_NO_TRANS ? k : m);
    ldb = col ? (tb == BF16X_NO_TRANS ? k : n) : (tb == BF16X_NO_TRANS ? n : k);
    ldc = col ? m : n;
    a.assign(std::size_t(m * k), T(0));
    b.assign(std::size_t(k * n), T(0));
    c.assign(std::size_t(m * n), T(0));
  }
  // Storage index of op(A)(i, l), op(B)(l, j), C(i, j).
  std::size_t ia(std::int64_t i, std::int64_t l) const { return idx(ta != BF16X_NO_TRANS, i, l, lda); }
  std::size_t ib(std::int64_t l, std::int64_t j) const { return idx(tb != BF16X_NO_TRANS, l, j, ldb); }
  std::size_t ic(std::int64_t i, std::int64_t j) const { return idx(false, i, j, ldc); }
  std::size_t idx(bool t, std::int64_t r, std::int64_t c_, std::int64_t ld) const {
    if (t) std::swap(r, c_);
    return std::size_t(layout == BF16X_COL_MAJOR ? r + c_ * ld : r * ld + c_);
  }
  T& opa(std::int64_t i, std::int64_t l) { return a[ia(i, l)]; }
  T& opb(std::int64_t l, std::int64_t j) { return b[ib(l, j)]; }
  T& cc(std::int64_t i, std::int64_t j) { return c[ic(i, j)]; }

  // bf16x with this mode on a copy of C.
  std::vector<T> run(int mode) const {
    std::vector<T> out = c;
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    int st;
    if constexpr (sizeof(T) == 8)
      st = bf16x_dgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(), lda,
                          b.data(), ldb, beta, out.data(), ldc, &o);
    else
      st = bf16x_sgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, alpha, a.data(), lda,
                          b.data(), ldb, beta, out.data(), ldc, &o);
    EXPECT_EQ(st, BF16X_OK);
    return out;
  }
  // The host GEMM itself; row-major C = A B is column-major C^T = B^T A^T.
  std::vector<T> host() const {
    std::vector<T> out = c;
    const bool row = layout == BF16X_ROW_MAJOR;
    const int t1 = row ? tb : ta, t2 = row ? ta : tb;
    const T* p1 = row ? b.data() : a.data();
    const T* p2 = row ? a.data() : b.data();
    const std::int64_t l1 = row ? ldb : lda, l2 = row ? lda : ldb, mm = row ? n : m, nn = row ? m : n;
    bool ok;
    if constexpr (sizeof(T) == 8)
      ok = bf16x::host::dgemm(t1, t2, mm, nn, k, alpha, p1, l1, p2, l2, beta, out.data(), ldc);
    else
      ok = bf16x::host::sgemm(t1, t2, mm, nn, k, alpha, p1, l1, p2, l2, beta, out.data(), ldc);
    EXPECT_TRUE(ok);
    return out;
  }
};

template <typename T>
std::vector<int> modes_of() {
  if constexpr (sizeof(T) == 8)
    return {BF16X_MODE_NATIVE,  BF16X_MODE_AUTO,    BF16X_MODE_FP64X6,
            BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21};
  else
    return {BF16X_MODE_NATIVE, BF16X_MODE_AUTO, BF16X_MODE_FP32X6};
}

struct Orientation {
  int layout, ta, tb;
};
const Orientation kOrientations[] = {
    {BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS}, {BF16X_COL_MAJOR, BF16X_TRANS, BF16X_NO_TRANS},
    {BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS},    {BF16X_COL_MAJOR, BF16X_CONJ_TRANS, BF16X_TRANS},
    {BF16X_ROW_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS}, {BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS},
    {BF16X_ROW_MAJOR, BF16X_NO_TRANS, BF16X_TRANS},    {BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_CONJ_TRANS},
};

// Per entry: the class of every mode's C equals the host GEMM's. Returns the host's class counts.
template <typename T>
std::array<int, 4> expect_host_classes(const Gemm<T>& g, const char* what) {
  const std::vector<T> want = g.host();
  std::array<int, 4> counts{};
  for (const T x : want) ++counts[classify(x)];
  for (const int mode : modes_of<T>()) {
    const std::vector<T> got = g.run(mode);
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j) {
        const std::size_t q = g.ic(i, j);
        EXPECT_EQ(class_name(classify(got[q])), class_name(classify(want[q])))
            << what << ", " << bf16x_mode_name(mode) << ", C(" << i << "," << j << "), layout " << g.layout << " ta "
            << g.ta << " tb " << g.tb << ": bf16x " << got[q] << ", host " << want[q];
        if (::testing::Test::HasFailure()) return counts;
      }
  }
  return counts;
}

template <typename T>
void fill_uniform(Gemm<T>& g, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : g.a) x = T(u(rng));
  for (auto& x : g.b) x = T(u(rng));
  for (auto& x : g.c) x = T(u(rng));
}

template <typename T>
void special_inputs() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  std::mt19937_64 rng(sizeof(T));
  for (const Orientation& o : kOrientations)
    for (const T beta : {T(0), T(0.5)}) {
      const std::int64_t m = 19, n = 23, k = 37;
      // A and B with NaN, +-Inf and signed zeros; Inf meets a zero (NaN), Infs of both signs meet (NaN), an Inf
      // row meets finite columns (signed Inf).
      Gemm<T> g(o.layout, o.ta, o.tb, m, n, k);
      g.beta = beta;
      fill_uniform(g, rng);
      g.opa(0, 3) = nan;
      g.opa(1, 4) = inf;
      g.opa(2, 5) = -inf;
      g.opa(3, 6) = inf;
      g.opa(3, 7) = -inf;
      for (std::int64_t l = 0; l < k; ++l) g.opb(l, 0) = l % 2 ? T(-0.0) : T(0.0);  // column 0: signed zeros
      g.opb(9, 5) = inf;
      g.opb(10, 6) = nan;
      g.opa(4, 9) = T(0.0);
      g.opb(4, 7) = -inf;
      g.opa(5, 4) = T(-0.0);
      g.cc(6, 1) = nan;  // ignored when beta == 0
      g.cc(7, 2) = -inf;
      const auto counts = expect_host_classes(g, "NaN/Inf/zeros in A and B");
      EXPECT_GT(counts[kNaN], 0);
      EXPECT_GT(counts[kPosInf] + counts[kNegInf], 0);
      EXPECT_GT(counts[kFinite], 0);

      // Only signed zeros in A and B, NaN and Inf only in C: the emulation runs.
      Gemm<T> z(o.layout, o.ta, o.tb, m, n, k);
      z.beta = beta;
      fill_uniform(z, rng);
      for (std::int64_t l = 0; l < k; ++l) z.opa(2, l) = T(-0.0);
      for (std::int64_t l = 0; l < k; l += 3) z.opb(l, 4) = T(-0.0);
      z.cc(0, 0) = nan;
      z.cc(1, 1) = inf;
      z.cc(2, 2) = -inf;
      const auto zc = expect_host_classes(z, "signed zeros in A and B, NaN/Inf in C");
      EXPECT_EQ(zc[kNaN] + zc[kPosInf] + zc[kNegInf], beta == T(0) ? 0 : 3);
    }
}

}  // namespace

TEST(SpecialValues, Fp64NanInfAndSignedZerosClassifyLikeTheHostGemm) { special_inputs<double>(); }
TEST(SpecialValues, Fp32NanInfAndSignedZerosClassifyLikeTheHostGemm) { special_inputs<float>(); }

// Overflow of the product, of alpha times it and of beta C: signed Inf exactly where the host GEMM has it, and no
// NaN. Rows and columns have one sign each, so no partial sums of opposite infinities arise in the host GEMM and
// its classes are those of the exact result.
template <typename T>
void overflow_cases(T huge_a, T huge_b, T big_alpha, T big_c, T big_beta) {
  std::mt19937_64 rng(7 + sizeof(T));
  std::uniform_real_distribution<double> u(1, 1.999);
  const std::int64_t m = 21, n = 18, k = 40;
  for (const Orientation& o : kOrientations) {
    auto sign = [](std::int64_t x) { return x % 3 == 1 ? T(-1) : T(1); };
    // Product overflow: huge rows (even i) times huge columns (j % 3 == 0); column 1 of B is zero.
    Gemm<T> g(o.layout, o.ta, o.tb, m, n, k);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t l = 0; l < k; ++l) g.opa(i, l) = sign(i) * T(u(rng)) * (i % 2 == 0 ? huge_a : T(1));
    for (std::int64_t l = 0; l < k; ++l)
      for (std::int64_t j = 0; j < n; ++j)
        g.opb(l, j) = j == 1 ? T(0) : sign(j + 1) * T(u(rng)) * (j % 3 == 0 ? huge_b : T(1));
    // Huge row 0 and huge column 0 with disjoint supports: C(0,0) is an exact zero on an overflowing scale.
    for (std::int64_t l = 0; l < k; ++l) (l % 2 ? g.opa(0, l) : g.opb(l, 0)) = T(0);
    auto counts = expect_host_classes(g, "product overflow");
    EXPECT_EQ(g.run(BF16X_MODE_NATIVE)[g.ic(0, 0)], T(0));
    EXPECT_EQ(counts[kNaN], 0);
    EXPECT_GT(counts[kPosInf], 0);
    EXPECT_GT(counts[kNegInf], 0);
    g.beta = T(1);  // with a finite C to add
    for (auto& x : g.c) x = T(u(rng));
    counts = expect_host_classes(g, "product overflow, beta = 1");
    EXPECT_EQ(counts[kNaN], 0);

    // alpha overflow: rows scaled 2^i, alpha big enough that the larger rows overflow.
    Gemm<T> h(o.layout, o.ta, o.tb, m, n, k);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t l = 0; l < k; ++l) h.opa(i, l) = sign(i) * T(std::ldexp(u(rng), int(i)));
    for (auto& x : h.b) x = T(u(rng));
    h.alpha = big_alpha;
    counts = expect_host_classes(h, "alpha overflow");
    EXPECT_EQ(counts[kNaN], 0);
    EXPECT_GT(counts[kPosInf] + counts[kNegInf], 0);
    EXPECT_GT(counts[kFinite], 0);

    // beta C overflow, A B small.
    Gemm<T> q(o.layout, o.ta, o.tb, m, n, k);
    for (auto& x : q.a) x = T(u(rng) - 1.5);
    for (auto& x : q.b) x = T(u(rng) - 1.5);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) q.cc(i, j) = (i + j) % 4 == 0 ? sign(i + j) * big_c : T(u(rng));
    q.beta = big_beta;
    counts = expect_host_classes(q, "beta C overflow");
    EXPECT_EQ(counts[kNaN], 0);
    EXPECT_GT(counts[kPosInf] + counts[kNegInf], 0);
  }
}

TEST(SpecialValues, Fp64OverflowGivesSignedInfinityNeverNaN) {
  // 2^600 x 2^600 per term; alpha 2^1010 against products up to 40 * 2 * 2^20 * 2; C 2^1000 times beta 2^30.
  overflow_cases<double>(0x1p600, 0x1p600, 0x1p1010, 0x1p1000, 0x1p30);
}

TEST(SpecialValues, Fp32OverflowGivesSignedInfinityNeverNaN) {
  // Rows near FLT_MAX (2^127 to 1.999 * 2^127) times columns >= 1; alpha 2^110; C 2^120 times beta 2^20.
  overflow_cases<float>(0x1p127f, 1.0f, 0x1p110f, 0x1p120f, 0x1p20f);
}

// Products that underflow: the emulation accumulates on the scaled grid and rounds once, so C is the exact
// product rounded to the subnormal grid up to the mode's own error, and a result below the grid is a zero of the
// exact product's sign. The exact product comes from the unscaled operands U, U' (op(A) = 2^-s U, op(B) = 2^-s U').
template <typename T>
void underflow_cases(int shift_sub, int shift_zero) {
  std::mt19937_64 rng(11 + sizeof(T));
  std::uniform_real_distribution<double> u(-1, 1);
  const std::int64_t m = 23, n = 20, k = 50;
  const double tiny = sizeof(T) == 8 ? 0x1p-1074 : 0x1p-149;  // the smallest subnormal
  bf16x::check::Mat<T> ua(m, k), ub(k, n);
  for (auto& x : ua.v) x = T(u(rng));
  for (auto& x : ub.v) x = T(u(rng));
  const auto exact = bf16x::check::exact_gemm(ua, ub), absab = bf16x::check::abs_gemm(ua, ub);
  // The least accurate mode's bound, unscaled: fp64x6's fixed-point T_3 < 3.0e-8 relative to k 2^(Ea+Eb) (rows
  // and columns of U lie below 1), fp32x6's blocked sums below 5e-5 relative to |A||B|; plus the final rounding.
  auto bound = [&](std::int64_t i, std::int64_t j) {
    const double e = sizeof(T) == 8 ? double(k) * 3.0e-8 + 0x1p-53 * std::fabs(exact(i, j)) : 5e-5 * absab(i, j);
    return e;
  };
  for (const Orientation& o : kOrientations)
    for (const int shift : {shift_sub, shift_zero}) {
      Gemm<T> g(o.layout, o.ta, o.tb, m, n, k);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t l = 0; l < k; ++l) g.opa(i, l) = T(std::ldexp(double(ua(i, l)), -shift));
      for (std::int64_t l = 0; l < k; ++l)
        for (std::int64_t j = 0; j < n; ++j) g.opb(l, j) = T(std::ldexp(double(ub(l, j)), -shift));
      const auto counts = expect_host_classes(g, "underflow");
      EXPECT_EQ(counts[kFinite], m * n);
      int zeros = 0;
      for (const int mode : modes_of<T>()) {
        if (mode == BF16X_MODE_NATIVE || mode == BF16X_MODE_AUTO) continue;
        const std::vector<T> c = g.run(mode);
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < n; ++j) {
            const double got = double(c[g.ic(i, j)]), want = std::ldexp(exact(i, j), -2 * shift);
            ASSERT_LE(std::fabs(got - want), std::ldexp(bound(i, j), -2 * shift) + tiny)
                << bf16x_mode_name(mode) << " at 2^-" << 2 * shift << ", C(" << i << "," << j << ")";
            if (got != 0 || std::fabs(exact(i, j)) <= 2 * bound(i, j)) continue;
            ++zeros;
            ASSERT_EQ(std::signbit(got), exact(i, j) < 0)
                << bf16x_mode_name(mode) << ": zero of the wrong sign at C(" << i << "," << j << ")";
          }
      }
      if (shift == shift_zero) {
        EXPECT_GT(zeros, m * n / 2);
      }
    }
}

TEST(SpecialValues, Fp64UnderflowRoundsOnceToSubnormalOrSignedZero) {
  underflow_cases<double>(520, 600);  // results 2^-1040 (U U'): subnormal; 2^-1200 (U U'): zero
}

TEST(SpecialValues, Fp32UnderflowRoundsOnceToSubnormalOrSignedZero) {
  underflow_cases<float>(70, 80);  // results 2^-140 (U U'): subnormal; 2^-160 (U U'): zero
}
