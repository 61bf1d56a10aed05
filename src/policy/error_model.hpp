// A priori error model of the emulation modes, for mode auto (derivation in docs/auto.md).
//
// fp64x(d) is a fixed-point method: its truncation error in C_ij is bounded relative to k 2^(Ea_i + Eb_j), the
// row scale of op(A) times the column scale of op(B), not relative to (|A||B|)_ij (docs/numerics.md):
//
//     |C - AB|_ij <= k 2^(Ea_i+Eb_j) T_d  +  gamma_n (|A||B|)_ij (1 + small)  +  2u (|A||B|)_ij.
//
// In e_scaled terms that is about T_d R + gamma_n + 2u, where the fill ratio R = max_ij k 2^(Ea_i+Eb_j) /
// (|A||B|)_ij = 1 / min_ij mean_l |v_il| |w_lj| (v = a 2^-Ea, w = b 2^-Eb, both in [0, 1)). R is about 4 for
// uniform inputs and grows without bound when entries spread over many binades within a row or column.
//
// One pass over each operand bounds R from above without forming any product: per line (row of op(A), column of
// op(B)) a histogram of |v| in quarter-binade bins, and over all lines the largest count at or below each bin.
// That gives, position by position, a lower envelope of every line's sorted |v|; by the rearrangement inequality
// sum_l x_l y_l >= sum_p x_(p) y_(k-1-p) (one sequence ascending, the other descending), so pairing A's envelope
// ascending with B's descending bounds every mean_l |v_il||w_lj| from below. The bound is rigorous (bins round
// down, magnitudes below 2^-128 of their line count as zero); it is pessimistic by about 1.6x on uniform data and
// by far more on heavy-tailed data, where the fixed-point method is the wrong tool anyway.
#pragma once
#include <array>
#include <cstdint>

#include "pack/operand.hpp"

namespace bf16x::policy {

inline constexpr double kUnitRoundoff64 = 0x1p-53;
inline constexpr double kUnitRoundoff32 = 0x1p-24;

// gamma_n = n u / (1 - n u); +inf once n u >= 1.
double gamma(double n, double u);

// T_d: the truncation bound of fp64x(d) relative to k 2^(Ea+Eb). Slices obey |A_s| <= 2^(-9s) of the line scale,
// min(t+1, 11-t) products lie on anti-diagonal t, and the six-slice tail is below 2^-54 per operand.
double fp64_truncation(int d);
// d of an FP64 slice mode (fp64x6..fp64x21: the products i + j < d, from its mode record), 0 for any other mode.
int fp64_slice_diagonals(int mode);

// Lower envelope of the sorted magnitudes |v| of every nonzero line of one operand.
struct FillEnvelope {
  static constexpr int kSubBins = 4;    // bins per binade: a value is at most 19% above its bin's lower edge
  static constexpr int kBinades = 128;  // |v| in [2^-128, 1); smaller magnitudes fall into bin 0 (edge 0)
  static constexpr int kBins = 1 + kBinades * kSubBins;
  std::int64_t len = 0;                     // elements per line (k)
  std::int64_t lines = 0;                   // lines with a nonzero entry (all-zero lines add no error)
  bool nonfinite = false;                   // a NaN or Inf was seen: nothing else is meaningful
  std::array<std::int64_t, kBins> worst{};  // max over lines of the number of entries in bins 0..b

  static double lower_edge(int bin);
};

// One pass over op(X): per_row = true measures the rows of an m x k op(A), false the columns of a k x n op(B).
// exp (one int per line), where given: each line's scale exponent from the same read, split::scale_exponent of its
// largest magnitude as pack::scan_scales_a/b give it (0 for a zero line); not meaningful where nonfinite.
template <typename T>
FillEnvelope measure_fill(const pack::MatrixView<T>& x, std::int64_t rows, std::int64_t cols, bool per_row,
                          int* exp = nullptr);

// Upper bound of R = max_ij k 2^(Ea_i+Eb_j) / (|A||B|)_ij over the entries with a nonzero denominator; 0 when
// either operand has no nonzero line (C = beta C exactly), +inf when no positive lower bound exists.
double fill_ratio(const FillEnvelope& a, const FillEnvelope& b);

// Bound on e_scaled of alpha op(A) op(B) for an emulation mode with fill ratio R; block_k = 0 is the default.
double predicted_escaled(int mode, std::int64_t k, int block_k, double fill_ratio);

// The standard bound gamma_k on e_scaled of a native GEMM in working precision.
double native_escaled(bool is_double, std::int64_t k);

// The emulation mode with the fewest products whose predicted e_scaled meets target; BF16X_MODE_NATIVE if none.
int fewest_products(bool is_double, std::int64_t k, int block_k, double fill_ratio, double target);

}  // namespace bf16x::policy
