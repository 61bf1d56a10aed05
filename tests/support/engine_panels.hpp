// Micro-kernel test support shared by the engine suites: slice panels of one 32-row x 32-column micro-tile made by
// the library's own packers (every k-block of a depth k), product groups, one kernel call per k-block with a
// sentinel past column 32 of every output row, bitwise comparison, and the exact FP64 sums of the terms.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "check/inputs.hpp"
#include "engine/engine.hpp"
#include "pack/panels.hpp"
#include "split/scheme.hpp"

namespace bf16x::test {

using engine::Product;
using pack::kTileM;
using pack::kTileN;

inline constexpr int kLdo = kTileN + 5;  // output rows wider than the tile: columns past 32 hold a sentinel
inline constexpr float kSentinel = 1234.5f;

// The slice panels of one micro-tile for every k-block of depth k (k-blocks of pack::kBlockK).
struct TilePanels {
  TilePanels() = default;
  TilePanels(TilePanels&&) = default;  // a and b point into abuf and bbuf: moves keep them valid, copies would not
  TilePanels(const TilePanels&) = delete;
  int k = 0, slices = 0;
  std::vector<int> kb;                           // padded depth per k-block
  std::vector<bf16_t> abuf, bbuf;                //
  std::vector<std::vector<const bf16_t*>> a, b;  // [k-block][slice]
  int blocks() const { return int(kb.size()); }
};

// `rows` lines of A and `cols` of B (at most a tile): the packers pad the rest of the tile with zeros.
template <typename T>
TilePanels pack_tile(int k, int slices, bool scaled, check::Dist dist, std::uint64_t seed, double shrink = 1.0,
                     int rows = kTileM, int cols = kTileN) {
  check::Mat<T> am = check::make_input<T>(dist, rows, k, seed, 0);
  check::Mat<T> bm = check::make_input<T>(dist, k, cols, seed, 1);
  for (auto& x : am.v) x = T(x * shrink);
  for (auto& x : bm.v) x = T(x * shrink);
  const pack::MatrixView<T> av{am.data(), am.rows, false}, bv{bm.data(), bm.rows, false};
  pack::PackedPanels pa, pb;
  pack::init_panels(pa, rows, k, pack::kBlockK, slices);
  pack::init_panels(pb, cols, k, pack::kBlockK, slices);
  pack::scan_scales_a(av, rows, k, scaled, pa.scale_exp);
  pack::scan_scales_b(bv, k, cols, scaled, pb.scale_exp);
  TilePanels t;
  t.k = k;
  t.slices = slices;
  t.abuf.resize(std::size_t(pa.elems()));
  t.bbuf.resize(std::size_t(pb.elems()));
  pa.data = t.abuf.data();
  pb.data = t.bbuf.data();
  pack::pack_a(av, {slices, scaled}, pa);
  pack::pack_b_vnni(bv, {slices, scaled}, pb);
  for (std::int64_t blk = 0; blk < pa.kblk.blocks(); ++blk) {
    t.kb.push_back(pa.kblk.padded(blk));
    t.a.emplace_back();
    t.b.emplace_back();
    for (int s = 0; s < slices; ++s) {
      t.a.back().push_back(pa.panel(blk, 0, s));
      t.b.back().push_back(pb.panel(blk, 0, s));
    }
  }
  return t;
}

using Groups = std::vector<std::vector<Product>>;

inline Groups groups_of(const split::GroupPlan& plan) {
  Groups g;
  for (const auto& pg : plan.groups) g.emplace_back(pg.products, pg.products + pg.count);
  return g;
}

inline Groups fp32x6_group() { return {split::scheme_for_mode(BF16X_MODE_FP32X6)->products}; }

// All 36 products of 6 slices in one accumulator, in a scrambled order with a repeated product: every reuse
// pattern (A kept, B kept, both kept, neither) occurs.
inline Groups all_products_scrambled() {
  std::vector<Product> p;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) p.push_back({std::uint8_t(i), std::uint8_t(j)});
  std::mt19937 rng(5);
  std::shuffle(p.begin(), p.end(), rng);
  p.insert(p.begin() + 7, p[6]);
  return {p};
}

struct KernelResult {
  std::vector<std::vector<float>> init, out;  // per group: 32 rows x kLdo, before and after
  engine::EngineCounters counters;
};

// One kernel call per k-block (the first accumulates only if `accumulate`, the later ones always, as the raw
// GEMM's running sum does). With accumulate the tile starts from random values, the same for every engine; the
// columns past 32 hold a sentinel the kernel must not touch.
inline KernelResult run_kernel(const engine::EngineInfo& e, const TilePanels& t, const Groups& groups,
                               bool accumulate) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-4, 4);
  KernelResult r;
  std::vector<engine::ProductGroup> pg;
  std::vector<float*> outs;
  for (const auto& g : groups) {
    std::vector<float> o(std::size_t(kTileM * kLdo));
    for (int i = 0; i < kTileM; ++i)
      for (int j = 0; j < kLdo; ++j) o[std::size_t(i * kLdo + j)] = j < kTileN && accumulate ? u(rng) : kSentinel;
    r.out.push_back(std::move(o));
    pg.push_back({g.data(), int(g.size())});
  }
  r.init = r.out;
  for (auto& o : r.out) outs.push_back(o.data());
  if (e.thread_begin) e.thread_begin();
  for (int blk = 0; blk < t.blocks(); ++blk)
    e.kernel({t.a[std::size_t(blk)].data(), t.b[std::size_t(blk)].data(), t.kb[std::size_t(blk)], pg.data(),
              int(pg.size()), outs.data(), kLdo, accumulate || blk > 0, &r.counters});
  if (e.thread_end) e.thread_end();
  for (const auto& o : r.out)
    for (int i = 0; i < kTileM; ++i)
      for (int j = kTileN; j < kLdo; ++j) EXPECT_EQ(o[std::size_t(i * kLdo + j)], kSentinel) << "wrote past col 32";
  return r;
}

// Bitwise equality of two results, reporting the first difference.
inline void expect_same_bits(const KernelResult& x, const KernelResult& y) {
  ASSERT_EQ(x.out.size(), y.out.size());
  for (std::size_t g = 0; g < x.out.size(); ++g)
    for (std::size_t i = 0; i < x.out[g].size(); ++i)
      if (std::memcmp(&x.out[g][i], &y.out[g][i], sizeof(float)) != 0) {
        ADD_FAILURE() << "group " << g << " row " << i / kLdo << " col " << i % kLdo << ": " << x.out[g][i] << " vs "
                      << y.out[g][i];
        return;
      }
}

// The term a * b of product p at k index l of k-block blk for element (i, j), with the engines' DAZ.
inline double term(const TilePanels& t, int blk, const Product& p, int i, int j, int l) {
  auto daz = [](bf16_t h) { return (h & 0x7f80u) == 0 ? 0.0 : double(bf16_to_float(h)); };
  const int kb = t.kb[std::size_t(blk)];
  return daz(t.a[std::size_t(blk)][p.a][i * kb + l]) *
         daz(t.b[std::size_t(blk)][p.b][(l / 2) * pack::kBPairStride + j * 2 + l % 2]);
}

// Exact sum (FP64, valid where it is exact: one grid, few terms) and sum of magnitudes of an element's terms.
inline void term_sums(const TilePanels& t, const std::vector<Product>& g, int i, int j, double& sum, double& abs) {
  sum = abs = 0;
  for (int blk = 0; blk < t.blocks(); ++blk)
    for (const Product& p : g)
      for (int l = 0; l < t.kb[std::size_t(blk)]; ++l) {
        const double x = term(t, blk, p, i, j, l);
        sum += x;
        abs += std::fabs(x);
      }
}

// Number of terms per element of a group over all k-blocks.
inline double term_count(const TilePanels& t, const std::vector<Product>& g) {
  double n = 0;
  for (int kb : t.kb) n += double(kb) * double(g.size());
  return n;
}

}  // namespace bf16x::test
