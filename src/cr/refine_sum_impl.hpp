// cr/refine_sum.hpp's RefineRow written once over a vector type V (util/f64_vectors.hpp), compiled per ISA with the
// tiles.
#pragma once
#include <cstdint>
#include <type_traits>

#include "cr/extract_sum.hpp"
#include "cr/refine_sum.hpp"

// Internal linkage: each ISA file's copy stays its own (an inline function would be one weak symbol for all).
namespace bf16x::cr {
namespace {
namespace refine {

template <typename V>
void refine_row(const double* a, std::int64_t sa, const double* b, std::int64_t k, unsigned lanes, const double* t,
                double* parts, double* slack) {
  constexpr int L = V::kLanes;
  using R = typename V::reg;
  constexpr double u = 0x1p-53;
  const double kd = double(k);
  const R zero = V::zero(), one = V::set1(1.0), two = V::set1(2.0);
  int live = kd * u <= 0.01 ? int(lanes) & ((1 << L) - 1) : 0;
  const R tl = V::select(live, V::load(t), one);
  live &= V::le(V::set1(0x1p-800), tl) & V::lt(tl, V::set1(0x1p900));  // (t < 2^900 of any tame line: |a|, |b| < 2)
  const R tv = V::select(live, tl, one);                               // harmless values on the other lanes
  const R sigma = V::mul(V::power(V::mul(V::set1(4.1), tv)), two);
  const R sigma_e = V::mul(V::power(V::mul(V::set1(4.1 * 1.02 * u), tv)), two);
  const R sigma_f = V::mul(V::power(V::mul(V::set1(4.1 * kd * u), sigma)), two);
  // the errors' errors g (at most u sigma_e, u sigma_f each, 2k of them) into h_l from sigma_l, exactly; what that
  // leaves (g2) only looked at for its largest magnitude: zero on every lane of data with a few bits fewer than 53
  // in its products' errors, and then the parts are the dot product exactly
  const R sigma_l = V::mul(V::power(V::mul(V::set1(4.1 * kd * u), V::add(sigma_e, sigma_f))), two);
  // The chains over the row; `Largest`: the g2's largest magnitude in top, else only whether any is nonzero (their
  // bits or-ed: two operations a product fewer), the row run again for the largest where one is.
  R s, he, hf, hl, top;
  const auto chains = [&](auto largest) {
    s = sigma, he = sigma_e, hf = sigma_f, hl = sigma_l, top = zero;
    for (std::int64_t l = 0; l < k; ++l) {
      const R av = V::set1(a[l * sa]), bv = V::select(live, V::load(b + l * L), zero);
      const R p = V::mul(av, bv), e = V::fmsub(av, bv, p);
      const R s1 = V::add(s, p), f = V::sub(p, V::sub(s1, s));
      // (x + y as fma(y, 1, x), the same rounded sum, on the multipliers beside the adders where the ISA's tiles
      // share them so: six of the fifteen additions)
      constexpr bool on_fma = V::kAddsOnFma;
      const auto add = [&](R x, R y) { return on_fma ? V::fmadd(y, one, x) : V::add(x, y); };
      const auto sub = [&](R x, R y) { return on_fma ? V::fnmadd(y, one, x) : V::sub(x, y); };
      const R he1 = add(he, e), hf1 = add(hf, f);
      const R ge = V::sub(e, sub(he1, he)), gf = V::sub(f, sub(hf1, hf));
      const R hl1 = add(hl, ge);
      const R g2e = V::sub(ge, V::sub(hl1, hl));
      const R hl2 = add(hl1, gf);
      const R g2f = V::sub(gf, V::sub(hl2, hl1));
      if constexpr (decltype(largest)::value)
        top = V::max_magnitude(V::max_magnitude(top, g2e), g2f);
      else
        top = V::bits_or(top, V::bits_or(g2e, g2f));
      s = s1, he = he1, hf = hf1, hl = hl2;
    }
  };
  chains(std::false_type{});
  if (~V::eq(top, zero) & live) chains(std::true_type{});  // (or-ed -0s compare equal to 0: nothing to bound)
  const R floor = V::select(V::eq(top, zero), zero, V::set1(0x1p-1000));
  const R bound = V::mul(V::max(top, floor), V::set1(2 * kd * (1 + 4 * u)));
  static_assert(kRefinedParts == 4 && L <= kMaxLanes);
  V::store(parts, V::sub(s, sigma));
  V::store(parts + kMaxLanes, V::sub(he, sigma_e));
  V::store(parts + 2 * kMaxLanes, V::sub(hf, sigma_f));
  V::store(parts + 3 * kMaxLanes, V::sub(hl, sigma_l));
  V::store(slack, V::select(live, bound, V::set1(-1.0)));
}

}  // namespace refine
}  // namespace
}  // namespace bf16x::cr
