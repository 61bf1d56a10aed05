// One entry of a correctly rounded mode: RN(alpha * sum_l a_l b_l + beta * c0), the exact value rounded once to T
// (docs/numerics.md "Correctly rounded modes"). First from the tile sums with a rigorous bound on their error: the
// rounding is decided where the whole interval [value - bound, value + bound] rounds to one number of T. Else (near
// a tie, heavy cancellation, the ends of the exponent range) from the exact value (cr/exact_sum.hpp).
#pragma once
#include <cstdint>

#include "cr/extract_sum.hpp"
#include "pack/operand.hpp"

namespace bf16x::cr {

// The tile sums of one entry, in the units of its scaled operands: op(A)'s row and op(B)'s column were multiplied
// by 2^-scale_a and 2^-scale_b (exactly, but where that underflows) before the products.
struct EntrySums {
  double s, c, t;  // s + c approximates sum a b; t = sum |a||b| (cr/tile_sums.hpp)
  int scale;       // scale_a + scale_b
};

// The scales, scale_a + scale_b, that the sums decide from: beyond them an entry takes the exact sum (2^scale in two
// normal factors, entry_rounding_impl.hpp's scale2).
inline constexpr int kScaleRange = 1900;

// The entry's value: w_0 S_0 + w_1 S_1 + beta_0 c_0 + beta_1 c_1, S_r the dot product of op(A)'s row i and op(B)'s
// column j_r (a real GEMM: w = (alpha, 0), beta = (beta, 0); the real or imaginary part of a complex one: S_0, S_1
// its two real dot products of length 2k, w and beta from alpha and beta).
struct Terms {
  double w[2], beta[2];  // beta_q == 0: c_q not read
  std::int64_t k;
  bool dd;  // the sums are double-double (FP64 inputs); else plain FMA sums of exact products (FP32 inputs)
};

// The rounded entry when the sums decide it (true, `out` set); false when only the exact value can. Compiled per
// ISA (cr/entry_rounding_impl.hpp): TileKernels::decide_d / decide_f.
using DecideD = bool (*)(const EntrySums (&e)[2], const Terms& x, const double (&c0)[2], double& out);
using DecideF = bool (*)(const EntrySums (&e)[2], const Terms& x, const double (&c0)[2], float& out);

// DecideD or DecideF for a whole tile of a real GEMM, a vector of entries at a time: rows of L entries (L the kernel's
// NR), entry x's sums at s[x], c[x], t[x], its scale scale_a + scale_b at scale[x] (beyond kScaleRange: leave the
// entry undecided), its C term c0[x] (read where beta != 0). Bit x of the result says that
// out[x] is the entry's rounding (an FP32 value for DecideF's); the other entries are left to DecideD and the exact
// sum. Any sound decision gives the same bits (the rounding of the exact value is unique), so which entries a variant
// decides changes time, never results.
using DecideRows = std::uint64_t (*)(int rows, const double* s, const double* c, const double* t, const int* scale,
                                     const double* c0, const Terms& x, double* out);

// The rounded entry from the exact value: op(A) row i, op(B) columns j[0], j[1], all finite.
template <typename T>
T round_exactly(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t i, const std::int64_t (&j)[2],
                const Terms& x, const double (&c0)[2]);

// The same from packed, scaled lines (cr/tile_sums.hpp): op(A)'s row and op(B)'s column times 2^-scale_a and
// 2^-scale_b exactly (tame lines: no entry underflowed), element l at p[l * stride]; a real GEMM's entry (R = 1).
struct PackedLine {
  const double* p;
  std::int64_t stride;
};
// The rounding of a real GEMM's entry w_0 2^scale (tau_1 + ... + tau_count) + beta_0 c_0 from the exact parts of its
// dot product (cr/extract_sum.hpp), decided in floating point (true, `out` set) unless the value lies near a rounding
// boundary or the ends of the range. Compiled per ISA (cr/entry_rounding_impl.hpp): TileKernels::round_parts_d / _f.
template <typename T>
using RoundParts = bool (*)(const double* parts, int count, int scale, const Terms& x, const double (&c0)[2],
                            double slack, T& out);

// RoundParts on the lanes of `lanes` of a tile's row (FP64), each with kRefinedParts parts (cr/refine_sum.hpp: lane j's
// part q at parts[q kMaxLanes + j], zeros included) and its slack, scale and C term c0 (read where beta != 0): bit j of
// the result says that out[j] is the entry's rounding, where RoundParts on the same parts would have decided a normal
// value or an exact zero; the other lanes are left to RoundParts (subnormal values, bounds too near a boundary).
using RoundPartsLanes = unsigned (*)(const double* parts, const double* slack, const int* scale, const double* c0,
                                     const Terms& x, unsigned lanes, double* out);

// The vector path to an entry's exact value: its dot product in parts by `extract` (cr/extract_sum.hpp), in `room`
// (2 k + 16 doubles, the calling thread's), rounded by `round`.
template <typename T>
struct Extraction {
  ExtractDot extract;
  RoundParts<T> round;
  double* room;
};

// The rounded entry by the extraction, the ExactSum where it gives up.
template <typename T>
T round_exactly_packed(PackedLine a, PackedLine b, int scale, const Terms& x, const double (&c0)[2],
                       const Extraction<T>& ex);

// The same from the parts the extraction gave (count: its result, -1 where it gave up; parts not read then).
template <typename T>
T round_extracted(const double* parts, int count, PackedLine a, PackedLine b, int scale, const Terms& x,
                  const double (&c0)[2], RoundParts<T> round);

// An entry whose products are all exactly zero: RN(beta_0 c_0 + beta_1 c_1) (+0 for an exact zero).
template <typename T>
T round_c_terms(const Terms& x, const double (&c0)[2]);

// An entry whose row or column holds NaN or Inf, or whose c_q does: the same expression in FP64 arithmetic, as the
// host GEMM computes it (IEEE's NaN and Inf).
template <typename T>
T round_nonfinite(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t i,
                  const std::int64_t (&j)[2], const Terms& x, const double (&c0)[2]);

}  // namespace bf16x::cr
