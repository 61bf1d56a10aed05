// Error and cost model of the CRT modes, for mode auto (docs/auto.md, "CRT modes").
//
// Error: from the bound of docs/numerics.md ("CRT path"), with rho_i <= log2 k + 1.05 (H <= 4096 k + 128 k + k),
// 2^-sa_i <= sqrt(k) 2^(1.53 - L/2), ||B^_:j||_1 <= k and the fill ratio R >= k 2^(ea_i + eb_j) / (|A||B|)_ij:
//   e_scaled <= R sqrt(k) 2^(2.53 - L/2) + R 2^-60 + u
// (the second term covers the CRT's own rounding, the third the final rounding to the output precision).
#pragma once
#include <cstdint>

namespace bf16x::crt {

double predicted_escaled(int moduli, bool is_double, std::int64_t k, double fill_ratio);

// The CRT mode with the fewest moduli whose predicted e_scaled meets target (fp64c8..20 / fp32c5..10), or
// BF16X_MODE_NATIVE if none does.
int fewest_moduli(bool is_double, std::int64_t k, double fill_ratio, double target);

}  // namespace bf16x::crt
