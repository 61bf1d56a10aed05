// Block sizes of the level-3 layer: functions of the shape alone (never of the thread count), so that a call's
// GEMMs, and with them its bits, are the same on every team.
#pragma once
#include <algorithm>
#include <cstdint>

namespace bf16x::level3 {

// GEMMT's diagonal blocks: computed whole into a packed copy, so their unstored half (at most this over n of the
// work) is the price of writing only the stored triangle.
constexpr std::int64_t kDiagonalBlock = 64;

// GEMMT's pieces of at most this many rows and columns run side by side, one thread each (level3/gemmt.cpp).
constexpr std::int64_t kSmallPiece = 128;

// GEMMT's recursive halving: the first half a multiple of the micro-tile's 32 rows where it can be.
inline std::int64_t half_of(std::int64_t size) {
  const std::int64_t half = (size / 2 + 31) / 32 * 32;
  return half < size ? half : size / 2;
}

// TRMM: the first row of the next panel up from row `end` of the (lower) triangle: panels halve from the bottom,
// [m/2, m), [m/4, m/2), ... on multiples of 32, to one of at most 64 rows at the top. Each panel is one GEMM over
// the rows of B it reaches, which skips the zero products of its diagonal block (Operand::lower); halving keeps the
// rows that B's panels are packed for near 2m in all (m/2 per panel with equal panels of m/8: 4.5m) and each
// panel's rows within a factor 2 of one another in length (their scales share B's columns). A packed panel (its
// rows x end elements) stays within 64 MiB: below that, panels of as many rows as fit (64 at least).
inline std::int64_t trmm_panel_start(std::int64_t end, std::size_t element) {
  if (end <= 64) return 0;
  const std::int64_t half = end / 2 / 32 * 32, start = half > 0 ? half : end / 2;
  const std::int64_t fit = std::int64_t((std::size_t(64) << 20) / (element * std::size_t(end))) / 32 * 32;
  return std::max(start, end - std::max<std::int64_t>(fit, 64));
}

// TRMM: the columns of B a panel's GEMM takes at a time (its output, and the reversed rows of an upper triangle,
// at most 64 MiB; 64 columns at least).
inline std::int64_t trmm_columns(std::int64_t m, std::int64_t n, std::size_t element) {
  const std::int64_t cols =
      std::int64_t((std::size_t(64) << 20) / (element * std::size_t(std::max<std::int64_t>(m, 1))));
  return std::clamp<std::int64_t>(cols, std::min<std::int64_t>(n, 64), std::max<std::int64_t>(n, 1));
}

// TRSM: the largest block solved by substitution (FP64 or FP32 operations, no matrix engine): 128 rows of a real
// type, 64 of a complex one, whose substitution (a complex division per element and step, complex products) costs
// several times as much a multiply-add (ZTRSM at n = 256 .. 1024 ran 5-15% slower with 128).
constexpr std::int64_t kSolveBlock = 128;
constexpr std::int64_t kSolveBlockComplex = 64;

// TRSM in the slice and CRT modes: a B of at most this many columns (on the left) has its updates run on the FMA
// units (level3::trsm's fma_updates): their emulated GEMMs, GEMV-shaped, would split and pack op(A)'s blocks and pad
// B's columns to whole tiles for a handful of products per element.
constexpr std::int64_t kNarrowSolve = 8;

// SYMM and HEMM: the expanded panel of A, the whole of A up to 64 MiB, else as many lines as fit.
inline std::int64_t symmetric_panel(std::int64_t dim, std::size_t element) {
  const std::int64_t lines =
      std::int64_t((std::size_t(64) << 20) / (element * std::size_t(std::max<std::int64_t>(dim, 1))));
  return std::clamp<std::int64_t>(lines, std::min<std::int64_t>(dim, 64), std::max<std::int64_t>(dim, 1));
}

}  // namespace bf16x::level3
