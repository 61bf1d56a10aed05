// The substitution loops of level3/substitution_loops.hpp, one source for every vector level: each build's compiler
// vectorises the loops over a row's columns with the level's own width.
#pragma once
#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "level3/element.hpp"
#include "level3/substitution_loops.hpp"

namespace bf16x::level3 {
namespace {

// Columns of B a row of a block holds: 64 bytes, one 512-bit vector (two of AVX2, four of SSE2). Rows of 16 or 32
// doubles ran slower on Zen 4 (a 64 x 64 block: 10-11 against 13 billion multiply-adds a second).
template <typename E>
inline constexpr int kBlockColumns = int(64 / sizeof(E));

// Rows r < s of the block x[r W + j], j < W (W = kBlockColumns; the columns past B's are zeros, solved and never
// written back): for each diagonal step, x_c = x_c / d_cc, then x_r = x_r - d_rc x_c for the rows r still to solve,
// each column the same operations in the same order as alone. x_c is kept aside (registers) for the updates.
template <typename E>
void solve_block(const E* __restrict d, std::int64_t s, bool lower, bool unit, E* __restrict x) {
  constexpr int W = kBlockColumns<E>;
  for (std::int64_t q = 0; q < s; ++q) {
    const std::int64_t c = lower ? q : s - 1 - q, r0 = lower ? c + 1 : 0, r1 = lower ? s : c;
    E* xc = x + c * W;
    if (!unit) {
      const E dc = d[c + c * s];
#pragma omp simd
      for (int j = 0; j < W; ++j) xc[j] = div(xc[j], dc);
    }
    E v[W];
#pragma omp simd
    for (int j = 0; j < W; ++j) v[j] = xc[j];
    const E* dcol = d + c * s;
    for (std::int64_t r = r0; r < r1; ++r) {
      E* xr = x + r * W;
      const E u = dcol[r];
#pragma omp simd
      for (int j = 0; j < W; ++j) xr[j] = sub(xr[j], mul(u, v[j]));
    }
  }
}

// One column of a column-major B in place (fewer than W columns left): the same steps along the column.
template <typename E>
void solve_column(const E* __restrict d, std::int64_t s, bool lower, bool unit, E* __restrict col) {
  for (std::int64_t q = 0; q < s; ++q) {
    const std::int64_t c = lower ? q : s - 1 - q, r0 = lower ? c + 1 : 0, r1 = lower ? s : c;
    if (!unit) col[c] = div(col[c], d[c + c * s]);
    const E x = col[c];
    const E* dc = d + c * s;
#pragma omp simd
    for (std::int64_t r = r0; r < r1; ++r) col[r] = sub(col[r], mul(dc[r], x));
  }
}

// Each W columns of B copied into a block (transposed where B is column-major: a column's s elements, contiguous,
// go to a column of the block), solved there and copied back: the block's rows lie side by side, where B's rows, a
// leading dimension apart, would meet in the same cache sets (a power-of-two ld), and the vectors run along rows.
template <typename E>
void solve_columns_loop(const E* d, std::int64_t s, bool lower, bool unit, E* b, std::int64_t ld, bool rows,
                        std::int64_t j0, std::int64_t j1) {
  constexpr int W = kBlockColumns<E>;
  alignas(64) E block[kSubstitutionRows * W];
  for (std::int64_t j = j0; j < j1; j += W) {
    const int w = int(std::min<std::int64_t>(W, j1 - j));
    if (!rows && w < W) {  // a few columns: along each, without the block's padding
      for (std::int64_t t = j; t < j1; ++t) solve_column<E>(d, s, lower, unit, b + t * ld);
      return;
    }
    for (std::int64_t i = 0; i < s; ++i)
      for (int t = 0; t < W; ++t) block[i * W + t] = t < w ? (rows ? b[i * ld + j + t] : b[i + (j + t) * ld]) : E{};
    solve_block<E>(d, s, lower, unit, block);
    for (std::int64_t i = 0; i < s; ++i)
      for (int t = 0; t < w; ++t) (rows ? b[i * ld + j + t] : b[i + (j + t) * ld]) = block[i * W + t];
  }
}

// SubtractProducts along the rows (a's columns contiguous): four columns of a at a time, each entry of y kept in a
// register across them (its operations and their order unchanged), the rows in vectors.
template <typename E>
void subtract_columns(const E* a, std::int64_t lda, std::int64_t rows, std::int64_t cols, bool descending, const E* x,
                      std::int64_t ldx, E* y, std::int64_t ldy, std::int64_t n) {
  const auto column = [&](std::int64_t q) { return descending ? cols - 1 - q : q; };
  std::int64_t q = 0;
  for (; q + 4 <= cols; q += 4) {
    const std::int64_t c0 = column(q), c1 = column(q + 1), c2 = column(q + 2), c3 = column(q + 3);
    const E* __restrict a0 = a + c0 * lda;
    const E* __restrict a1 = a + c1 * lda;
    const E* __restrict a2 = a + c2 * lda;
    const E* __restrict a3 = a + c3 * lda;
    for (std::int64_t j = 0; j < n; ++j) {
      const E* xj = x + j * ldx;
      const E x0 = xj[c0], x1 = xj[c1], x2 = xj[c2], x3 = xj[c3];
      E* __restrict yj = y + j * ldy;
#pragma omp simd
      for (std::int64_t r = 0; r < rows; ++r)
        yj[r] = sub(sub(sub(sub(yj[r], mul(a0[r], x0)), mul(a1[r], x1)), mul(a2[r], x2)), mul(a3[r], x3));
    }
  }
  for (; q < cols; ++q) {
    const std::int64_t c = column(q);
    const E* __restrict ac = a + c * lda;
    for (std::int64_t j = 0; j < n; ++j) {
      const E xc = x[c + j * ldx];
      E* __restrict yj = y + j * ldy;
#pragma omp simd
      for (std::int64_t r = 0; r < rows; ++r) yj[r] = sub(yj[r], mul(ac[r], xc));
    }
  }
}

// SubtractProducts across the rows (a's rows contiguous, or conjugated): R rows side by side, each entry's chain of
// products in its order, the R chains independent.
template <typename E, int R, bool Conj>
void subtract_rows_of(const E* a, std::int64_t ra, std::int64_t ca, std::int64_t cols, bool descending, const E* x,
                      std::int64_t ldx, E* y, std::int64_t ldy, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    E acc[R];
    E* yj = y + j * ldy;
    for (int t = 0; t < R; ++t) acc[t] = yj[t];
    const E* xj = x + j * ldx;
    const std::int64_t step = descending ? -1 : 1, c0 = descending ? cols - 1 : 0;
    for (std::int64_t q = 0, c = c0; q < cols; ++q, c += step) {
      const E xc = xj[c];
      const E* ac = a + c * ca;
      for (int t = 0; t < R; ++t) acc[t] = sub(acc[t], mul_apart(Conj ? conj(ac[t * ra]) : ac[t * ra], xc));
    }
    for (int t = 0; t < R; ++t) yj[t] = acc[t];
  }
}

template <typename E>
void subtract_rows(const E* a, std::int64_t ra, std::int64_t ca, bool conj_a, std::int64_t rows, std::int64_t cols,
                   bool descending, const E* x, std::int64_t ldx, E* y, std::int64_t ldy, std::int64_t n) {
  constexpr int R = 8;
  std::int64_t r = 0;
  const auto run = [&](auto rows_at_once) {
    constexpr int W = decltype(rows_at_once)::value;
    const auto f = conj_a ? subtract_rows_of<E, W, true> : subtract_rows_of<E, W, false>;
    f(a + r * ra, ra, ca, cols, descending, x, ldx, y + r, ldy, n);
    r += W;
  };
  while (r + R <= rows) run(std::integral_constant<int, R>{});
  while (r < rows) run(std::integral_constant<int, 1>{});
}

template <typename E>
void subtract_loop(const E* a, std::int64_t ra, std::int64_t ca, bool conj_a, std::int64_t rows, std::int64_t cols,
                   bool descending, const E* x, std::int64_t ldx, E* y, std::int64_t ldy, std::int64_t n) {
  if (ra == 1 && !conj_a)
    subtract_columns(a, ca, rows, cols, descending, x, ldx, y, ldy, n);
  else
    subtract_rows(a, ra, ca, conj_a, rows, cols, descending, x, ldx, y, ldy, n);
}

constexpr SubstitutionLoops make_substitution_loops() {
  return {solve_columns_loop<float>,
          solve_columns_loop<double>,
          solve_columns_loop<bf16x_complex_float>,
          solve_columns_loop<bf16x_complex_double>,
          subtract_loop<float>,
          subtract_loop<double>,
          subtract_loop<bf16x_complex_float>,
          subtract_loop<bf16x_complex_double>};
}

}  // namespace
}  // namespace bf16x::level3
