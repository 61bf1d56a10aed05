#include "crt/direct_products.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "crt/crt_loops.hpp"

namespace bf16x::crt {
namespace {

using i128 = __int128;

// An integer-valued double below 2^76 in magnitude as a 128-bit integer: directly below 2^62, else its high part
// v 2^-32 truncated (the conversion's own truncation) and the rest, both exact. No libm call: the library's base
// build has no SSE4.1 rounding or FMA instructions, and their libm forms cost tens of nanoseconds each.
i128 to_int(double v) {
  if (std::fabs(v) < 0x1p62) return i128(std::int64_t(v));
  const std::int64_t h = std::int64_t(v * 0x1p-32);
  return i128(h) * (i128(1) << 32) + i128(std::int64_t(v - double(h) * 0x1p32));
}

// 2^e modulo p in [0, p).
constexpr int pow2_mod(int e, int p) {
  int r = 1 % p;
  for (int i = 0; i < e; ++i) r = (2 * r) % p;
  return r;
}

// 2^42 and 2^84 modulo each modulus (a plan's moduli are the first N of kModuli), built at compile time.
struct Pow2Mods {
  double w42[kMaxModuli], w84[kMaxModuli];
};
constexpr Pow2Mods kPow2Mods = [] {
  Pow2Mods w{};
  for (int t = 0; t < kMaxModuli; ++t) w.w42[t] = pow2_mod(42, kModuli[t]), w.w84[t] = pow2_mod(84, kModuli[t]);
  return w;
}();

}  // namespace

void direct_residues(const double* a, const double* b, int m, int n, int k, const CrtPlan& plan, std::int8_t* res,
                     std::size_t plane, std::size_t row, double* x, std::int64_t* ints) {
  constexpr int kMost = kDirectLines * kDirectLines;
  const int entries = m * n;
  // X_ij for every entry, in three parts: X = x2 2^84 + x1 2^42 + x0 with x0, x1 in [0, 2^42).
  double* const x0 = x;
  double* const x1 = x + kMost;
  double* const x2 = x + 2 * kMost;
  constexpr i128 kMask = (i128(1) << 42) - 1;
  const auto put = [&](int e, i128 v) {
    x0[e] = double(std::int64_t(v & kMask)), x1[e] = double(std::int64_t((v >> 42) & kMask)),
    x2[e] = double(std::int64_t(v >> 84));
  };
  bool narrow = true;  // every operand below 2^62: 64-bit factors, one multiplication a product
  for (int e = 0; e < m * k; ++e) narrow = narrow && std::fabs(a[e]) < 0x1p62;
  for (int e = 0; e < n * k; ++e) narrow = narrow && std::fabs(b[e]) < 0x1p62;
  if (narrow) {  // each operand converted once, not once per product
    std::int64_t *ia = ints, *ib = ints + m * k;
    for (int e = 0; e < m * k; ++e) ia[e] = std::int64_t(a[e]);
    for (int e = 0; e < n * k; ++e) ib[e] = std::int64_t(b[e]);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const std::int64_t *ar = ia + i * k, *bc = ib + j * k;
        i128 v0 = 0, v1 = 0;  // two carry chains side by side (the sum is exact in any order)
        int l = 0;
        for (; l + 2 <= k; l += 2) v0 += i128(ar[l]) * bc[l], v1 += i128(ar[l + 1]) * bc[l + 1];
        if (l < k) v0 += i128(ar[l]) * bc[l];
        put(i * n + j, v0 + v1);
      }
  } else {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        i128 v = 0;
        for (int l = 0; l < k; ++l) v += to_int(a[i * k + l]) * to_int(b[j * k + l]);
        put(i * n + j, v);
      }
  }
  // r = x2 (2^84 mod p) + x1 (2^42 mod p) + x0 is congruent to X and, |X| < 2^125, below 2^41 2^8 + 2^42 2^8 + 2^42
  // < 2^51: exact in FP64, and its residue is taken as the residue loops' direct way takes it (crt_loops_impl.hpp).
  std::int8_t v[kMost];
  for (int t = 0; t < plan.n; ++t) {
    crt_loops().split_residues(x0, x1, x2, entries, kPow2Mods.w42[t], kPow2Mods.w84[t], plan.p[t], plan.invp[t], v);
    for (int i = 0; i < m; ++i)
      std::memcpy(res + std::size_t(t) * plane + std::size_t(i) * row, v + i * n, std::size_t(n));
  }
}

void digit_maxima(const double* da, const double* db, int m, int n, int k, double* hrow, double* hcol) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      // at most 32 products of at most 64^2: exact in any order (four sums, so that they run side by side)
      double h4[4] = {};
      int l = 0;
      for (; l + 4 <= k; l += 4)
        for (int q = 0; q < 4; ++q) h4[q] += da[i * k + l + q] * db[j * k + l + q];
      for (; l < k; ++l) h4[0] += da[i * k + l] * db[j * k + l];
      const double h = (h4[0] + h4[1]) + (h4[2] + h4[3]);
      hrow[i] = std::max(hrow[i], h);
      hcol[j] = std::max(hcol[j], h);
    }
}

}  // namespace bf16x::crt
