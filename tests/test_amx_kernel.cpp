// AMX-specific tests of the AMX micro-kernel on panels made by the library's own packers: its counters show the
// operand reuse of the schedule, the cases marked exact sum exactly on the tile model, and on AMX hardware HwTiles
// equal the model bit for bit where the sums are exact and stay within the FP32 summation bound elsewhere. The
// comparison of every engine (tile model included) with the reference engine is tests/test_engines.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/inputs.hpp"
#include "cpu/features.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "engine/records.hpp"
#include "split/scheme.hpp"
#include "support/bounds.hpp"
#include "support/engine_panels.hpp"

using namespace bf16x;
using namespace bf16x::test;

namespace {

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

TEST(AmxKernel, ExactCasesSumExactly) {
  // The cases marked exact (which the hardware comparison checks bit for bit) must give the exact FP64 sum of
  // their terms: at most 256 terms of at most 2^16 units of one grid per accumulator, so the sum stays below 2^24
  // units and FP32 holds it exactly; the FP64 loop below is exact for the same reason.
  int checked = 0;
  for (const Case& c : cases()) {
    if (!c.exact) continue;
    SCOPED_TRACE(c.what);
    const TilePanels& t = c.panels;
    const KernelResult model = run_kernel(*engine::engine_info(BF16X_ENGINE_AMX_MODEL), t, c.groups, false);
    for (std::size_t g = 0; g < c.groups.size(); ++g)
      for (int i = 0; i < kTileM; ++i)
        for (int j = 0; j < kTileN; ++j) {
          double sum, abs;
          term_sums(t, c.groups[g], i, j, sum, abs);
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
  const KernelResult model = run_kernel(*engine::engine_info(BF16X_ENGINE_AMX_MODEL), t, fp32x6_group(), false);
  const KernelResult ref = run_kernel(*engine::engine_info(BF16X_ENGINE_REFERENCE), t, fp32x6_group(), false);
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
  const KernelResult model = run_kernel(*engine::engine_info(BF16X_ENGINE_AMX_MODEL), t, g, false);
  EXPECT_EQ(model.counters.tile_loads, 3u * (12 + 4));
  EXPECT_EQ(model.counters.dot_products, 3u * 6 * 4);
  EXPECT_EQ(model.counters.tile_stores, 2u * 4);
  expect_same_bits(run_kernel(*engine::engine_info(BF16X_ENGINE_REFERENCE), t, g, false), model);
}

// The kernel's schedules (BF16X_AMX_KERNEL: plain, interleaved, prefetch) on the tile model: the same bits and the
// same counters on every case, accumulating or not; on AMX hardware the same against the plain hardware kernel.
TEST(AmxKernel, EveryScheduleGivesTheSameBitsAndLoads) {
  using engine::amx::Schedule;
  for (const Case& c : cases())
    for (bool accumulate : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (accumulate ? ", accumulate" : ""));
      engine::amx::set_schedule(Schedule::plain);
      const KernelResult plain =
          run_kernel(*engine::engine_info(BF16X_ENGINE_AMX_MODEL), c.panels, c.groups, accumulate);
      const bool hw = cpu::amx_available();
      const KernelResult plain_hw =
          hw ? run_kernel(*engine::engine_info(BF16X_ENGINE_AMX), c.panels, c.groups, accumulate) : plain;
      for (Schedule s : {Schedule::interleaved, Schedule::prefetch}) {
        SCOPED_TRACE(engine::amx::schedule_name(s));
        engine::amx::set_schedule(s);
        const KernelResult r = run_kernel(*engine::engine_info(BF16X_ENGINE_AMX_MODEL), c.panels, c.groups, accumulate);
        expect_same_bits(plain, r);
        EXPECT_EQ(r.counters.tile_loads, plain.counters.tile_loads);
        EXPECT_EQ(r.counters.dot_products, plain.counters.dot_products);
        EXPECT_EQ(r.counters.tile_stores, plain.counters.tile_stores);
        if (hw)
          expect_same_bits(plain_hw,
                           run_kernel(*engine::engine_info(BF16X_ENGINE_AMX), c.panels, c.groups, accumulate));
      }
      engine::amx::set_schedule(Schedule::plain);
    }
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
      const KernelResult model =
          run_kernel(*engine::engine_info(BF16X_ENGINE_AMX_MODEL), c.panels, c.groups, accumulate);
      const KernelResult hw = run_kernel(*engine::engine_info(BF16X_ENGINE_AMX), c.panels, c.groups, accumulate);
      EXPECT_EQ(hw.counters.tile_loads, model.counters.tile_loads);
      if (c.exact && !accumulate) {
        expect_same_bits(model, hw);
        continue;
      }
      const TilePanels& t = c.panels;
      for (std::size_t g = 0; g < c.groups.size(); ++g) {
        const double R = term_count(t, c.groups[g]);
        for (int i = 0; i < kTileM; ++i)
          for (int j = 0; j < kTileN; ++j) {
            const std::size_t e = std::size_t(i * kLdo + j);
            double sum, T;
            term_sums(t, c.groups[g], i, j, sum, T);
            const double bound = fp32_two_sums_bound(R, T + std::fabs(model.init[g][e]), 0x1p-23);
            ASSERT_LE(std::fabs(double(hw.out[g][e]) - model.out[g][e]), bound)
                << "group " << g << " " << i << "," << j;
          }
      }
    }
}
