// The substitution loops of level3/substitution_loops.hpp, one source for every vector level: each build's compiler
// vectorises the loops over a row's columns with the level's own width.
#pragma once
#include <algorithm>
#include <cstddef>

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

constexpr SubstitutionLoops make_substitution_loops() {
  return {solve_columns_loop<float>, solve_columns_loop<double>, solve_columns_loop<bf16x_complex_float>,
          solve_columns_loop<bf16x_complex_double>};
}

}  // namespace
}  // namespace bf16x::level3
