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

// 2^s for any s with |s| <= 2044 as two normal-range factors f1 f2 (f1 = 2^floor(s/2)): multiplying by f1, then by
// f2, scales by 2^s exactly wherever the result is normal, over the whole exponent range.
inline void pow2_pair(int s, double& f1, double& f2) {
  const int h = s >= 0 ? s / 2 : -((-s + 1) / 2);
  f1 = pow2(h);
  f2 = pow2(s - h);
}

}  // namespace bf16x::util
