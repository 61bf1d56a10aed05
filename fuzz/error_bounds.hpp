// Per-entry error bounds of every mode, from docs/numerics.md, in the form tests/test_modes.cpp states them, plus
// the native host GEMM's. Two extensions the fuzzer's inputs need and the tests' do not: a block_k other than the
// default changes the number of rounded additions, and subnormal results (inputs spanning the whole exponent
// range) lose up to one subnormal ulp per rounding, which `underflow` accounts for.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "bf16x/bf16x.h"
#include "mode/records.hpp"
#include "tests/gemm_fixture.hpp"

namespace bf16x::fuzz {

inline constexpr double kU64 = 0x1p-53, kU32 = 0x1p-24;
inline double gamma_n(double n, double u) { return n * u / (1 - n * u); }

struct EntryScale {
  double alpha;    // |alpha|
  double beta_c0;  // |beta * C0_ij|, 0 when beta == 0 (C is not read)
  double r;        // |alpha (AB)_ij + beta C0_ij| from the double-double reference
  double absab;    // (|A||B|)_ij
  double fixed;    // k * 2^(Ea_i + Eb_j), the fixed-point scale of the FP64 and FP32 slice bounds
  std::int64_t k;
};

// d of an FP64 slice mode: the products i + j < d (its mode record).
inline int diagonals_of(int mode) {
  const mode::Record* r = mode::record(mode);
  return r ? r->diagonals : 0;
}

// |C_ij - R_ij| allowed for the mode that ran. `dbl`: the routine's precision (native and the final rounding).
// `guarded`: the componentwise guard wrapped the call (to `target` where auto's caller set one, else 4 k u) (its
// option, else the mode record's default; every mode auto chose). A CRT mode's own bound depends on the scales the call
// chose (tests/crt_bound.hpp evaluates it from them); from outside only the guard's promise can be checked, so an
// unguarded CRT result is not value-checked (+Inf).
inline double error_bound(int mode, bool dbl, int block_k, const EntryScale& e, bool guarded = false,
                          double target = 0) {
  const double kd = double(e.k);
  const double tiny =
      dbl ? std::numeric_limits<double>::denorm_min() : double(std::numeric_limits<float>::denorm_min());
  const double underflow = (kd + 4) * (1 + e.alpha) * tiny;
  if (mode == BF16X_MODE_NATIVE) {
    // Any summation order: gamma_(k+2) covers the products, the k-1 additions and alpha; beta C0 and the final
    // rounding add one unit each.
    const double u = dbl ? kU64 : kU32;
    return 1.01 * (e.alpha * e.absab * gamma_n(kd + 2, u) + 2 * u * e.beta_c0 + u * e.r) + underflow;
  }
  if (mode::is(mode, mode::Method::correctly_rounded)) {
    // RN(alpha AB + beta C0): half an ulp of the result. The reference r is itself rounded (the exact product to
    // FP64, then alpha p + beta C0 in FP64): up to 2 u64 (|alpha| (|A||B|) + |beta C0|) of it besides.
    const double u = dbl ? kU64 : kU32;
    return u * e.r + 2 * kU64 * (e.alpha * e.absab + e.beta_c0) + underflow;
  }
  if (mode::is(mode, mode::Method::crt)) {
    if (!guarded) return HUGE_VAL;
    // The guard's target 4 k u (|A||B|)_ij on the product (proved, repaired by dot products, or the host GEMM's
    // gamma_(k+2)), times alpha; beta C0 and the final rounding to T one unit each, the FP64 sum one more.
    const double u = dbl ? kU64 : kU32;
    const double tau = std::max({4 * kd * kU64, gamma_n(kd + 2, u), target});  // a target auto's caller set
    return 1.01 * (e.alpha * e.absab * tau + 2 * kU64 * e.beta_c0 + (u + kU64) * e.r) + underflow;
  }
  if (const mode::Record* r = mode::record(mode); r && r->method == mode::Method::slices && !mode::fits(mode, true)) {
    // FP32 slices (docs/numerics.md): 2 rounded pair additions per product and k in a bk-deep FP32 block sum, one
    // add per k-block; dropped: fp32x6's three exact slices leave A1B2 + A2B1 + A2B2 <= 3 * 2^-24 |a||b|, fp32x3's
    // two a residual of 2^-16 |x| on each factor and A1B1, under 3.1 * 2^-16 |a||b|; DAZ of slices 2^-126 below the
    // row scale; alpha and beta in FP64, one rounding to FP32.
    const double bk = block_k > 0 ? block_k : 64;
    const double n = 2.0 * r->products * bk + std::ceil(kd / bk);
    const double rel = gamma_n(n, kU32) * 1.02 + (r->slices >= 3 ? 3.1 * kU32 : 3.1 * 0x1p-16);
    return e.alpha * (e.absab * rel + e.fixed * 0x1p-120) + kU32 * e.r + 2 * kU64 * e.beta_c0 + underflow;
  }
  // fp64x(d): truncation T_d of the fixed point plus the FP64 additions (groups x k-blocks) of the exact sums.
  const int d = diagonals_of(mode);
  const double bk = block_k > 0 ? block_k : 256;
  const double adds = double((d * (d + 1)) / 2) * std::ceil(kd / bk) + 2;
  const double rel = test::fp64_truncation_bound(d) + gamma_n(adds, kU64) * 1.01 + 2 * kU64;
  return e.alpha * e.fixed * rel + 2 * kU64 * e.beta_c0 + kU64 * e.r + underflow;
}

}  // namespace bf16x::fuzz
