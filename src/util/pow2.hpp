// 2^e from its bit pattern, for the power-of-two scales of the drivers' writes and operand scans (one per element:
// no libm call).
#pragma once
#include <cmath>
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

// 2^e as a float for a normal-range exponent, -126 <= e <= 127.
inline float pow2f(int e) {
  const std::uint32_t bits = std::uint32_t(e + 127) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// ldexp(x, e) (x 2^e with one correct rounding): one multiplication where 2^e is a normal number, whose rounding is
// ldexp's; ldexp itself outside that range.
inline double times_pow2(double x, int e) { return e >= -1022 && e <= 1023 ? x * pow2(e) : std::ldexp(x, e); }
inline float times_pow2(float x, int e) { return e >= -126 && e <= 127 ? x * pow2f(e) : std::ldexp(x, e); }

// nearbyint(y) in the default rounding mode (to nearest, ties to even): for |y| < 2^52, |y| + 2^52 lands where the
// spacing of doubles is 1, so the addition rounds |y| to an integer and the subtraction is exact; the sign (of -0
// too) is y's. Beyond 2^52 every double is an integer already.
inline double round_to_even(double y) {
  const double a = std::fabs(y);
  return a < 0x1p52 ? std::copysign((a + 0x1p52) - 0x1p52, y) : y;
}

// 2^s for any s with |s| <= 2044 as two normal-range factors f1 f2 (f1 = 2^floor(s/2)): multiplying by f1, then by
// f2, scales by 2^s exactly wherever the result is normal, over the whole exponent range.
inline void pow2_pair(int s, double& f1, double& f2) {
  const int h = s >= 0 ? s / 2 : -((-s + 1) / 2);
  f1 = pow2(h);
  f2 = pow2(s - h);
}

}  // namespace bf16x::util
