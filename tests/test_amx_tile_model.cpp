// The software tile model against the SDM rules: LDTILECFG validation, faults on unconfigured or wrongly shaped
// tiles, TILELOADD/TILESTORED/TILEZERO data movement, and TDPBF16PS arithmetic checked against exact integer sums
// (independent of engine/dpbf16.hpp) and against the DAZ/FTZ rules on hand-picked values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/amx/kernel_amx_bf16_32x32.hpp"
#include "engine/amx/tile_config.hpp"
#include "engine/amx/tile_model.hpp"
#include "split/bf16.hpp"

using namespace bf16x;
using namespace bf16x::engine::amx;

namespace {

TileConfig full_config() { return kernel_amx_bf16_32x32_config(); }

// Every tile operation of the model, on tile t (and t, t+1, t+2 for TDPBF16PS).
void expect_every_op_faults(TileModel& tm, int t) {
  alignas(64) std::uint8_t buf[kMaxRows * kMaxColsBytes] = {};
  EXPECT_THROW(tm.load_tile(t, buf, kMaxColsBytes), TileFault);
  EXPECT_THROW(tm.store_tile(t, buf, kMaxColsBytes), TileFault);
  EXPECT_THROW(tm.zero_tile(t), TileFault);
  EXPECT_THROW(tm.dpbf16ps_tiles(t, (t + 1) % kTiles, (t + 2) % kTiles), TileFault);
}

bf16_t bf(float x) { return float_to_bf16(x); }

}  // namespace

TEST(AmxTileModel, KernelPaletteIsAValidPaletteOneConfig) {
  const TileConfig c = full_config();
  EXPECT_EQ(check_tile_config(c), ConfigError::none);
  TileModel tm;
  EXPECT_EQ(tm.load_config(&c), ConfigError::none);
  EXPECT_TRUE(tm.configured());
  const TileConfig back = tm.config();
  EXPECT_EQ(std::memcmp(&back, &c, sizeof c), 0);
}

TEST(AmxTileModel, RejectsBadConfigs) {
  struct Bad {
    const char* what;
    void (*spoil)(TileConfig&);
    ConfigError expect;
  };
  const Bad bad[] = {
      {"palette 0", [](TileConfig& c) { c.palette_id = 0; }, ConfigError::palette},
      {"palette 2", [](TileConfig& c) { c.palette_id = 2; }, ConfigError::palette},
      {"colsb 65", [](TileConfig& c) { c.colsb[3] = 65; }, ConfigError::colsb},
      {"rows 17", [](TileConfig& c) { c.rows[6] = 17; }, ConfigError::rows},
      {"reserved byte 2", [](TileConfig& c) { c.reserved[0] = 1; }, ConfigError::reserved},
      {"reserved byte 15", [](TileConfig& c) { c.reserved[13] = 0x80; }, ConfigError::reserved},
      {"colsb of tile 8", [](TileConfig& c) { c.colsb[8] = 64; }, ConfigError::reserved},
      {"rows of tile 15", [](TileConfig& c) { c.rows[15] = 1; }, ConfigError::reserved},
      {"rows without colsb", [](TileConfig& c) { c.colsb[2] = 0; }, ConfigError::half_configured},
      {"colsb without rows", [](TileConfig& c) { c.rows[5] = 0; }, ConfigError::half_configured},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.what);
    TileConfig c = full_config();
    b.spoil(c);
    EXPECT_EQ(check_tile_config(c), b.expect);
    // A fresh model stays unconfigured and refuses tile work.
    TileModel fresh;
    EXPECT_EQ(fresh.load_config(&c), b.expect);
    EXPECT_FALSE(fresh.configured());
    expect_every_op_faults(fresh, 4);
  }
  // Every one of the 14 reserved bytes counts.
  for (int i = 2; i < 16; ++i) {
    TileConfig c = full_config();
    reinterpret_cast<std::uint8_t*>(&c)[i] = 1;
    EXPECT_EQ(check_tile_config(c), ConfigError::reserved) << "byte " << i;
  }
}

TEST(AmxTileModel, RejectedConfigLeavesTheLoadedOneInPlace) {
  const TileConfig good = full_config();
  TileConfig bad = good;
  bad.rows[0] = 17;
  TileModel tm;
  ASSERT_EQ(tm.load_config(&good), ConfigError::none);
  EXPECT_EQ(tm.load_config(&bad), ConfigError::rows);  // #GP: the instruction does not take effect
  ASSERT_TRUE(tm.configured());
  const TileConfig back = tm.config();
  EXPECT_EQ(std::memcmp(&back, &good, sizeof good), 0);
  // Palette 0 is the init state: legal on hardware, and afterwards no tile may be used.
  TileConfig zero{};
  EXPECT_EQ(tm.load_config(&zero), ConfigError::palette);
  EXPECT_FALSE(tm.configured());
  expect_every_op_faults(tm, 0);
}

TEST(AmxTileModel, RefusesTileOpsBeforeConfigAndAfterRelease) {
  TileModel tm;
  for (int t = 0; t < kTiles; ++t) expect_every_op_faults(tm, t);
  const TileConfig c = full_config();
  ASSERT_EQ(tm.load_config(&c), ConfigError::none);
  EXPECT_NO_THROW(tm.zero_tile(3));
  tm.release();
  EXPECT_FALSE(tm.configured());
  for (int t = 0; t < kTiles; ++t) expect_every_op_faults(tm, t);
}

TEST(AmxTileModel, RefusesTilesOutsideThePalette) {
  TileConfig c{};
  c.palette_id = 1;
  for (int t = 0; t < 4; ++t) {  // only TMM0-3 named
    c.colsb[t] = 64;
    c.rows[t] = 16;
  }
  TileModel tm;
  ASSERT_EQ(tm.load_config(&c), ConfigError::none);
  EXPECT_NO_THROW(tm.zero_tile(3));
  for (int t = 4; t < kTiles; ++t) expect_every_op_faults(tm, t);
  EXPECT_THROW(tm.zero_tile(8), TileFault);
  EXPECT_THROW(tm.zero_tile(-1), TileFault);
}

TEST(AmxTileModel, Dpbf16psRefusesInconsistentShapes) {
  // dst 4 (M x N fp32), src1 0 (M x K pairs), src2 2 (K x N pairs); one field off at a time.
  struct Shape {
    const char* what;
    int dst_rows, dst_colsb, a_rows, a_colsb, b_rows, b_colsb;
    bool ok;
  };
  const Shape shapes[] = {
      {"consistent 5x3, K=6", 5, 12, 5, 24, 6, 12, true},
      {"dst rows != src1 rows", 5, 12, 6, 24, 6, 12, false},
      {"src2 rows != src1 pairs", 5, 12, 5, 24, 7, 12, false},
      {"src2 colsb != dst colsb", 5, 12, 5, 24, 6, 16, false},
      {"dst colsb not a multiple of 4", 5, 13, 5, 24, 6, 13, false},
      {"src1 colsb not a multiple of 4", 5, 12, 5, 22, 5, 12, false},
  };
  for (const Shape& s : shapes) {
    SCOPED_TRACE(s.what);
    TileConfig c{};
    c.palette_id = 1;
    c.rows[4] = std::uint8_t(s.dst_rows);
    c.colsb[4] = std::uint16_t(s.dst_colsb);
    c.rows[0] = std::uint8_t(s.a_rows);
    c.colsb[0] = std::uint16_t(s.a_colsb);
    c.rows[2] = std::uint8_t(s.b_rows);
    c.colsb[2] = std::uint16_t(s.b_colsb);
    TileModel tm;
    ASSERT_EQ(tm.load_config(&c), ConfigError::none);
    if (s.ok)
      EXPECT_NO_THROW(tm.dpbf16ps_tiles(4, 0, 2));
    else
      EXPECT_THROW(tm.dpbf16ps_tiles(4, 0, 2), TileFault);
  }
  TileModel tm;
  const TileConfig c = full_config();
  ASSERT_EQ(tm.load_config(&c), ConfigError::none);
  EXPECT_THROW(tm.dpbf16ps_tiles(4, 4, 2), TileFault);  // destination used as a source
  EXPECT_THROW(tm.dpbf16ps_tiles(4, 2, 2), TileFault);  // the same source twice
}

TEST(AmxTileModel, LoadAndStoreMoveRowsOfColsbBytesAtTheStride) {
  TileConfig c{};
  c.palette_id = 1;
  c.rows[1] = 5;
  c.colsb[1] = 20;
  TileModel tm;
  ASSERT_EQ(tm.load_config(&c), ConfigError::none);
  const std::size_t stride = 100;
  std::vector<std::uint8_t> src(stride * 5), dst(stride * 6, 0xab);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint8_t(i * 7 + 1);
  tm.load<1>(src.data(), stride);
  tm.store<1>(dst.data(), stride);
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t b = 0; b < stride; ++b) {
      const bool inside = r < 5 && b < 20;
      ASSERT_EQ(dst[r * stride + b], inside ? src[r * stride + b] : 0xab) << r << "," << b;
    }
  tm.zero<1>();
  tm.store<1>(dst.data(), stride);
  for (std::size_t r = 0; r < 5; ++r)
    for (std::size_t b = 0; b < 20; ++b) ASSERT_EQ(dst[r * stride + b], 0) << r << "," << b;
}

TEST(AmxTileModel, StartRowRestartsTheFirstLoadThenResets) {
  TileConfig c = full_config();
  c.start_row = 3;
  TileModel tm;
  ASSERT_EQ(tm.load_config(&c), ConfigError::none);
  std::vector<std::uint8_t> src(kMaxRows * kMaxColsBytes, 0x5a), dst(kMaxRows * kMaxColsBytes, 0xff);
  tm.load<0>(src.data(), kMaxColsBytes);   // rows 3..15 only; LDTILECFG zeroed rows 0..2
  tm.store<0>(dst.data(), kMaxColsBytes);  // start_row is 0 again: all 16 rows
  for (int r = 0; r < kMaxRows; ++r)
    for (int b = 0; b < kMaxColsBytes; ++b) ASSERT_EQ(dst[std::size_t(r * kMaxColsBytes + b)], r < 3 ? 0 : 0x5a);
}

TEST(AmxTileModel, Dpbf16psComputesTheVnniProductExactlyOnIntegers) {
  // Small integers: every product and partial sum is an integer below 2^24, so the FP32 result is exact whatever
  // the pair order, and an FP64 triple loop is an independent oracle. Shapes M=5, N=3, K=6 pairs (12 k) probe the
  // row/pair indexing, and TILESTORED must write that M x N shape and nothing else.
  const int M = 5, N = 3, K = 6;
  TileConfig c{};
  c.palette_id = 1;
  c.rows[7] = M;
  c.colsb[7] = N * 4;
  c.rows[1] = M;
  c.colsb[1] = K * 4;
  c.rows[3] = K;
  c.colsb[3] = N * 4;
  TileModel tm;
  ASSERT_EQ(tm.load_config(&c), ConfigError::none);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(-9, 9);
  bf16_t a[M][2 * K], b[K][2 * N];  // a: row m, k = 2p+e at [m][2p+e]; b: pair-row p, column n, e at [p][2n+e]
  float c0[M][N];
  for (auto& row : a)
    for (auto& x : row) x = bf(float(small(rng)));
  for (auto& row : b)
    for (auto& x : row) x = bf(float(small(rng)));
  for (auto& row : c0)
    for (auto& x : row) x = float(small(rng) * 100);
  tm.load<1>(a, sizeof a[0]);
  tm.load<3>(b, sizeof b[0]);
  tm.load<7>(c0, sizeof c0[0]);
  tm.dpbf16ps<7, 1, 3>();
  float out[kMaxRows][kMaxRows];
  for (auto& row : out)
    for (auto& x : row) x = -1.0f;
  tm.store<7>(out, sizeof out[0]);  // writes M rows of N columns only
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = c0[m][n];
      for (int k = 0; k < 2 * K; ++k) want += double(bf16_to_float(a[m][k])) * bf16_to_float(b[k / 2][2 * n + k % 2]);
      ASSERT_EQ(double(out[m][n]), want) << m << "," << n;
    }
  for (int m = 0; m < kMaxRows; ++m)
    for (int n = 0; n < kMaxRows; ++n)
      if (m >= M || n >= N) {
        ASSERT_EQ(out[m][n], -1.0f) << "store wrote outside the tile shape";
      }
}

TEST(AmxTileModel, Dpbf16psReadsSubnormalInputsAsZeroAndFlushesSubnormalResults) {
  TileModel tm;
  const TileConfig c = full_config();
  ASSERT_EQ(tm.load_config(&c), ConfigError::none);
  alignas(64) bf16_t a[kMaxRows][32] = {}, b[kMaxRows][32] = {};
  alignas(64) float out[kMaxRows][kMaxRows];
  // Row 0 x column 0: a BF16 subnormal (2^-133) times 2^100 would be 2^-33; DAZ makes it 0.
  a[0][0] = 0x0001;
  b[0][0] = bf(std::ldexp(1.0f, 100));
  // Row 1 x column 1: 2^-70 * 2^-70 = 2^-140 is an FP32 subnormal; FTZ makes it 0.
  a[1][1] = bf(std::ldexp(1.0f, -70));
  b[0][3] = bf(std::ldexp(1.0f, -70));
  // Row 2 x column 2: a normal product survives, 2^-60 * 2^-60 = 2^-120.
  a[2][2] = bf(std::ldexp(1.0f, -60));
  b[1][4] = bf(std::ldexp(1.0f, -60));
  tm.load<0>(a, sizeof a[0]);
  tm.load<2>(b, sizeof b[0]);
  tm.zero<4>();
  tm.dpbf16ps<4, 0, 2>();
  tm.store<4>(out, sizeof out[0]);
  EXPECT_EQ(out[0][0], 0.0f);
  EXPECT_EQ(out[1][1], 0.0f);
  EXPECT_EQ(out[2][2], std::ldexp(1.0f, -120));
}
