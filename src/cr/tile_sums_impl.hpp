// The vector tile sums (cr/tile_sums.hpp) written once over a vector type V whose lanes are the tile's NR columns,
// compiled per ISA by cr/tile_sums_<isa>_isa.cpp with V's intrinsics. V provides: type reg, kLanes, load(p),
// bcast(p), set1(x), zero(), add, sub, mul, fmadd(a, b, c), fmsub(a, b, c) (a b - c, one rounding), abs(x), max,
// power(x) (x with its significand cleared: the power of two at most x, for x > 0) and store(p, x); and
// kAddsOnFma (refine_row: whether some of its additions go to the multipliers).
#pragma once
#include <algorithm>
#include <cstdint>

#include "cr/entry_rounding_impl.hpp"
#include "cr/extract_sum_impl.hpp"
#include "cr/few_products_impl.hpp"
#include "cr/refine_sum_impl.hpp"
#include "cr/tile_sums.hpp"

// Internal linkage: each ISA file's copy stays its own (an inline function would be one weak symbol for all).
namespace bf16x::cr {
namespace {
namespace sums {

// sigma = 2^ceil(log2(4.1 t)) (at least 2^-900): the power of two at most 8.2 t that bounds 4 sum |p| (tile_sums.hpp).
template <typename V>
typename V::reg bias_for(typename V::reg t) {
  const auto pow = V::power(V::max(V::mul(t, V::set1(4.1)), V::set1(0x1p-900)));
  return V::add(pow, pow);
}

// One step of one row: s1 = RN(a b + s) by one FMA; h = s1 - s is exact (both multiples of ulp(sigma / 2), |h| <
// sigma / 2), and the rest a b - h (at most half an ulp of s1, u sigma) is rounded once by a second FMA into c.
template <typename V>
void step(typename V::reg av, typename V::reg bv, typename V::reg& s, typename V::reg& c) {
  const auto s1 = V::fmadd(av, bv, s);
  const auto h = V::sub(s1, s);
  c = V::add(c, V::fmsub(av, bv, h));
  s = s1;
}

// Rebias s from sigma_old to sigma_new >= sigma_old: s - sigma_old is exact (Sterbenz), its FastTwoSum with
// sigma_new (the larger) is exact with the error in c.
template <typename V>
void rebias(typename V::reg& s, typename V::reg& c, typename V::reg from, typename V::reg to) {
  const auto d = V::sub(s, from);
  const auto s1 = V::add(to, d);
  c = V::add(c, V::sub(d, V::sub(s1, to)));
  s = s1;
}

// The FMA sums over l0 .. l1 of a panel's values (offset 0) or magnitudes (offset MR) times op(B)'s values or
// magnitudes, into acc: two chains per row (one would wait on the FMA's latency), joined at the end.
template <typename V, int MR>
void fma_sums(const double* a, const double* b, std::int64_t l0, std::int64_t l1, bool magnitudes,
              typename V::reg (&acc)[MR]) {
  constexpr int NR = V::kLanes;
  using R = typename V::reg;
  const int offset = magnitudes ? MR : 0;
  const auto bload = [&](std::int64_t l) {
    const R v = V::load(b + l * NR);
    return magnitudes ? V::abs(v) : v;
  };
  R e[MR], o[MR];
  for (int i = 0; i < MR; ++i) e[i] = acc[i], o[i] = V::zero();
  std::int64_t l = l0;
  for (; l + 1 < l1; l += 2) {
    const double* al = a + l * 2 * MR + offset;
    const R be = bload(l), bo = bload(l + 1);
    for (int i = 0; i < MR; ++i) e[i] = V::fmadd(V::bcast(al + i), be, e[i]);
    for (int i = 0; i < MR; ++i) o[i] = V::fmadd(V::bcast(al + 2 * MR + i), bo, o[i]);
  }
  if (l < l1) {
    const double* al = a + l * 2 * MR + offset;
    const R be = bload(l);
    for (int i = 0; i < MR; ++i) e[i] = V::fmadd(V::bcast(al + i), be, e[i]);
  }
  for (int i = 0; i < MR; ++i) acc[i] = V::add(e[i], o[i]);
}

// The MR rows broadcast one at a time, their accumulators in registers, against one vector of NR columns. k runs
// in blocks small enough for the two passes' panel slices to stay in L1: per block, the magnitudes' sums t, then
// the bias raised to cover the t so far, then the block's products.
template <typename V, int MR, bool DD>
void tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  constexpr int NR = V::kLanes;
  using R = typename V::reg;
  R t[MR], sp[MR], g[MR], s[MR], c[MR];
  for (int i = 0; i < MR; ++i) t[i] = sp[i] = c[i] = V::zero(), g[i] = s[i] = V::set1(0x1p-900);  // bias_for(0)
  for (std::int64_t l0 = 0; l0 < k; l0 += kSumsBlock) {
    const std::int64_t l1 = std::min(k, l0 + kSumsBlock);
    fma_sums<V, MR>(a, b, l0, l1, true, t);
    if constexpr (DD) {
      for (int i = 0; i < MR; ++i) {
        const R next = bias_for<V>(t[i]);
        rebias<V>(s[i], c[i], g[i], next);
        g[i] = next;
      }
      for (std::int64_t l = l0; l < l1; ++l) {
        const double* al = a + l * 2 * MR;
        const R bv = V::load(b + l * NR);
        for (int i = 0; i < MR; ++i) step<V>(V::bcast(al + i), bv, s[i], c[i]);
      }
    } else {
      fma_sums<V, MR>(a, b, l0, l1, false, sp);
    }
  }
  for (int i = 0; i < MR; ++i) {
    // s - sigma is exact (Sterbenz: s stays within sigma / 2 .. 3 sigma / 2)
    V::store(so + i * NR, DD ? V::sub(s[i], g[i]) : sp[i]);
    V::store(co + i * NR, c[i]);
    V::store(to + i * NR, t[i]);
  }
}

// tile<V, MR, true>'s t alone, by the same blocks and operations (the same bits), s and c zero: for the tiles whose
// entries go to their exact values (residuals), where only t is read (the refined pass's bias).
template <typename V, int MR>
void magnitudes_tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  constexpr int NR = V::kLanes;
  typename V::reg t[MR];
  for (int i = 0; i < MR; ++i) t[i] = V::zero();
  for (std::int64_t l0 = 0; l0 < k; l0 += kSumsBlock) fma_sums<V, MR>(a, b, l0, std::min(k, l0 + kSumsBlock), true, t);
  for (int i = 0; i < MR; ++i) {
    V::store(so + i * NR, V::zero());
    V::store(co + i * NR, V::zero());
    V::store(to + i * NR, t[i]);
  }
}

// The textbook vectorised double-double GEMM step (Dot2: TwoProd, TwoSum into s, both errors into c), for the
// bench's baseline: eleven operations a product against the biased FastTwoSum's five.
template <typename V, int MR>
void dot2_tile(std::int64_t k, const double* a, const double* b, double* so, double* co, double* to) {
  constexpr int NR = V::kLanes;
  using R = typename V::reg;
  R s[MR], c[MR];
  for (int i = 0; i < MR; ++i) s[i] = c[i] = V::zero();
  for (std::int64_t l = 0; l < k; ++l) {
    const R bv = V::load(b + l * NR);
    for (int i = 0; i < MR; ++i) {
      const R av = V::bcast(a + l * 2 * MR + i);
      const R p = V::mul(av, bv), e = V::fmsub(av, bv, p);
      const R s1 = V::add(s[i], p), bb = V::sub(s1, s[i]);
      const R q = V::add(V::sub(s[i], V::sub(s1, bb)), V::sub(p, bb));
      s[i] = s1;
      c[i] = V::add(c[i], V::add(q, e));
    }
  }
  for (int i = 0; i < MR; ++i) {
    V::store(so + i * NR, s[i]);
    V::store(co + i * NR, c[i]);
    V::store(to + i * NR, V::zero());
  }
}

// The ISA's kernel table: its tiles and the entry decisions compiled with its flags.
template <typename V, int MR>
TileKernels kernels(const char* isa) {
  return {tile<V, MR, true>,
          magnitudes_tile<V, MR>,
          tile<V, MR, false>,
          decide::decide<double, 1>,
          decide::decide<double, 2>,
          decide::decide_rows<V, double>,
          decide::decide<float, 1>,
          decide::decide<float, 2>,
          decide::decide_rows<V, float>,
          dot2_tile<V, MR>,
          extract::extract_dot<V>,
          extract::extract_row<V>,
          refine::refine_row<V>,
          decide::round_parts<double>,
          decide::round_parts<float>,
          decide::round_parts_lanes<V>,
          few::rank_one<V>,
          few::few_products<V>,
          MR,
          V::kLanes,
          isa};
}

}  // namespace sums
}  // namespace
}  // namespace bf16x::cr
