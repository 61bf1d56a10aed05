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

// TRMM: the panel height of one GEMM each. The zero half of each panel's diagonal block is computed too, a share of
// about panel / m of the work, while a GEMM of few rows runs below the rate of a square one: eight panels (at
// n = 2048, fp64x21, one thread: 0.62 of GEMM's rate against 0.56 with four), of 64 rows at least.
inline std::int64_t triangular_panel(std::int64_t m) { return std::max<std::int64_t>((m / 8 + 31) / 32 * 32, 64); }

// TRSM: the largest block solved by substitution (FP64 or FP32 operations, no matrix engine).
constexpr std::int64_t kSolveBlock = 64;

// SYMM and HEMM: the expanded panel of A, the whole of A up to 64 MiB, else as many lines as fit.
inline std::int64_t symmetric_panel(std::int64_t dim, std::size_t element) {
  const std::int64_t lines =
      std::int64_t((std::size_t(64) << 20) / (element * std::size_t(std::max<std::int64_t>(dim, 1))));
  return std::clamp<std::int64_t>(lines, std::min<std::int64_t>(dim, 64), std::max<std::int64_t>(dim, 1));
}

}  // namespace bf16x::level3
