// TRMM and TRSM (level3/operation.hpp). Both run on the left: the right-side operation X op(A) is the left-side one
// on the transposes, op(A)^T X^T, with B read through a transposed view, so that one body serves both sides.
//   TRMM: panels of rows halving from the bottom of the lower L = U (or P U P, P the reversal of the rows, where U is
//         upper), each L(panel, K) B(K) in one GEMM over the rows K that the panel reaches, into a buffer that then
//         replaces the panel's rows of B; the GEMM skips the zero products of the panel's diagonal block.
//   TRSM: recursive halving, as ReLAPACK's: the half of X that the other needs solved first, the other half's right
//         side updated from it in one GEMM (its block of A read in place), then that half; blocks of at most
//         kSolveBlock rows solved by substitution in one fixed order. The GEMMs are large (the first is m/2 x n x
//         m/2), unlike those of a row-panel loop. A B of at most kNarrowSolve columns in the slice and CRT modes has
//         its updates on the FMA units in the substitution's order instead (fma_updates): its GEMMs would be
//         GEMV-shaped.
#include <algorithm>
#include <vector>

#include "level3/blocking.hpp"
#include "level3/operation.hpp"
#include "level3/panel_space.hpp"
#include "level3/substitution.hpp"
#include "level3/triangle_panel.hpp"

namespace bf16x::level3 {
namespace {

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

// U, or P U P (its rows and columns reversed, lower where U is upper).
template <typename E>
struct LowerView {
  const TriangularView<E>& u;
  std::int64_t m;
  bool reversed;
  TriangleAddress<E> address() const {
    TriangleAddress<E> a = u.address();
    if (reversed) a = {a.origin + (m - 1) * (a.si + a.sj), -a.si, -a.sj, true, a.unit, a.conj};
    return a;
  }
};

// B = alpha U B as (P) B = alpha L (P) B with the lower L (level3/blocking.hpp, trmm_panel_start): each panel
// [r0, r1) of L's rows is one GEMM over the rows [0, r1) of (P) B, which no panel below has overwritten yet, and
// each entry is one GEMM over the whole inner dimension its row of L reaches, as before the zero products skipped.
template <typename E>
int trmm_left(const Gemm<E>& gemm, const TriangularView<E>& u, std::int64_t m, std::int64_t n, E alpha,
              const View<E>& b) {
  const bool reversed = !u.lower();
  const LowerView<E> l{u, m, reversed};
  const auto row = [&](std::int64_t i) { return reversed ? m - 1 - i : i; };  // of B, for row i of (P) B
  const std::int64_t w = trmm_columns(m, n, sizeof(E)), wc = std::min(n, w);
  std::int64_t most = 0, panel = 0;  // the rows of the largest panel, the elements of the largest packed panel
  for (std::int64_t r1 = m; r1 > 0; r1 = trmm_panel_start(r1, sizeof(E))) {
    most = std::max(most, r1 - trmm_panel_start(r1, sizeof(E)));
    panel = std::max(panel, (r1 - trmm_panel_start(r1, sizeof(E))) * r1);
  }
  // The packed panel, the outputs and the reversed rows, one piece each for all panels, in memory the calling thread
  // keeps between calls (fresh pages fault in at a tenth of a GEMM's time on a virtual machine): each piece at most
  // 64 MiB (blocking.hpp).
  std::size_t n_out, n_rev = 0, count;
  if (__builtin_mul_overflow(std::size_t(most), std::size_t(wc), &n_out) ||
      (reversed && __builtin_mul_overflow(std::size_t(m), std::size_t(wc), &n_rev)) ||
      __builtin_add_overflow(std::size_t(panel), n_out + n_rev, &count))
    throw std::bad_alloc();
  PanelSpace space;
  E* const p = space.get<E>(count);
  E* const out = p + panel;  // beta = 0: not read
  E* const rev = out + n_out;
  for (std::int64_t r1 = m; r1 > 0;) {
    const std::int64_t r0 = trmm_panel_start(r1, sizeof(E)), rows = r1 - r0;
    pack_panel_into<E>(p, l.address(), r0, r1, 0, r1);
    const Operand<E> lp{p, rows, false, false, true, r0};
    for (std::int64_t c0 = 0; c0 < n; c0 += w) {
      const std::int64_t cols = std::min(w, n - c0);
      const View<E> bc = b.block(0, c0), o{out, rows, false};
      Operand<E> bk = bc.operand();
      if (reversed) {  // the rows [0, r1) of P B
        util::for_each_index(cols, r1 * cols, [&](std::int64_t j) {
          for (std::int64_t i = 0; i < r1; ++i) rev[i + j * r1] = bc.at(row(i), j);
        });
        bk = Operand<E>{rev, r1, false};
      }
      if (const int st = gemm(rows, cols, r1, alpha, lp, bk, zero<E>(), o); st != BF16X_OK) return st;
      util::for_each_index(cols, rows * cols, [&](std::int64_t j) {
        for (std::int64_t i = 0; i < rows; ++i) bc.at(row(r0 + i), j) = o.at(i, j);
      });
    }
    r1 = r0;
  }
  return BF16X_OK;
}

// Rows [r0, r1) of X, their right side still to be multiplied by `pending` (alpha until an update has applied it
// as its beta): the first half solved, the second half's right side updated by one GEMM from it, the second half
// solved; blocks of at most kSolveBlock rows (kSolveBlockComplex) by substitution. fma: the updates on the FMA
// units instead, pending applied first and then each product subtracted in the substitution's order (B
// column-major), so that X is the plain substitution's.
template <typename E>
int trsm_rows(const Gemm<E>& gemm, const TriangularView<E>& u, std::int64_t n, const View<E>& b, std::int64_t r0,
              std::int64_t r1, E pending, bool fma) {
  const std::int64_t size = r1 - r0;
  if (size <= (is_complex_v<E> ? kSolveBlockComplex : kSolveBlock)) {
    const View<E> x = b.block(r0, 0);
    scale(x, size, n, pending);
    // The diagonal block in the thread's kept memory (up to 128 x 128 elements, which malloc would map afresh).
    PanelSpace space;
    E* const d = space.get<E>(std::size_t(size * size));
    pack_panel_into<E>(d, u.address(), r0, r1, r0, r1, false);
    substitute<E>(d, size, u.lower(), u.t.unit, x, n);
    return BF16X_OK;
  }
  const std::int64_t h = r0 + half_of(size);
  const bool lower = u.lower();  // lower: the top half first; upper: the bottom half
  const std::int64_t f0 = lower ? r0 : h, f1 = lower ? h : r1, s0 = lower ? h : r0, s1 = lower ? r1 : h;
  if (const int st = trsm_rows(gemm, u, n, b, f0, f1, pending, fma); st != BF16X_OK) return st;
  // U(s, f) lies off the diagonal, inside the stored triangle: read in place.
  if (fma) {
    scale(b.block(s0, 0), s1 - s0, n, pending);
    subtract_products<E>(u.block(s0, f0), s1 - s0, f1 - f0, !lower, b.block(f0, 0), b.block(s0, 0), n);
  } else if (const int st = gemm(s1 - s0, n, f1 - f0, from_real<E>(-1), u.block(s0, f0), b.block(f0, 0).operand(),
                                 pending, b.block(s0, 0));
             st != BF16X_OK) {
    return st;
  }
  return trsm_rows(gemm, u, n, b, s0, s1, one<E>(), fma);
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
         const Stored<E>& a, const View<E>& b, bool fma_updates) {
  return as_left(left, m, n, alpha, b, [&](const View<E>& bv, std::int64_t rows, std::int64_t cols) {
    const TriangularView<E> u = left_view(a, t, trans, left);
    const bool fma = fma_updates && cols <= kNarrowSolve;
    if (!fma || !bv.rows) return trsm_rows<E>(gemm, u, cols, bv, 0, rows, alpha, fma);
    // A row-major left-side B (a right-side call's B^T): solved in a column-major copy, so that the updates' vectors
    // run along its rows (the diagonal blocks' substitution keeps the kept panel memory).
    std::vector<E> copy(std::size_t(rows) * std::size_t(cols));
    const View<E> cv{copy.data(), rows, false};
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) cv.at(i, j) = bv.at(i, j);
    const int st = trsm_rows<E>(gemm, u, cols, cv, 0, rows, alpha, true);
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) bv.at(i, j) = cv.at(i, j);
    return st;
  });
}

#define BF16X_LEVEL3_TRIANGULAR(E)                                                                           \
  template int trmm<E>(const Gemm<E>&, bool, Triangle, int, std::int64_t, std::int64_t, E, const Stored<E>&, \
                       const View<E>&);                                                                      \
  template int trsm<E>(const Gemm<E>&, bool, Triangle, int, std::int64_t, std::int64_t, E, const Stored<E>&, \
                       const View<E>&, bool);
BF16X_LEVEL3_TRIANGULAR(float)
BF16X_LEVEL3_TRIANGULAR(double)
BF16X_LEVEL3_TRIANGULAR(bf16x_complex_float)
BF16X_LEVEL3_TRIANGULAR(bf16x_complex_double)

}  // namespace bf16x::level3
