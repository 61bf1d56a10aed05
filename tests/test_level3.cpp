// The level-3 routines beyond GEMM (include/bf16x/level3.h): SYRK, HERK, SYR2K, HER2K, SYMM, HEMM, TRMM, TRSM and
// GEMMT for s, d, c, z, against an independent exact reference (double-double per entry below, MPFR for the
// correctly rounded modes), never against bf16x itself.
//
// What each mode promises per entry (docs/numerics.md, "Componentwise guard" and "Correctly rounded modes";
// src/level3/operation.hpp): every written entry of SYRK, HERK, SYR2K, HER2K, GEMMT, SYMM, HEMM and TRMM is computed
// by exactly one GEMM over its whole inner dimension K (SYRK, HERK, GEMMT: k; SYR2K, HER2K: 2k; SYMM, HEMM, TRMM:
// m for side LEFT, n for RIGHT; the padding of a packed triangle is zero), so the entry is written as
//     C_ij = alpha (X Y)_ij + beta C0_ij     (X Y the mathematical product of inner dimension K)
// within the GEMM's own bound for that K (tolerances: `bound` below, with their derivations; SYR2K/HER2K at
// k >= n / 4 outside fp64cr/fp32cr: G_ij + G_ji of one GEMM G of inner dimension k, within that bound too, `two`
// in `check` below). fp64cr / fp32cr: every
// entry the exact value rounded once, bit for bit (but HER2K with a non-real alpha, which the library folds into
// the packed operand, one rounding per packed entry: there the rounding of the folded problem plus that fold).
// TRSM: backward error per entry, |alpha B - op(A) X|_ij <= c (|op(A)||X|)_ij from an exact residual.
//
// Every call also checks: the triangle of C that is not stored (SYRK-like) and the ld padding are bit-identical
// after the call (filled with sentinels before); the unused triangle of A (SYMM, HEMM, TRMM, TRSM), A's diagonal
// where diag = UNIT and every ld padding of A and B hold NaN, so an entry that read them would not be finite; where
// beta = 0 the written part of C holds NaN before the call; HERK/HER2K's diagonal has imaginary part exactly 0 (and
// C0's diagonal imaginary parts, garbage on input, are ignored); HEMM's diagonal imaginary parts hold garbage.
//
// Modes: fp64x21, fp64c15, fp64cr, auto, native (d, z); fp32x6, fp32c8, fp32cr, auto, native (s, c). Classes: uniform,
// graded (rows and columns scaled by 2^+-20 each: entries over 2^+-40), sparse (exact zeros, a zero row), and for
// TRSM an ill-conditioned triangular matrix (unit diagonal, off-diagonal entries up to 16).
//
// Reproducibility: each routine in fp64x21, fp64c15, fp64cr (fp32x6, fp32c8, fp32cr) gives the same bits on every
// engine of the mode's kind that runs here at 1-4 threads, and in both layouts of the same mathematical problem
// (there, except calls whose guard sent a GEMM to the host, whose bits the host's layout decides: docs/numerics.md,
// "Layouts and reproducibility"; so the guarded modes are compared with the guard off as well, every problem).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x_runtime.h"

namespace bf16x::test {
namespace {

using cd = std::complex<double>;
constexpr double kU64 = 0x1p-53, kU32 = 0x1p-24;

// ---------------------------------------------------------------------------------------------------------------
// Element types.

template <typename E>
struct Traits;
template <>
struct Traits<float> {
  using R = float;
  static constexpr bool cx = false;
  static constexpr char p = 's';
};
template <>
struct Traits<double> {
  using R = double;
  static constexpr bool cx = false;
  static constexpr char p = 'd';
};
template <>
struct Traits<bf16x_complex_float> {
  using R = float;
  static constexpr bool cx = true;
  static constexpr char p = 'c';
};
template <>
struct Traits<bf16x_complex_double> {
  using R = double;
  static constexpr bool cx = true;
  static constexpr char p = 'z';
};
template <typename E>
using RealOf = typename Traits<E>::R;
template <typename E>
constexpr bool kCx = Traits<E>::cx;
template <typename E>
constexpr bool kDbl = sizeof(RealOf<E>) == 8;
template <typename E>
constexpr double unit() {
  return kDbl<E> ? kU64 : kU32;
}

template <typename E>
E to_e(cd v) {
  if constexpr (kCx<E>)
    return E{RealOf<E>(v.real()), RealOf<E>(v.imag())};
  else
    return E(v.real());
}
template <typename E>
cd to_cd(const E& x) {
  if constexpr (kCx<E>)
    return {double(x.re), double(x.im)};
  else
    return {double(x), 0.0};
}
template <typename E>
bool same_bits(const E& x, const E& y) {
  return std::memcmp(&x, &y, sizeof(E)) == 0;
}
std::string num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
std::string num(cd x) { return "(" + num(x.real()) + ", " + num(x.imag()) + ")"; }

// ---------------------------------------------------------------------------------------------------------------
// Routines, options, input classes.

enum class Rt { syrk, herk, syr2k, her2k, symm, hemm, trmm, trsm, gemmt };
const char* rt_name(Rt r) {
  static const char* const n[] = {"syrk", "herk", "syr2k", "her2k", "symm", "hemm", "trmm", "trsm", "gemmt"};
  return n[int(r)];
}
bool triangle_out(Rt r) { return r == Rt::syrk || r == Rt::herk || r == Rt::syr2k || r == Rt::her2k || r == Rt::gemmt; }
bool has_beta(Rt r) { return r != Rt::trmm && r != Rt::trsm; }
bool hermitian_out(Rt r) { return r == Rt::herk || r == Rt::her2k; }

template <typename E>
std::vector<Rt> routines() {
  if constexpr (kCx<E>)
    return {Rt::syrk, Rt::herk, Rt::syr2k, Rt::her2k, Rt::symm, Rt::hemm, Rt::trmm, Rt::trsm, Rt::gemmt};
  else
    return {Rt::syrk, Rt::syr2k, Rt::symm, Rt::trmm, Rt::trsm, Rt::gemmt};
}

enum class Cls { uniform, graded, sparse, illcond };
const char* cls_name(Cls c) {
  static const char* const n[] = {"uniform", "graded", "sparse", "illcond"};
  return n[int(c)];
}

struct Opt {
  int layout = BF16X_COL_MAJOR, uplo = BF16X_UPPER, ta = BF16X_NO_TRANS, tb = BF16X_NO_TRANS, side = BF16X_LEFT,
      diag = BF16X_NON_UNIT;
};

// Every option combination of a routine (the layout apart).
std::vector<Opt> combos(Rt r) {
  std::vector<Opt> v;
  const int T3[] = {BF16X_NO_TRANS, BF16X_TRANS, BF16X_CONJ_TRANS};
  for (int uplo : {BF16X_UPPER, BF16X_LOWER}) {
    Opt o;
    o.uplo = uplo;
    switch (r) {
      case Rt::syrk:
      case Rt::syr2k:
        for (int t : {BF16X_NO_TRANS, BF16X_TRANS}) o.ta = t, v.push_back(o);
        break;
      case Rt::herk:
      case Rt::her2k:
        for (int t : {BF16X_NO_TRANS, BF16X_CONJ_TRANS}) o.ta = t, v.push_back(o);
        break;
      case Rt::symm:
      case Rt::hemm:
        for (int s : {BF16X_LEFT, BF16X_RIGHT}) o.side = s, v.push_back(o);
        break;
      case Rt::trmm:
      case Rt::trsm:
        for (int s : {BF16X_LEFT, BF16X_RIGHT})
          for (int t : T3)
            for (int d : {BF16X_NON_UNIT, BF16X_UNIT}) o.side = s, o.ta = t, o.diag = d, v.push_back(o);
        break;
      case Rt::gemmt:
        for (int ta : T3)
          for (int tb : T3) o.ta = ta, o.tb = tb, v.push_back(o);
        break;
    }
  }
  return v;
}

// One call: the routine, its options and sizes (m unused for the n x n routines), alpha, beta, the input class.
struct Spec {
  Rt rt = Rt::syrk;
  Opt o;
  std::int64_t m = 1, n = 1, k = 1;
  cd alpha{1, 0}, beta{0, 0};
  Cls cls = Cls::uniform;
  std::uint64_t seed = 1;
  std::int64_t pad = 0;
  bool hemm_diag_nan = false;  // HEMM: NaN (not finite garbage) in the imaginary parts of A's diagonal
  bool nan_operands = false;   // alpha = 0 tests: A and B entirely NaN (TRMM/TRSM: A only; B too where said)
  bool nan_b = false;          // TRMM/TRSM with alpha = 0: B entirely NaN as well

  std::string str(char prefix) const {
    std::ostringstream s;
    auto tr = [](int t) { return t == BF16X_NO_TRANS ? "N" : t == BF16X_TRANS ? "T" : "C"; };
    s << prefix << rt_name(rt) << " " << (o.layout == BF16X_COL_MAJOR ? "col" : "row") << "-major";
    if (rt != Rt::trmm && rt != Rt::trsm && rt != Rt::symm && rt != Rt::hemm)
      s << " n=" << n << " k=" << k;
    else
      s << " m=" << m << " n=" << n;
    s << " uplo=" << (o.uplo == BF16X_UPPER ? "U" : "L");
    if (rt == Rt::symm || rt == Rt::hemm || rt == Rt::trmm || rt == Rt::trsm)
      s << " side=" << (o.side == BF16X_LEFT ? "L" : "R");
    if (rt != Rt::symm && rt != Rt::hemm) s << " trans=" << tr(o.ta);
    if (rt == Rt::gemmt) s << " transb=" << tr(o.tb);
    if (rt == Rt::trmm || rt == Rt::trsm) s << " diag=" << (o.diag == BF16X_UNIT ? "U" : "N");
    s << " alpha=" << num(alpha) << " beta=" << num(beta) << " class=" << cls_name(cls) << " seed=" << seed
      << " pad=" << pad;
    return s.str();
  }
  // The dimension of A for the side routines.
  std::int64_t ka() const { return o.side == BF16X_LEFT ? m : n; }
  std::int64_t rows() const { return triangle_out(rt) ? n : m; }
  std::int64_t cols() const { return n; }
};

// ---------------------------------------------------------------------------------------------------------------
// Mathematical matrices (column-major, complex double: every float and double value exactly) and their storage.

struct M {
  std::int64_t r = 0, c = 0;
  std::vector<cd> v;
  M() = default;
  M(std::int64_t r_, std::int64_t c_) : r(r_), c(c_), v(std::size_t(r_ * c_)) {}
  cd& operator()(std::int64_t i, std::int64_t j) { return v[std::size_t(i + j * r)]; }
  const cd& operator()(std::int64_t i, std::int64_t j) const { return v[std::size_t(i + j * r)]; }
};

M transposed(const M& x, bool conj) {
  M t(x.c, x.r);
  for (std::int64_t j = 0; j < x.c; ++j)
    for (std::int64_t i = 0; i < x.r; ++i) t(j, i) = conj ? std::conj(x(i, j)) : x(i, j);
  return t;
}
// The stored matrix S with op(S) = G: G, G^T or G^H.
M stored_for(const M& g, int trans) { return trans == BF16X_NO_TRANS ? g : transposed(g, trans == BF16X_CONJ_TRANS); }
// op(S).
M op_of(const M& s, int trans) { return stored_for(s, trans); }

std::size_t at(int layout, std::int64_t i, std::int64_t j, std::int64_t ld) {
  return std::size_t(layout == BF16X_COL_MAJOR ? i + j * ld : j + i * ld);
}
std::int64_t ld_for(int layout, std::int64_t rows, std::int64_t cols, std::int64_t pad) {
  return std::max<std::int64_t>(1, (layout == BF16X_COL_MAJOR ? rows : cols) + pad);
}

template <typename E>
std::vector<E> store(const M& s, int layout, std::int64_t ld, cd fill) {
  const std::int64_t outer = std::max<std::int64_t>(1, layout == BF16X_COL_MAJOR ? s.c : s.r);
  std::vector<E> v(std::size_t(ld * outer), to_e<E>(fill));
  for (std::int64_t j = 0; j < s.c; ++j)
    for (std::int64_t i = 0; i < s.r; ++i) v[at(layout, i, j, ld)] = to_e<E>(s(i, j));
  return v;
}

const cd kNaN{NAN, NAN};
const cd kSentinel{1234.5, -1234.5};  // C's triangle that is not stored
const cd kPadding{-777.25, 777.25};   // C's (B's) ld padding

// Input classes. uniform: parts uniform in [-1, 1]; graded: that times 2^(r_i + c_j), r_i and c_j integers uniform
// in [-20, 20] (entries over 2^+-40, rows and columns graded); sparse: half the entries exactly zero and one whole
// row zero; illcond (TRSM): see triangular().
struct Gen {
  std::mt19937_64 g;
  Cls cls;
  bool cx, single;
  std::uniform_real_distribution<double> u{-1, 1}, u01{0, 1};
  Gen(std::uint64_t seed, Cls c, bool cx_, bool single_) : g(seed), cls(c), cx(cx_), single(single_) {}
  double rd(double x) const { return single ? double(float(x)) : x; }
  cd plain() { return {rd(u(g)), cx ? rd(u(g)) : 0.0}; }
  cd draw() {
    if (cls == Cls::sparse && u01(g) < 0.5) return 0.0;
    return plain();
  }
  std::vector<int> exps(std::int64_t n) {
    std::vector<int> e(std::size_t(n), 0);
    if (cls == Cls::graded)
      for (int& x : e) x = int(std::floor(u01(g) * 41)) - 20;
    return e;
  }
  M matrix(std::int64_t r, std::int64_t c) {
    M x(r, c);
    const std::vector<int> re = exps(r), ce = exps(c);
    for (std::int64_t j = 0; j < c; ++j)
      for (std::int64_t i = 0; i < r; ++i) {
        const cd v = draw();
        x(i, j) = {std::ldexp(v.real(), re[size_t(i)] + ce[size_t(j)]),
                   std::ldexp(v.imag(), re[size_t(i)] + ce[size_t(j)])};
      }
    if (cls == Cls::sparse && r > 1)
      for (std::int64_t j = 0; j < c; ++j) x(r / 2, j) = 0.0;
    return x;
  }
};

// ---------------------------------------------------------------------------------------------------------------
// The C API, one signature set per element type.

template <typename E>
struct Api;
template <>
struct Api<float> {
  static constexpr auto syrk = bf16x_ssyrk_ex;
  static constexpr auto syr2k = bf16x_ssyr2k_ex;
  static constexpr auto symm = bf16x_ssymm_ex;
  static constexpr auto trmm = bf16x_strmm_ex;
  static constexpr auto trsm = bf16x_strsm_ex;
  static constexpr auto gemmt = bf16x_sgemmt_ex;
};
template <>
struct Api<double> {
  static constexpr auto syrk = bf16x_dsyrk_ex;
  static constexpr auto syr2k = bf16x_dsyr2k_ex;
  static constexpr auto symm = bf16x_dsymm_ex;
  static constexpr auto trmm = bf16x_dtrmm_ex;
  static constexpr auto trsm = bf16x_dtrsm_ex;
  static constexpr auto gemmt = bf16x_dgemmt_ex;
};
template <>
struct Api<bf16x_complex_float> {
  static constexpr auto syrk = bf16x_csyrk_ex;
  static constexpr auto herk = bf16x_cherk_ex;
  static constexpr auto syr2k = bf16x_csyr2k_ex;
  static constexpr auto her2k = bf16x_cher2k_ex;
  static constexpr auto symm = bf16x_csymm_ex;
  static constexpr auto hemm = bf16x_chemm_ex;
  static constexpr auto trmm = bf16x_ctrmm_ex;
  static constexpr auto trsm = bf16x_ctrsm_ex;
  static constexpr auto gemmt = bf16x_cgemmt_ex;
};
template <>
struct Api<bf16x_complex_double> {
  static constexpr auto syrk = bf16x_zsyrk_ex;
  static constexpr auto herk = bf16x_zherk_ex;
  static constexpr auto syr2k = bf16x_zsyr2k_ex;
  static constexpr auto her2k = bf16x_zher2k_ex;
  static constexpr auto symm = bf16x_zsymm_ex;
  static constexpr auto hemm = bf16x_zhemm_ex;
  static constexpr auto trmm = bf16x_ztrmm_ex;
  static constexpr auto trsm = bf16x_ztrsm_ex;
  static constexpr auto gemmt = bf16x_zgemmt_ex;
};

// The arguments of one call, as passed (the argument tests change one of them).
template <typename E>
struct Args {
  Rt rt;
  int layout, uplo, ta, tb, side, diag;
  std::int64_t m, n, k, lda, ldb, ldc;
  cd alpha, beta;
  const E* a;
  const E* b;
  E* c;  // C, or B for TRMM/TRSM
};

template <typename E>
int call(const Args<E>& x, const bf16x_options* o) {
  using R = RealOf<E>;
  using A = Api<E>;
  const auto lay = bf16x_layout(x.layout);
  const auto up = bf16x_uplo(x.uplo);
  const auto ta = bf16x_transpose(x.ta), tb = bf16x_transpose(x.tb);
  const auto sd = bf16x_side(x.side);
  const auto dg = bf16x_diag(x.diag);
  const E al = to_e<E>(x.alpha), be = to_e<E>(x.beta);
  const R alr = R(x.alpha.real()), ber = R(x.beta.real());
  switch (x.rt) {
    case Rt::syrk:
      return A::syrk(lay, up, ta, x.n, x.k, al, x.a, x.lda, be, x.c, x.ldc, o);
    case Rt::syr2k:
      return A::syr2k(lay, up, ta, x.n, x.k, al, x.a, x.lda, x.b, x.ldb, be, x.c, x.ldc, o);
    case Rt::symm:
      return A::symm(lay, sd, up, x.m, x.n, al, x.a, x.lda, x.b, x.ldb, be, x.c, x.ldc, o);
    case Rt::trmm:
      return A::trmm(lay, sd, up, ta, dg, x.m, x.n, al, x.a, x.lda, x.c, x.ldc, o);
    case Rt::trsm:
      return A::trsm(lay, sd, up, ta, dg, x.m, x.n, al, x.a, x.lda, x.c, x.ldc, o);
    case Rt::gemmt:
      return A::gemmt(lay, up, ta, tb, x.n, x.k, al, x.a, x.lda, x.b, x.ldb, be, x.c, x.ldc, o);
    case Rt::herk:
      if constexpr (kCx<E>) return A::herk(lay, up, ta, x.n, x.k, alr, x.a, x.lda, ber, x.c, x.ldc, o);
      break;
    case Rt::her2k:
      if constexpr (kCx<E>) return A::her2k(lay, up, ta, x.n, x.k, al, x.a, x.lda, x.b, x.ldb, ber, x.c, x.ldc, o);
      break;
    case Rt::hemm:
      if constexpr (kCx<E>) return A::hemm(lay, sd, up, x.m, x.n, al, x.a, x.lda, x.b, x.ldb, be, x.c, x.ldc, o);
      break;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------------------------
// A problem: the stored operands of a Spec, and its mathematics for the reference.

struct Term {  // coef (X Y)
  M x, y;
  cd coef;
};

template <typename E>
struct Problem {
  Spec s;
  std::vector<E> a, b, c;  // c: C, or B for TRMM/TRSM (the array written)
  std::int64_t lda = 1, ldb = 1, ldc = 1;
  std::vector<Term> terms;  // written entry (i, j) = sum coef (X Y)_ij + beta C0_ij
  std::int64_t K = 0;       // the inner dimension of the one GEMM per entry
  M c0;                     // C0 (beta != 0), the mathematical one (HERK/HER2K: real diagonal)
  M opt, b0;                // TRSM: op(A) with its unit diagonal, and B0
  bool folded = false;      // HER2K with a non-real alpha: folded into the packed operand by the library

  bool written(std::int64_t i, std::int64_t j) const {
    if (!triangle_out(s.rt)) return true;
    return s.o.uplo == BF16X_UPPER ? i <= j : i >= j;
  }

  explicit Problem(const Spec& sp) : s(sp) {
    constexpr bool cx = kCx<E>, single = !kDbl<E>;
    Gen gen(s.seed, s.cls == Cls::illcond ? Cls::uniform : s.cls, cx, single);
    Gen cgen(s.seed ^ 0x9e3779b97f4a7c15ull, Cls::uniform, cx, single);
    const int lay = s.o.layout;
    const Rt r = s.rt;
    const std::int64_t rows = s.rows(), cols = s.cols();
    const bool herm = hermitian_out(r);
    folded = r == Rt::her2k && s.alpha.imag() != 0;
    // C0 and the stored C (or B).
    M cstore(rows, cols);
    c0 = M(rows, cols);
    if (r == Rt::trmm || r == Rt::trsm) {
      b0 = gen.matrix(rows, cols);
      cstore = b0;
      if (s.nan_b)
        for (cd& v : cstore.v) v = kNaN;
    } else {
      for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < rows; ++i) {
          if (!written(i, j)) {
            cstore(i, j) = kSentinel;
            continue;
          }
          cd v = cgen.plain();
          if (s.beta == 0.0) {
            cstore(i, j) = kNaN;  // beta = 0: C is not read
            continue;
          }
          if (herm && i == j) {
            cstore(i, j) = {v.real(), 3.5};  // garbage imaginary part on the diagonal: not read
            v = v.real();
          } else {
            cstore(i, j) = v;
          }
          c0(i, j) = v;
        }
    }
    ldc = ld_for(lay, rows, cols, s.pad);
    c = store<E>(cstore, lay, ldc, kPadding);

    const cd al = s.alpha;
    switch (r) {
      case Rt::syrk:
      case Rt::herk: {
        const M g = gen.matrix(s.n, s.k);
        const M sa = stored_for(g, s.o.ta);
        lda = ld_for(lay, sa.r, sa.c, s.pad);
        a = store<E>(sa, lay, lda, kNaN);
        terms.push_back({g, transposed(g, r == Rt::herk), al});
        K = s.k;
        break;
      }
      case Rt::syr2k:
      case Rt::her2k: {
        const M g = gen.matrix(s.n, s.k), h = gen.matrix(s.n, s.k);
        const M sa = stored_for(g, s.o.ta), sb = stored_for(h, s.o.ta);
        lda = ld_for(lay, sa.r, sa.c, s.pad);
        ldb = ld_for(lay, sb.r, sb.c, s.pad);
        a = store<E>(sa, lay, lda, kNaN);
        b = store<E>(sb, lay, ldb, kNaN);
        const bool h2 = r == Rt::her2k;
        terms.push_back({g, transposed(h, h2), al});
        terms.push_back({h, transposed(g, h2), h2 ? std::conj(al) : al});
        K = 2 * s.k;
        break;
      }
      case Rt::gemmt: {
        const M g = gen.matrix(s.n, s.k), h = gen.matrix(s.k, s.n);
        const M sa = stored_for(g, s.o.ta), sb = stored_for(h, s.o.tb);
        lda = ld_for(lay, sa.r, sa.c, s.pad);
        ldb = ld_for(lay, sb.r, sb.c, s.pad);
        a = store<E>(sa, lay, lda, kNaN);
        b = store<E>(sb, lay, ldb, kNaN);
        terms.push_back({g, h, al});
        K = s.k;
        break;
      }
      case Rt::symm:
      case Rt::hemm: {
        const std::int64_t ka = s.ka();
        M af = gen.matrix(ka, ka);
        const bool hm = r == Rt::hemm;
        for (std::int64_t j = 0; j < ka; ++j)
          for (std::int64_t i = 0; i < j; ++i) af(i, j) = hm ? std::conj(af(j, i)) : af(j, i);
        if (hm)
          for (std::int64_t i = 0; i < ka; ++i) af(i, i) = af(i, i).real();
        M sa(ka, ka);
        for (std::int64_t j = 0; j < ka; ++j)
          for (std::int64_t i = 0; i < ka; ++i) {
            const bool stored = s.o.uplo == BF16X_UPPER ? i <= j : i >= j;
            sa(i, j) = stored ? af(i, j) : kNaN;
            if (hm && i == j) sa(i, i) = {af(i, i).real(), s.hemm_diag_nan ? NAN : 1234.5};
          }
        const M bm = gen.matrix(s.m, s.n);
        lda = ld_for(lay, ka, ka, s.pad);
        ldb = ld_for(lay, s.m, s.n, s.pad);
        a = store<E>(sa, lay, lda, kNaN);
        b = store<E>(bm, lay, ldb, kNaN);
        if (s.o.side == BF16X_LEFT)
          terms.push_back({af, bm, al});
        else
          terms.push_back({bm, af, al});
        K = ka;
        break;
      }
      case Rt::trmm:
      case Rt::trsm: {
        const M t = triangular(gen);
        M sa(t.r, t.c);
        for (std::int64_t j = 0; j < t.c; ++j)
          for (std::int64_t i = 0; i < t.r; ++i) {
            const bool stored = s.o.uplo == BF16X_UPPER ? i <= j : i >= j;
            sa(i, j) = stored && !(i == j && s.o.diag == BF16X_UNIT) ? t(i, j) : kNaN;
          }
        lda = ld_for(lay, t.r, t.c, s.pad);
        a = store<E>(sa, lay, lda, kNaN);
        opt = op_of(t, s.o.ta);
        if (r == Rt::trmm) {
          if (s.o.side == BF16X_LEFT)
            terms.push_back({opt, b0, al});
          else
            terms.push_back({b0, opt, al});
        }
        K = s.ka();
        break;
      }
    }
    if (s.nan_operands) {
      for (E& v : a) v = to_e<E>(kNaN);
      for (E& v : b) v = to_e<E>(kNaN);
    }
  }

  // The triangular A (mathematical: zeros outside the triangle, ones on a unit diagonal). TRMM: the class's
  // entries. TRSM (well conditioned unless illcond): off-diagonal entries of the class scaled by 4/ka, diagonal
  // +-[1, 2) times the class's grading, so that |A^-1| stays within about e^4 of diag^-1 and X neither overflows
  // nor loses its range; illcond: ones on the diagonal (stored where NON_UNIT) and off-diagonal entries uniform in
  // [-16, 16] (FP32: [-4, 4]), used for ka <= 33 only, where the growth of A^-1 stays below 2^140 (2^77).
  M triangular(Gen& gen) {
    const std::int64_t ka = s.ka();
    const bool lower = s.o.uplo == BF16X_LOWER, unit = s.o.diag == BF16X_UNIT;
    M t(ka, ka);
    if (s.rt == Rt::trmm) {
      t = gen.matrix(ka, ka);
    } else if (s.cls == Cls::illcond) {
      const double big = kDbl<E> ? 16 : 4;
      for (std::int64_t j = 0; j < ka; ++j)
        for (std::int64_t i = 0; i < ka; ++i) t(i, j) = gen.plain() * big;
    } else {
      // T = D1 T0 D2 with T0's off-diagonal entries of the class times 4/ka (a power of 2) and its diagonal
      // +-[1, 2) (+ i [-1, 1]); graded: D1 = diag(2^r_i), D2 = diag(2^c_j), r, c integers in [-20, 20], and
      // D2 = D1^-1 for a unit diagonal (a similarity, which keeps the ones).
      const double shrink = std::ldexp(1.0, -int(std::ceil(std::log2(double(ka)))) + 2);
      const std::vector<int> r = gen.exps(ka), c0 = gen.exps(ka);
      for (std::int64_t j = 0; j < ka; ++j)
        for (std::int64_t i = 0; i < ka; ++i) {
          const int e = r[size_t(i)] + (unit ? -r[size_t(j)] : c0[size_t(j)]);
          if (i == j) {
            const cd p = gen.plain();
            const double re = (p.real() < 0 ? -1 : 1) * (1 + std::fabs(p.real()));
            t(i, i) = cd(gen.rd(std::ldexp(re, e)), kCx<E> ? std::ldexp(p.imag(), e) : 0.0);
          } else {
            const cd v = gen.draw() * shrink;
            t(i, j) = cd(std::ldexp(v.real(), e), std::ldexp(v.imag(), e));
          }
        }
    }
    for (std::int64_t j = 0; j < ka; ++j)
      for (std::int64_t i = 0; i < ka; ++i) {
        if (lower ? i < j : i > j) t(i, j) = 0.0;
        if (i == j && (unit || s.cls == Cls::illcond)) t(i, j) = 1.0;
      }
    return t;
  }

  Args<E> args() {
    return {s.rt,
            s.o.layout,
            s.o.uplo,
            s.o.ta,
            s.o.tb,
            s.o.side,
            s.o.diag,
            s.m,
            s.n,
            s.k,
            lda,
            ldb,
            ldc,
            s.alpha,
            s.beta,
            a.data(),
            b.empty() ? nullptr : b.data(),
            c.data()};
  }

  // The mathematical output entry (i, j) from the written array.
  cd out(std::int64_t i, std::int64_t j) const { return to_cd(c[at(s.o.layout, i, j, ldc)]); }
  E out_e(std::int64_t i, std::int64_t j) const { return c[at(s.o.layout, i, j, ldc)]; }
};

// ---------------------------------------------------------------------------------------------------------------
// Double-double reference (TwoProd by FMA, TwoSum): each operation's error is at most about 2^-104 of the partial
// sums it touches, so the reference of an entry is within (K + 4) 2^-100 (sum |terms|) of the exact value.

struct DD {
  double hi = 0, lo = 0;
  double value() const { return hi + lo; }
};
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
inline void dd_add_prod(DD& acc, double x, double y) {
  const double p = x * y, pe = std::fma(x, y, -p);
  double s, e;
  two_sum(acc.hi, p, s, e);
  e += acc.lo + pe;
  two_sum(s, e, acc.hi, acc.lo);
}
// acc += c * d (d double-double).
inline void dd_add_scaled(DD& acc, double c, const DD& d) {
  dd_add_prod(acc, c, d.hi);
  dd_add_prod(acc, c, d.lo);
}

struct RefEntry {
  DD re, im;
  double abs = 0;     // sum over terms |coef| (|X||Y|)_ij, complex moduli
  double beta_c = 0;  // |beta| |C0_ij|
  cd value() const { return {re.value(), im.value()}; }
  // |got - exact|, from the double-double: (got - hi) - lo, each subtraction within 2^-52 of its result.
  double err(cd got) const {
    const double er = (got.real() - re.hi) - re.lo, ei = (got.imag() - im.hi) - im.lo;
    return std::hypot(er, ei);
  }
};

// sum_t coef_t (X_t Y_t)_ij + beta C0_ij.
template <typename E>
RefEntry reference(const Problem<E>& p, std::int64_t i, std::int64_t j) {
  RefEntry r;
  for (const Term& t : p.terms) {
    DD pr, pi;
    double abs = 0;
    const std::int64_t k = t.x.c;
    for (std::int64_t l = 0; l < k; ++l) {
      const cd x = t.x(i, l), y = t.y(l, j);
      if (x == 0.0 || y == 0.0) continue;
      if constexpr (kCx<E>) {
        dd_add_prod(pr, x.real(), y.real());
        dd_add_prod(pr, -x.imag(), y.imag());
        dd_add_prod(pi, x.real(), y.imag());
        dd_add_prod(pi, x.imag(), y.real());
        abs += std::abs(x) * std::abs(y);
      } else {
        dd_add_prod(pr, x.real(), y.real());
        abs += std::fabs(x.real()) * std::fabs(y.real());
      }
    }
    r.abs += std::abs(t.coef) * abs;
    dd_add_scaled(r.re, t.coef.real(), pr);
    dd_add_scaled(r.re, -t.coef.imag(), pi);
    dd_add_scaled(r.im, t.coef.real(), pi);
    dd_add_scaled(r.im, t.coef.imag(), pr);
  }
  if (p.s.beta != 0.0 && has_beta(p.s.rt)) {
    const cd c = p.c0(i, j), b = p.s.beta;
    dd_add_prod(r.re, b.real(), c.real());
    dd_add_prod(r.re, -b.imag(), c.imag());
    dd_add_prod(r.im, b.real(), c.imag());
    dd_add_prod(r.im, b.imag(), c.real());
    r.beta_c = std::abs(b) * std::abs(c);
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// MPFR reference of the correctly rounded modes: RN(sum_t coef_t (X_t Y_t)_ij + beta C0_ij) per part, each triple
// product exact at 160 bits (three factors of at most 53 bits), their sum exact at 8000 bits (every term lies within
// 2^-1300 .. 2^1300 here), rounded once by mpfr_get_d / mpfr_get_flt.

struct Exact {
  std::deque<__mpfr_struct> t;  // a deque: the terms never move once initialised
  std::vector<mpfr_ptr> ptr;
  mpfr_t sum;
  std::size_t used = 0;
  Exact() { mpfr_init2(sum, 8000); }
  ~Exact() {
    for (__mpfr_struct& x : t) mpfr_clear(&x);
    mpfr_clear(sum);
  }
  Exact(const Exact&) = delete;
  Exact& operator=(const Exact&) = delete;
  void add(double x, double y, double z) {
    if (x == 0 || y == 0 || z == 0) return;
    if (used == t.size()) {
      t.emplace_back();
      mpfr_init2(&t.back(), 160);
    }
    mpfr_ptr v = &t[used];
    mpfr_set_d(v, x, MPFR_RNDN);
    mpfr_mul_d(v, v, y, MPFR_RNDN);
    mpfr_mul_d(v, v, z, MPFR_RNDN);
    ++used;
  }
  template <typename R>
  R rounded() {
    ptr.resize(used);
    for (std::size_t q = 0; q < used; ++q) ptr[q] = &t[q];
    mpfr_sum(sum, ptr.data(), (unsigned long)used, MPFR_RNDN);
    used = 0;
    if constexpr (std::is_same_v<R, double>)
      return mpfr_get_d(sum, MPFR_RNDN);
    else
      return mpfr_get_flt(sum, MPFR_RNDN);
  }
};

template <typename E>
cd exact_rounded(const Problem<E>& p, std::int64_t i, std::int64_t j, Exact& x) {
  using R = RealOf<E>;
  double part[2];
  for (int q = 0; q < (kCx<E> ? 2 : 1); ++q) {
    for (const Term& t : p.terms) {
      const double cr = t.coef.real(), ci = t.coef.imag();
      for (std::int64_t l = 0; l < t.x.c; ++l) {
        const cd a = t.x(i, l), b = t.y(l, j);
        const double ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
        if (q == 0)  // Re = cr (ar br - ai bi) - ci (ar bi + ai br)
          x.add(cr, ar, br), x.add(-cr, ai, bi), x.add(-ci, ar, bi), x.add(-ci, ai, br);
        else  // Im = cr (ar bi + ai br) + ci (ar br - ai bi)
          x.add(cr, ar, bi), x.add(cr, ai, br), x.add(ci, ar, br), x.add(-ci, ai, bi);
      }
    }
    if (p.s.beta != 0.0 && has_beta(p.s.rt)) {
      const cd c = p.c0(i, j), b = p.s.beta;
      if (q == 0)
        x.add(b.real(), c.real(), 1), x.add(-b.imag(), c.imag(), 1);
      else
        x.add(b.real(), c.imag(), 1), x.add(b.imag(), c.real(), 1);
    }
    part[q] = double(x.rounded<R>());
  }
  return {part[0], kCx<E> ? part[1] : 0.0};
}

// ---------------------------------------------------------------------------------------------------------------
// Modes and their per-entry bounds.

enum class Kind { guarded, cr, native, automode, fp32x6 };
Kind kind_of(int mode) {
  if (mode == BF16X_MODE_FP64CR || mode == BF16X_MODE_FP32CR) return Kind::cr;
  if (mode == BF16X_MODE_NATIVE) return Kind::native;
  if (mode == BF16X_MODE_AUTO) return Kind::automode;
  if (mode == BF16X_MODE_FP32X6) return Kind::fp32x6;
  return Kind::guarded;  // fp64x21, fp64c15..20, fp32c8..10: guarded by default
}

template <typename E>
std::vector<int> modes_of() {
  if constexpr (kDbl<E>)
    return {BF16X_MODE_FP64X21, BF16X_MODE_FP64C(15), BF16X_MODE_FP64CR, BF16X_MODE_AUTO, BF16X_MODE_NATIVE};
  else
    return {BF16X_MODE_FP32X6, BF16X_MODE_FP32C(8), BF16X_MODE_FP32CR, BF16X_MODE_AUTO, BF16X_MODE_NATIVE};
}

double gamma(double n, double u) { return n * u / (1 - n * u); }

// The bound on |C - exact|_ij of one written entry, in the units of the reference entry r:
//   A = r.abs = sum_t |coef_t| (|X_t||Y_t|)_ij (= |alpha| (|op(A)||op(B)|)_ij of the one GEMM), Bc = |beta||C0_ij|,
//   V = max(|C_ij|, |exact|), u = the unit roundoff of the routine's precision, K the GEMM's inner dimension.
//
// Real routines:
// - guarded modes (fp64x21, fp64c15, fp32c8; docs/numerics.md, "The guarantee"): the entry is one guarded GEMM
//   entry, |C - exact| <= 4 K u |alpha| (|A||B|)_ij + u |beta C0_ij| + u |C_ij|                   = 4KuA + uBc + uV
// - native: the host GEMM (or the host's level-3 routine) in the routine's precision: K products and K - 1 sums
//   (gamma_K), alpha applied to the sum or to one factor (1 rounding), beta C0 (1) and its addition (1):
//   gamma_{K+3} (A + Bc).
// - auto: whichever it runs, the guarded emulation or the host GEMM: the larger of the two.
// - fp32x6 (not guarded; tests/test_modes.cpp): dropped products <= 3.1 u32 |a||b| per term, FP32 sums of
//   2 * 6 * 64 pair additions per k-block of 64 plus one per block (gamma_n, 1.02 for second-order terms), the slices
//   below 2^-120 of a line's scale (K 2^-120 Sa_i Sb_j, Sa, Sb within 2x of the line's largest entry), alpha and
//   beta in FP64 (2 u64 |beta C0|), one rounding to FP32 (u32 V).
// Complex routines: each part of the complex GEMM is one real GEMM of inner dimension 2K over both parts (4M,
// docs/accuracy.md "Complex GEMM"), whose per-part |A~||B~| is at most the modulus form (|ar||br| + |ai||bi| <=
// |a||b|); then the FP64 write alpha P + beta C0 (per part two products of alpha, two of beta, three additions:
// gamma_4(u64) (|alpha||P| + |beta||C0|) by Cauchy-Schwarz on (|alpha_r||P_r| + |alpha_i||P_i|)), one rounding per
// part to T. As a modulus (sqrt(2) times the larger part):
// - guarded: per part 4 (2K) u (|A||B|) + u |P| (the real GEMM's own write of P, |P| <= |A||B|):
//   sqrt(2) [(8K + 1) u A + gamma_4(u64) (A + Bc) + u V]
// - native: per part 2K real products and sums, alpha's product, beta's product and additions, and a host that
//   scales one factor by alpha first (one complex product: per part gamma_2): sqrt(2) gamma_{2K+5} (A + Bc).
// - fp32x6: per part the real bound with K' = 2K plus P's rounding to FP32 (u32 |P|) (tests/test_complex.cpp).
// HER2K with a non-real alpha: alpha folded into the packed operand, one complex product per entry in precision T
// (per part gamma_2: as a modulus at most sqrt(2) gamma_2 <= 3u of |alpha||b|): the GEMM runs on operands within
// 3u of the exact ones, so the bound above with A (1 + 3u), plus 3u A.
// To every bound: the reference's own error (K + 4) 2^-100 (A + Bc), and 2^-40 of the bound for the measurement
// of |C - exact| in FP64.
template <typename E>
double bound(Kind kind, std::int64_t Ki, const RefEntry& r, cd got, double sasb, bool folded) {
  const double u = unit<E>(), K = double(Ki);
  const double V = std::max(std::abs(got), std::abs(r.value()));
  const double A = folded ? r.abs * (1 + 3 * u) : r.abs, Bc = r.beta_c;
  double b = 0;
  const double guarded = kCx<E> ? std::sqrt(2.0) * ((8 * K + 1) * u * A + gamma(4, kU64) * (A + Bc) + u * V)
                                : 4 * K * u * A + u * Bc + u * V;
  const double native = kCx<E> ? std::sqrt(2.0) * gamma(2 * K + 5, u) * (A + Bc) : gamma(K + 3, u) * (A + Bc);
  switch (kind) {
    case Kind::guarded:
      b = guarded;
      break;
    case Kind::native:
      b = native;
      break;
    case Kind::automode:
      b = std::max(guarded, native);
      break;
    case Kind::fp32x6: {
      const double Kp = kCx<E> ? 2 * K : K;
      const double rel = gamma(2.0 * 6 * 64 + std::ceil(Kp / 64), kU32) * 1.02 + 3.1 * kU32 + (kCx<E> ? kU32 : 0);
      const double core = A * rel + Kp * sasb * 0x1p-120;
      b = kCx<E> ? std::sqrt(2.0) * (core + gamma(4, kU64) * (A + Bc) + kU32 * V) : core + 2 * kU64 * Bc + kU32 * V;
      break;
    }
    case Kind::cr:  // only with a folded alpha (HER2K): the folded problem's rounding (u V per part) and the fold
      b = (kCx<E> ? std::sqrt(2.0) : 1.0) * u * V;
      break;
  }
  if (folded) b += 3 * u * r.abs;
  return b * (1 + 0x1p-40) + (K + 4) * 0x1p-100 * (A + Bc);
}

// TRSM's backward error (docs/numerics.md, "TRSM"), per entry of each column x of X, from the exact residual:
//     |alpha b - op(A) x|_i <= c (|op(A)||x|)_i,     K = the order of A, s = min(K, 128; complex 64) the largest block
// solved by substitution (level3/blocking.hpp, kSolveBlock, kSolveBlockComplex). Per block the update Y = alpha B_i -
// U(i,<i) X(<i) is one GEMM of inner dimension <= K - s with beta = alpha and C0 = B_i, then the s x s diagonal block D
// is solved by substitution
// ((D + dD) x = y, |dD| <= gamma_s |D|, Higham Thm 8.5), with |Y| <= (1 + gamma_s)|D||X_i| and |alpha B_i| <=
// (|U||X|)_i + |D||X_i| + |residual|. Real:
// - guarded, auto (and native, whose host update gamma_{K-s+2} (|U||X| + |alpha B_i|) is within it): the guard's
//   4 (K - s) u |U||X| + u |alpha B_i| + u |Y| and the substitution's s u: c = (4K + 1) u (the documented bound);
// - fp64cr / fp32cr: the update correctly rounded (u |Y|): c = (s + 3) u, whatever K;
// - fp32x6 (not guarded): its GEMM bound rel(K) of the products (`bound`, relative to |U||X|; no slice of these
//   inputs lies 2^-120 below its line's largest entry) in place of 4 (K - s) u, u32 |Y| and 2 u64 |alpha B_i|, and
//   the substitution: c = rel(K) + (s + 4) u.
// Complex: the update is a complex GEMM (as a modulus sqrt(2) [(8 (K - s) + 1) u |U||X| + gamma_4(u64)
// (|U||X| + |alpha B_i|)], `bound`), the substitution complex arithmetic: per step a complex product (sqrt(2)
// gamma_2) and a subtraction (u), per element one complex division (sqrt(2) gamma_4) (Higham Lemma 3.5), so
// |dD| <= ((s - 1)(2 sqrt(2) + 1) + 4 sqrt(2)) u |D| <= (4s + 2) u |D|; with |Y| and |alpha B_i| as above:
//   guarded, auto, native: c = sqrt(2) (8K + 1) u + (4s + 6) u + 3 sqrt(2) gamma_4(u64);
//   correctly rounded: c = sqrt(2) u + (4s + 6) u;  fp32x6: c = sqrt(2) rel'(2K) + (4s + 6) u + 3 sqrt(2) gamma_4(u64).
// A narrow B (at most 8 columns on the left) in the slice and CRT modes is the plain substitution over the whole
// order (Level3.NarrowTrsmIsThePlainSubstitution): (K + 1) u real, (4K + 6) u complex, within the coefficients above
// for those modes (fp32x6's rel(K) alone is above 768 u).
// The O(u^2) terms: a factor (1 + 4 K u).
template <typename E>
double trsm_coefficient(Kind kind, std::int64_t Ki) {
  const double u = unit<E>(), K = double(Ki);
  const double s = double(std::min<std::int64_t>(Ki, kCx<E> ? 64 : 128));
  const double Kp = kCx<E> ? 2 * K : K;
  const double rel = gamma(2.0 * 6 * 64 + std::ceil(Kp / 64), kU32) * 1.02 + 3.1 * kU32 + (kCx<E> ? kU32 : 0);
  double c = 0;
  if constexpr (kCx<E>) {
    const double r2 = std::sqrt(2.0), w = 3 * r2 * gamma(4, kU64);
    c = kind == Kind::cr       ? r2 * u + (4 * s + 6) * u
        : kind == Kind::fp32x6 ? r2 * rel + (4 * s + 6) * u + w
                               : r2 * (8 * K + 1) * u + (4 * s + 6) * u + w;
  } else {
    c = kind == Kind::cr ? (s + 3) * u : kind == Kind::fp32x6 ? rel + (s + 4) * u : (4 * K + 1) * u;
  }
  return c * (1 + 4 * K * u);
}

// ---------------------------------------------------------------------------------------------------------------
// Running and checking one call.

template <typename E>
bf16x_options options(int mode, int engine = BF16X_ENGINE_AUTO) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  o.engine = engine;
  return o;
}

// 2 max|X_t(i,:)| x 2 max|Y_t(:,j)| over the terms (the line scales of fp32x6's 2^-120 term, at most twice the
// largest entry), times the largest |coef_t|.
template <typename E>
struct Scales {
  std::vector<double> row, col;
  double coef = 0;
  explicit Scales(const Problem<E>& p) : row(std::size_t(p.s.rows()), 0), col(std::size_t(p.s.cols()), 0) {
    for (const Term& t : p.terms) {
      coef = std::max(coef, std::abs(t.coef));
      for (std::int64_t l = 0; l < t.x.c; ++l)
        for (std::int64_t i = 0; i < t.x.r; ++i) row[size_t(i)] = std::max(row[size_t(i)], 2 * std::abs(t.x(i, l)));
      for (std::int64_t j = 0; j < t.y.c; ++j)
        for (std::int64_t l = 0; l < t.y.r; ++l) col[size_t(j)] = std::max(col[size_t(j)], 2 * std::abs(t.y(l, j)));
    }
  }
  double at(std::int64_t i, std::int64_t j) const { return coef * row[size_t(i)] * col[size_t(j)]; }
};

// Runs p in `mode` and checks every written entry (and the untouched rest). Returns the failures.
template <typename E>
int run_and_check(Problem<E>& p, int mode, const std::string& ctx) {
  const std::string what = ctx + " " + p.s.str(Traits<E>::p) + " mode=" + bf16x_mode_name(mode);
  const std::vector<E> before = p.c;
  const bf16x_options o = options<E>(mode);
  const int st = call(p.args(), &o);
  if (st != BF16X_OK) {
    ADD_FAILURE() << what << ": status " << st << " (" << bf16x_status_string(st) << ")";
    return 1;
  }
  int bad = 0;
  auto fail = [&](const std::string& msg) {
    if (bad++ < 3) ADD_FAILURE() << what << ": " << msg;
  };
  const std::int64_t rows = p.s.rows(), cols = p.s.cols();
  // Untouched: the unstored triangle and the padding, bit for bit.
  std::vector<char> is_written(p.c.size(), 0);
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i)
      if (p.written(i, j)) is_written[at(p.s.o.layout, i, j, p.ldc)] = 1;
  for (std::size_t q = 0; q < p.c.size(); ++q)
    if (!is_written[q] && !same_bits(p.c[q], before[q]))
      fail("element " + std::to_string(q) + " of the array outside the written part changed: " + num(to_cd(before[q])) +
           " -> " + num(to_cd(p.c[q])));
  const Kind kind = kind_of(mode);
  if (p.s.rt == Rt::trsm) {
    // Residual alpha B0 - op(A) X (left) or alpha B0 - X op(A) (right), exactly (double-double), per entry.
    const bool left = p.s.o.side == BF16X_LEFT;
    M x(rows, cols);
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) x(i, j) = p.out(i, j);
    const double c = trsm_coefficient<E>(kind, p.K);
    for (std::int64_t j = 0; j < cols && bad < 3; ++j)
      for (std::int64_t i = 0; i < rows; ++i) {
        if (!std::isfinite(x(i, j).real()) || !std::isfinite(x(i, j).imag())) {
          fail("X(" + std::to_string(i) + "," + std::to_string(j) + ") = " + num(x(i, j)) + " not finite");
          continue;
        }
        DD rr, ri;
        double abs = 0;
        const cd al = p.s.alpha, b = p.b0(i, j);
        dd_add_prod(rr, al.real(), b.real());
        dd_add_prod(rr, -al.imag(), b.imag());
        dd_add_prod(ri, al.real(), b.imag());
        dd_add_prod(ri, al.imag(), b.real());
        for (std::int64_t l = 0; l < p.K; ++l) {
          const cd t = left ? p.opt(i, l) : p.opt(l, j), y = left ? x(l, j) : x(i, l);
          if (t == 0.0 || y == 0.0) continue;
          dd_add_prod(rr, -t.real(), y.real());
          dd_add_prod(rr, t.imag(), y.imag());
          dd_add_prod(ri, -t.real(), y.imag());
          dd_add_prod(ri, -t.imag(), y.real());
          abs += std::abs(t) * std::abs(y);
        }
        const double res = std::hypot(rr.value(), ri.value());
        const double tol = c * abs + (double(p.K) + 8) * 0x1p-100 * (abs + std::abs(al) * std::abs(b));
        if (!(res <= tol))
          fail("residual at (" + std::to_string(i) + "," + std::to_string(j) + ") = " + num(res) + " > " + num(tol) +
               " = " + num(c) + " (|A||X|) (|A||X| = " + num(abs) + ", X = " + num(x(i, j)) + ")");
      }
    return bad;
  }
  const Scales<E> sc(p);
  Exact ex;
  // SYR2K/HER2K outside fp64cr/fp32cr where k >= n / 4: G = alpha X Y^T in one GEMM of inner dimension k, written
  // in T, then (G_ij + G_ji) + beta C0_ij in FP64 (docs/numerics.md, "Level 3"); alpha is not folded then. Each half
  // keeps its GEMM's bound for k, and the halves' roundings to T add u (|G_ij| + |G_ji|) <= u A (1 + O(u)), the
  // sum's u64 |S| and beta C0's FP64 product and sum at most those of the one GEMM's write: within the bound for
  // K = 2k where it grows by 4 k u A per k (guarded, native, auto), and 2 u A added to fp32x6's, which may not.
  const bool two = (p.s.rt == Rt::syr2k || p.s.rt == Rt::her2k) && kind != Kind::cr && 4 * p.s.k >= p.s.n;
  const bool folded = p.folded && !two;
  for (std::int64_t j = 0; j < cols && bad < 3; ++j)
    for (std::int64_t i = 0; i < rows; ++i) {
      if (!p.written(i, j)) continue;
      const cd got = p.out(i, j);
      const std::string where = "(" + std::to_string(i) + "," + std::to_string(j) + ")";
      if (hermitian_out(p.s.rt) && i == j && got.imag() != 0) {
        fail("diagonal " + where + " has imaginary part " + num(got.imag()) + ", not 0");
        continue;
      }
      if (kind == Kind::cr && !folded) {
        const cd want = exact_rounded(p, i, j, ex);
        // The exact rounding, bit for bit, each part (an exact zero may come with either sign).
        auto part_ok = [](double w, double g) {
          const RealOf<E> rw = RealOf<E>(w), rg = RealOf<E>(g);
          return same_bits(rw, rg) || (w == 0 && g == 0);
        };
        if (!(part_ok(want.real(), got.real()) && part_ok(want.imag(), got.imag())))
          fail("entry " + where + " = " + num(got) + ", exact rounding " + num(want));
        continue;
      }
      const RefEntry r = reference(p, i, j);
      const double err = r.err(got);
      const double tol = bound<E>(kind, p.K, r, got, sc.at(i, j), folded) +
                         (two && kind == Kind::fp32x6 ? 2 * unit<E>() * r.abs : 0.0);
      if (!(err <= tol))
        fail("entry " + where + " = " + num(got) + ", exact " + num(r.value()) + ": |C - exact| = " + num(err) + " > " +
             num(tol) + " (|alpha||A||B| = " + num(r.abs) + ", |beta C0| = " + num(r.beta_c) +
             ", K = " + std::to_string(p.K) + ")");
    }
  return bad;
}

bool host_blas() {
  static const bool have = [] {
    double a = 1, b = 1, c = 0;
    return bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1,
                       BF16X_MODE_NATIVE) == BF16X_OK;
  }();
  return have;
}

// alpha, beta by rotation: (1, 0 with NaN in C), (-0.75, 0.5), complex (0.75 - 1.25i, -0.5 + 0.25i), (1.5, 1).
// HERK: real parts; HER2K: beta real (alpha complex where the rotation says so).
void set_alpha_beta(Spec& s, int q, bool cx) {
  static const cd al[] = {{1, 0}, {-0.75, 0}, {0.75, -1.25}, {1.5, 0}};
  static const cd be[] = {{0, 0}, {0.5, 0}, {-0.5, 0.25}, {1, 0}};
  q %= 4;
  s.alpha = al[q];
  s.beta = be[q];
  if (!cx) s.alpha = s.alpha.real(), s.beta = s.beta.real();
  if (s.rt == Rt::herk) s.alpha = s.alpha.real() == 0 ? 1.0 : s.alpha.real(), s.beta = s.beta.real();
  if (s.rt == Rt::her2k) s.beta = s.beta.real();
  if (s.cls == Cls::graded && has_beta(s.rt)) s.beta = 0;  // graded C: beta C0 would hide the graded products
}

struct Shape {
  std::int64_t a, b;
};
// Small odd shapes, and 65 / 70 / 97 across the 64-row diagonal blocks (GEMMT) and panels (TRMM; TRSM: 140).
constexpr Shape kShapesNK[] = {{1, 1}, {2, 3}, {3, 2}, {17, 5}, {5, 33}, {33, 17}, {65, 3}, {17, 65}, {97, 9}};
constexpr Shape kShapesMN[] = {{1, 1}, {2, 3}, {3, 1}, {17, 5}, {5, 17}, {33, 2}, {2, 33}, {70, 7}, {7, 70}};

template <typename E>
Spec sweep_spec(Rt rt, const Opt& o, int layout, int idx) {
  Spec s;
  s.rt = rt;
  s.o = o;
  s.o.layout = layout;
  const bool nk = triangle_out(rt);
  const Shape sh = nk ? kShapesNK[idx % 9] : kShapesMN[idx % 9];
  if (nk)
    s.n = sh.a, s.k = sh.b;
  else
    s.m = sh.a, s.n = sh.b;
  // TRSM solves blocks of up to 128 rows by substitution: its 70 becomes 140, one GEMM between two blocks.
  if (rt == Rt::trsm) s.m = s.m == 70 ? 140 : s.m, s.n = s.n == 70 ? 140 : s.n;
  const int ncls = rt == Rt::trsm ? 4 : 3;
  s.cls = Cls((idx / 3) % ncls);
  if (s.cls == Cls::illcond && s.ka() > 33) s.cls = Cls::uniform;
  s.seed = std::uint64_t(1000 + idx);
  s.pad = idx % 3;
  set_alpha_beta(s, idx / 2, kCx<E>);
  return s;
}

// Every routine of E, every option combination, both layouts, every mode; shapes, classes, alpha/beta and padding
// rotate with the combination, layout and mode.
template <typename E>
void sweep(Rt only) {
  const std::vector<int> modes = modes_of<E>();
  int calls = 0, failures = 0;
  for (Rt rt : routines<E>()) {
    if (rt != only) continue;
    const std::vector<Opt> cs = combos(rt);
    for (std::size_t ci = 0; ci < cs.size(); ++ci)
      for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
        for (std::size_t mi = 0; mi < modes.size(); ++mi) {
          if (modes[mi] == BF16X_MODE_NATIVE && !host_blas()) continue;
          const int idx = int(ci * 5 + mi * 3 + (layout == BF16X_ROW_MAJOR ? 1 : 0) + ci / 4);
          Problem<E> p(sweep_spec<E>(rt, cs[ci], layout, idx));
          failures += run_and_check(p, modes[mi], "sweep") > 0;
          ++calls;
        }
  }
  std::printf("[ level3   ] %c%s: %d calls, %d failed%s\n", Traits<E>::p, rt_name(only), calls, failures,
              host_blas() ? "" : " (native skipped: no host BLAS)");
}

template <typename E>
class Level3 : public ::testing::Test {};
using Types = ::testing::Types<float, double, bf16x_complex_float, bf16x_complex_double>;
TYPED_TEST_SUITE(Level3, Types);

TYPED_TEST(Level3, SyrkEveryOptionAndMode) { sweep<TypeParam>(Rt::syrk); }
TYPED_TEST(Level3, Syr2kEveryOptionAndMode) { sweep<TypeParam>(Rt::syr2k); }
TYPED_TEST(Level3, SymmEveryOptionAndMode) { sweep<TypeParam>(Rt::symm); }
TYPED_TEST(Level3, TrmmEveryOptionAndMode) { sweep<TypeParam>(Rt::trmm); }
TYPED_TEST(Level3, TrsmEveryOptionAndMode) { sweep<TypeParam>(Rt::trsm); }
TYPED_TEST(Level3, GemmtEveryOptionAndMode) { sweep<TypeParam>(Rt::gemmt); }
TYPED_TEST(Level3, HermitianRoutinesEveryOptionAndMode) {
  if constexpr (kCx<TypeParam>) {
    sweep<TypeParam>(Rt::herk);
    sweep<TypeParam>(Rt::her2k);
    sweep<TypeParam>(Rt::hemm);
  } else {
    GTEST_SKIP() << "HERK, HER2K, HEMM exist for c and z only";
  }
}

// Shapes of 110-200 (complex) and 200 (real) across GEMMT's recursive halves and 64-blocks, TRMM's 64-row panels and
// TRSM's 128-row substitution blocks, each class, in one emulated mode per type (fp64x21 / fp32c8 / fp64c15 / fp32x6)
// and auto for double.
template <typename E>
void large_shapes() {
  const int mode = std::is_same_v<E, double>                 ? BF16X_MODE_FP64X21
                   : std::is_same_v<E, float>                ? BF16X_MODE_FP32C(8)
                   : std::is_same_v<E, bf16x_complex_double> ? BF16X_MODE_FP64C(15)
                                                             : BF16X_MODE_FP32X6;
  int q = 0;
  for (Rt rt : routines<E>()) {
    Spec s;
    s.rt = rt;
    s.seed = 77 + std::uint64_t(rt);
    const bool cx = kCx<E>;
    // Complex: smaller (4 real products per entry in the reference), but past TRSM's 128-row substitution blocks.
    const std::int64_t big = cx ? (rt == Rt::trsm ? 150 : 110) : 200;
    for (int variant = 0; variant < 2; ++variant, ++q) {
      s.o = combos(rt)[std::size_t((q * 5) % int(combos(rt).size()))];
      s.o.layout = variant ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
      if (triangle_out(rt)) {
        // SYR2K/HER2K: the pair's GEMMT of 2k (k < n / 4), then G + G^T at k = n / 4 (level3/operation.hpp).
        const bool two = rt == Rt::syr2k || rt == Rt::her2k;
        s.n = cx ? 110 : 200, s.k = two ? (variant ? (cx ? 28 : 50) : (cx ? 24 : 40)) : (cx ? 48 : 90);
      } else {  // A of order 140-210: left with m large, right with n large
        s.o.side = variant ? BF16X_RIGHT : BF16X_LEFT;
        s.m = variant ? 23 : big, s.n = variant ? big : 23;
      }
      s.cls = variant ? Cls::graded : (q % 2 ? Cls::sparse : Cls::uniform);
      s.pad = variant;
      set_alpha_beta(s, q + 1, cx);
      Problem<E> p(s);
      run_and_check(p, mode, "large");
      if (std::is_same_v<E, double> && variant == 0) {
        Problem<E> p2(s);
        run_and_check(p2, BF16X_MODE_AUTO, "large");
      }
    }
  }
}
TYPED_TEST(Level3, ShapesAcrossBlocks) { large_shapes<TypeParam>(); }

// alpha = 0: C = beta C0 on the stored triangle with A and B all NaN (not read), or NULL; beta = 0 too: zeros over
// NaN.
// TRMM/TRSM: B = 0 with A (and B) NaN. k = 0: C = beta C0. The products beta C0 here are exact (beta = 0.5, or
// 2i), so every mode must give them bit for bit; HERK/HER2K's diagonal comes out real.
template <typename E>
void alpha_zero() {
  for (int mode : modes_of<E>()) {
    if (mode == BF16X_MODE_NATIVE && !host_blas()) continue;
    for (Rt rt : routines<E>())
      for (int variant = 0; variant < 3; ++variant) {
        Spec s;
        s.rt = rt;
        s.o = combos(rt)[std::size_t(variant) % combos(rt).size()];
        s.o.layout = variant == 1 ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
        s.m = 7, s.n = 5, s.k = 6;
        s.alpha = 0;
        s.beta = variant == 0 ? cd(0) : (kCx<E> && !hermitian_out(rt) && variant == 2) ? cd(0, 2) : cd(0.5);
        s.nan_operands = variant != 2 || (rt == Rt::trmm || rt == Rt::trsm);
        s.nan_b = rt == Rt::trmm || rt == Rt::trsm;
        if (variant == 2 && triangle_out(rt)) s.k = 0, s.alpha = cd(kCx<E> && rt != Rt::herk ? cd(1, 1) : cd(1));
        Problem<E> p(s);
        const std::string what = p.s.str(Traits<E>::p) + " mode=" + bf16x_mode_name(mode);
        const std::vector<E> before = p.c;
        const bf16x_options o = options<E>(mode);
        // The BLAS does not read A (nor B, but for TRMM/TRSM) where alpha is 0 or k is 0: they may be NULL then.
        Args<E> args = p.args();
        if (variant == 0) {
          args.a = nullptr;
          if (rt != Rt::trmm && rt != Rt::trsm) args.b = nullptr;
        }
        ASSERT_EQ(call(args, &o), BF16X_OK) << what;
        for (std::int64_t j = 0; j < s.cols(); ++j)
          for (std::int64_t i = 0; i < s.rows(); ++i) {
            const std::size_t q = at(s.o.layout, i, j, p.ldc);
            if (!p.written(i, j)) {
              EXPECT_TRUE(same_bits(p.c[q], before[q])) << what << " (" << i << "," << j << ") outside the triangle";
              continue;
            }
            cd want = 0;
            if (has_beta(rt) && s.beta != 0.0)
              want = s.beta * (hermitian_out(rt) && i == j ? cd(p.c0(i, j).real()) : p.c0(i, j));
            const cd got = to_cd(p.c[q]);
            EXPECT_TRUE(got == want) << what << " (" << i << "," << j << ") = " << num(got) << ", want " << num(want);
          }
      }
  }
}
TYPED_TEST(Level3, AlphaZeroScalesByBetaWithoutReadingA) { alpha_zero<TypeParam>(); }

// HEMM: NaN in the imaginary parts of A's diagonal (not read), every mode, both sides and triangles.
TYPED_TEST(Level3, HemmIgnoresTheImaginaryPartsOfTheDiagonal) {
  using E = TypeParam;
  if constexpr (!kCx<E>) {
    GTEST_SKIP() << "HEMM exists for c and z only";
  } else {
    int idx = 0;
    for (int mode : modes_of<E>()) {
      if (mode == BF16X_MODE_NATIVE && !host_blas()) continue;
      for (const Opt& o : combos(Rt::hemm)) {
        Spec s;
        s.rt = Rt::hemm;
        s.o = o;
        s.o.layout = idx % 2 ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
        s.m = 9, s.n = 6;
        s.alpha = {0.75, -1.25};
        s.beta = {-0.5, 0.25};
        s.seed = std::uint64_t(300 + idx++);
        s.hemm_diag_nan = true;
        Problem<E> p(s);
        run_and_check(p, mode, "hemm-diag-NaN");
      }
    }
  }
}

// TRSM of a narrow B (at most 8 columns on the left side) in the slice and CRT modes: the updates run on the FMA
// units in the substitution's order (level3::trsm, fma_updates), so X is the plain substitution's, bit for bit: each
// entry alpha b_i, then its products op(A)_ic x_c subtracted one by one (ascending c where the left-side op(A) is
// lower, descending where upper), then divided by the diagonal; a multiply and a subtraction, never contracted.
// Written here as that element loop, against every option, side, layout, unit or not, rows across 1-3 levels of the
// 128-row blocks, 1-8 columns, 1-3 threads. (Complex types: the same path, held to the bound by the sweep.)
TYPED_TEST(Level3, NarrowTrsmIsThePlainSubstitution) {
  using E = TypeParam;
  if constexpr (kCx<E>) {
    GTEST_SKIP() << "the element loop's complex arithmetic is element.hpp's own; the sweep bounds complex TRSM";
  } else {
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> u(-1, 1);
    int idx = 0, checked = 0;
    for (const int mode : {modes_of<E>()[0], modes_of<E>()[1]})
      for (const auto& [order, n] : {std::pair<std::int64_t, std::int64_t>{129, 1}, {300, 3}, {517, 8}, {140, 5}})
        for (const int side : {BF16X_LEFT, BF16X_RIGHT})
          for (const int uplo : {BF16X_LOWER, BF16X_UPPER})
            for (const int trans : {BF16X_NO_TRANS, BF16X_TRANS}) {
              const int layout = idx % 2 ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
              const int diag = idx % 3 ? BF16X_NON_UNIT : BF16X_UNIT;
              const int threads = 1 + idx % 3;
              const E alpha = E(idx % 4 ? -0.75 : 1.0);
              ++idx;
              // op(A) order x order (well conditioned: the diagonal 2..3, the rest small), B rows x cols as stored
              const std::int64_t m = side == BF16X_LEFT ? order : n, cols = side == BF16X_LEFT ? n : order;
              const std::int64_t lda = order + 3, ldb = (layout == BF16X_COL_MAJOR ? m : cols) + 2;
              std::vector<E> a(std::size_t(lda * order)), b(std::size_t(ldb * (layout == BF16X_COL_MAJOR ? cols : m)));
              for (E& v : a) v = E(u(rng) / double(order));
              for (std::int64_t i = 0; i < order; ++i) a[std::size_t(i * lda + i)] = E(2.5 + u(rng) / 2);
              for (E& v : b) v = E(u(rng));
              const auto A = [&](std::int64_t i, std::int64_t j) {  // as stored, in the layout
                return a[std::size_t(layout == BF16X_COL_MAJOR ? i + j * lda : i * lda + j)];
              };
              const auto bq = [&](std::int64_t i, std::int64_t j) {
                return std::size_t(layout == BF16X_COL_MAJOR ? i + j * ldb : i * ldb + j);
              };
              // The left-side problem T x = alpha y for each column of Y: T = op(A) (left) or op(A)^T (right), Y = B
              // or B^T; T(i, c) zero outside its triangle, T lower where the stored triangle is, transposed or not.
              const auto opa = [&](std::int64_t i, std::int64_t j) {
                return trans == BF16X_NO_TRANS ? A(i, j) : A(j, i);
              };
              const auto T = [&](std::int64_t i, std::int64_t c) { return side == BF16X_LEFT ? opa(i, c) : opa(c, i); };
              const bool lower = (uplo == BF16X_LOWER) == (trans == BF16X_NO_TRANS) == (side == BF16X_LEFT);
              std::vector<E> want = b;
              for (std::int64_t j = 0; j < (side == BF16X_LEFT ? cols : m); ++j) {
                const auto y = [&](std::int64_t i) -> E& { return want[side == BF16X_LEFT ? bq(i, j) : bq(j, i)]; };
                for (std::int64_t q = 0; q < order; ++q) {
                  const std::int64_t i = lower ? q : order - 1 - q;
                  volatile E x = alpha == E(1) ? y(i) : E(alpha * y(i));
                  for (std::int64_t p = 0; p < q; ++p) {
                    const std::int64_t c = lower ? p : order - 1 - p;
                    volatile E prod = T(i, c) * y(c);  // no contraction: the product, then the subtraction
                    x = x - prod;
                  }
                  y(i) = diag == BF16X_UNIT ? E(x) : E(x / T(i, i));
                }
              }
              ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
              const bf16x_options o = options<E>(mode);
              ASSERT_EQ(Api<E>::trsm(bf16x_layout(layout), bf16x_side(side), bf16x_uplo(uplo), bf16x_transpose(trans),
                                     bf16x_diag(diag), m, cols, alpha, a.data(), lda, b.data(), ldb, &o),
                        BF16X_OK);
              bf16x_set_num_threads(0);
              std::int64_t wrong = 0;
              for (std::size_t q = 0; q < b.size(); ++q) wrong += !same_bits(b[q], want[q]);
              EXPECT_EQ(wrong, 0) << bf16x_mode_name(mode) << " " << m << " x " << cols << " side " << side << " uplo "
                                  << uplo << " trans " << trans << " diag " << diag << " layout " << layout
                                  << " threads " << threads;
              ++checked;
            }
    std::printf("[ level3   ] %c: %d narrow TRSMs against the element loop\n", Traits<E>::p, checked);
  }
}

// Real SYRK and SYR2K take CONJ_TRANS as TRANS (BLAS: 'C' is 'T' for real matrices): the same bits.
TYPED_TEST(Level3, RealSyrkTakesConjTransAsTrans) {
  using E = TypeParam;
  if constexpr (kCx<E>) {
    GTEST_SKIP() << "complex SYRK/SYR2K refuse CONJ_TRANS (ArgumentErrors)";
  } else {
    for (Rt rt : {Rt::syrk, Rt::syr2k})
      for (int mode : {modes_of<E>()[0], modes_of<E>()[2]}) {
        Spec s;
        s.rt = rt;
        s.n = 11, s.k = 7;
        s.o.ta = BF16X_TRANS;
        s.alpha = -0.75, s.beta = 0.5;
        Problem<E> p(s), q(s);
        const bf16x_options o = options<E>(mode);
        ASSERT_EQ(call(p.args(), &o), BF16X_OK);
        Args<E> x = q.args();
        x.ta = BF16X_CONJ_TRANS;
        ASSERT_EQ(call(x, &o), BF16X_OK) << rt_name(rt) << " CONJ_TRANS";
        for (std::size_t i = 0; i < p.c.size(); ++i)
          ASSERT_TRUE(same_bits(p.c[i], q.c[i])) << rt_name(rt) << " element " << i;
      }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Argument errors: each invalid argument returns its status and leaves C (B) untouched, bit for bit.

template <typename E>
void argument_errors() {
  const int wrong_mode = kDbl<E> ? BF16X_MODE_FP32X6 : BF16X_MODE_FP64X21;
  for (Rt rt : routines<E>())
    for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
      Spec s;
      s.rt = rt;
      s.o = combos(rt)[combos(rt).size() - 1];  // a transposing combination where there is one
      s.o.layout = layout;
      s.m = 5, s.n = 4, s.k = 3;
      s.alpha = kCx<E> && rt != Rt::herk ? cd(0.5, 1) : cd(0.5);
      s.beta = 0.5;
      Problem<E> p(s);
      struct Bad {
        const char* name;
        std::function<void(Args<E>&)> change;
        int status;
      };
      std::vector<Bad> bad;
      const bool side = rt == Rt::symm || rt == Rt::hemm || rt == Rt::trmm || rt == Rt::trsm;
      const bool tri = rt == Rt::trmm || rt == Rt::trsm;
      bad.push_back({"layout 0", [](Args<E>& x) { x.layout = 0; }, BF16X_ERR_LAYOUT});
      bad.push_back({"uplo 0", [](Args<E>& x) { x.uplo = 0; }, BF16X_ERR_UPLO});
      bad.push_back({"uplo 123", [](Args<E>& x) { x.uplo = 123; }, BF16X_ERR_UPLO});
      if (side) bad.push_back({"side 0", [](Args<E>& x) { x.side = 0; }, BF16X_ERR_SIDE});
      if (side) bad.push_back({"side 143", [](Args<E>& x) { x.side = 143; }, BF16X_ERR_SIDE});
      if (tri) bad.push_back({"diag 0", [](Args<E>& x) { x.diag = 0; }, BF16X_ERR_DIAG});
      if (tri) bad.push_back({"diag 133", [](Args<E>& x) { x.diag = 133; }, BF16X_ERR_DIAG});
      if (rt != Rt::symm && rt != Rt::hemm) {
        bad.push_back({"trans 0", [](Args<E>& x) { x.ta = 0; }, BF16X_ERR_TRANS_A});
        bad.push_back({"trans 114", [](Args<E>& x) { x.ta = 114; }, BF16X_ERR_TRANS_A});
      }
      if (rt == Rt::gemmt) bad.push_back({"transb 0", [](Args<E>& x) { x.tb = 0; }, BF16X_ERR_TRANS_B});
      if (hermitian_out(rt))
        bad.push_back({"TRANS for HERK/HER2K", [](Args<E>& x) { x.ta = BF16X_TRANS; }, BF16X_ERR_TRANS_A});
      if (kCx<E> && (rt == Rt::syrk || rt == Rt::syr2k))
        bad.push_back(
            {"CONJ_TRANS for complex SYRK/SYR2K", [](Args<E>& x) { x.ta = BF16X_CONJ_TRANS; }, BF16X_ERR_TRANS_A});
      if (triangle_out(rt)) {
        bad.push_back({"n -1", [](Args<E>& x) { x.n = -1; }, BF16X_ERR_N});
        bad.push_back({"k -1", [](Args<E>& x) { x.k = -1; }, BF16X_ERR_K});
      } else {
        bad.push_back({"m -1", [](Args<E>& x) { x.m = -1; }, BF16X_ERR_M});
        bad.push_back({"n -1", [](Args<E>& x) { x.n = -1; }, BF16X_ERR_N});
      }
      // Leading dimensions one below the least (every stored matrix here has at least 2 rows and columns).
      bad.push_back({"lda - 1", [&](Args<E>& x) { x.lda = p.lda - s.pad - 1; }, BF16X_ERR_LDA});
      if (rt == Rt::syr2k || rt == Rt::her2k || rt == Rt::symm || rt == Rt::hemm || rt == Rt::gemmt)
        bad.push_back({"ldb - 1", [&](Args<E>& x) { x.ldb = p.ldb - s.pad - 1; }, BF16X_ERR_LDB});
      bad.push_back({tri ? "ldb - 1 (B)" : "ldc - 1", [&](Args<E>& x) { x.ldc = p.ldc - s.pad - 1; },
                     tri ? BF16X_ERR_LDB : BF16X_ERR_LDC});
      bad.push_back({"A NULL", [](Args<E>& x) { x.a = nullptr; }, BF16X_ERR_NULL});
      bad.push_back({"C NULL", [](Args<E>& x) { x.c = nullptr; }, BF16X_ERR_NULL});
      for (const Bad& b : bad)
        for (int mode : {modes_of<E>()[0], wrong_mode}) {
          const std::vector<E> before = p.c;
          Args<E> x = p.args();
          b.change(x);
          const bf16x_options o = options<E>(mode);
          const int st = call(x, &o);
          const std::string what = p.s.str(Traits<E>::p) + ": " + b.name;
          if (mode == wrong_mode) {
            // Both wrong: either status is right; here only that it fails and leaves C as it was.
            EXPECT_NE(st, BF16X_OK) << what << " with a mode of the other precision";
          } else {
            EXPECT_EQ(st, b.status) << what << ": " << bf16x_status_string(st);
          }
          for (std::size_t i = 0; i < before.size(); ++i)
            if (!same_bits(before[i], p.c[i])) {
              ADD_FAILURE() << what << ": element " << i << " of C changed";
              break;
            }
        }
      // The mode of the other precision alone.
      const std::vector<E> before = p.c;
      const bf16x_options o = options<E>(wrong_mode);
      EXPECT_EQ(call(p.args(), &o), BF16X_ERR_MODE) << p.s.str(Traits<E>::p) << ": mode of the other precision";
      for (std::size_t i = 0; i < before.size(); ++i) ASSERT_TRUE(same_bits(before[i], p.c[i]));
    }
}
TYPED_TEST(Level3, ArgumentErrorsLeaveTheOutputUntouched) { argument_errors<TypeParam>(); }

// n = 0 (m = 0): nothing to do, OK, nothing written.
TYPED_TEST(Level3, EmptySizesAreQuickReturns) {
  using E = TypeParam;
  for (Rt rt : routines<E>()) {
    Spec s;
    s.rt = rt;
    s.m = 3, s.n = 3, s.k = 3, s.alpha = 1, s.beta = 0.5;
    Problem<E> p(s);
    const std::vector<E> before = p.c;
    Args<E> x = p.args();
    x.n = 0;
    const bf16x_options o = options<E>(modes_of<E>()[0]);
    EXPECT_EQ(call(x, &o), BF16X_OK) << rt_name(rt);
    if (!triangle_out(rt)) {
      x = p.args();
      x.m = 0;
      EXPECT_EQ(call(x, &o), BF16X_OK) << rt_name(rt) << " m = 0";
    }
    for (std::size_t i = 0; i < before.size(); ++i) ASSERT_TRUE(same_bits(before[i], p.c[i])) << rt_name(rt);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reproducibility: the same bits on every engine of the mode's kind that runs here, 1-4 threads, both layouts.

std::vector<int> engines_for(int mode) {
  const bool crt = (mode >= BF16X_MODE_FP64C_BASE);
  const std::vector<int> all = crt ? std::vector<int>{BF16X_ENGINE_AVX512VNNI, BF16X_ENGINE_AVX2_INT8, BF16X_ENGINE_AMX,
                                                      BF16X_ENGINE_REFERENCE, BF16X_ENGINE_AMX_MODEL}
                                   : std::vector<int>{BF16X_ENGINE_AVX512BF16, BF16X_ENGINE_AVX2, BF16X_ENGINE_AMX,
                                                      BF16X_ENGINE_REFERENCE, BF16X_ENGINE_AMX_MODEL};
  std::vector<int> v;
  for (int e : all) {
    if (!bf16x_engine_available(e)) continue;
    // The AMX hardware rounds fp32x6's FP32 sums in its own order (docs/numerics.md, "Reproducibility").
    if (mode == BF16X_MODE_FP32X6 && e == BF16X_ENGINE_AMX) continue;
    v.push_back(e);
  }
  return v;
}
// The scalar engines (reference, the tile model) run the slice and CRT products at about 10 ns each.
bool slow_engine(int mode, int e) {
  return kind_of(mode) != Kind::cr && (e == BF16X_ENGINE_REFERENCE || e == BF16X_ENGINE_AMX_MODEL);
}

template <typename E>
std::vector<int> repro_modes() {
  if constexpr (kDbl<E>)
    return {BF16X_MODE_FP64X21, BF16X_MODE_FP64C(15), BF16X_MODE_FP64CR};
  else
    return {BF16X_MODE_FP32X6, BF16X_MODE_FP32C(8), BF16X_MODE_FP32CR};
}

// The written entries, in the mathematical order, of spec s (its layout replaced) run on (mode, engine, threads);
// *guard: the strongest guard step of the call's GEMMs (stats.guard).
template <typename E>
std::vector<E> run_config(Spec s, int layout, int mode, int engine, int threads, int* status, int* guard = nullptr,
                          int guard_option = BF16X_GUARD_DEFAULT) {
  s.o.layout = layout;
  Problem<E> p(s);
  bf16x_set_num_threads(threads);
  bf16x_options o = options<E>(mode, engine);
  o.guard = guard_option;
  bf16x_stats st;
  bf16x_stats_init(&st);
  o.stats = &st;
  *status = call(p.args(), &o);
  bf16x_set_num_threads(0);
  if (guard) *guard = st.guard;
  std::vector<E> v;
  for (std::int64_t j = 0; j < s.cols(); ++j)
    for (std::int64_t i = 0; i < s.rows(); ++i)
      if (p.written(i, j)) v.push_back(p.out_e(i, j));
  return v;
}

// The problems of the reproducibility tests: a small graded one (every engine, the scalar ones too) and one across
// the 64-blocks and panels (the vector engines); layouts: a sparse one too.
template <typename E>
std::vector<Spec> repro_specs(Rt rt, int mode, bool layouts) {
  std::vector<Spec> v;
  const std::vector<Opt> cs = combos(rt);
  const bool cx = kCx<E>;
  for (int q = 0; q < (layouts ? 3 : 2); ++q) {
    Spec s;
    s.rt = rt;
    s.o = cs[std::size_t((int(rt) * 3 + q * 5 + mode) % int(cs.size()))];
    s.seed = 500 + std::uint64_t(rt) * 10 + std::uint64_t(q);
    s.cls = q == 0 ? Cls::graded : q == 1 ? Cls::uniform : Cls::sparse;
    s.pad = 1;
    set_alpha_beta(s, 2 + q, cx);
    const bool big = q == 1;
    if (triangle_out(rt))
      s.n = big ? (cx ? 72 : 96) : (cx ? 13 : 19), s.k = big ? (cx ? 20 : 40) : (cx ? 11 : 23);
    else
      s.m = big ? (cx ? 72 : 96) : (cx ? 13 : 19), s.n = big ? (cx ? 12 : 20) : (cx ? 7 : 13);
    // TRSM: past its 128-row substitution blocks (a GEMM between them), and B's columns in two tasks of the
    // substitution's team (64 columns each) for real types.
    if (rt == Rt::trsm && big) s.m = cx ? 136 : 160, s.n = cx ? 12 : 70;
    v.push_back(s);
  }
  return v;
}

template <typename E>
void report_difference(const Spec& s, int mode, const std::vector<E>& got, const std::vector<E>& want,
                       const std::string& got_on, const std::string& want_on) {
  for (std::size_t q = 0; q < got.size(); ++q)
    if (!same_bits(got[q], want[q])) {
      ADD_FAILURE() << s.str(Traits<E>::p) << " mode=" << bf16x_mode_name(mode) << ": written entry " << q
                    << " (column by column) on " << got_on << " is " << num(to_cd(got[q])) << ", on " << want_on << " "
                    << num(to_cd(want[q]));
      return;
    }
}

// Every engine of the mode's kind that runs here, 1-4 threads: the bits of the first engine's one-thread call.
template <typename E>
void engines_and_threads(bool trsm_only) {
  for (int mode : repro_modes<E>()) {
    const std::vector<int> engines = engines_for(mode);
    std::string names;
    for (int e : engines) names += std::string(" ") + bf16x_engine_name(e);
    int calls = 0;
    for (Rt rt : routines<E>()) {
      if (trsm_only != (rt == Rt::trsm)) continue;
      for (const Spec& s : repro_specs<E>(rt, mode, false)) {
        const bool big = s.cls == Cls::uniform;
        int st = 0;
        const std::vector<E> want = run_config<E>(s, BF16X_COL_MAJOR, mode, engines.front(), 1, &st);
        ASSERT_EQ(st, BF16X_OK) << s.str(Traits<E>::p) << " " << bf16x_mode_name(mode);
        for (int e : engines) {
          const bool slow = slow_engine(mode, e);
          if (slow && big) continue;  // the scalar engines take the small problem only, at 1 and 3 threads
          for (int t = 1; t <= 4; ++t) {
            if ((e == engines.front() && t == 1) || (slow && t != 1 && t != 3)) continue;
            const std::vector<E> got = run_config<E>(s, BF16X_COL_MAJOR, mode, e, t, &st);
            ++calls;
            ASSERT_EQ(st, BF16X_OK) << bf16x_engine_name(e);
            report_difference(s, mode, got, want,
                              std::string(bf16x_engine_name(e)) + ", " + std::to_string(t) + " threads",
                              std::string(bf16x_engine_name(engines.front())) + ", 1 thread");
          }
        }
      }
    }
    std::printf("[ repro    ] %c %-8s %d calls on%s%s\n", Traits<E>::p, bf16x_mode_name(mode), calls, names.c_str(),
                trsm_only ? " (TRSM)" : "");
    if (engines.size() < 2)
      std::printf("[ repro    ] only one engine of the kind of %s runs here: thread counts only\n",
                  bf16x_mode_name(mode));
  }
  std::fflush(stdout);
}
TYPED_TEST(Level3, SameBitsOnEveryEngineAndThreadCount) { engines_and_threads<TypeParam>(false); }
TYPED_TEST(Level3, TrsmSameBitsOnEveryEngineAndThreadCount) { engines_and_threads<TypeParam>(true); }

// The same mathematical problem stored column-major and row-major: the same bits (1 and 2 threads), also where
// the guard sent a GEMM to the host (stats.guard = native: graded inputs, and GEMMs under 8192 multiply-adds that
// the envelope does not prove): such a real GEMM runs column-major in both layouts, and a complex call's real GEMMs
// are column-major (docs/numerics.md, "Layouts and reproducibility"). The guarded modes run once more with the guard
// off (every GEMM emulated).
template <typename E>
void layouts() {
  for (int mode : repro_modes<E>())
    for (int guard : {BF16X_GUARD_DEFAULT, BF16X_GUARD_OFF}) {
      if (guard == BF16X_GUARD_OFF && kind_of(mode) != Kind::guarded) continue;
      int compared = 0, host = 0;
      for (Rt rt : routines<E>())
        for (const Spec& s : repro_specs<E>(rt, mode, true))
          for (int t : {1, 2}) {
            int st = 0, g1 = 0, g2 = 0;
            const std::vector<E> col = run_config<E>(s, BF16X_COL_MAJOR, mode, BF16X_ENGINE_AUTO, t, &st, &g1, guard);
            ASSERT_EQ(st, BF16X_OK);
            const std::vector<E> row = run_config<E>(s, BF16X_ROW_MAJOR, mode, BF16X_ENGINE_AUTO, t, &st, &g2, guard);
            ASSERT_EQ(st, BF16X_OK);
            host += g1 == BF16X_GUARD_NATIVE || g2 == BF16X_GUARD_NATIVE;
            ++compared;
            report_difference(s, mode, row, col,
                              "row-major, " + std::to_string(t) + " threads" + (guard ? ", guard off" : ""),
                              "column-major");
          }
      std::printf("[ layouts  ] %c %-8s%s %d problems compared, %d of them with a GEMM the guard ran on the host\n",
                  Traits<E>::p, bf16x_mode_name(mode), guard ? " guard off:" : ":", compared, host);
    }
  std::fflush(stdout);
}
TYPED_TEST(Level3, SameBitsInBothLayouts) { layouts<TypeParam>(); }

// The micro-tiles of one call (stats.micro_tiles) with the guard off, 1 thread: SYRK (lower, no transpose) of n x k
// A, and the GEMM A A^T of the same shape.
template <typename E>
std::pair<std::uint64_t, std::uint64_t> syrk_and_gemm_tiles(int mode, std::int64_t n, std::int64_t k) {
  Spec s;
  s.rt = Rt::syrk, s.n = n, s.k = k, s.o.uplo = BF16X_LOWER, s.seed = 9;
  Problem<E> p(s);
  bf16x_options o = options<E>(mode);
  o.guard = BF16X_GUARD_OFF;
  bf16x_stats st;
  bf16x_stats_init(&st);
  o.stats = &st;
  bf16x_set_num_threads(1);
  EXPECT_EQ(call(p.args(), &o), BF16X_OK);
  const std::uint64_t syrk = st.micro_tiles;
  std::vector<E> c(std::size_t(n * n));
  const auto run = [&](auto gemm, E one, E zero) {
    return gemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, n, n, k, one, p.a.data(), p.lda, p.a.data(), p.lda, zero,
                c.data(), n, &o);
  };
  int rc;
  if constexpr (std::is_same_v<E, bf16x_complex_double>)
    rc = run(bf16x_zgemm_ex, {1, 0}, {0, 0});
  else if constexpr (std::is_same_v<E, bf16x_complex_float>)
    rc = run(bf16x_cgemm_ex, {1, 0}, {0, 0});
  else if constexpr (kDbl<E>)
    rc = run(bf16x_dgemm_ex, 1, 0);
  else
    rc = run(bf16x_sgemm_ex, 1, 0);
  EXPECT_EQ(rc, BF16X_OK);
  bf16x_set_num_threads(0);
  return {syrk, st.micro_tiles};
}

// SYRK, SYR2K and GEMMT in the CRT, slice and correctly rounded modes run as one triangular GEMM (method::Row::parts:
// the operands scaled and packed once, only the tiles that hold stored entries multiplied and written). n = 300 spans
// several blocks at 2-4 threads (the CRT blocking halves with the threads; n = 150 for the correctly rounded modes):
// both triangles, layouts, transposes and input classes, each entry within the guard's bound of the exact product and
// the other triangle untouched (run_and_check), and the same bits at 1-4 threads. Graded inputs, which the guard may
// hand to the host, and NaN inputs decline the one call: the recursion of whole GEMMs runs then, with the same checks.
// And the count that shows the one call: at n = 320 (10 x 10 tiles of 32) SYRK multiplies the 55 tiles of the lower
// triangle, GEMM all 100 (for each k-block, modulus or product group alike); fp64cr's smaller tiles (at most 16 a side)
// give a share below that. The recursion of whole GEMMs, its 64 x 64 diagonal blocks whole, would multiply 0.6 of
// GEMM's. The complex routines (HERK, HER2K's pair, SYRK, SYR2K's pair, GEMMT with a real alpha and beta) run as two
// real ones, one per part of C's triangle (level3::complex_triangle): the same share of the complex GEMM's 4M tiles.
template <typename E>
void triangle_in_one_call() {
  for (const int mode : kDbl<E> ? std::vector<int>{BF16X_MODE_FP64C(15), BF16X_MODE_FP64X21, BF16X_MODE_FP64CR}
                                : std::vector<int>{BF16X_MODE_FP32C(8), BF16X_MODE_FP32X6, BF16X_MODE_FP32CR}) {
    const auto [syrk, gemm] = syrk_and_gemm_tiles<E>(mode, 320, 64);
    if (kind_of(mode) == Kind::cr)
      EXPECT_LE(syrk * 100, gemm * 55) << bf16x_mode_name(mode) << ": SYRK " << syrk << " tiles, GEMM " << gemm;
    else
      EXPECT_EQ(syrk * 100, gemm * 55) << bf16x_mode_name(mode) << ": SYRK " << syrk << " micro-tiles, GEMM " << gemm;
    int q = 0, checked = 0;
    const std::vector<Rt> routines = kCx<E> ? std::vector<Rt>{Rt::syrk, Rt::herk, Rt::syr2k, Rt::her2k, Rt::gemmt}
                                            : std::vector<Rt>{Rt::syrk, Rt::syr2k, Rt::gemmt};
    for (Rt rt : routines)
      for (const Opt& o : combos(rt)) {
        if (q++ % 2) continue;  // every other option combination, both triangles among them
        for (Cls cls : {Cls::uniform, Cls::sparse, Cls::graded}) {
          Spec s;
          s.rt = rt, s.o = o, s.cls = cls;
          s.o.layout = (q / 2) % 2 ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
          // (the correctly rounded modes' exact reference per entry is slower: a smaller problem, still over
          // several of their work items and past the 64-row diagonal blocks)
          const bool cr = kind_of(mode) == Kind::cr;
          const bool pair = rt == Rt::syr2k || rt == Rt::her2k;
          s.n = (cr ? 150 : 300) / (kCx<E> ? 2 : 1), s.k = (pair ? 37 : 70) / (cr ? 2 : 1);
          s.seed = 4000 + std::uint64_t(q) * 3 + std::uint64_t(cls);
          s.pad = q % 3;
          set_alpha_beta(s, q, false);
          Problem<E> p(s);
          run_and_check(p, mode, "one call");
          ++checked;
          int st = 0;
          const std::vector<E> want = run_config<E>(s, s.o.layout, mode, BF16X_ENGINE_AUTO, 1, &st);
          ASSERT_EQ(st, BF16X_OK);
          for (int t = 2; t <= 4; ++t) {
            const std::vector<E> got = run_config<E>(s, s.o.layout, mode, BF16X_ENGINE_AUTO, t, &st);
            ASSERT_EQ(st, BF16X_OK);
            report_difference(s, mode, got, want, std::to_string(t) + " threads", "1 thread");
          }
        }
      }
    std::printf("[ triangle ] %c %-8s SYRK %llu micro-tiles against GEMM's %llu; %d problems checked\n", Traits<E>::p,
                bf16x_mode_name(mode), static_cast<unsigned long long>(syrk), static_cast<unsigned long long>(gemm),
                checked);
  }
}
TYPED_TEST(Level3, TriangleInOneCall) { triangle_in_one_call<TypeParam>(); }

}  // namespace
}  // namespace bf16x::test
