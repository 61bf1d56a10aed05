#include "policy/guard.hpp"

#include <cmath>

#include "crt/crt_mode.hpp"
#include "crt/moduli.hpp"
#include "pack/layout.hpp"
#include "policy/error_model.hpp"

namespace bf16x::policy {
namespace {

int ceil_log2(std::int64_t k) {
  int b = 0;
  while ((std::int64_t(1) << b) < k) ++b;
  return b;
}

}  // namespace

EntryBound entry_bound(int mode, std::int64_t k, int block_k) {
  EntryBound b;
  constexpr double u = kUnitRoundoff64;
  if (const int d = fp64_slice_diagonals(mode); d > 0) {
    // policy/error_model.hpp: truncation T_d and the FP64 sums of the exact group sums, per nonzero product.
    const double bk = block_k > 0 ? block_k : pack::kBlockK;
    const double g = gamma(double(d * (d + 1) / 2) * std::ceil(double(k) / bk), u), c = 0x1p-8 * (1 + 0x1p-8);
    b.c_prod = fp64_truncation(d) + g * (2 * c + c * c);
    b.c_rel = g + 2 * u;
    b.valid = true;
  } else if (crt::is_crt_mode(mode)) {
    // docs/numerics.md, "CRT modes": trunc = S (2^-sa ||b^||_1 + 2^-sb ||a^||_1), recon = S 2^(g-33-sa-sb), with
    // sa, sb >= sigma under either scaling; the write rounds X~, m_alpha X~ and the sum: (1 + 3u) on E,
    // (2u + u^2) |alpha R| and u (or u32 + 2u) |C|, with |C| <= |alpha| (P + E) + |beta C0|.
    const crt::CrtPlan& plan = crt::crt_plan(crt::crt_moduli(mode));
    const int sigma = crt_sigma(mode, k);
    const double uc = crt::is_fp64c(mode) ? u : kUnitRoundoff32 + 2 * u;
    const double grow = (1 + 3 * u) * (1 + uc);
    b.c_norm = std::ldexp(1.0, -sigma) * grow;
    b.c_entry = std::ldexp(1.0, plan.g - 33 - 2 * sigma) * grow;
    b.c_rel = 2 * u + u * u + uc;
    b.valid = sigma > 0;
  }
  return b;
}

int crt_sigma(int mode, std::int64_t k) {
  return crt::is_crt_mode(mode) ? (crt::crt_plan(crt::crt_moduli(mode)).L - ceil_log2(k) - 1) / 2 : 0;
}

double guard_target(bool is_double, std::int64_t k) {
  return 4 * double(k) * (is_double ? kUnitRoundoff64 : kUnitRoundoff32);
}

bool envelope_proves(const EntryBound& e, std::int64_t k, double fill_ratio, double tau) {
  if (!e.valid) return false;
  if (fill_ratio == 0) return true;  // a zero operand: C = beta C exactly
  return fill_ratio * (e.c_prod + 2 * e.c_norm + e.c_entry / double(k)) + e.c_rel <= tau;
}

}  // namespace bf16x::policy
