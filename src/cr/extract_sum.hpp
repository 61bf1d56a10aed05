// The exact value of a dot product of two tame scaled lines (cr/entry_rounding.hpp's PackedLine: every |a_l|, |b_l|
// below 2, the nonzero ones at least 2^-480) as a few doubles whose exact sum it is: the correctly rounded modes'
// exact path for the entries the tile sums leave undecided, on the vector units, before the fixed-point ExactSum.
//
// Each product is first split exactly into p_l + e_l (TwoProd: no product of tame lines underflows, so e_l is a
// double). Then the 2k terms x_i are reduced by error-free extraction (Rump, Ogita and Oishi's ExtractVector): with
// sigma = 2^(M + ilogb(max |x_i|) + 1) and 2^M >= 4k, each q_i = (sigma + x_i) - sigma and x_i - q_i are exact,
// every q_i is a multiple of 2^-53 sigma and their sum, at most 4k (2^-M + 2^-53) sigma / 2 < sigma in magnitude, is
// exact in any order (docs/numerics.md "Correctly rounded modes"). The sum tau of the q_i is one part; the
// remainders, below 2^-53 sigma, go round again, 52 - M bits smaller each time, until all are zero. A cancelling
// entry of LAPACK's updates takes three or four passes of a few vector operations per term.
#pragma once
#include <cstdint>

namespace bf16x::cr {

constexpr int kMaxParts = 40;  // more passes than this (k past 2^18 with values across 2^1000): the ExactSum

// Element l of the lines at a[l sa] and b[l sb]; x: room for 2 k + 16 doubles (overwritten). Writes the parts, most
// significant first, to parts[0 .. count) and returns count (0: the sum is exactly zero), or -1 after kMaxParts
// passes. Compiled per ISA (cr/extract_sum_impl.hpp): TileKernels::extract.
using ExtractDot = int (*)(const double* a, std::int64_t sa, const double* b, std::int64_t sb, std::int64_t k,
                           double* x, double* parts);

// The same for several entries of one row of a tile at once, one per vector lane, where most of a row is undecided
// (LAPACK's residuals B - A X): no reduction across lanes, no scalar TwoProd. The A panel's row (element l at
// a[l sa]) against the columns of the B panel (element l of column j at b[l L + j], L the kernel's NR = its lanes)
// whose bit is set in `lanes`. Column j's parts at parts[j kMaxParts ...], their count at counts[j], each as
// ExtractDot gives them for that entry alone (every pass's sum is exact, in any order); x: room for 2 k L doubles.
constexpr int kMaxLanes = 8;
using ExtractRow = void (*)(const double* a, std::int64_t sa, const double* b, std::int64_t k, unsigned lanes,
                            double* x, double* parts, int* counts);

}  // namespace bf16x::cr
