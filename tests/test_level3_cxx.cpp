// The level-3 wrappers of bf16x.hpp (bf16x::syrk, herk, syr2k, her2k, symm, hemm, trmm, trsm, gemmt, overloaded by
// element type): each called once on a small problem and checked entry by entry against a naive triple loop in long
// double, the triangle that is not stored left as it was, and a bad argument as bf16x::Error. (Its own file, as
// test_complex_cxx.cpp: bf16x.hpp's bf16x::check() and the check/ library's namespace cannot meet.)
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "bf16x/bf16x.hpp"

namespace {

using bf16x::Diag;
using bf16x::Layout;
using bf16x::Mode;
using bf16x::Op;
using bf16x::Side;
using bf16x::Uplo;
using LC = std::complex<long double>;
using I = std::int64_t;

template <typename T>
constexpr bool is_complex = !std::is_floating_point_v<T>;

// An element from its parts (the imaginary part dropped for a real T): few significant bits, so that every mode
// computes these small products exactly or nearly so.
template <typename T>
T val(double re, double im) {
  if constexpr (is_complex<T>)
    return T(typename T::value_type(re), typename T::value_type(im));
  else
    return T(re);
}
template <typename T>
std::vector<T> matrix(I rows, I cols, int seed) {
  std::vector<T> x(std::size_t(rows * cols));
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = val<T>(0.25 * double((i * 7 + seed) % 9) - 1, 0.5 - 0.125 * double((i * 5 + seed) % 7));
  return x;
}
template <typename T>
Mode mode_of() {
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? Mode::fp32x6 : Mode::fp64x21;
}
template <typename T>
long double tol() {
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? 1e-5L : 1e-13L;
}

// Entry (i, j) of a matrix stored column-major (or row-major) at leading dimension ld.
template <typename T>
LC at(const std::vector<T>& x, I ld, I i, I j, bool row = false) {
  return LC(x[std::size_t(row ? i * ld + j : i + j * ld)]);
}
bool in_triangle(Uplo u, I i, I j) { return u == Uplo::upper ? i <= j : i >= j; }

// `got` (n x n at ldc) against `ref` on uplo's triangle, and unchanged (== before) on the other.
template <typename T>
void expect_triangle(const std::vector<T>& got, const std::vector<T>& before, const std::vector<LC>& ref, I n, I ldc,
                     Uplo uplo, bool row = false) {
  for (I j = 0; j < n; ++j)
    for (I i = 0; i < n; ++i) {
      const LC g = at(got, ldc, i, j, row);
      if (in_triangle(uplo, i, j))
        EXPECT_LE(std::abs(g - ref[std::size_t(i + j * n)]), tol<T>() * (1 + std::abs(ref[std::size_t(i + j * n)])))
            << i << "," << j;
      else
        EXPECT_EQ(g, at(before, ldc, i, j, row)) << "not stored, written: " << i << "," << j;
    }
}

// The n x n reference alpha sum_l term(i, j, l) + beta C0_ij, column-major at n (C0 stored at ldc, row-major with
// `row`).
template <typename T, typename Term>
std::vector<LC> reference(I n, I k, LC alpha, LC beta, const std::vector<T>& c0, I ldc, bool row, Term term) {
  std::vector<LC> ref(std::size_t(n * n));
  for (I j = 0; j < n; ++j)
    for (I i = 0; i < n; ++i) {
      LC s = 0;
      for (I l = 0; l < k; ++l) s += term(i, j, l);
      ref[std::size_t(i + j * n)] = alpha * s + beta * at(c0, ldc, i, j, row);
    }
  return ref;
}

template <typename T>
void syrk_case() {
  const I n = 3, k = 4, lda = n + 1, ldc = n + 2;
  const auto a = matrix<T>(lda, k, 1);
  const auto c0 = matrix<T>(ldc, n, 2);
  auto c = c0;
  const T alpha = val<T>(2, 0.5), beta = val<T>(0.5, -1);
  bf16x::syrk(Layout::col_major, Uplo::lower, Op::none, n, k, alpha, a.data(), lda, beta, c.data(), ldc, mode_of<T>());
  const auto ref = reference(n, k, LC(alpha), LC(beta), c0, ldc, false,
                             [&](I i, I j, I l) { return at(a, lda, i, l) * at(a, lda, j, l); });
  expect_triangle(c, c0, ref, n, ldc, Uplo::lower);
}

TEST(Level3Cxx, SyrkOverloadedByElementType) {
  syrk_case<float>();
  syrk_case<double>();
  syrk_case<std::complex<float>>();
  syrk_case<std::complex<double>>();
}

TEST(Level3Cxx, HerkRealScalarsRealDiagonal) {
  using T = std::complex<double>;
  const I n = 3, k = 2;
  const auto a = matrix<T>(k, n, 3);  // op(A) = A^H: A is k x n
  const auto c0 = matrix<T>(n, n, 4);
  auto c = c0;
  bf16x::herk(Layout::col_major, Uplo::upper, Op::conj_trans, n, k, 1.5, a.data(), k, 0.5, c.data(), n, Mode::fp64x21);
  auto ref = reference(n, k, 1.5L, 0.5L, c0, n, false,
                       [&](I i, I j, I l) { return std::conj(at(a, k, l, i)) * at(a, k, l, j); });
  for (I i = 0; i < n; ++i) ref[std::size_t(i + i * n)].imag(0);  // HERK sets the diagonal's imaginary parts to 0
  expect_triangle(c, c0, ref, n, n, Uplo::upper);
  for (I i = 0; i < n; ++i) EXPECT_EQ(c[std::size_t(i + i * n)].imag(), 0.0) << i;
}

TEST(Level3Cxx, Syr2kRowMajorTransposed) {
  using T = float;
  const I n = 4, k = 3;  // op(A) = A^T: A and B are k x n, row-major
  const auto a = matrix<T>(k, n, 5), b = matrix<T>(k, n, 6), c0 = matrix<T>(n, n, 7);
  auto c = c0;
  bf16x::syr2k(Layout::row_major, Uplo::upper, Op::trans, n, k, 0.75, a.data(), n, b.data(), n, 2.0, c.data(), n,
               Mode::fp32x6);
  const auto ref = reference(n, k, 0.75L, 2.0L, c0, n, true, [&](I i, I j, I l) {
    return at(a, n, l, i, true) * at(b, n, l, j, true) + at(b, n, l, i, true) * at(a, n, l, j, true);
  });
  expect_triangle(c, c0, ref, n, n, Uplo::upper, true);
}

TEST(Level3Cxx, Her2kComplexAlphaRealBeta) {
  using T = std::complex<float>;
  const I n = 3, k = 4;
  const auto a = matrix<T>(n, k, 8), b = matrix<T>(n, k, 9), c0 = matrix<T>(n, n, 10);
  auto c = c0;
  const T alpha(1, -0.5f);
  bf16x::her2k(Layout::col_major, Uplo::lower, Op::none, n, k, alpha, a.data(), n, b.data(), n, 0.25, c.data(), n,
               Mode::fp32x6);
  auto ref = reference(n, k, 1.0L, 0.25L, c0, n, false, [&](I i, I j, I l) {
    return LC(alpha) * at(a, n, i, l) * std::conj(at(b, n, j, l)) +
           std::conj(LC(alpha)) * at(b, n, i, l) * std::conj(at(a, n, j, l));
  });
  for (I i = 0; i < n; ++i) ref[std::size_t(i + i * n)].imag(0);
  expect_triangle(c, c0, ref, n, n, Uplo::lower);
}

// The symmetric (Hermitian) A of symm (hemm) from its stored triangle only.
template <typename T>
LC sym_at(const std::vector<T>& a, I lda, Uplo uplo, I i, I j, bool herm) {
  if (in_triangle(uplo, i, j)) {
    const LC x = at(a, lda, i, j);
    return herm && i == j ? LC(x.real(), 0) : x;
  }
  const LC x = at(a, lda, j, i);
  return herm ? std::conj(x) : x;
}

TEST(Level3Cxx, SymmRightAndHemmLeft) {
  {  // C = alpha B A + beta C, A n x n symmetric, upper stored (the lower triangle holds garbage)
    using T = double;
    const I m = 3, n = 4;
    auto a = matrix<T>(n, n, 11);
    for (I j = 0; j < n; ++j)
      for (I i = j + 1; i < n; ++i) a[std::size_t(i + j * n)] = 1e30;
    const auto b = matrix<T>(m, n, 12), c0 = matrix<T>(m, n, 13);
    auto c = c0;
    bf16x::symm(Layout::col_major, Side::right, Uplo::upper, m, n, -1.5, a.data(), n, b.data(), m, 0.5, c.data(), m,
                Mode::fp64x21);
    for (I j = 0; j < n; ++j)
      for (I i = 0; i < m; ++i) {
        LC s = 0;
        for (I l = 0; l < n; ++l) s += at(b, m, i, l) * sym_at(a, n, Uplo::upper, l, j, false);
        const LC r = -1.5L * s + 0.5L * at(c0, m, i, j);
        EXPECT_LE(std::abs(at(c, m, i, j) - r), tol<T>() * (1 + std::abs(r))) << i << "," << j;
      }
  }
  {  // C = alpha A B + beta C, A m x m Hermitian, lower stored; the diagonal's imaginary parts are not read
    using T = std::complex<double>;
    const I m = 3, n = 2;
    auto a = matrix<T>(m, m, 14);
    for (I j = 0; j < m; ++j)
      for (I i = 0; i < j; ++i) a[std::size_t(i + j * m)] = {1e30, 1e30};
    const auto b = matrix<T>(m, n, 15), c0 = matrix<T>(m, n, 16);
    auto c = c0;
    const T alpha(0.5, 1), beta(-1, 0.25);
    bf16x::hemm(Layout::col_major, Side::left, Uplo::lower, m, n, alpha, a.data(), m, b.data(), m, beta, c.data(), m,
                Mode::fp64x21);
    for (I j = 0; j < n; ++j)
      for (I i = 0; i < m; ++i) {
        LC s = 0;
        for (I l = 0; l < m; ++l) s += sym_at(a, m, Uplo::lower, i, l, true) * at(b, m, l, j);
        const LC r = LC(alpha) * s + LC(beta) * at(c0, m, i, j);
        EXPECT_LE(std::abs(at(c, m, i, j) - r), tol<T>() * (1 + std::abs(r))) << i << "," << j;
      }
  }
}

// op(A) of a triangular A from its stored triangle only (diag UNIT: ones on the diagonal, which is not read).
template <typename T>
LC tri_at(const std::vector<T>& a, I lda, Uplo uplo, Op op, Diag diag, I i, I j) {
  if (op != Op::none) std::swap(i, j);
  if (i == j && diag == Diag::unit) return 1;
  if (!in_triangle(uplo, i, j)) return 0;
  const LC x = at(a, lda, i, j);
  return op == Op::conj_trans ? std::conj(x) : x;
}

TEST(Level3Cxx, TrmmAndTrsm) {
  {  // B = alpha A^T B, A upper with a unit diagonal (garbage on it and below it)
    using T = double;
    const I m = 4, n = 3;
    auto a = matrix<T>(m, m, 17);
    for (I j = 0; j < m; ++j)
      for (I i = j; i < m; ++i) a[std::size_t(i + j * m)] = 1e30;
    const auto b0 = matrix<T>(m, n, 18);
    auto b = b0;
    bf16x::trmm(Layout::col_major, Side::left, Uplo::upper, Op::trans, Diag::unit, m, n, 2.0, a.data(), m, b.data(), m,
                Mode::fp64x21);
    for (I j = 0; j < n; ++j)
      for (I i = 0; i < m; ++i) {
        LC s = 0;
        for (I l = 0; l < m; ++l) s += tri_at(a, m, Uplo::upper, Op::trans, Diag::unit, i, l) * at(b0, m, l, j);
        EXPECT_LE(std::abs(at(b, m, i, j) - 2.0L * s), tol<T>() * (1 + std::abs(s))) << i << "," << j;
      }
  }
  {  // X A^H = alpha B, A lower, non-unit (a dominant diagonal): checked as X op(A) against alpha B
    using T = std::complex<double>;
    const I m = 2, n = 4;
    auto a = matrix<T>(n, n, 19);
    for (I i = 0; i < n; ++i) a[std::size_t(i + i * n)] += T(4, 1);
    const auto b0 = matrix<T>(m, n, 20);
    auto b = b0;
    const T alpha(1, 0.5);
    bf16x::trsm(Layout::col_major, Side::right, Uplo::lower, Op::conj_trans, Diag::non_unit, m, n, alpha, a.data(), n,
                b.data(), m, Mode::fp64x21);
    for (I j = 0; j < n; ++j)
      for (I i = 0; i < m; ++i) {
        LC s = 0;
        for (I l = 0; l < n; ++l) s += at(b, m, i, l) * tri_at(a, n, Uplo::lower, Op::conj_trans, Diag::non_unit, l, j);
        const LC r = LC(alpha) * at(b0, m, i, j);
        EXPECT_LE(std::abs(s - r), 1e-13L * (1 + std::abs(r))) << i << "," << j;
      }
  }
}

TEST(Level3Cxx, GemmtWithOptions) {
  using T = std::complex<double>;
  const I n = 3, k = 5;
  const auto a = matrix<T>(n, k, 21), b = matrix<T>(n, k, 22), c0 = matrix<T>(n, n, 23);  // op(B) = B^T: B is n x k
  auto c = c0;
  bf16x_stats st{};
  bf16x_options opt{};
  opt.mode = BF16X_MODE_FP64X21;
  opt.guard = BF16X_GUARD_OFF;  // guarded, a call this small may go to the host GEMM (stats.mode native)
  opt.stats = &st;
  const T alpha(-1, 2), beta(0, 1);
  bf16x::gemmt(Layout::col_major, Uplo::upper, Op::none, Op::trans, n, k, alpha, a.data(), n, b.data(), n, beta,
               c.data(), n, opt);
  EXPECT_EQ(st.mode, BF16X_MODE_FP64X21);
  const auto ref = reference(n, k, LC(alpha), LC(beta), c0, n, false,
                             [&](I i, I j, I l) { return at(a, n, i, l) * at(b, n, j, l); });
  expect_triangle(c, c0, ref, n, n, Uplo::upper);
}

TEST(Level3Cxx, StatusesAsExceptions) {
  std::vector<double> a(16, 1), c(16, 7);
  const auto status_of = [](auto&& call) {
    try {
      call();
    } catch (const bf16x::Error& e) {
      return e.status();
    }
    return int(BF16X_OK);
  };
  EXPECT_EQ(status_of([&] {
              bf16x::syrk(Layout::col_major, Uplo::upper, Op::none, 4, 4, 1.0, a.data(), 3, 0.0, c.data(), 4);
            }),
            BF16X_ERR_LDA);
  EXPECT_EQ(status_of([&] {
              bf16x::syrk(Layout::col_major, static_cast<Uplo>(0), Op::none, 4, 4, 1.0, a.data(), 4, 0.0, c.data(), 4);
            }),
            BF16X_ERR_UPLO);
  EXPECT_EQ(status_of([&] {
              bf16x::trsm(Layout::col_major, static_cast<Side>(0), Uplo::lower, Op::none, Diag::unit, 4, 4, 1.0,
                          a.data(), 4, c.data(), 4);
            }),
            BF16X_ERR_SIDE);
  EXPECT_EQ(status_of([&] {
              bf16x::trmm(Layout::col_major, Side::left, Uplo::lower, Op::none, static_cast<Diag>(0), 4, 4, 1.0,
                          a.data(), 4, c.data(), 4);
            }),
            BF16X_ERR_DIAG);
  for (double x : c) EXPECT_EQ(x, 7.0);  // on any error C (B) is untouched
}

}  // namespace
