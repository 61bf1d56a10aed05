// BF16 storage type and exact conversions. BF16 is the top half of an IEEE binary32: 1 sign, 8 exponent and
// 7 stored significand bits (8 significant bits with the hidden one).
#pragma once
#include <cstdint>
#include <cstring>

namespace bf16x {

using bf16_t = std::uint16_t;

inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Exact widening: every BF16 value is a binary32 value.
inline float bf16_to_float(bf16_t h) { return bits_float(std::uint32_t(h) << 16); }

// Round-to-nearest-even narrowing. NaN stays NaN (quiet bit forced so truncation cannot make it Inf).
inline bf16_t float_to_bf16(float f) {
  std::uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16_t((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return bf16_t(u >> 16);
}

// True if the value is a BF16 subnormal (exponent field 0, nonzero significand): the engines read these as zero.
inline bool bf16_is_subnormal(bf16_t h) { return (h & 0x7f80u) == 0 && (h & 0x007fu) != 0; }

}  // namespace bf16x
