// FP32 -> three BF16 slices by repeated round-to-nearest residuals:
//   s0 = bf16(v), s1 = bf16(v - s0), s2 = bf16(v - s0 - s1),  v = x * 2^-E.
// Each residual is exact in binary32 (Sterbenz); s0 holds 8 significant bits, the first residual at most 16, the
// second at most 8, so s0 + s1 + s2 == v exactly whenever every slice is a normal BF16 (the engines read BF16
// subnormals as zero). The row scale 2^-E keeps v near 1 so only entries below 2^-126 of their row's maximum
// can lose bits that way.
#pragma once
#include <cmath>

#include "split/bf16.hpp"
#include "util/pow2.hpp"

namespace bf16x::split {

inline void split_fp32(float x, int E, int ns, bf16_t* out, std::ptrdiff_t stride) {
  float r = util::times_pow2(x, -E);  // ldexp's rounding without a libm call
  for (int s = 0; s < ns; ++s) {
    const bf16_t h = float_to_bf16(r);
    out[s * stride] = h;
    r -= bf16_to_float(h);
  }
}

}  // namespace bf16x::split
