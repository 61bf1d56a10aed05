// The AMX micro-kernel called directly on panels made by the library's own packers: on the tile model it must
// equal the reference engine bit for bit for any product groups (FP32 and FP64 data, fused and unfused groups,
// accumulate or not, subnormal slices), since both apply the same SDM pair step in the same order; its counters
// must show the operand reuse of the schedule; on AMX hardware HwTiles must equal the model bit for bit where the
// sums are exact and stay within the FP32 summation bound elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/inputs.hpp"
#include "cpu/features.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "engine/dpbf16.hpp"
#include "engine/engine.hpp"
#include "pack/panels.hpp"
#include "split/scheme.hpp"

using namespace bf16x;
using engine::Product;
using pack::kTileM;
using pack::kTileN;

namespace {

// The slice panels of one 32 x 32 micro-tile and one k-block (k <= 256), packed by pack_a / pack_b_vnni.
struct TilePanels {
  TilePanels() = default;
  TilePanels(TilePanels&&) = default;  // a and b point into abuf and bbuf: moves keep them valid, copies would not
  TilePanels(const TilePanels&) = delete;
  int kb = 0;
  std::vector<bf16_t> abuf, bbuf;
  std::vector<const bf16_t*> a, b;
};

template <typename T>
TilePanels pack_tile(int k, int slices, bool scaled, check::Dist dist, std::uint64_t seed, double shrink = 1.0) {
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
  TilePanels t;
  t.kb = pa.kblk.padded(0);
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

constexpr int kLdo = kTileN + 5;

struct Result {
  std::vector<std::vector<float>> init, out;  // per group: 32 rows x kLdo, before and after the call
  engine::EngineCounters counters;
};

// Runs one micro-kernel call. The output rows are ldo > 32 floats wide; the columns past 32 hold a sentinel the
// kernel must not touch. With accumulate the tile starts from random values (the same for every engine).
Result run(const engine::EngineInfo& e, const TilePanels& t, const Groups& groups, bool accumulate) {
  const int ldo = kLdo;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-4, 4);
  Result r;
  std::vector<engine::ProductGroup> pg;
  std::vector<float*> outs;
  for (const auto& g : groups) {
    std::vector<float> o(std::size_t(kTileM * ldo));
    for (int i = 0; i < kTileM; ++i)
      for (int j = 0; j < ldo; ++j) o[std::size_t(i * ldo + j)] = j < kTileN && accumulate ? u(rng) : 1234.5f;
    r.out.push_back(std::move(o));
    pg.push_back({g.data(), int(g.size())});
  }
  r.init = r.out;
  for (auto& o : r.out) outs.push_back(o.data());
  const engine::MicroTileArgs args{t.a.data(),  t.b.data(), t.kb,       pg.data(),  int(pg.size()),
                                   outs.data(), ldo,        accumulate, &r.counters};
  e.kernel(args);
  if (e.thread_end) e.thread_end();
  for (const auto& o : r.out)
    for (int i = 0; i < kTileM; ++i)
      for (int j = kTileN; j < ldo; ++j)
        EXPECT_EQ(o[std::size_t(i * ldo + j)], 1234.5f) << e.name << " wrote past col 32";
  return r;
}

// Bitwise equality of two results, reporting the first difference.
void expect_same_bits(const Result& x, const Result& y) {
  ASSERT_EQ(x.out.size(), y.out.size());
  for (std::size_t g = 0; g < x.out.size(); ++g)
    for (std::size_t i = 0; i < x.out[g].size(); ++i)
      if (std::memcmp(&x.out[g][i], &y.out[g][i], sizeof(float)) != 0) {
        ADD_FAILURE() << "group " << g << " row " << i / kLdo << " col " << i % kLdo << ": " << x.out[g][i] << " vs "
                      << y.out[g][i];
        return;
      }
}

Groups groups_of(const split::GroupPlan& plan) {
  Groups g;
  for (const auto& pg : plan.groups) g.emplace_back(pg.products, pg.products + pg.count);
  return g;
}

Groups fp32x6_group() { return {split::scheme_for_mode(BF16X_MODE_FP32X6)->products}; }

// All 36 products of 6 slices in one accumulator, in a scrambled order with a repeated product: every reuse
// pattern (A kept, B kept, both kept, neither) occurs.
Groups all_products_scrambled() {
  std::vector<Product> p;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) p.push_back({std::uint8_t(i), std::uint8_t(j)});
  std::mt19937 rng(5);
  std::shuffle(p.begin(), p.end(), rng);
  p.insert(p.begin() + 7, p[6]);
  return {p};
}

struct Case {
  const char* what;
  TilePanels panels;
  Groups groups;
  bool exact;  // FP64-grid slices, normal BF16, at most 256 terms per accumulator: every FP32 sum is exact
};

std::vector<Case> cases() {
  using check::Dist;
  const split::Scheme& s21 = *split::scheme_for_mode(BF16X_MODE_FP64X21);
  std::vector<Case> c;
  c.push_back({"fp32x6, k=96", pack_tile<float>(96, 3, true, Dist::uniform, 1), fp32x6_group(), false});
  c.push_back(
      {"fp32x6, k=70 (padded to 96)", pack_tile<float>(70, 3, true, Dist::loguniform, 2), fp32x6_group(), false});
  c.push_back({"fp32x6 unscaled, BF16-subnormal third slices",
               pack_tile<float>(64, 3, false, Dist::uniform, 3, 0x1p-112), fp32x6_group(), false});
  c.push_back({"36 products scrambled, k=64", pack_tile<double>(64, 6, true, Dist::uniform, 4),
               all_products_scrambled(), false});
  c.push_back({"fp64x21 unfused, k=256", pack_tile<double>(256, 6, true, Dist::uniform, 5),
               groups_of(split::plan_groups(s21, false, 256)), true});
  c.push_back({"fp64x21 fused, k=64", pack_tile<double>(64, 6, true, Dist::loguniform, 6),
               groups_of(split::plan_groups(s21, true, 64)), true});
  c.push_back({"fp64x21 fused, k=32", pack_tile<double>(17, 6, true, Dist::cancel, 7),
               groups_of(split::plan_groups(s21, true, 32)), true});
  c.push_back({"fp64x21 unscaled tiny: subnormal slices and products",
               pack_tile<double>(33, 6, false, Dist::uniform, 8, 0x1p-75), groups_of(split::plan_groups(s21, true, 64)),
               false});
  return c;
}

}  // namespace

TEST(AmxKernel, ModelEqualsReferenceBitForBitOnPackedPanels) {
  for (const Case& c : cases())
    for (bool accumulate : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (accumulate ? ", accumulate" : ""));
      const Result ref = run(engine::reference_engine(), c.panels, c.groups, accumulate);
      const Result model = run(engine::amx_model_engine(), c.panels, c.groups, accumulate);
      expect_same_bits(ref, model);
      EXPECT_EQ(model.counters.dot_products, ref.counters.dot_products);
      EXPECT_EQ(model.counters.tile_stores, ref.counters.tile_stores);
      EXPECT_EQ(model.counters.micro_tiles, 1u);
    }
}

TEST(AmxKernel, ExactCasesSumExactly) {
  // The cases marked exact (which the hardware comparison checks bit for bit) must give the exact FP64 sum of
  // their terms: at most 256 terms of at most 2^16 units of one grid per accumulator, so the sum stays below 2^24
  // units and FP32 holds it exactly; the FP64 loop below is exact for the same reason.
  int checked = 0;
  for (const Case& c : cases()) {
    if (!c.exact) continue;
    SCOPED_TRACE(c.what);
    const TilePanels& t = c.panels;
    const Result model = run(engine::amx_model_engine(), t, c.groups, false);
    for (std::size_t g = 0; g < c.groups.size(); ++g)
      for (int i = 0; i < kTileM; ++i)
        for (int j = 0; j < kTileN; ++j) {
          double sum = 0;
          for (const Product& p : c.groups[g])
            for (int l = 0; l < t.kb; ++l)
              sum += double(bf16_to_float(t.a[p.a][i * t.kb + l])) *
                     bf16_to_float(t.b[p.b][(l / 2) * pack::kBPairStride + j * 2 + l % 2]);
          ASSERT_EQ(double(model.out[g][std::size_t(i * kLdo + j)]), sum) << "group " << g << " " << i << "," << j;
        }
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

TEST(AmxKernel, Fp32x6LoadsSevenPanelsPerChunkInsteadOfTwelve) {
  // Order A1B1, A1B0, A2B0, A0B0, A0B1, A0B2: the first product loads both panels, each later one exactly one,
  // 7 panels = 14 tiles per chunk; without reuse 6 products x 2 panels = 24 tiles. Two chunks at k=64.
  const TilePanels t = pack_tile<float>(64, 3, true, check::Dist::uniform, 9);
  const Result model = run(engine::amx_model_engine(), t, fp32x6_group(), false);
  const Result ref = run(engine::reference_engine(), t, fp32x6_group(), false);
  EXPECT_EQ(model.counters.tile_loads, 2u * 14);
  EXPECT_EQ(ref.counters.tile_loads, 2u * 24);
  EXPECT_EQ(model.counters.dot_products, 2u * 6 * 4);
  EXPECT_EQ(model.counters.tile_stores, 4u);
  expect_same_bits(ref, model);
}

TEST(AmxKernel, LoadsOnlyThePanelThatChanged) {
  // Per chunk: (0,0) 4 tiles, (0,0) again 0, (0,1) 2, (1,1) 2, (2,2) 4 = 12; a second group starts afresh at
  // each chunk: (2,2) 4. Three chunks at k=96.
  const TilePanels t = pack_tile<double>(96, 6, true, check::Dist::uniform, 10);
  const Groups g = {{{0, 0}, {0, 0}, {0, 1}, {1, 1}, {2, 2}}, {{2, 2}}};
  const Result model = run(engine::amx_model_engine(), t, g, false);
  EXPECT_EQ(model.counters.tile_loads, 3u * (12 + 4));
  EXPECT_EQ(model.counters.dot_products, 3u * 6 * 4);
  EXPECT_EQ(model.counters.tile_stores, 2u * 4);
  expect_same_bits(run(engine::reference_engine(), t, g, false), model);
}

TEST(AmxKernel, HardwareTilesMatchTheModel) {
  // Where every FP32 sum is exact the order of the additions cannot matter: bit for bit. Elsewhere (fp32x6, more
  // than 256 terms, accumulate from arbitrary values, underflow) the hardware's pair order and internal rounding
  // may differ from the SDM sequence (DESIGN.md), so the two results only share the summation bound: each of the
  // R = kb x (products) term additions rounds by at most one ulp (2^-23 relative, directed rounding included) of
  // a partial sum bounded by T = |start| + sum |a||b| over the terms, or loses at most 2^-126 to a flush:
  //   |hw - model| <= 2 R (2^-23 T + 2^-126).
  if (!cpu::amx_available()) GTEST_SKIP() << "no AMX here (" << cpu::amx_unavailable_reason() << ")";
  for (const Case& c : cases())
    for (bool accumulate : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (accumulate ? ", accumulate" : ""));
      const Result model = run(engine::amx_model_engine(), c.panels, c.groups, accumulate);
      const Result hw = run(engine::amx_engine(), c.panels, c.groups, accumulate);
      EXPECT_EQ(hw.counters.tile_loads, model.counters.tile_loads);
      if (c.exact && !accumulate) {
        expect_same_bits(model, hw);
        continue;
      }
      const TilePanels& t = c.panels;
      for (std::size_t g = 0; g < c.groups.size(); ++g) {
        const double R = double(t.kb) * double(c.groups[g].size());
        for (int i = 0; i < kTileM; ++i)
          for (int j = 0; j < kTileN; ++j) {
            const std::size_t e = std::size_t(i * kLdo + j);
            double T = std::fabs(model.init[g][e]);
            for (const Product& p : c.groups[g])
              for (int l = 0; l < t.kb; ++l)
                T += std::fabs(double(engine::daz_bf16(t.a[p.a][i * t.kb + l])) *
                               engine::daz_bf16(t.b[p.b][(l / 2) * pack::kBPairStride + j * 2 + l % 2]));
            const double bound = 2 * R * (0x1p-23 * T + 0x1p-126);
            ASSERT_LE(std::fabs(double(hw.out[g][e]) - model.out[g][e]), bound)
                << "group " << g << " " << i << "," << j;
          }
      }
    }
}
