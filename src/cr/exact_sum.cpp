#include "cr/exact_sum.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace bf16x::cr {
namespace {

using u128 = unsigned __int128;
constexpr std::int64_t kDigit = 0xffffffff;
constexpr std::uint64_t kMantissa = (std::uint64_t(1) << 52) - 1;

// x = m 2^e with m an integer below 2^53 (subnormals included), from x's bit pattern; x finite. No branch: a zero
// exponent field (a subnormal or zero) has no hidden bit and the exponent of field 1.
void decompose_bits(std::uint64_t bits, std::uint64_t& m, int& e) {
  const std::uint64_t field = (bits >> 52) & 0x7ff;
  m = (bits & kMantissa) | (std::uint64_t(field != 0) << 52);
  e = int(field + (field == 0)) - 1075;
}
void decompose(double x, std::uint64_t& m, int& e) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  decompose_bits(bits, m, e);
}

// Limbs [lo, hi) of v to [0, 2^32) but the last of them, which keeps the sign and the rest.
void carry_limbs(std::int64_t* v, int lo, int hi) {
  for (int i = lo; i + 1 < hi; ++i) {
    v[i + 1] += v[i] >> 32;  // arithmetic shift: the floor of v[i] / 2^32
    v[i] &= kDigit;
  }
}

}  // namespace

void ExactSum::clear() {
  adds_ = 0;
  lo_ = kLimbs, hi_ = 0;
}

void ExactSum::cover(int lo, int hi) {
  hi = std::min(kLimbs, hi);
  if (hi_ <= lo_) {  // empty: the window is [lo, hi)
    std::memset(limb_ + lo, 0, sizeof(std::int64_t) * std::size_t(hi - lo));
    lo_ = lo, hi_ = hi;
    return;
  }
  if (lo < lo_) std::memset(limb_ + lo, 0, sizeof(std::int64_t) * std::size_t(lo_ - lo)), lo_ = lo;
  if (hi > hi_) std::memset(limb_ + hi_, 0, sizeof(std::int64_t) * std::size_t(hi - hi_)), hi_ = hi;
}

void ExactSum::add_bits(std::uint64_t mag, int exp, bool negative) {
  if (mag == 0) return;
  // From the lowest set bit on: a product's factors may carry zeros below it (a part of cr/extract_sum.hpp at a
  // scale of 2^-2000 times alpha), while the value's own lowest bit lies above 2^kLow
  const int zeros = __builtin_ctzll(mag);
  mag >>= zeros, exp += zeros;
  assert(exp >= kLow);
  const int s = exp - kLow, idx = s >> 5;
  assert(idx + 2 < kLimbs);
  const u128 v = u128(mag) << (s & 31);  // below 2^95: three digits
  const std::int64_t d0 = std::int64_t(std::uint64_t(v) & kDigit), d1 = std::int64_t(std::uint64_t(v >> 32) & kDigit),
                     d2 = std::int64_t(std::uint64_t(v >> 64));
  cover(idx, idx + 4);
  if (negative) {
    limb_[idx] -= d0, limb_[idx + 1] -= d1, limb_[idx + 2] -= d2;
  } else {
    limb_[idx] += d0, limb_[idx + 1] += d1, limb_[idx + 2] += d2;
  }
  if (++adds_ == (1 << 30)) carry();
}

void ExactSum::add_product(double a, double b, int shift) {
  if (a == 0 || b == 0) return;
  std::uint64_t ma, mb;
  int ea, eb;
  decompose(a, ma, ea);
  decompose(b, mb, eb);
  const u128 m = u128(ma) * mb;  // below 2^106
  const bool negative = std::signbit(a) != std::signbit(b);
  add_bits(std::uint64_t(m), ea + eb + shift, negative);
  add_bits(std::uint64_t(m >> 64), ea + eb + shift + 64, negative);
}

template <typename T>
void ExactSum::add_dot(const T* a, std::int64_t sa, const T* b, std::int64_t sb, std::int64_t k, int shift,
                       bool negate) {
  std::int64_t* const limb = limb_;
  const std::uint64_t flip = negate ? 1 : 0;
  // Each term adds under 2^33 to each of five limbs (below), so 2^28 terms stay far below 2^63 before the carry.
  for (std::int64_t l0 = 0; l0 < k; l0 += std::int64_t(1) << 28) {
    const std::int64_t l1 = std::min(k, l0 + (std::int64_t(1) << 28));
    for (std::int64_t l = l0; l < l1; ++l) {
      const double x = double(a[l * sa]), y = double(b[l * sb]);
      std::uint64_t ux, uy;
      std::memcpy(&ux, &x, sizeof ux);
      std::memcpy(&uy, &y, sizeof uy);
      if (((ux << 1) == 0) | ((uy << 1) == 0)) continue;  // a zero factor (the triangles of packed panels)
      std::uint64_t mx, my;
      int ex, ey;
      decompose_bits(ux, mx, ex);
      decompose_bits(uy, my, ey);
      const u128 m = u128(mx) * my;                                    // below 2^106
      const std::int64_t s = -std::int64_t(((ux ^ uy) >> 63) ^ flip);  // 0: add, -1: subtract
      const auto put = [s](std::int64_t& limb, std::uint64_t d) { limb += (std::int64_t(d) ^ s) - s; };
      const int pos = ex + ey + shift - kLow, idx = pos >> 5, off = pos & 31;  // m 2^off from limb idx on
      if (idx < lo_ || idx + 5 > hi_) cover(idx, idx + 5);
      // m 2^off in five digits: its low 32 bits shifted (below 2^63) and the rest shifted (below 2^105); the digit
      // where they meet is below 2^33
      const std::uint64_t low = (std::uint64_t(m) & kDigit) << off;
      const u128 rest = (m >> 32) << off;
      const std::uint64_t r0 = std::uint64_t(rest), r1 = std::uint64_t(rest >> 64);
      put(limb[idx], low & kDigit);
      put(limb[idx + 1], (low >> 32) + (r0 & kDigit));
      put(limb[idx + 2], r0 >> 32);
      put(limb[idx + 3], r1 & kDigit);
      put(limb[idx + 4], r1 >> 32);
    }
    carry();
  }
}

template void ExactSum::add_dot(const float*, std::int64_t, const float*, std::int64_t, std::int64_t, int, bool);
template void ExactSum::add_dot(const double*, std::int64_t, const double*, std::int64_t, std::int64_t, int, bool);

void ExactSum::carry() {
  if (hi_ <= lo_) return;
  cover(lo_, hi_ + 1);  // room for the carry out of the top limb
  carry_limbs(limb_, lo_, hi_);
  adds_ = 0;
}

bool ExactSum::magnitude(std::uint32_t* digits, bool& negative) const {
  negative = false;
  if (hi_ <= lo_) return false;
  // the window and one limb above it (outside the window: zero): the value's sign ends up in its top limb
  const int lo = lo_, hi = std::min(kLimbs, hi_ + 1);
  std::int64_t v[kLimbs];
  std::memcpy(v + lo, limb_ + lo, sizeof(std::int64_t) * std::size_t(hi_ - lo));
  if (hi > hi_) v[hi_] = 0;
  carry_limbs(v, lo, hi);
  negative = v[hi - 1] < 0;
  if (negative) {
    for (int i = lo; i < hi; ++i) v[i] = -v[i];
    carry_limbs(v, lo, hi);
  }
  bool nonzero = false;
  for (int i = lo; i < hi; ++i) {
    digits[i] = std::uint32_t(v[i]);
    nonzero |= v[i] != 0;
  }
  return nonzero;
}

void ExactSum::add_scaled(const ExactSum& x, double w) {
  std::uint32_t d[kLimbs];
  bool negative;
  if (!x.magnitude(d, negative) || w == 0) return;
  std::uint64_t mw;
  int ew;
  decompose(w, mw, ew);
  negative = negative != std::signbit(w);
  for (int i = x.lo_; i < std::min(kLimbs, x.hi_ + 1); ++i) {
    if (!d[i]) continue;
    const u128 v = u128(d[i]) * mw;  // below 2^85
    add_bits(std::uint64_t(v), kLow + 32 * i + ew, negative);
    add_bits(std::uint64_t(v >> 64), kLow + 32 * i + ew + 64, negative);
  }
}

double ExactSum::round_to(int precision, int min_exp, int max_exp) const {
  std::uint32_t d[kLimbs];
  bool negative;
  if (!magnitude(d, negative)) return 0.0;
  // d is set in the window [lo, hi) only; every digit outside it is zero
  const int lo = lo_, hi = std::min(kLimbs, hi_ + 1);
  const auto digit = [&](int i) { return i >= lo && i < hi ? d[i] : 0u; };
  int top = hi - 1;
  while (!d[top]) --top;                                  // the magnitude is nonzero: a digit of the window is
  const int msb = 32 * top + 31 - __builtin_clz(d[top]);  // bit index of the leading one
  const int e = kLow + msb;                               // value in [2^e, 2^(e+1))
  if (e >= max_exp) return negative ? -HUGE_VAL : HUGE_VAL;
  const int q = e - precision + 1 > min_exp ? e - precision + 1 : min_exp;  // the weight of the result's last bit
  const int pos = q - kLow;
  // bits [pos, pos + 64) as an integer, the rounding bit below them and the sticky bits below that
  auto bits_at = [&](int p) -> std::uint64_t {
    const int w = p >> 5, off = p & 31;
    u128 x = 0;
    for (int j = 2; j >= 0; --j) x = (x << 32) | digit(w + j);
    return std::uint64_t(x >> off);
  };
  std::uint64_t m = bits_at(pos);
  const int r = pos - 1;
  const bool round_bit = (digit(r >> 5) >> (r & 31)) & 1u;
  bool sticky = (digit(r >> 5) & ((std::uint32_t(1) << (r & 31)) - 1)) != 0;
  for (int i = std::min((r >> 5) - 1, hi - 1); i >= lo && !sticky; --i) sticky = d[i] != 0;
  if (round_bit && (sticky || (m & 1))) ++m;
  if (m == 0) return negative ? -0.0 : 0.0;  // below half the smallest subnormal: a signed zero
  const int length = 64 - __builtin_clzll(m);
  if (q + length > max_exp) return negative ? -HUGE_VAL : HUGE_VAL;
  const double x = std::ldexp(double(m), q);  // m < 2^(precision+1): exact
  return negative ? -x : x;
}

double ExactSum::to_double() const { return round_to(53, -1074, 1024); }

float ExactSum::to_float() const { return float(round_to(24, -149, 128)); }

}  // namespace bf16x::cr
