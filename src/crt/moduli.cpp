#include "crt/moduli.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

namespace bf16x::crt {
namespace {

// Unsigned integer of up to 256 bits, 32-bit limbs, least significant first.
struct Big {
  static constexpr int kLimbs = 8;
  std::uint32_t w[kLimbs] = {};

  static Big from(std::uint32_t v) {
    Big b;
    b.w[0] = v;
    return b;
  }
  Big mul(std::uint32_t v) const {
    Big r;
    std::uint64_t carry = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const std::uint64_t t = std::uint64_t(w[i]) * v + carry;
      r.w[i] = std::uint32_t(t);
      carry = t >> 32;
    }
    return r;
  }
  Big div(std::uint32_t v) const {  // exact division assumed by the callers (P / p_t)
    Big r;
    std::uint64_t rem = 0;
    for (int i = kLimbs - 1; i >= 0; --i) {
      const std::uint64_t t = (rem << 32) | w[i];
      r.w[i] = std::uint32_t(t / v);
      rem = t % v;
    }
    return r;
  }
  std::uint32_t mod(std::uint32_t v) const {
    std::uint64_t rem = 0;
    for (int i = kLimbs - 1; i >= 0; --i) rem = ((rem << 32) | w[i]) % v;
    return std::uint32_t(rem);
  }
  int bits() const {
    for (int i = kLimbs - 1; i >= 0; --i)
      if (w[i]) return 32 * i + 32 - __builtin_clz(w[i]);
    return 0;
  }
  bool bit(int i) const { return (w[i / 32] >> (i % 32)) & 1u; }
  // Value of bits [lo, hi) as a double; exact when hi - lo <= 53, else within a few units of 2^(hi - 53).
  double range(int lo, int hi) const {
    double r = 0;
    for (int i = hi - 1; i >= lo; --i) r = 2 * r + (bit(i) ? 1 : 0);
    return std::ldexp(r, lo);
  }
};

std::uint32_t inverse_mod(std::uint32_t a, std::uint32_t p) {
  for (std::uint32_t x = 1; x < p; ++x)
    if ((std::uint64_t(a) * x) % p == 1) return x;
  return 0;  // not reached for coprime moduli
}

CrtPlan make_plan(int n) {
  CrtPlan c;
  c.n = n;
  Big P = Big::from(1);
  for (int t = 0; t < n; ++t) P = P.mul(std::uint32_t(kModuli[t]));
  c.bits = P.bits();
  c.g = c.bits > 41 ? c.bits - 41 : 0;
  c.L = c.bits - 3;  // P >= 2^(bits-1), so 2^L <= P/4
  c.P1 = P.range(c.g, c.bits);
  c.P2 = P.range(0, c.g);
  c.invP = 1.0 / (c.P1 + c.P2);
  const auto chunk = [&](int i) { return std::pair{std::max(0, c.g - 40 * (i + 1)), std::max(0, c.g - 40 * i)}; };
  for (int i = 0; i < 3; ++i) c.Px[i] = P.range(chunk(i).first, chunk(i).second);
  for (int t = 0; t < n; ++t) {
    const std::uint32_t p = std::uint32_t(kModuli[t]);
    const Big M = P.div(p);
    const Big q = M.mul(inverse_mod(M.mod(p), p));  // < M p = P
    c.q1[t] = q.range(c.g, c.bits);
    c.q2[t] = q.range(0, c.g);
    for (int i = 0; i < 3; ++i) c.qx[i][t] = q.range(chunk(i).first, chunk(i).second);
    c.p[t] = p;
    c.invp[t] = 1.0 / p;
    c.pf[t] = float(p);
    c.invpf[t] = 1.0f / float(p);
    c.hi[t] = double((p - 1) / 2);  // 127 for 256 and for 255
    c.lo[t] = c.hi[t] - double(p) + 1;
    const double w = double((std::uint64_t(1) << 32) % p);
    c.two32[t] = w > c.hi[t] ? w - double(p) : w;
    std::uint32_t power = 1 % p;  // 2^(8i) mod p
    for (int i = 0; i < 8; ++i, power = power * 256 % p) c.byte_weights[t][i / 4] |= power << (8 * (i % 4));
  }
  return c;
}

}  // namespace

const CrtPlan& crt_plan(int n) {
  static CrtPlan plans[kMaxModuli + 1];
  static std::once_flag once;
  std::call_once(once, [] {
    for (int i = 1; i <= kMaxModuli; ++i) plans[i] = make_plan(i);
  });
  return plans[n < 1 ? 1 : (n > kMaxModuli ? kMaxModuli : n)];
}

double log2_modulus_product(int n) {
  double s = 0;
  for (int t = 0; t < n && t < kMaxModuli; ++t) s += std::log2(double(kModuli[t]));
  return s;
}

}  // namespace bf16x::crt
