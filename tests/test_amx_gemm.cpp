// The AMX engines through the public C API: the kernel on the tile model gives the reference engine's C bit for
// bit in every mode (fused and unfused FP64 diagonals, odd shapes, several k-blocks and output blocks, scaled and
// unscaled splits); fused diagonals store fewer accumulators; the hardware engine is refused cleanly where AMX
// is absent and, where it is present, equals the model bit for bit on the FP64 path and within the FP32
// summation bound on fp32x6.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "check/inputs.hpp"
#include "cpu/features.hpp"
#include "split/slice_fp64.hpp"
#include "support/bounds.hpp"

using namespace bf16x;

namespace {

template <typename T>
struct Operands {
  std::int64_t m, n, k;
  check::Mat<T> a, b, c;
};

template <typename T>
Operands<T> operands(std::int64_t m, std::int64_t n, std::int64_t k, check::Dist d, std::uint64_t seed,
                     double shrink = 1.0) {
  Operands<T> x{m,
                n,
                k,
                check::make_input<T>(d, m, k, seed, 0),
                check::make_input<T>(d, k, n, seed, 1),
                check::make_input<T>(check::Dist::uniform, m, n, seed, 2)};
  for (auto& v : x.a.v) v = T(v * shrink);
  for (auto& v : x.b.v) v = T(v * shrink);
  return x;
}

struct Config {
  int mode;
  int engine;
  bool fuse = false;
  int block_k = 0;
  int split = BF16X_SPLIT_SCALED;
};

template <typename T>
struct Outcome {
  int status;
  std::vector<T> c;
  bf16x_stats stats;
};

// C = alpha A B + beta C, column-major, alpha and beta not 1 so the write-back path runs too.
template <typename T>
Outcome<T> gemm(const Operands<T>& x, const Config& cfg) {
  Outcome<T> r{0, x.c.v, {}};
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = cfg.mode;
  o.engine = cfg.engine;
  o.fuse_diagonals = cfg.fuse;
  o.block_k = cfg.block_k;
  o.split = cfg.split;
  o.stats = &r.stats;
  o.guard = BF16X_GUARD_OFF;  // the engines' bits in the mode itself, never the guard's host GEMM
  const T alpha = T(-0.75), beta = T(0.5);
  if constexpr (sizeof(T) == 8)
    r.status = bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, x.m, x.n, x.k, alpha, x.a.data(), x.m,
                              x.b.data(), x.k, beta, r.c.data(), x.m, &o);
  else
    r.status = bf16x_sgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, x.m, x.n, x.k, alpha, x.a.data(), x.m,
                              x.b.data(), x.k, beta, r.c.data(), x.m, &o);
  return r;
}

template <typename T>
void expect_same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) {
      ADD_FAILURE() << "first difference at " << i << ": " << x[i] << " vs " << y[i];
      return;
    }
}

// Runs cfg on `engine` and on the reference engine and demands identical C; both must really have emulated.
template <typename T>
void expect_engine_matches_reference(const Operands<T>& x, Config cfg) {
  const Outcome<T> got = gemm(x, cfg);
  cfg.engine = BF16X_ENGINE_REFERENCE;
  const Outcome<T> ref = gemm(x, cfg);
  ASSERT_EQ(got.status, BF16X_OK);
  ASSERT_EQ(ref.status, BF16X_OK);
  ASSERT_EQ(got.stats.mode, cfg.mode);
  ASSERT_EQ(ref.stats.engine, BF16X_ENGINE_REFERENCE);
  EXPECT_EQ(got.stats.micro_tiles, ref.stats.micro_tiles);
  EXPECT_EQ(got.stats.dot_products, ref.stats.dot_products);
  EXPECT_EQ(got.stats.tile_stores, ref.stats.tile_stores);
  expect_same_bits(got.c, ref.c);
}

struct Shape {
  std::int64_t m, n, k;
};

// Sizes around the 32-row tiles, the 256 output blocks and the 32-chunk / 256-block k: 1, 15, 17, 31, 33, 63,
// 65, 255, 257. The scalar reference engine (about 50 us per 32x32x32 product) bounds how many combinations are
// affordable: every configuration runs the small shapes, one configuration per mode the large ones.
const Shape kShapes[] = {{1, 1, 1},    {15, 17, 31},  {17, 15, 33}, {31, 33, 17}, {33, 31, 63},
                         {63, 65, 15}, {17, 255, 63}, {257, 1, 17}, {1, 257, 33}};
const Shape kLargeShapes[] = {{255, 17, 257}, {65, 33, 257}, {257, 33, 31}};

std::string label(const Shape& s, const Config& c) {
  return std::string(bf16x_mode_name(c.mode)) + (c.fuse ? " fused" : "") + " bk=" + std::to_string(c.block_k) +
         (c.split == BF16X_SPLIT_PAPER ? " paper" : "") + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

std::vector<Config> fp64_configs(int engine) {
  std::vector<Config> v;
  for (int mode : {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21}) {
    v.push_back({mode, engine, false, 0});
    v.push_back({mode, engine, false, 64});
    v.push_back({mode, engine, true, 64});  // up to 4 products per accumulator
    v.push_back({mode, engine, true, 32});  // up to 8: whole diagonals
  }
  return v;
}

std::vector<Config> fp32_configs(int engine) {
  return {{BF16X_MODE_FP32X6, engine, false, 0},
          {BF16X_MODE_FP32X6, engine, false, 256},
          {BF16X_MODE_FP32X6, engine, false, 32}};
}

}  // namespace

TEST(AmxGemm, ModelEqualsReferenceBitForBitFp64) {
  const std::vector<Config> configs = fp64_configs(BF16X_ENGINE_AMX_MODEL);
  for (std::size_t c = 0; c < configs.size(); ++c) {
    const Config& cfg = configs[c];
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(label(s, cfg));
      expect_engine_matches_reference(operands<double>(s.m, s.n, s.k, check::Dist::uniform, std::uint64_t(s.m + s.k)),
                                      cfg);
    }
    // Large shapes: one configuration per mode, a different one each (fp64x6 unfused BK 256, fp64x10 unfused
    // BK 64, fp64x15 fused BK 64, fp64x21 fused BK 32).
    if (c % 4 != c / 4) continue;
    for (const Shape& s : kLargeShapes) {
      SCOPED_TRACE(label(s, cfg));
      expect_engine_matches_reference(operands<double>(s.m, s.n, s.k, check::Dist::uniform, std::uint64_t(s.n + s.k)),
                                      cfg);
    }
  }
}

TEST(AmxGemm, ModelEqualsReferenceBitForBitFp32) {
  for (const Config& cfg : fp32_configs(BF16X_ENGINE_AMX_MODEL)) {
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(label(s, cfg));
      expect_engine_matches_reference(
          operands<float>(s.m, s.n, s.k, check::Dist::uniform, std::uint64_t(s.n * 5 + s.k)), cfg);
    }
    for (const Shape& s : kLargeShapes) {
      SCOPED_TRACE(label(s, cfg));
      expect_engine_matches_reference(operands<float>(s.m, s.n, s.k, check::Dist::uniform, std::uint64_t(s.m + 3)),
                                      cfg);
    }
  }
}

TEST(AmxGemm, ModelEqualsReferenceOnWideRangesAndSubnormalSlices) {
  // Log-uniform entries (scaled split), and unscaled (paper) slices of tiny entries, whose low slices are BF16
  // subnormals (read as zero) and whose products underflow (flushed): both engines must do the same.
  const Shape shapes[] = {{33, 65, 100}, {65, 17, 40}};
  for (const Shape& s : shapes)
    for (int split : {BF16X_SPLIT_SCALED, BF16X_SPLIT_PAPER}) {
      for (Config cfg : fp64_configs(BF16X_ENGINE_AMX_MODEL)) {
        if (cfg.block_k == 64) continue;  // unfused at BK 256 and fused at BK 32 suffice here
        cfg.split = split;
        SCOPED_TRACE(label(s, cfg));
        const double shrink = split == BF16X_SPLIT_PAPER ? 0x1p-70 : 1.0;
        expect_engine_matches_reference(operands<double>(s.m, s.n, s.k, check::Dist::loguniform, 3, shrink), cfg);
      }
      for (Config cfg : fp32_configs(BF16X_ENGINE_AMX_MODEL)) {
        cfg.split = split;
        SCOPED_TRACE(label(s, cfg));
        const double shrink = split == BF16X_SPLIT_PAPER ? 0x1p-80 : 1.0;
        expect_engine_matches_reference(operands<float>(s.m, s.n, s.k, check::Dist::loguniform, 4, shrink), cfg);
      }
    }
}

TEST(AmxGemm, Fp32x6CountsFourteenTileLoadsPerMicroTileChunk) {
  // 64 x 64 x 64: 4 micro-tiles, 2 chunks each. The AMX schedule loads 7 panels (14 tiles) per chunk, the
  // reference count (no reuse) 12 panels (24 tiles); both issue 6 x 4 TDPBF16PS per chunk.
  const auto x = operands<float>(64, 64, 64, check::Dist::uniform, 11);
  const Outcome<float> amx = gemm(x, {BF16X_MODE_FP32X6, BF16X_ENGINE_AMX_MODEL, false, 64});
  const Outcome<float> ref = gemm(x, {BF16X_MODE_FP32X6, BF16X_ENGINE_REFERENCE, false, 64});
  ASSERT_EQ(amx.status, BF16X_OK);
  ASSERT_EQ(amx.stats.engine, BF16X_ENGINE_AMX_MODEL);
  ASSERT_EQ(amx.stats.micro_tiles, 4u);
  EXPECT_EQ(amx.stats.tile_loads, 4u * 2 * 14);
  EXPECT_EQ(ref.stats.tile_loads, 4u * 2 * 24);
  EXPECT_EQ(amx.stats.dot_products, 4u * 2 * 24);
  EXPECT_EQ(amx.stats.tile_stores, 4u * 4);
}

TEST(AmxGemm, FusedDiagonalsStoreFewerAccumulators) {
  // fp64x21 at BK = 64: at most 256/64 = 4 products share an accumulator. Diagonals of 6,5,4,3,2,1 products give
  // 2+2+1+1+1+1 = 8 accumulators instead of 21. 64 x 64 x 128: 4 micro-tiles x 2 k-blocks = 8 micro-kernel calls.
  // Each stored accumulator tile is 256 FP32 values that the driver widens to FP64 once.
  const auto x = operands<double>(64, 64, 128, check::Dist::uniform, 12);
  const Outcome<double> unfused = gemm(x, {BF16X_MODE_FP64X21, BF16X_ENGINE_AMX_MODEL, false, 64});
  const Outcome<double> fused = gemm(x, {BF16X_MODE_FP64X21, BF16X_ENGINE_AMX_MODEL, true, 64});
  ASSERT_EQ(unfused.status, BF16X_OK);
  ASSERT_EQ(fused.status, BF16X_OK);
  ASSERT_EQ(fused.stats.engine, BF16X_ENGINE_AMX_MODEL);
  ASSERT_EQ(fused.stats.micro_tiles, 8u);
  EXPECT_EQ(unfused.stats.tile_stores, 8u * 21 * 4);
  EXPECT_EQ(fused.stats.tile_stores, 8u * 8 * 4);
  const std::uint64_t conversions_unfused = unfused.stats.tile_stores * 256,
                      conversions_fused = fused.stats.tile_stores * 256;
  EXPECT_EQ(conversions_unfused, 8u * 21 * 1024);
  EXPECT_EQ(conversions_fused, 8u * 8 * 1024);
  // Fusion changes the accumulator count, not the work: no two products of a diagonal share a panel.
  EXPECT_EQ(fused.stats.tile_loads, unfused.stats.tile_loads);
  EXPECT_EQ(fused.stats.dot_products, unfused.stats.dot_products);
  EXPECT_EQ(fused.stats.dot_products, 8u * 2 * 21 * 4);

  // Both add the same exact per-product (or per-diagonal) FP32 sums; only the FP64 reconstruction differs: one
  // rounding of at most 2^-53 |partial sum| per FP64 addition (21 + 8 accumulators per call, 2 calls per element,
  // 58 in all), and the write-back's rounding of alpha*v and of + beta*c. Every partial sum is bounded by
  //   S_ij = sum_l (|a_il| + 2^(Ea_i-7)) (|b_lj| + 2^(Eb_j-7)),
  // since the slices of an entry x on the grid of its row scale 2^E add in magnitude to less than |x| + 2^(E-7)
  // (each round-to-nearest slice overshoots its residual by at most half its grid step). Bound used:
  // 88 * 2^-53 * (0.75 S + 0.5 |c|), which covers 58 + 2 + 2 roundings with slack for second-order terms.
  std::vector<int> ea(std::size_t(x.m)), eb(std::size_t(x.n));
  for (std::int64_t i = 0; i < x.m; ++i) {
    double mx = 0;
    for (std::int64_t l = 0; l < x.k; ++l) mx = std::max(mx, std::fabs(x.a(i, l)));
    ea[std::size_t(i)] = split::scale_exponent(mx);
  }
  for (std::int64_t j = 0; j < x.n; ++j) {
    double mx = 0;
    for (std::int64_t l = 0; l < x.k; ++l) mx = std::max(mx, std::fabs(x.b(l, j)));
    eb[std::size_t(j)] = split::scale_exponent(mx);
  }
  int differ = 0;
  for (std::int64_t j = 0; j < x.n; ++j)
    for (std::int64_t i = 0; i < x.m; ++i) {
      double S = 0;
      for (std::int64_t l = 0; l < x.k; ++l)
        S += (std::fabs(x.a(i, l)) + std::ldexp(1.0, ea[std::size_t(i)] - 7)) *
             (std::fabs(x.b(l, j)) + std::ldexp(1.0, eb[std::size_t(j)] - 7));
      const std::size_t e = std::size_t(i + j * x.m);
      const double bound = 88 * 0x1p-53 * (0.75 * S + 0.5 * std::fabs(x.c(i, j)));
      ASSERT_LE(std::fabs(fused.c[e] - unfused.c[e]), bound) << i << "," << j;
      differ += fused.c[e] != unfused.c[e];
    }
  RecordProperty("elements_differing_in_reconstruction_rounding", differ);
}

TEST(AmxGemm, HardwareEngineIsRefusedCleanlyWithoutAmx) {
  const bool hw = cpu::amx_available();
  EXPECT_EQ(bf16x_engine_available(BF16X_ENGINE_AMX), hw ? 1 : 0);
  EXPECT_EQ(bf16x_engine_available(BF16X_ENGINE_AMX_MODEL), 1);
  const auto xd = operands<double>(40, 33, 70, check::Dist::uniform, 13);
  const auto xs = operands<float>(40, 33, 70, check::Dist::uniform, 14);
  const Outcome<double> d = gemm(xd, {BF16X_MODE_FP64X10, BF16X_ENGINE_AMX});
  const Outcome<float> s = gemm(xs, {BF16X_MODE_FP32X6, BF16X_ENGINE_AMX});
  if (!hw) {
    EXPECT_EQ(d.status, BF16X_ERR_ENGINE);
    EXPECT_EQ(s.status, BF16X_ERR_ENGINE);
    expect_same_bits(d.c, xd.c.v);  // C untouched
    expect_same_bits(s.c, xs.c.v);
  } else {
    ASSERT_EQ(d.status, BF16X_OK);
    ASSERT_EQ(s.status, BF16X_OK);
    EXPECT_EQ(d.stats.engine, BF16X_ENGINE_AMX);
    EXPECT_EQ(s.stats.engine, BF16X_ENGINE_AMX);
    // fp32x6's FP32 sums in the hardware's own pair order: HardwareMatchesModel holds them to the summation bound.
    expect_same_bits(d.c, gemm(xd, {BF16X_MODE_FP64X10, BF16X_ENGINE_AMX_MODEL}).c);
  }
}

TEST(AmxGemm, HardwareMatchesModel) {
  // FP64 modes: every FP32 sum is exact, so hardware and model agree bit for bit whatever the hardware's pair
  // order. fp32x6: they share only the summation bound (support/bounds.hpp, fp32x6_two_engines_bound).
  if (!cpu::amx_available()) GTEST_SKIP() << "no AMX here (" << cpu::amx_unavailable_reason() << ")";
  auto hw_and_model = [](const auto& x, Config cfg) {
    cfg.engine = BF16X_ENGINE_AMX;
    auto hw = gemm(x, cfg);
    cfg.engine = BF16X_ENGINE_AMX_MODEL;
    auto model = gemm(x, cfg);
    EXPECT_EQ(hw.status, BF16X_OK);
    EXPECT_EQ(hw.stats.engine, BF16X_ENGINE_AMX);
    EXPECT_EQ(hw.stats.tile_loads, model.stats.tile_loads);
    EXPECT_EQ(hw.stats.tile_stores, model.stats.tile_stores);
    return std::make_pair(std::move(hw), std::move(model));
  };
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.insert(shapes.end(), std::begin(kLargeShapes), std::end(kLargeShapes));
  for (const Shape& s : shapes) {
    for (const Config& cfg : fp64_configs(BF16X_ENGINE_AMX)) {
      SCOPED_TRACE(label(s, cfg));
      const auto [hw, model] = hw_and_model(operands<double>(s.m, s.n, s.k, check::Dist::loguniform, 21), cfg);
      expect_same_bits(hw.c, model.c);
    }
    for (const Config& cfg : fp32_configs(BF16X_ENGINE_AMX)) {
      SCOPED_TRACE(label(s, cfg));
      const auto x = operands<float>(s.m, s.n, s.k, check::Dist::uniform, 22);
      const auto [hw, model] = hw_and_model(x, cfg);
      const check::Mat<double> abs_ab = check::abs_gemm(x.a, x.b);
      for (std::int64_t j = 0; j < s.n; ++j)
        for (std::int64_t i = 0; i < s.m; ++i) {
          const std::size_t e = std::size_t(i + j * s.m);
          const double bound = test::fp32x6_two_engines_bound(double(s.k), abs_ab(i, j), 0.75, 0.5 * x.c(i, j));
          ASSERT_LE(std::fabs(double(hw.c[e]) - model.c[e]), bound) << i << "," << j;
        }
    }
  }
  // Several output blocks, so every thread configures and releases its own tiles.
  SCOPED_TRACE("600 x 520 x 300, all threads");
  const auto [hw, model] =
      hw_and_model(operands<double>(600, 520, 300, check::Dist::uniform, 23), {BF16X_MODE_FP64X21, BF16X_ENGINE_AMX});
  expect_same_bits(hw.c, model.c);
}
