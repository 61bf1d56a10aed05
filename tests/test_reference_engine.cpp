// The reference engine against a plain FP64 triple loop over the same packed BF16 slices: FP64 groups must be
// exact (their sums are exact by construction), the FP32 group within the FP32 summation bound.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bf16x/bf16x.h"
#include "engine/records.hpp"
#include "pack/layout.hpp"
#include "split/scheme.hpp"
#include "split/slice_fp64.hpp"

using namespace bf16x;
using pack::kTileM;
using pack::kTileN;

namespace {

struct Panels {
  int kb;
  std::vector<std::vector<bf16_t>> a, b;    // packed micro-panels per slice
  std::vector<std::vector<double>> av, bv;  // the same values, unpacked: av[s][r*kb+l], bv[s][l*32+c]
};

// Fixed-point slices of random rows/columns (row scale 2^0), packed by hand in the documented layout.
Panels make_panels(int kb, int slices, std::uint64_t seed) {
  Panels p{kb, {}, {}, {}, {}};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  p.a.assign(slices, std::vector<bf16_t>(std::size_t(kTileM * kb)));
  p.b.assign(slices, std::vector<bf16_t>(std::size_t(kTileN * kb)));
  p.av.assign(slices, std::vector<double>(std::size_t(kTileM * kb)));
  p.bv.assign(slices, std::vector<double>(std::size_t(kTileN * kb)));
  bf16_t s[6];
  for (int r = 0; r < kTileM; ++r)
    for (int l = 0; l < kb; ++l) {
      split::split_fp64(u(rng), 0, 0, slices, s, 1);
      for (int q = 0; q < slices; ++q) {
        p.a[q][std::size_t(r * kb + l)] = s[q];
        p.av[q][std::size_t(r * kb + l)] = bf16_to_float(s[q]);
      }
    }
  for (int l = 0; l < kb; ++l)
    for (int c = 0; c < kTileN; ++c) {
      split::split_fp64(u(rng), 0, 0, slices, s, 1);
      for (int q = 0; q < slices; ++q) {
        p.b[q][std::size_t((l / 2) * pack::kBPairStride + c * 2 + l % 2)] = s[q];
        p.bv[q][std::size_t(l * kTileN + c)] = bf16_to_float(s[q]);
      }
    }
  return p;
}

double triple_loop(const Panels& p, const engine::ProductGroup& g, int r, int c, double* abs_sum) {
  double sum = 0, as = 0;
  for (int q = 0; q < g.count; ++q)
    for (int l = 0; l < p.kb; ++l) {
      const double t =
          p.av[g.products[q].a][std::size_t(r * p.kb + l)] * p.bv[g.products[q].b][std::size_t(l * kTileN + c)];
      sum +=
          t;  // exact in FP64: every term lies on the 2^-106 grid and |sum| < 2^(24-16-...) stays far below 2^53 units
      as += std::fabs(t);
    }
  if (abs_sum) *abs_sum = as;
  return sum;
}

void run(const Panels& p, const split::GroupPlan& plan, std::vector<float>& out, bool accumulate) {
  std::vector<const bf16_t*> ap, bp;
  for (auto& v : p.a) ap.push_back(v.data());
  for (auto& v : p.b) bp.push_back(v.data());
  std::vector<float*> outs;
  for (std::size_t g = 0; g < plan.groups.size(); ++g) outs.push_back(out.data() + g * kTileM * kTileN);
  const engine::MicroTileArgs args{
      ap.data(), bp.data(),  p.kb,   plan.groups.data(), int(plan.groups.size()), outs.data(),
      kTileN,    accumulate, nullptr};
  engine::kernel_reference(args);
}

}  // namespace

TEST(ReferenceEngine, Fp64GroupsAreExactAgainstTripleLoop) {
  for (int mode : {3, 4, 5, 6})  // fp64x6 .. fp64x21
    for (bool fuse : {false, true})
      for (int kb : {32, 128, 256}) {
        const auto* scheme = split::scheme_for_mode(mode);
        const auto plan = split::plan_groups(*scheme, fuse, kb);
        const Panels p = make_panels(kb, 6, 100 + kb + mode);
        std::vector<float> out(plan.groups.size() * kTileM * kTileN, 0.f);
        run(p, plan, out, false);
        for (std::size_t g = 0; g < plan.groups.size(); ++g)
          for (int r = 0; r < kTileM; ++r)
            for (int c = 0; c < kTileN; ++c)
              ASSERT_EQ(double(out[g * 1024 + r * kTileN + c]), triple_loop(p, plan.groups[g], r, c, nullptr))
                  << "mode " << mode << " fuse " << fuse << " kb " << kb << " group " << g;
      }
}

TEST(ReferenceEngine, AccumulateAddsOntoExistingOutput) {
  const auto* scheme = split::scheme_for_mode(3);
  const auto plan = split::plan_groups(*scheme, false, 64);
  const Panels p = make_panels(64, 6, 7);
  std::vector<float> out(plan.groups.size() * 1024, 0.5f);
  run(p, plan, out, true);
  // Starting from 0.5 the partial sums no longer fit 24 bits, so each of the n = 2*kb pair additions rounds:
  // |err| <= gamma_n * (0.5 + sum|terms|). Starting from zero instead would have been exact (previous test).
  const double n = 2.0 * 64, u = std::ldexp(1.0, -24), gamma = n * u / (1 - n * u);
  bool rounded = false;
  for (std::size_t g = 0; g < plan.groups.size(); ++g)
    for (int r = 0; r < kTileM; ++r)
      for (int c = 0; c < kTileN; ++c) {
        double as;
        const double want = 0.5 + triple_loop(p, plan.groups[g], r, c, &as);
        const double got = out[g * 1024 + r * kTileN + c];
        ASSERT_LE(std::fabs(got - want), gamma * (0.5 + as));
        rounded |= got != want;
      }
  EXPECT_TRUE(rounded);
}

TEST(ReferenceEngine, Fp32GroupWithinSummationBound) {
  // fp32x6 slices of FP32 values are not on one grid, so the engine rounds: with n = 2*6*kb rounded additions
  // the classic bound |fl(sum) - sum| <= gamma_n * sum|terms|, gamma_n = n u / (1 - n u), u = 2^-24, applies.
  const int kb = 64;
  const auto* scheme = split::scheme_for_mode(2);
  const auto plan = split::plan_groups(*scheme, false, kb);
  Panels p = make_panels(kb, 3, 17);  // any BF16 slices will do for the summation bound
  std::vector<float> out(1024, 0.f);
  run(p, plan, out, false);
  const double n = 2.0 * 6 * kb, u = std::ldexp(1.0, -24), gamma = n * u / (1 - n * u);
  double worst = 0;
  for (int r = 0; r < kTileM; ++r)
    for (int c = 0; c < kTileN; ++c) {
      double as;
      const double want = triple_loop(p, plan.groups[0], r, c, &as);
      const double err = std::fabs(double(out[r * kTileN + c]) - want);
      ASSERT_LE(err, gamma * as) << r << "," << c;
      worst = std::max(worst, err / as);
    }
  EXPECT_GT(worst, 0.0) << "FP32 path expected to round somewhere; an exact result suggests FP64 arithmetic";
}

TEST(ReferenceEngine, DenormalInputsReadAsZeroAndTinyResultsFlush) {
  // One product, kb = 32: a = 2^-127 (BF16 subnormal) must contribute nothing; 2^-70 * 2^-70 = 2^-140 is below
  // the FP32 normal range and must flush to zero.
  std::vector<bf16_t> a(1024, 0), b(1024, 0);
  a[0] = 0x0040;                                                         // 2^-127, subnormal
  b[0] = float_to_bf16(1.0f);                                            // pairs with a[0] (k = 0, column 0)
  a[32 + 2] = float_to_bf16(std::ldexp(1.0f, -70));                      // row 1, k = 2
  b[1 * pack::kBPairStride + 0] = float_to_bf16(std::ldexp(1.0f, -70));  // k = 2, column 0
  const bf16_t* ap[1] = {a.data()};
  const bf16_t* bp[1] = {b.data()};
  const engine::Product prod{0, 0};
  const engine::ProductGroup g{&prod, 1};
  std::vector<float> out(1024, 1.f);
  float* o = out.data();
  engine::kernel_reference({ap, bp, 32, &g, 1, &o, 32, false, nullptr});
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[32], 0.0f);
}
