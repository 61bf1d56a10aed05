// 2^e from its bit pattern, for the power-of-two scales of the drivers' writes and operand scans (one per element:
// no libm call).
#pragma once
#include <cstdint>
#include <cstring>

namespace bf16x::util {

// 2^e for a normal-range exponent, -1022 <= e <= 1023.
inline double pow2(int e) {
  const std::uint64_t bits = std::uint64_t(e + 1023) << 52;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace bf16x::util
