// bf16x_cgemm / bf16x_zgemm: every layout and transpose (conjugation included) and complex alpha/beta against the
// complex double-double reference (check/complex_exact.hpp), with tolerances from the error analysis below and in
// docs/accuracy.md ("Complex GEMM"); BLAS quick returns and error returns.
//
// 4M runs the real mode on the block operands A~ = [Ar Ai] (m x 2k) and B~ = [[Br, Bi], [-Bi, Br]] (2k x 2n): each
// part of P is one real 2k-term product, so the real bound holds per part with K = 2k and the row scales of A~
// and column scales of B~. Fixed-point bound per part: K 2^(Ea_i + Eb_j) rel_d; the bounds relative to |A||B|
// use |ar||br| + |ai||bi| <= |a||b| (Cauchy-Schwarz). |C - R| <= sqrt(2) max part error; then the write:
// alpha P + beta C0 in FP64 (a few u64 of |alpha||A||B| + |beta C0|) and one rounding to T (u_T |R| per part).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/complex_exact.hpp"
#include "complex/blocking.hpp"
#include "crt/crt_driver.hpp"
#include "crt/crt_mode.hpp"
#include "crt_bound.hpp"
#include "engine/records.hpp"
#include "gemm_fixture.hpp"

namespace bf16x::test {
namespace {

constexpr double kU64 = 0x1p-53, kU32 = 0x1p-24;
double gamma(double n, double u) { return n * u / (1 - n * u); }

template <typename T>
using Cx = std::conditional_t<sizeof(T) == 4, bf16x_complex_float, bf16x_complex_double>;

template <typename T>
struct CProblem {
  int layout, ta, tb;
  std::int64_t m, n, k, lda, ldb, ldc;
  Cx<T> alpha{1, 0}, beta{0, 0};
  std::vector<Cx<T>> a, b, c;
  check::CMat<T> opa, opb, c0;

  static std::size_t at(int layout, std::int64_t i, std::int64_t j, std::int64_t ld) {
    return std::size_t(layout == BF16X_COL_MAJOR ? i + j * ld : j + i * ld);
  }

  CProblem(std::int64_t m_, std::int64_t n_, std::int64_t k_, int layout_, int ta_, int tb_, std::uint64_t seed,
           std::int64_t pad = 0)
      : layout(layout_), ta(ta_), tb(tb_), m(m_), n(n_), k(k_), opa(m_, k_), opb(k_, n_), c0(m_, n_) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const bool tra = ta != BF16X_NO_TRANS, trb = tb != BF16X_NO_TRANS;
    const std::int64_t ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
    lda = (layout == BF16X_COL_MAJOR ? ar : ac) + pad;
    ldb = (layout == BF16X_COL_MAJOR ? br : bc) + pad;
    ldc = (layout == BF16X_COL_MAJOR ? m : n) + pad;
    const Cx<T> nan{T(NAN), T(NAN)};
    a.assign(std::size_t(lda * std::max<std::int64_t>(1, layout == BF16X_COL_MAJOR ? ac : ar)), nan);
    b.assign(std::size_t(ldb * std::max<std::int64_t>(1, layout == BF16X_COL_MAJOR ? bc : br)), nan);
    c.assign(std::size_t(ldc * std::max<std::int64_t>(1, layout == BF16X_COL_MAJOR ? n : m)), nan);
    // op(X)(i, j) from the stored entry (conjugated for CONJ_TRANS).
    auto fill = [&](std::vector<Cx<T>>& x, std::int64_t rows, std::int64_t cols, std::int64_t ld, int t,
                    check::CMat<T>& op) {
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          const Cx<T> v{T(u(rng)), T(u(rng))};
          x[at(layout, i, j, ld)] = v;
          const std::int64_t oi = t != BF16X_NO_TRANS ? j : i, oj = t != BF16X_NO_TRANS ? i : j;
          op.re(oi, oj) = v.re;
          op.im(oi, oj) = t == BF16X_CONJ_TRANS ? -v.im : v.im;
        }
    };
    fill(a, ar, ac, lda, ta, opa);
    fill(b, br, bc, ldb, tb, opb);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const Cx<T> v{T(u(rng)), T(u(rng))};
        c[at(layout, i, j, ldc)] = v;
        c0.re(i, j) = v.re;
        c0.im(i, j) = v.im;
      }
  }

  Cx<T> cval(std::int64_t i, std::int64_t j) const { return c[at(layout, i, j, ldc)]; }

  // Range tests: the call runs on 2^sa op(A), 2^sb op(B), alpha 2^s_alpha and C0 2^t (t = sa + sb + s_alpha), and
  // run() scales C back by 2^-t (exact where it is normal), so that every bound below, stated in the units of this
  // problem, applies unchanged. A, B and C0 are first rounded to what survives the shift (subnormal values keep
  // fewer bits), so that this problem is exactly the shifted one's.
  int shift_a = 0, shift_b = 0, shift_alpha = 0;
  void shift(int sa, int sb, int s_alpha) {
    shift_a = sa, shift_b = sb, shift_alpha = s_alpha;
    const auto survive = [](T& x, int e) { x = std::ldexp(std::ldexp(x, e), -e); };
    for (auto* v : {&a, &b, &c})
      for (Cx<T>& x : *v) {
        const int e = v == &a ? sa : v == &b ? sb : sa + sb + s_alpha;
        survive(x.re, e);
        survive(x.im, e);
      }
    for (auto* op : {&opa, &opb, &c0}) {
      const int e = op == &opa ? sa : op == &opb ? sb : sa + sb + s_alpha;
      for (auto* part : {&op->re, &op->im})
        for (T& x : part->v) survive(x, e);
    }
  }
  static std::vector<Cx<T>> scaled(const std::vector<Cx<T>>& v, int e) {
    std::vector<Cx<T>> s = v;
    for (Cx<T>& x : s) x = Cx<T>{std::ldexp(x.re, e), std::ldexp(x.im, e)};
    return s;
  }

  int run(int mode, int method = BF16X_COMPLEX_DEFAULT) {
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = mode;
    o.complex_method = method;
    const int t = shift_a + shift_b + shift_alpha;
    const auto as = scaled(a, shift_a), bs = scaled(b, shift_b);
    auto cs = scaled(c, t);
    const Cx<T> al{std::ldexp(alpha.re, shift_alpha), std::ldexp(alpha.im, shift_alpha)};
    int st;
    if constexpr (sizeof(T) == 8)
      st = bf16x_zgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, al, as.data(), lda,
                          bs.data(), ldb, beta, cs.data(), ldc, &o);
    else
      st = bf16x_cgemm_ex(bf16x_layout(layout), bf16x_transpose(ta), bf16x_transpose(tb), m, n, k, al, as.data(), lda,
                          bs.data(), ldb, beta, cs.data(), ldc, &o);
    c = scaled(cs, -t);
    return st;
  }

  // R = alpha op(A) op(B) + beta C0 from the complex reference, and |A||B|.
  check::CMat<double> expected(check::Mat<double>* absab) const {
    check::CMat<double> r = check::complex_exact_gemm(opa, opb);
    *absab = check::complex_abs_gemm(opa, opb);
    const std::complex<double> al(alpha.re, alpha.im), be(beta.re, beta.im);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::complex<double> v =
            al * std::complex<double>(r.re(i, j), r.im(i, j)) + be * std::complex<double>(c0.re(i, j), c0.im(i, j));
        r.re(i, j) = v.real();
        r.im(i, j) = v.imag();
      }
    return r;
  }

  double abs_alpha() const { return std::hypot(double(alpha.re), double(alpha.im)); }
  double abs_beta_c0(std::int64_t i, std::int64_t j) const {
    return std::hypot(double(beta.re), double(beta.im)) * std::hypot(double(c0.re(i, j)), double(c0.im(i, j)));
  }

  // Checks |C - R|_ij <= tol(i, j) + the write's rounding terms.
  template <typename Tol>
  void check(Tol&& tol, const char* what) const {
    check::Mat<double> absab;
    const auto r = expected(&absab);
    const double uT = sizeof(T) == 4 ? kU32 : kU64;
    int bad = 0;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        const Cx<T> v = cval(i, j);
        const double err = std::hypot(double(v.re) - r.re(i, j), double(v.im) - r.im(i, j));
        const double bound = tol(i, j, absab(i, j)) + 4 * kU64 * (abs_alpha() * absab(i, j) + abs_beta_c0(i, j)) +
                             std::sqrt(2.0) * uT * std::hypot(r.re(i, j), r.im(i, j));
        if (!(err <= bound) && bad++ < 5)
          ADD_FAILURE() << what << " (" << i << "," << j << ") m,n,k=" << m << "," << n << "," << k
                        << " layout=" << layout << " ta=" << ta << " tb=" << tb << ": |C - R| = " << err << " > "
                        << bound;
      }
  }

  // Row scales of A~ = [Ar Ai] and column scales of B~ (the same set of |br|, |bi| for both block columns).
  std::vector<double> scales_a() const {
    auto s = row_scales(opa.re, true);
    const auto t = row_scales(opa.im, true);
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = std::max(s[i], t[i]);
    return s;
  }
  std::vector<double> scales_b() const {
    auto s = row_scales(opb.re, false);
    const auto t = row_scales(opb.im, false);
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = std::max(s[i], t[i]);
    return s;
  }
};

// The chunks of k the call runs in (complex_blocking.hpp). Each chunk is within its real bound with its own row
// and column scales, at most those over all of k, and its share of the K / 256 k-blocks (chunks are multiples of
// 256); adding a chunk to the FP64 P block is one more FP64 addition (at most u64 of the partial sum, itself within
// K 2^(Ea_i + Eb_j) and (|A||B|)_ij): the fixed-point bounds count `chunks` more additions, the |A||B| bounds add
// chunks u64 |A||B|.
double chunks(std::int64_t k) { return std::ceil(double(k) / double(complex::complex_blocking().kb)); }

// Blocks of 16 x 24 and chunks of 256 for one test, so that small problems cross blocks and chunks.
struct SmallBlocks {
  SmallBlocks() { complex::set_complex_blocking(16, 24, 256); }
  ~SmallBlocks() { complex::set_complex_blocking(0, 0, 0); }
};

// fp64x(d), 4M: the fixed-point bound of test_modes.cpp per part with K = 2k.
void check_fp64_4m(CProblem<double>& p, int d) {
  ASSERT_EQ(p.run(BF16X_MODE_FP64X6 + (d - 3), BF16X_COMPLEX_4M), BF16X_OK);
  const double K = 2.0 * double(p.k);
  const double adds = double((d * (d + 1)) / 2) * std::ceil(K / 256) + 2 + chunks(p.k);
  const double rel = fp64_truncation_bound(d) + gamma(adds, kU64) * 1.01 + 2 * kU64;
  const auto sa = p.scales_a(), sb = p.scales_b();
  p.check(
      [&](std::int64_t i, std::int64_t j, double) { return p.abs_alpha() * std::sqrt(2.0) * K * sa[i] * sb[j] * rel; },
      "fp64x 4M");
}

// fp32x6, 4M: the summation bound of test_modes.cpp per part (relative to |A||B|, K = 2k), plus P's rounding to
// FP32 before the write (u32 |P| per part; per chunk u32 |P_c|, together at most u32 |A||B|).
void check_fp32_4m(CProblem<float>& p) {
  ASSERT_EQ(p.run(BF16X_MODE_FP32X6, BF16X_COMPLEX_4M), BF16X_OK);
  const double K = 2.0 * double(p.k);
  const double rel = gamma(2.0 * 6 * 64 + std::ceil(K / 64), kU32) * 1.02 + 3.1 * kU32 + kU32 + chunks(p.k) * kU64;
  const auto sa = p.scales_a(), sb = p.scales_b();
  p.check([&](std::int64_t i, std::int64_t j,
              double ab) { return p.abs_alpha() * std::sqrt(2.0) * (ab * rel + K * sa[i] * sb[j] * 0x1p-120); },
          "fp32x6 4M");
}

TEST(Complex, ZgemmEveryLayoutAndTranspose) {
  const int ts[] = {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS};
  std::uint64_t seed = 1;
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (int ta : ts)
      for (int tb : ts) {
        CProblem<double> p(13, 9, 21, layout, ta, tb, seed++, 3);
        p.alpha = {0.75, -1.25};
        p.beta = {-0.5, 0.25};
        check_fp64_4m(p, 6);
      }
}

TEST(Complex, CgemmEveryLayoutAndTranspose) {
  const int ts[] = {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS};
  std::uint64_t seed = 100;
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (int ta : ts)
      for (int tb : ts) {
        CProblem<float> p(11, 14, 17, layout, ta, tb, seed++, 2);
        p.alpha = {1.5f, 0.5f};
        p.beta = {0.25f, -1.0f};
        check_fp32_4m(p);
      }
}

TEST(Complex, ZgemmFp64ModesWithinFixedPointBound) {
  for (int d = 3; d <= 6; ++d) {
    CProblem<double> p(40, 33, 300, BF16X_COL_MAJOR, BF16X_CONJ_TRANS, BF16X_NO_TRANS, 20 + d);
    p.alpha = {0, 1};
    check_fp64_4m(p, d);
  }
}

// 3M: T1 = Ar Br, T2 = Ai Bi, T3 = As Bs with As = fl(Ar + Ai), Bs = fl(Br + Bi) (|As - (Ar + Ai)| <= u |Ar + Ai|),
// each within the fixed-point bound k 2^(Ea + Eb) rel of its own operands; Re = fl(T1 - T2), Im = fl(fl(T3 - T1) -
// T2). Per part: Re <= e1 + e2 + u (|T1| + |T2|), Im <= e1 + e2 + e3 + 2.01u (|Ar+Ai||Br+Bi|) + 2u (|T1| + |T2| +
// |T3|), with |T| bounded by the |.||.| of its operands: the Karatsuba term grows with |Ar + Ai||Br + Bi|.
void check_3m(CProblem<double>& p) {
  ASSERT_EQ(p.run(BF16X_MODE_FP64X21, BF16X_COMPLEX_3M), BF16X_OK);
  check::Mat<double> as(p.m, p.k), bs(p.k, p.n);
  for (std::size_t i = 0; i < as.v.size(); ++i) as.v[i] = p.opa.re.v[i] + p.opa.im.v[i];
  for (std::size_t i = 0; i < bs.v.size(); ++i) bs.v[i] = p.opb.re.v[i] + p.opb.im.v[i];
  const auto s1a = row_scales(p.opa.re, true), s2a = row_scales(p.opa.im, true), s3a = row_scales(as, true);
  const auto s1b = row_scales(p.opb.re, false), s2b = row_scales(p.opb.im, false), s3b = row_scales(bs, false);
  const auto t1 = check::abs_gemm(p.opa.re, p.opb.re), t2 = check::abs_gemm(p.opa.im, p.opb.im),
             t3 = check::abs_gemm(as, bs);
  const double k = double(p.k);
  const double rel =
      fp64_truncation_bound(6) + gamma(21.0 * std::ceil(k / 256) + 2 + chunks(p.k), kU64) * 1.01 + 2 * kU64;
  p.check(
      [&](std::int64_t i, std::int64_t j, double) {
        const double e1 = k * s1a[i] * s1b[j] * rel, e2 = k * s2a[i] * s2b[j] * rel, e3 = k * s3a[i] * s3b[j] * rel;
        const double re = e1 + e2 + kU64 * (t1(i, j) + t2(i, j));
        const double im = e1 + e2 + e3 + 2.01 * kU64 * t3(i, j) + 2 * kU64 * (t1(i, j) + t2(i, j) + t3(i, j));
        return p.abs_alpha() * (re + im) * 1.01;
      },
      "fp64x21 3M");
}

TEST(Complex, Zgemm3MWithinKaratsubaBound) {
  CProblem<double> p(37, 29, 200, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_CONJ_TRANS, 7);
  p.alpha = {2, -1};
  p.beta = {1, 1};
  check_3m(p);
}

// Several blocks of C and chunks of k: the bounds above with the chunks' additions.
TEST(Complex, ChunkedCallsWithinTheirBounds) {
  const SmallBlocks blocks;
  std::uint64_t seed = 400;
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
    const auto zp = [&] {
      CProblem<double> z(40, 36, 600, layout, BF16X_CONJ_TRANS, BF16X_TRANS, seed++, 1);
      z.alpha = {0.5, -1};
      z.beta = {0.25, 0.5};
      return z;
    };
    auto z6 = zp(), z3 = zp(), zk = zp();
    check_fp64_4m(z6, 6);
    check_fp64_4m(z3, 3);
    check_3m(zk);
    CProblem<float> c(33, 50, 700, layout, BF16X_NO_TRANS, BF16X_CONJ_TRANS, seed++, 2);
    c.alpha = {1, 0.5f};
    c.beta = {-1, 0};
    check_fp32_4m(c);
  }
}

// The workspace is bounded by the blocks: the same for a problem twice as large in every dimension.
TEST(Complex, WorkspaceDoesNotGrowWithTheProblem) {
  const SmallBlocks blocks;
  std::uint64_t bytes[2] = {0, 0};
  for (int s = 1; s <= 2; ++s) {
    const std::int64_t m = 40 * s, n = 50 * s, k = 600 * s;
    std::vector<bf16x_complex_double> a(std::size_t(m * k), {0.5, -0.25}), b(std::size_t(k * n), {1, 2}),
        c(std::size_t(m * n));
    bf16x_stats st{};
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = BF16X_MODE_FP64X21;
    o.stats = &st;
    ASSERT_EQ(bf16x_zgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, {1, 0}, a.data(), m, b.data(), k,
                             {0, 0}, c.data(), m, &o),
              BF16X_OK);
    bytes[s - 1] = st.workspace_bytes;
  }
  EXPECT_GT(bytes[0], 0u);
  EXPECT_EQ(bytes[0], bytes[1]);
}

// fp64c<N> / fp32c<N>: the CRT bound of crt_bound.hpp for the block operands A~, B~, with the scales the CRT
// driver chooses for them (as test_crt_gemm.cpp does), per part; P's rounding to T (3 u_T |alpha P|) on top.
template <typename T>
void check_crt_4m(CProblem<T>& p, int mode, int moduli) {
  ASSERT_EQ(p.run(mode, BF16X_COMPLEX_4M), BF16X_OK);
  const std::int64_t m = p.m, n = p.n, k = p.k;
  check::Mat<T> ae(m, 2 * k), be(2 * k, 2 * n), pe(m, 2 * n);
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t i = 0; i < m; ++i) {
      ae(i, l) = p.opa.re(i, l);
      ae(i, k + l) = p.opa.im(i, l);
    }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t l = 0; l < k; ++l) {
      be(l, j) = p.opb.re(l, j);
      be(k + l, j) = -p.opb.im(l, j);
      be(l, n + j) = p.opb.im(l, j);
      be(k + l, n + j) = p.opb.re(l, j);
    }
  crt::CrtScales s;
  crt::CrtConfig cfg;
  cfg.moduli = moduli;
  cfg.engine = engine::int8_engine(bf16x_get_crt_engine());
  cfg.scales = &s;
  const pack::GemmArgs<T> args{m,    2 * n,     2 * k, T(1), {ae.data(), m, false}, {be.data(), 2 * k, false},
                               T(0), pe.data(), m};
  ASSERT_EQ(crt::gemm_crt(args, cfg), util::DriverStatus::ok);
  const CrtBound bd = crt_bound(ae, be, s, moduli);
  const double uT = sizeof(T) == 4 ? kU32 : kU64;
  p.check(
      [&](std::int64_t i, std::int64_t j, double) {
        return p.abs_alpha() * (bd.tol(i, j) + bd.tol(i, n + j)) * (1 + 1e-12) +
               3 * uT * p.abs_alpha() * std::hypot(double(pe(i, j)), double(pe(i, n + j)));
      },
      "CRT 4M");
}

TEST(Complex, CrtModesWithinCrtBound) {
  for (int moduli : {12, 15}) {
    CProblem<double> p(30, 26, 150, BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, 50 + moduli);
    p.alpha = {-1, 0.5};
    p.beta = {0, 2};
    check_crt_4m(p, BF16X_MODE_FP64C(moduli), moduli);
  }
  for (int moduli : {6, 8}) {
    CProblem<float> p(25, 31, 90, BF16X_COL_MAJOR, BF16X_CONJ_TRANS, BF16X_TRANS, 70 + moduli);
    p.alpha = {0.5f, 2};
    p.beta = {1, -1};
    check_crt_4m(p, BF16X_MODE_FP32C(moduli), moduli);
  }
}

// Operands far outside the unit range with an alpha that brings alpha op(A) op(B) back into it: zgemm at 2^1000
// and 2^-1000, cgemm at 2^64 and 2^-64 (and 2^100 / 2^80 against alpha 2^-120). The complex layer forms P from
// operands scaled by powers of two per row of op(A) and column of op(B) and folds the scales into the write with
// alpha, so P never leaves the range; it once formed op(A) op(B) first (Inf at 2^2000 or 2^128, zero at 2^-2000),
// as the host routines still do. Each result is held to its mode's bound in the units of the unshifted problem
// (CProblem::shift) and equals the unshifted call's result times 2^t bit for bit.
template <typename T, typename Check>
void check_shifted(int sa, int sb, int s_alpha, std::uint64_t seed, int mode, int method, Check&& check) {
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
    CProblem<T> p(21, 17, 70, layout, BF16X_CONJ_TRANS, BF16X_NO_TRANS, seed, 1);
    p.alpha = {T(0.75), T(-1.25)};
    p.beta = {T(-0.5), T(0.25)};
    p.shift(sa, sb, s_alpha);
    CProblem<T> u = p;
    u.shift_a = u.shift_b = u.shift_alpha = 0;
    SCOPED_TRACE(std::string(bf16x_mode_name(mode)) + (method == BF16X_COMPLEX_3M ? " 3M" : " 4M") + " shifts " +
                 std::to_string(sa) + ", " + std::to_string(sb) + ", alpha " + std::to_string(s_alpha) +
                 (layout == BF16X_ROW_MAJOR ? " row-major" : " column-major"));
    check(p);
    ASSERT_EQ(u.run(mode, method), BF16X_OK);
    const int t = sa + sb + s_alpha;
    const T smallest = std::ldexp(std::numeric_limits<T>::min(), std::max(0, -t));  // normal at both scales
    int differ = 0;
    for (std::int64_t j = 0; j < p.n; ++j)
      for (std::int64_t i = 0; i < p.m; ++i)
        for (int part = 0; part < 2; ++part) {
          const T x = part ? p.cval(i, j).im : p.cval(i, j).re, y = part ? u.cval(i, j).im : u.cval(i, j).re;
          if (std::fabs(y) >= smallest && std::memcmp(&x, &y, sizeof x) != 0) ++differ;
        }
    EXPECT_EQ(differ, 0) << "entries differ from the unshifted call";
  }
}

TEST(Complex, ZgemmOperandsFarOutsideTheRange) {
  for (const auto& sh : {std::array<int, 3>{1000, 1000, -1000}, std::array<int, 3>{-1000, -1000, 1000},
                         std::array<int, 3>{1015, 990, -1022}}) {
    check_shifted<double>(sh[0], sh[1], sh[2], 600, BF16X_MODE_FP64X21, BF16X_COMPLEX_4M,
                          [](CProblem<double>& p) { check_fp64_4m(p, 6); });
    check_shifted<double>(sh[0], sh[1], sh[2], 601, BF16X_MODE_FP64X21, BF16X_COMPLEX_3M,
                          [](CProblem<double>& p) { check_3m(p); });
    check_shifted<double>(sh[0], sh[1], sh[2], 602, BF16X_MODE_FP64C(15), BF16X_COMPLEX_4M,
                          [](CProblem<double>& p) { check_crt_4m(p, BF16X_MODE_FP64C(15), 15); });
  }
}

TEST(Complex, CgemmOperandsFarOutsideTheRange) {
  for (const auto& sh :
       {std::array<int, 3>{64, 64, -64}, std::array<int, 3>{-64, -64, 64}, std::array<int, 3>{100, 80, -120}}) {
    check_shifted<float>(sh[0], sh[1], sh[2], 610, BF16X_MODE_FP32X6, BF16X_COMPLEX_4M,
                         [](CProblem<float>& p) { check_fp32_4m(p); });
    check_shifted<float>(sh[0], sh[1], sh[2], 611, BF16X_MODE_FP32C(10), BF16X_COMPLEX_4M,
                         [](CProblem<float>& p) { check_crt_4m(p, BF16X_MODE_FP32C(10), 10); });
    // 3M: the bit-for-bit comparison with the unshifted call (its bound is checked for zgemm above).
    check_shifted<float>(sh[0], sh[1], sh[2], 612, BF16X_MODE_FP32X6, BF16X_COMPLEX_3M,
                         [](CProblem<float>& p) { ASSERT_EQ(p.run(BF16X_MODE_FP32X6, BF16X_COMPLEX_3M), BF16X_OK); });
  }
}

TEST(Complex, NativeAndAutoMatchReference) {
  for (int mode : {BF16X_MODE_NATIVE, BF16X_MODE_AUTO}) {
    CProblem<double> p(20, 18, 40, BF16X_COL_MAJOR, BF16X_TRANS, BF16X_CONJ_TRANS, 300 + mode);
    p.alpha = {0.5, 0.5};
    p.beta = {1, 0};
    ASSERT_EQ(p.run(mode), BF16X_OK);
    // The host zgemm's own bound (any summation order, complex products): sqrt(2) gamma_(k+2) |A||B|.
    p.check([&](std::int64_t, std::int64_t,
                double ab) { return p.abs_alpha() * std::sqrt(2.0) * gamma(double(p.k) + 2, kU64) * ab; },
            "native/auto");
  }
}

TEST(Complex, BetaZeroIgnoresNanInC) {
  for (int mode : {BF16X_MODE_FP64X21, BF16X_MODE_NATIVE}) {
    CProblem<double> p(9, 7, 5, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 9);
    for (auto& x : p.c) x = {NAN, NAN};
    p.beta = {0, 0};
    ASSERT_EQ(p.run(mode), BF16X_OK);
    for (std::int64_t j = 0; j < p.n; ++j)
      for (std::int64_t i = 0; i < p.m; ++i)
        ASSERT_TRUE(std::isfinite(p.cval(i, j).re) && std::isfinite(p.cval(i, j).im));
  }
}

TEST(Complex, QuickReturns) {
  CProblem<double> p(6, 5, 4, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 11);
  p.a.assign(p.a.size(), {NAN, NAN});  // alpha = 0: A and B are not read
  p.alpha = {0, 0};
  p.beta = {0, 1};
  ASSERT_EQ(p.run(BF16X_MODE_FP64X21), BF16X_OK);
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      ASSERT_EQ(p.cval(i, j).re, -p.c0.im(i, j));  // i * (x + iy) = -y + ix, exact
      ASSERT_EQ(p.cval(i, j).im, p.c0.re(i, j));
    }
  // k = 0 with beta = 1: C untouched, NaN payloads included.
  CProblem<double> q(6, 5, 0, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 12, 1);
  q.beta = {1, 0};
  const auto before = q.c;
  ASSERT_EQ(q.run(BF16X_MODE_FP64X21), BF16X_OK);
  ASSERT_EQ(std::memcmp(before.data(), q.c.data(), before.size() * sizeof(before[0])), 0);
}

TEST(Complex, ErrorsLeaveCUntouched) {
  CProblem<double> p(8, 6, 5, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 13);
  const auto before = p.c;
  p.lda = 7;  // < m
  EXPECT_EQ(p.run(BF16X_MODE_FP64X21), BF16X_ERR_LDA);
  p.lda = 8;
  EXPECT_EQ(p.run(BF16X_MODE_FP32X6), BF16X_ERR_MODE);  // an SGEMM mode for zgemm
  EXPECT_EQ(p.run(BF16X_MODE_FP64X21, 7), BF16X_ERR_OPTIONS);
  p.ldc = 3;
  EXPECT_EQ(p.run(BF16X_MODE_FP64X21), BF16X_ERR_LDC);
  EXPECT_EQ(std::memcmp(before.data(), p.c.data(), before.size() * sizeof(before[0])), 0);
  CProblem<float> q(8, 6, 5, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 14);
  EXPECT_EQ(q.run(BF16X_MODE_FP64X21), BF16X_ERR_MODE);  // a DGEMM mode for cgemm
  EXPECT_EQ(bf16x_zgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 2, 2, 2, {1, 0}, nullptr, 2, nullptr, 2,
                        {0, 0}, nullptr, 2, BF16X_MODE_FP64X21),
            BF16X_ERR_NULL);
}

// Stats: the mode and engine of the real products, and the workspace including the parts and P.
TEST(Complex, StatsReportTheRealProducts) {
  const std::int64_t m = 20, n = 12, k = 16;
  std::vector<bf16x_complex_double> a(m * k, {0.5, -0.25}), b(k * n, {1, 2}), c(m * n);
  bf16x_stats st{};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64X21;
  o.stats = &st;
  ASSERT_EQ(bf16x_zgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, {1, 0}, a.data(), m, b.data(), k,
                           {0, 0}, c.data(), m, &o),
            BF16X_OK);
  EXPECT_EQ(st.mode, BF16X_MODE_FP64X21);
  EXPECT_GE(st.engine, 0);
  EXPECT_GE(st.workspace_bytes, std::uint64_t(2 * m * k + 4 * k * n + 2 * m * n) * sizeof(double));
  EXPECT_EQ(c[0].re, 16 * (0.5 * 1 + 0.25 * 2));  // (0.5 - 0.25i)(1 + 2i) = 1 + 0.75i, exact in fp64x21
  EXPECT_EQ(c[0].im, 16 * 0.75);
}

// NaN/Inf in A or B: the host zgemm classifies them (as for the real routines).
TEST(Complex, NonfiniteInputGoesToHost) {
  CProblem<double> p(5, 4, 6, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 15);
  p.a[0] = {INFINITY, 0};
  ASSERT_EQ(p.run(BF16X_MODE_FP64X21), BF16X_OK);
  EXPECT_FALSE(std::isfinite(p.cval(0, 0).re));
  EXPECT_TRUE(std::isfinite(p.cval(1, 0).re) && std::isfinite(p.cval(1, 0).im));
}

// NaN/Inf only in the last block of C's rows and the last chunk: the scan sends the whole call to the host before
// any block is written, so C is the host zgemm's, bit for bit, in every block.
TEST(Complex, NonfiniteInALaterBlockGoesToHostBeforeAnyBlock) {
  const SmallBlocks blocks;
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
    CProblem<double> p(40, 36, 600, layout, BF16X_NO_TRANS, BF16X_NO_TRANS, 500, 1);
    p.beta = {0.5, 0.5};
    p.a[CProblem<double>::at(layout, 39, 599, p.lda)] = {0, INFINITY};
    CProblem<double> q = p;
    ASSERT_EQ(p.run(BF16X_MODE_FP64X21), BF16X_OK);
    ASSERT_EQ(q.run(BF16X_MODE_NATIVE), BF16X_OK);
    EXPECT_EQ(std::memcmp(p.c.data(), q.c.data(), p.c.size() * sizeof(p.c[0])), 0);
  }
}

}  // namespace
}  // namespace bf16x::test
