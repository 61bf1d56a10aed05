// FP64 -> six BF16 slices: fixed-point (Ozaki-style) extraction on a per-row (A) / per-column (B) grid.
//
// With the row's scale exponent E (|x| < 2^E for every x of the row) and v = x * 2^-E in (-1, 1):
//   slice s = n_s * g_s,  g_s = 2^(-8 - 9s),  n_s = round_to_nearest_even(r_s / g_s),  r_{s+1} = r_s - slice s.
// |n_0| <= 2^8 because |v| < 1; round-to-nearest leaves |r_{s+1}| <= g_s / 2, so |n_{s+1}| <= 2^8 as well. Every
// integer of magnitude <= 2^8 has at most 8 significant bits, so each slice is exactly a BF16 value, and the grid
// steps by 2^9 per slice (the sign of a round-to-nearest residual is the ninth bit): six slices reach g_5 = 2^-53
// and hold any double of the row whose magnitude is within 2^-1 of the row's maximum exactly.
// (Truncating instead of rounding, or stepping the grid by 2^8, loses a bit per slice: about 5x the error.)
#pragma once
#include <cmath>

#include "split/bf16.hpp"
#include "util/pow2.hpp"

namespace bf16x::split {

inline constexpr int kFp64FirstGridExp = -8;  // g_0 = 2^-8
inline constexpr int kFp64GridStep = 9;       // g_{s+1} = g_s * 2^-9

// The scale exponent of a row/column with maximum magnitude mx: smallest E with mx < 2^E (0 for an all-zero row).
inline int scale_exponent(double mx) {
  if (!(mx > 0.0)) return 0;
  int e;
  std::frexp(mx, &e);
  return e;
}

// Splits x (with its row's scale exponent E) into ns BF16 slices of v = x*2^-E. With store_exp = E the stored
// slices carry the scale (the paper's unscaled path: slices outside the BF16 normal range are lost); with
// store_exp = 0 they stay in [2^-53, 1] and the scale is applied in FP64 after the products.
// The scalings are ldexp's roundings without libm calls (util::times_pow2; 2^gexp is always normal), the rounding to
// the grid nearbyint's in the default rounding mode (util::round_to_even).
inline void split_fp64(double x, int E, int store_exp, int ns, bf16_t* out, std::ptrdiff_t stride) {
  double r = util::times_pow2(x, -E);
  for (int s = 0; s < ns; ++s) {
    const int gexp = kFp64FirstGridExp - kFp64GridStep * s;
    const double n = util::round_to_even(r * util::pow2(-gexp));
    const double slice = n * util::pow2(gexp);
    r -= slice;  // exact: slice is the grid point nearest r
    out[s * stride] = float_to_bf16(float(util::times_pow2(slice, store_exp)));
  }
}

}  // namespace bf16x::split
