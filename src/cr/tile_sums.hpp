// The products of the correctly rounded modes: for one MR x NR tile of C, each entry's sum of a_l b_l and
// t = sum |a_l||b_l|. FP64 inputs: a double-double s + c. Each product goes into the biased s = sigma + sum h by one
// FMA, s1 = RN(a b + s), where the bias sigma = 2^ceil(log2(4.1 t)) (t so far: k runs in blocks of kSumsBlock, each
// summing its magnitudes first and raising sigma, the old bias traded for the new one by an exact FastTwoSum) keeps
// s within sigma / 2 .. 3 sigma / 2 whatever the signs: so h = s1 - s is exact (s and s1 multiples of ulp(sigma /
// 2), |h| < sigma / 2) and the rest a b - h, at most half an ulp of s1 (u sigma), goes to c rounded once by a second
// FMA. c sums k such rests and one rebias error per block (n terms of at most u sigma):
//   |s + c - sum a b| <= k u^2 sigma + gamma_(n-1) n u sigma,  sigma <= max(8.2 t, 2^-899)
// (cr/entry_rounding_impl.hpp, sums_bound: about 8.3 k^2 u^2 t): a componentwise bound, like Dot2's (Ogita, Rump,
// Oishi 2005), at four floating-point operations a product instead of eleven. FP32 inputs: a plain FMA sum s of the
// products, exact in FP64 (c = 0), |s - sum a b| <= 1.02 (k + 1) u t. Packed operands: per l, the MR values of a
// then their magnitudes; the NR of b. The tile's shape is the kernel table's (MR x NR: 3 x 4 scalar and AVX2, 4 x 8
// AVX-512); the sums differ with it, the rounded entries do not.
#pragma once
#include <cstdint>

#include "cpu/features.hpp"
#include "cr/entry_rounding.hpp"
#include "cr/extract_sum.hpp"
#include "cr/refine_sum.hpp"

namespace bf16x::cr {

constexpr int kMaxTile = 32;              // the most entries (MR x NR) a kernel's tile has
constexpr std::int64_t kSumsBlock = 256;  // k's blocks of the FP64 sums (a bias each; their panel slices in L1)
// The rows of op(A) one work item of the driver packs: a multiple of every kernel's MR.
constexpr int kItemRows = 24;

// s, c, t: MR x NR, entry (i, j) at i * NR + j.
using TileSums = void (*)(std::int64_t k, const double* a, const double* b, double* s, double* c, double* t);

// Entries [0, rows) of a column of C, a[i sa] and c[i sc] the i-th: c = fma(alpha a, b, beta c) (beta = 0: alpha a b,
// c not read) for alpha = +-1 and beta in {0, +-1}, the correctly rounded entry (cr/few_products_impl.hpp), up to the
// first entry whose result is zero, NaN or Inf, which is left unwritten: returns its index, rows where none.
using RankOne = std::int64_t (*)(std::int64_t rows, const double* a, std::int64_t sa, double b, double alpha,
                                 double beta, double* c, std::int64_t sc);

// The most products an entry of FewProducts has: up to there its error-free sum of 2k + 1 terms costs less than the
// tiles' scan, packing, sums and decision (docs/performance.md).
constexpr int kFewProducts = 4;
// The same for 2 <= k <= kFewProducts products, op(A)(i, l) at a[i sa + l la] and op(B)(l, j) at b[l]: the correctly
// rounded entry from the exact pairs of the products and C's term (cr/few_products_impl.hpp), up to the first entry
// it does not decide (C's term at or past 2^1000, a value below 2^-960, one too near a rounding boundary), left
// unwritten; the caller keeps every a and b zero or of magnitude in [2^-480, 2^480].
using FewProducts = std::int64_t (*)(std::int64_t rows, int k, const double* a, std::int64_t sa, std::int64_t la,
                                     const double* b, double alpha, double beta, double* c, std::int64_t sc);

struct TileKernels {
  TileSums dd;                  // FP64 inputs: s + c
  TileSums magnitudes;          // dd's t alone, the same bits (s = c = 0): a tile whose entries all take exact values
  TileSums plain;               // FP32 inputs: s (c = 0)
  DecideD decide_d, decide2_d;  // a real GEMM's entries; the parts of a complex one's (two sums)
  DecideRows decide_rows_d;     // decide_d on a tile's rows of NR entries (null: entry by entry)
  DecideF decide_f, decide2_f;
  DecideRows decide_rows_f;  // decide_f on a tile's rows
  TileSums dot2;             // the textbook double-double sum (Dot2, s + c, no t): the bench's baseline (cr::dd_gemm)
  ExtractDot extract;        // an undecided entry's exact dot product in parts (cr/extract_sum.hpp)
  ExtractRow extract_row;    // the same for a row of a tile's entries, one per lane (null: entry by entry)
  RefineRow refine_row;      // FP64 tiles: that row's cheaper first try, within a slack (null: none)
  RoundParts<double> round_parts_d;  // its rounding from the parts
  RoundParts<float> round_parts_f;
  RoundPartsLanes round_parts_lanes;  // round_parts_d on a refined row's lanes (null: lane by lane)
  RankOne rank_one;                   // a real FP64 GEMM with k = 1 (alpha = +-1, beta in {0, +-1}), an FMA an entry
  FewProducts few_products;           // the same with 2 <= k <= kFewProducts, an error-free sum an entry
  int mr, nr;                         // the tile: MR rows of op(A), NR columns of op(B)
  const char* isa;                    // "generic", "avx2", "avx512"
};

const TileKernels& tile_kernels_generic();
const TileKernels& tile_kernels_avx2();    // AVX2 + FMA
const TileKernels& tile_kernels_avx512();  // AVX-512 F/BW/VL/DQ
// The kernels of a vector level, at most the one this CPU runs (cpu::vector_level()).
const TileKernels& tile_kernels(cpu::Level level);

}  // namespace bf16x::cr
