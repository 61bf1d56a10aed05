// The AVX512-BF16 micro-kernel called directly on panels made by the library's packers, against the reference
// engine: bit for bit on every FP64 group plan (exact sums), within the summation bound on fp32x6 groups, with and
// without accumulate, never writing past column 32 of an output row, and with the same AMX-unit counters.
//
// FP32 bound. Both engines sum the same N = 2 * count * kb / 2 = count * kb exact BF16 products into one FP32
// accumulator (starting from the same value), each in some order with at most one rounding per product (the
// reference: two per pair step; VDPBF16PS: at most that). Every rounding errs by at most 2^-24 of a partial sum,
// and every partial sum is at most S = |start| + sum |a_i b_j| in magnitude, so each result is within N * 2^-24 * S
// of the exact sum and the two within 2 N 2^-24 S; flushing of subnormal partial sums adds at most N * 2^-126.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/inputs.hpp"
#include "cpu/features.hpp"
#include "engine/engine.hpp"
#include "pack/panels.hpp"
#include "split/scheme.hpp"

using namespace bf16x;
using engine::Product;
using pack::kTileM;
using pack::kTileN;

namespace {

constexpr int kLdo = kTileN + 7;  // output rows wider than the tile: columns past 32 hold a sentinel
constexpr float kSentinel = -777.25f;

struct Tile {
  int kb = 0, slices = 0;
  std::vector<bf16_t> abuf, bbuf;
  std::vector<const bf16_t*> a, b;
};

template <typename T>
Tile pack_tile(int k, int slices, bool scaled, check::Dist dist, std::uint64_t seed, double shrink = 1.0) {
  check::Mat<T> am = check::make_input<T>(dist, kTileM, k, seed, 0);
  check::Mat<T> bm = check::make_input<T>(dist, k, kTileN, seed, 1);
  for (auto& x : am.v) x = T(x * shrink);
  for (auto& x : bm.v) x = T(x * shrink);
  const pack::MatrixView<T> av{am.data(), am.rows, false}, bv{bm.data(), bm.rows, false};
  pack::PackedPanels pa, pb;
  pack::init_panels(pa, kTileM, k, pack::kBlockK, slices);
  pack::init_panels(pb, kTileN, k, pack::kBlockK, slices);
  pack::scan_scales_a(av, kTileM, k, scaled, pa.scale_exp);
  pack::scan_scales_b(bv, k, kTileN, scaled, pb.scale_exp);
  Tile t;
  t.kb = pa.kblk.padded(0);
  t.slices = slices;
  t.abuf.resize(std::size_t(pa.elems()));
  t.bbuf.resize(std::size_t(pb.elems()));
  pa.data = t.abuf.data();
  pb.data = t.bbuf.data();
  pack::pack_a(av, {slices, scaled}, pa);
  pack::pack_b_vnni(bv, {slices, scaled}, pb);
  for (int s = 0; s < slices; ++s) {
    t.a.push_back(pa.panel(0, 0, s));
    t.b.push_back(pb.panel(0, 0, s));
  }
  return t;
}

using Groups = std::vector<std::vector<Product>>;

struct Result {
  std::vector<std::vector<float>> out;
  engine::EngineCounters counters;
};

Result run(const engine::EngineInfo& e, const Tile& t, const Groups& groups, bool accumulate) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> u(-2, 2);
  Result r;
  std::vector<engine::ProductGroup> pg;
  std::vector<float*> outs;
  for (const auto& g : groups) {
    std::vector<float> o(std::size_t(kTileM * kLdo));
    for (int i = 0; i < kTileM; ++i)
      for (int j = 0; j < kLdo; ++j)
        o[std::size_t(i * kLdo + j)] = j >= kTileN ? kSentinel : accumulate ? u(rng) : 99.f;
    r.out.push_back(std::move(o));
    pg.push_back({g.data(), int(g.size())});
  }
  for (auto& o : r.out) outs.push_back(o.data());
  e.kernel({t.a.data(), t.b.data(), t.kb, pg.data(), int(pg.size()), outs.data(), kLdo, accumulate, &r.counters});
  for (const auto& o : r.out)
    for (int i = 0; i < kTileM; ++i)
      for (int j = kTileN; j < kLdo; ++j) EXPECT_EQ(o[std::size_t(i * kLdo + j)], kSentinel) << e.name;
  return r;
}

// S = |start| + sum over the group's products and k of |a_i(r, l) b_j(l, c)|, from the packed panels.
double abs_sum(const Tile& t, const std::vector<Product>& g, int r, int c, float start) {
  double s = std::fabs(double(start));
  for (const Product& p : g)
    for (int l = 0; l < t.kb; ++l) {
      const double a = bf16_to_float(t.a[p.a][r * t.kb + l]);
      const double b = bf16_to_float(t.b[p.b][(l / 2) * pack::kBPairStride + c * 2 + l % 2]);
      s += std::fabs(a * b);
    }
  return s;
}

Groups groups_of(const split::GroupPlan& plan) {
  Groups g;
  for (const auto& pg : plan.groups) g.emplace_back(pg.products, pg.products + pg.count);
  return g;
}

bool skip() { return !cpu::has_avx512bf16(); }

}  // namespace

TEST(Avx512Bf16Kernel, Fp64GroupPlansEqualReferenceBitForBit) {
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  using check::Dist;
  const Dist dists[] = {Dist::uniform, Dist::loguniform, Dist::cancel};
  int run_no = 0;
  for (int mode : {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21})
    for (int k : {1, 17, 64, 100, 256})
      for (bool fuse : {false, true})
        for (bool accumulate : {false, true}) {
          const Dist d = dists[run_no++ % 3];
          const split::Scheme& s = *split::scheme_for_mode(mode);
          const Tile t = pack_tile<double>(k, 6, true, d, std::uint64_t(k * 7 + mode));
          const Groups g = groups_of(split::plan_groups(s, fuse, int(pack::round_up(k, 32))));
          SCOPED_TRACE(std::string(s.name) + " k=" + std::to_string(k) + (fuse ? " fused" : "") + " " +
                       check::dist_name(d) + (accumulate ? " accumulate" : ""));
          const Result ref = run(engine::reference_engine(), t, g, accumulate);
          const Result avx = run(engine::avx512bf16_engine(), t, g, accumulate);
          for (std::size_t q = 0; q < g.size(); ++q)
            ASSERT_EQ(0, std::memcmp(ref.out[q].data(), avx.out[q].data(), ref.out[q].size() * sizeof(float)))
                << "group " << q;
          EXPECT_EQ(avx.counters.tile_loads, ref.counters.tile_loads);
          EXPECT_EQ(avx.counters.tile_stores, ref.counters.tile_stores);
          EXPECT_EQ(avx.counters.dot_products, ref.counters.dot_products);
          EXPECT_EQ(avx.counters.micro_tiles, 1u);
        }
}

TEST(Avx512Bf16Kernel, UnscaledTinySlicesFlushLikeTheReference) {
  // The paper's unscaled split of values near 2^-75: low slices and their products are BF16/FP32 subnormals,
  // read as zero and flushed in both engines. One product per group keeps every partial sum on one grid.
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  const split::Scheme& s = *split::scheme_for_mode(BF16X_MODE_FP64X21);
  const Tile t = pack_tile<double>(64, 6, false, check::Dist::uniform, 8, 0x1p-75);
  const Groups g = groups_of(split::plan_groups(s, false, 64));
  const Result ref = run(engine::reference_engine(), t, g, false);
  const Result avx = run(engine::avx512bf16_engine(), t, g, false);
  for (std::size_t q = 0; q < g.size(); ++q)
    ASSERT_EQ(0, std::memcmp(ref.out[q].data(), avx.out[q].data(), ref.out[q].size() * sizeof(float))) << q;
}

TEST(Avx512Bf16Kernel, Fp32x6WithinSummationBound) {
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  using check::Dist;
  const Groups g = {split::scheme_for_mode(BF16X_MODE_FP32X6)->products};
  std::int64_t differing = 0, total = 0;
  for (int k : {1, 31, 64, 96, 256})
    for (Dist d : {Dist::uniform, Dist::loguniform, Dist::cancel})
      for (bool accumulate : {false, true}) {
        SCOPED_TRACE("k=" + std::to_string(k) + " " + check::dist_name(d) + (accumulate ? " accumulate" : ""));
        const Tile t = pack_tile<float>(k, 3, true, d, std::uint64_t(k + 100));
        const Result ref = run(engine::reference_engine(), t, g, accumulate);
        const Result avx = run(engine::avx512bf16_engine(), t, g, accumulate);
        // The starting values are the same for both runs (same seed): recover them for S.
        std::mt19937 rng(23);
        std::uniform_real_distribution<float> u(-2, 2);
        const double n = double(g[0].size()) * t.kb;
        for (int r = 0; r < kTileM; ++r)
          for (int c = 0; c < kLdo; ++c) {
            const float start = c >= kTileN ? 0.f : accumulate ? u(rng) : 0.f;
            if (c >= kTileN) continue;
            const float x = ref.out[0][std::size_t(r * kLdo + c)], y = avx.out[0][std::size_t(r * kLdo + c)];
            const double bound = 2 * n * 0x1p-24 * abs_sum(t, g[0], r, c, start) + n * 0x1p-126;
            ASSERT_LE(std::fabs(double(x) - double(y)), bound) << "(" << r << "," << c << ")";
            differing += x != y;
            ++total;
          }
        EXPECT_EQ(avx.counters.dot_products, ref.counters.dot_products);
        EXPECT_EQ(avx.counters.tile_loads, ref.counters.tile_loads);
      }
  // Informational: how often VDPBF16PS rounds differently from the SDM pair step here.
  RecordProperty("fp32_elements_differing", std::to_string(differing) + "/" + std::to_string(total));
  std::printf("[          ] fp32x6: %lld of %lld elements differ from the reference\n", (long long)differing,
              (long long)total);
}
