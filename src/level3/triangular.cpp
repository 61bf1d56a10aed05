// TRMM and TRSM (level3/operation.hpp). Both run on the left: the right-side operation X op(A) is the left-side one
// on the transposes, op(A)^T X^T, with B read through a transposed view, so that one body serves both sides.
//   TRMM: row panels of B, bottom up where op(A) is lower (top down where upper), each B(panel) = alpha U(panel, K)
//         B(K) in one GEMM over the rows K that U's panel reaches, into a copy that then replaces the panel.
//   TRSM: recursive halving, as ReLAPACK's: the half of X that the other needs solved first, the other half's right
//         side updated from it in one GEMM, then that half; blocks of at most 64 rows solved by substitution in one
//         fixed order. The GEMMs are large (the first is m/2 x n x m/2), unlike those of a row-panel loop.
#include <algorithm>

#include "level3/blocking.hpp"
#include "level3/operation.hpp"
#include "level3/substitution.hpp"
#include "level3/triangle_panel.hpp"

namespace bf16x::level3 {
namespace {

// C = alpha P B + beta C for the packed rows x k P and the views B (k x cols) and C (rows x cols).
template <typename E>
int gemm_views(const Gemm<E>& gemm, std::int64_t rows, std::int64_t cols, std::int64_t k, E alpha, const E* p,
               const View<E>& b, E beta, const View<E>& c) {
  return gemm(rows, cols, k, alpha, Operand<E>{p, rows, false}, b.operand(), beta, c);
}

template <typename E>
void set_zero(const View<E>& b, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) b.at(i, j) = zero<E>();
}

template <typename E>
void scale(const View<E>& b, std::int64_t rows, std::int64_t cols, E alpha) {
  if (is_one(alpha)) return;
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i) b.at(i, j) = mul(alpha, b.at(i, j));
}

// The panels [r0, r1) of an m-row operand, in the order the operation needs them.
template <typename Body>
int for_panels(std::int64_t m, bool bottom_up, Body body) {
  const std::int64_t s = triangular_panel(m), count = (m + s - 1) / s;
  for (std::int64_t q = 0; q < count; ++q) {
    const std::int64_t r0 = (bottom_up ? count - 1 - q : q) * s;
    if (const int st = body(r0, std::min(m, r0 + s)); st != BF16X_OK) return st;
  }
  return BF16X_OK;
}

template <typename E>
int trmm_left(const Gemm<E>& gemm, const TriangularView<E>& u, std::int64_t m, std::int64_t n, E alpha,
              const View<E>& b) {
  const bool lower = u.lower();
  return for_panels(m, lower, [&](std::int64_t r0, std::int64_t r1) {
    const std::int64_t k0 = lower ? 0 : r0, k1 = lower ? r1 : m, rows = r1 - r0;
    const Buffer<E> p = pack_panel<E>(u, r0, r1, k0, k1);
    const Buffer<E> out = make_buffer<E>(std::size_t(rows * n));  // beta = 0: not read
    const View<E> o{out.get(), rows, false};
    if (const int st = gemm_views<E>(gemm, rows, n, k1 - k0, alpha, p.get(), b.block(k0, 0), zero<E>(), o);
        st != BF16X_OK)
      return st;
    const View<E> dst = b.block(r0, 0);
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < rows; ++i) dst.at(i, j) = o.at(i, j);
    return int(BF16X_OK);
  });
}

// Rows [r0, r1) of X, their right side still to be multiplied by `pending` (alpha until an update has applied it
// as its beta): the first half solved, the second half's right side updated by one GEMM from it, the second half
// solved; blocks of at most kSolveBlock rows by substitution.
template <typename E>
int trsm_rows(const Gemm<E>& gemm, const TriangularView<E>& u, std::int64_t n, const View<E>& b, std::int64_t r0,
              std::int64_t r1, E pending) {
  const std::int64_t size = r1 - r0;
  if (size <= kSolveBlock) {
    const View<E> x = b.block(r0, 0);
    scale(x, size, n, pending);
    const Buffer<E> d = pack_panel<E>(u, r0, r1, r0, r1);
    substitute<E>(d.get(), size, u.lower(), u.t.unit, x, n);
    return BF16X_OK;
  }
  const std::int64_t h = r0 + half_of(size);
  const bool lower = u.lower();  // lower: the top half first; upper: the bottom half
  const std::int64_t f0 = lower ? r0 : h, f1 = lower ? h : r1, s0 = lower ? h : r0, s1 = lower ? r1 : h;
  if (const int st = trsm_rows(gemm, u, n, b, f0, f1, pending); st != BF16X_OK) return st;
  const Buffer<E> p = pack_panel<E>(u, s0, s1, f0, f1);
  if (const int st =
          gemm_views<E>(gemm, s1 - s0, n, f1 - f0, from_real<E>(-1), p.get(), b.block(f0, 0), pending, b.block(s0, 0));
      st != BF16X_OK)
    return st;
  return trsm_rows(gemm, u, n, b, s0, s1, one<E>());
}

// op(A) as the left-side U (left) or op(A)^T with B read transposed (right).
template <typename E>
TriangularView<E> left_view(const Stored<E>& a, Triangle t, int trans, bool left) {
  return {a, t, (trans != BF16X_NO_TRANS) == left, trans == BF16X_CONJ_TRANS};
}

}  // namespace

// B^T on the right: rows x cols the left-side shape; alpha = 0 sets B to zero without reading A or B.
template <typename E, typename Left>
int as_left(bool left, std::int64_t m, std::int64_t n, E alpha, const View<E>& b, Left run) {
  const View<E> bv{b.p, b.ld, b.rows == left};
  const std::int64_t rows = left ? m : n, cols = left ? n : m;
  if (!is_zero(alpha)) return run(bv, rows, cols);
  set_zero(bv, rows, cols);
  return BF16X_OK;
}

template <typename E>
int trmm(const Gemm<E>& gemm, bool left, Triangle t, int trans, std::int64_t m, std::int64_t n, E alpha,
         const Stored<E>& a, const View<E>& b) {
  return as_left(left, m, n, alpha, b, [&](const View<E>& bv, std::int64_t rows, std::int64_t cols) {
    return trmm_left<E>(gemm, left_view(a, t, trans, left), rows, cols, alpha, bv);
  });
}

template <typename E>
int trsm(const Gemm<E>& gemm, bool left, Triangle t, int trans, std::int64_t m, std::int64_t n, E alpha,
         const Stored<E>& a, const View<E>& b) {
  return as_left(left, m, n, alpha, b, [&](const View<E>& bv, std::int64_t rows, std::int64_t cols) {
    return trsm_rows<E>(gemm, left_view(a, t, trans, left), cols, bv, 0, rows, alpha);
  });
}

#define BF16X_LEVEL3_TRIANGULAR(E)                                                                           \
  template int trmm<E>(const Gemm<E>&, bool, Triangle, int, std::int64_t, std::int64_t, E, const Stored<E>&, \
                       const View<E>&);                                                                      \
  template int trsm<E>(const Gemm<E>&, bool, Triangle, int, std::int64_t, std::int64_t, E, const Stored<E>&, \
                       const View<E>&);
BF16X_LEVEL3_TRIANGULAR(float)
BF16X_LEVEL3_TRIANGULAR(double)
BF16X_LEVEL3_TRIANGULAR(bf16x_complex_float)
BF16X_LEVEL3_TRIANGULAR(bf16x_complex_double)

}  // namespace bf16x::level3
