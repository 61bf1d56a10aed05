// Error bounds shared by the tests and the fuzzer, derived here from first principles rather than copied from the
// library's error model (src/policy/error_model.cpp), which they check.
#pragma once
#include <cmath>

namespace bf16x::test {

// Truncation bound of fp64x(d products) relative to k * 2^(Ea_i + Eb_j). Slice s of an entry scaled below 1 is
// an integer of at most 2^8 units of 2^(-8-9s), so |slice_s| <= 2^(-9s); the kept products are those with
// i + j < d, so every dropped pair (i, j) of the 6 x 6 contributes at most 2^(-9i) 2^(-9j) per term, and what six
// slices leave of each operand is below 2^-54 of its scale.
inline double fp64_truncation_bound(int d) {
  double t = 2 * std::ldexp(1.0, -54);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      if (i + j >= d) t += std::ldexp(1.0, -9 * i) * std::ldexp(1.0, -9 * j);
  return t;
}

// Two FP32 sums of the same N exact terms (each engine at most one rounding per term, of a partial sum bounded by
// S = |start| + sum |terms|, or a flush of at most 2^-126): how far apart they may be. `ulp_rel` is 2^-24 for
// round to nearest (VDPBF16PS) and 2^-23 where the rounding may be directed (TDPBF16PS).
inline double fp32_two_sums_bound(double n, double s, double ulp_rel) { return 2 * n * (ulp_rel * s + 0x1p-126); }

// fp32x6 on two engines whose FP32 sums may round differently (TDPBF16PS in the hardware's own pair order against
// the SDM's sequence of the reference and the tile model). The slices of an entry add in magnitude to at most
// (1+2^-6)|x|, so every partial sum is at most T = 1.04 (|A||B|)_ij (second-order terms included). Each engine
// rounds R = 6 (k+32) (one per term, k padded to 32-chunks) + k/32 + 1 (k-block sums, BK >= 32) FP32 additions by
// at most one ulp (2^-23 relative) of such a sum, and the final FP32 result once (2^-24 of |alpha| T + |beta c|):
//   |x - y| <= 2 R 2^-23 |alpha| T + 2^-23 (|alpha| T + |beta c|).
inline double fp32x6_two_engines_bound(double k, double abs_ab, double alpha, double beta_c) {
  const double t = 1.04 * abs_ab, r = 6 * (k + 32) + k / 32 + 1;
  return 2 * r * 0x1p-23 * std::fabs(alpha) * t + 0x1p-23 * (std::fabs(alpha) * t + std::fabs(beta_c));
}

}  // namespace bf16x::test
