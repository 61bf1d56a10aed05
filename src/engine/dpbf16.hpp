// Scalar semantics of one BF16 pair step of TDPBF16PS / VDPBF16PS as the Intel SDM states them:
//   acc = fma(a_odd, b_odd, acc); acc = fma(a_even, b_even, acc)
// with BF16 subnormal inputs treated as zero (DAZ), exact products (8 x 8 significant bits fit in binary32),
// round-to-nearest-even sums, and subnormal FP32 results flushed to signed zero (FTZ). The reference engine, the
// tile model and the avx2 engine (one FMA per element) all compute this one definition.
#pragma once
#include <cmath>
#include <cstdint>

#include "split/bf16.hpp"

namespace bf16x::engine {

inline float daz_bf16(bf16_t h) { return bf16_is_subnormal(h) ? bf16_to_float(bf16_t(h & 0x8000u)) : bf16_to_float(h); }

inline float ftz(float x) {
  const std::uint32_t u = float_bits(x);
  return ((u & 0x7f800000u) == 0) ? bits_float(u & 0x80000000u) : x;
}

// One pair step. Each element is one fused multiply-add: the exact product (16 significant bits) is added to the
// accumulator and the sum rounded once (the default RNE environment), then flushed. Where the product is in
// binary32's normal range this is acc + a*b; a product below it (or above it) is not rounded (or overflowed)
// first, so FMA hardware reproduces the step exactly (docs/numerics.md, "Engine semantics").
inline float dpbf16_pair(float acc, bf16_t a_even, bf16_t a_odd, bf16_t b_even, bf16_t b_odd) {
  acc = ftz(std::fma(daz_bf16(a_odd), daz_bf16(b_odd), ftz(acc)));
  acc = ftz(std::fma(daz_bf16(a_even), daz_bf16(b_even), acc));
  return acc;
}

}  // namespace bf16x::engine
