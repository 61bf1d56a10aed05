// CRT building blocks: the moduli and CRT reconstruction, the INT8 micro-kernels (every engine equal to the
// scalar reference bit for bit, extremes included), and the AMX-INT8 instructions of the tile model.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "bf16x/bf16x.h"
#include "crt/crt_ops.hpp"
#include "crt/moduli.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "engine/amx/kernel_amx_bf16_32x32.hpp"
#include "engine/amx/kernel_amx_int8_32x32.hpp"
#include "engine/amx/tile_model.hpp"
#include "engine/records.hpp"

namespace bf16x::test {
namespace {

using i128 = __int128;

TEST(CrtModuli, PairwiseCoprimeAndBounded) {
  for (int s = 0; s < crt::kMaxModuli; ++s) {
    EXPECT_LE(crt::kModuli[s], 256);
    for (int t = s + 1; t < crt::kMaxModuli; ++t) EXPECT_EQ(std::gcd(crt::kModuli[s], crt::kModuli[t]), 1);
  }
  for (int n = 1; n <= crt::kMaxModuli; ++n) {
    const crt::CrtPlan& p = crt::crt_plan(n);
    EXPECT_NEAR(p.bits, std::floor(crt::log2_modulus_product(n)) + 1, 0.0) << n;
    EXPECT_LE(p.L, crt::log2_modulus_product(n) - 2);
  }
}

// Random X with |X| <= P/4 (P/4 capped at 2^126), its symmetric residues, and the reconstruction within the
// bound of moduli.hpp (2^(g-33) + u |X|). The residues reach reconstruct_row as the driver hands them over: int32
// sums with multiples of p_t added, reduced by residue_rows into byte planes, whose bytes are checked against the
// residues first.
TEST(CrtModuli, ReconstructionOfRandomIntegers) {
  std::mt19937_64 g(3);
  for (int n = 1; n <= crt::kMaxModuli; ++n) {
    const crt::CrtPlan& p = crt::crt_plan(n);
    const int xbits = std::min(p.L, 126);
    constexpr int cols = 64;
    std::vector<std::int32_t> acc(std::size_t(n) * cols);
    std::vector<double> s1(cols), s2(cols), out(cols);
    std::vector<i128> x(cols);
    for (int j = 0; j < cols; ++j) {
      const i128 hi = i128(g() >> 1) << 63 | i128(g() >> 1);
      const int b = j < 4 ? xbits : int(g() % (xbits + 1));  // extremes first
      i128 v = b >= 126 ? hi : hi & ((i128(1) << b) - 1);
      if (j == 0) v = (i128(1) << xbits);
      if (j == 1) v = -(i128(1) << xbits);
      if (j == 2) v = 0;
      if (j > 2 && (g() & 1)) v = -v;
      x[j] = v;
      for (int t = 0; t < n; ++t) {
        const int m = crt::kModuli[t];
        int r = int(((v % m) + m) % m);
        if (r > (m - 1) / 2) r -= m;
        // Stored with an arbitrary multiple of m added, as int32 sums are before reduction.
        acc[std::size_t(t) * cols + j] = r + m * int(std::int32_t(g() % 2000001) - 1000000);
      }
    }
    std::vector<std::int8_t> res(acc.size());
    for (int t = 0; t < n; ++t)
      crt::residue_rows(acc.data() + t * cols, cols, 1, cols, p, t, res.data() + t * cols, cols);
    for (int t = 0; t < n; ++t)
      for (int j = 0; j < cols; ++j) {
        const int m = crt::kModuli[t];
        int r = int(((x[j] % m) + m) % m);
        if (r > (m - 1) / 2) r -= m;
        ASSERT_EQ(res[std::size_t(t) * cols + j], r) << "n=" << n << " t=" << t << " j=" << j;
      }
    crt::reconstruct_row(res.data(), cols, cols, p, s1.data(), s2.data(), out.data());
    for (int j = 0; j < cols; ++j) {
      const double xv = double(x[j]);
      EXPECT_LE(std::fabs(out[j] - xv), std::ldexp(1.0, p.g - 33) + std::ldexp(std::fabs(xv), -52))
          << "n=" << n << " j=" << j;
      if (p.bits <= 53) {
        EXPECT_EQ(out[j], xv);
      }
    }
    // The exact way (the guard's second level): |out - X| <= u |out| + 2 u^2 |X| + 2^(g - 92), against the exact X
    // (xv - x, formed in 128 bits, is exact). Integers of 53 bits or fewer come out exact, and on this draw so does
    // every X: the rounding of X itself (double(__int128) rounds to nearest).
    std::vector<double> exact(cols);
    crt::reconstruct_row_exact(res.data(), cols, cols, p, exact.data());
    for (int j = 0; j < cols; ++j) {
      const double err = std::fabs(double(i128(exact[j]) - x[j]));
      EXPECT_LE(err, std::ldexp(std::fabs(exact[j]), -53) + std::ldexp(std::fabs(double(x[j])), -105) +
                         std::ldexp(1.0, p.g - 92))
          << "n=" << n << " j=" << j;
      EXPECT_EQ(exact[j], double(x[j])) << "n=" << n << " j=" << j;
    }
  }
}

// The exact way's chunks (moduli.hpp): g <= 120 for every moduli count, so that three chunks of 40 bits cover every
// bit of q_t and P below 2^g.
TEST(CrtModuli, ExactChunksCoverTheLowBits) {
  for (int n = 1; n <= crt::kMaxModuli; ++n) EXPECT_LE(crt::crt_plan(n).g, 120) << n;
}

TEST(CrtModuli, ResiduesOfLargeIntegers) {
  std::mt19937_64 g(4);
  std::vector<double> y(256);
  std::vector<std::int8_t> r(256);
  for (int t = 0; t < crt::kMaxModuli; ++t) {
    const crt::CrtPlan& p = crt::crt_plan(crt::kMaxModuli);
    for (int bits : {58, 100}) {  // |y| < 2^bits
      for (double& v : y) v = std::trunc(std::ldexp(double(std::int64_t(g())) / 9.3e18, int(g() % bits)));
      crt::residues(y.data(), 256, p.p[t], p.invp[t], p.hi[t], p.lo[t], bits, r.data());
      for (int l = 0; l < 256; ++l) {
        const double want = std::fmod(y[l], p.p[t]);  // exact
        double w = want > p.hi[t] ? want - p.p[t] : (want < p.lo[t] ? want + p.p[t] : want);
        ASSERT_EQ(double(r[l]), w) << y[l] << " mod " << p.p[t];
      }
    }
  }
}

// Packed panels with random bytes, the extremes -128 and 127 in whole panels, and random C to accumulate onto.
struct Panels {
  std::vector<std::int8_t> a, b;
  std::vector<std::int32_t> c;
  int kc;
  Panels(int kc_, std::uint64_t seed, int kind) : kc(kc_) {
    std::mt19937_64 g(seed);
    a.assign(engine::int8::a_panel_bytes(kc), 0);
    b.assign(engine::int8::b_panel_bytes(kc), 0);
    auto pick = [&](bool isa) -> std::int8_t {
      if (kind == 1) return -128;
      if (kind == 2) return isa ? -128 : 127;
      return std::int8_t(g());
    };
    for (int r = 0; r < engine::int8::kTile; ++r)
      for (int l = 0; l < kc; ++l) a[engine::int8::a_index(r, l)] = pick(true);
    for (int l = 0; l < kc; ++l)
      for (int cc = 0; cc < engine::int8::kTile; ++cc) b[engine::int8::b_index(l, cc)] = pick(false);
    auto* sums = reinterpret_cast<std::int32_t*>(a.data() + std::size_t(kc) * engine::int8::kTile);
    for (int r = 0; r < engine::int8::kTile; ++r) {
      sums[r] = 0;
      for (int l = 0; l < kc; ++l) sums[r] += a[engine::int8::a_index(r, l)];
    }
    c.resize(engine::int8::kTile * 40);  // ldc 40
    for (auto& x : c) x = std::int32_t(g() % 2001) - 1000;
  }
};

TEST(CrtKernel, EveryEngineEqualsReference) {
  int tested = 0;
  // Every engine record with an INT8 side, against the scalar oracle.
  for (const engine::Record& r : engine::records()) {
    if (r.id == BF16X_ENGINE_REFERENCE || !engine::int8_usable(r.id)) continue;
    ++tested;
    const engine::int8::Engine* e = &r.int8;
    for (int kc : {64, 128, 320, 512, 1024, 2048})
      for (int kind : {0, 1, 2}) {
        Panels p(kc, std::uint64_t(kc * 7 + kind), kind);
        std::vector<std::int32_t> want = p.c, got = p.c;
        engine::int8::kernel_reference(p.a.data(), p.b.data(), kc, want.data(), 40);
        e->kernel(p.a.data(), p.b.data(), kc, got.data(), 40);
        EXPECT_EQ(got, want) << r.name << " kc=" << kc << " kind=" << kind;
        if (kind == 1) {
          EXPECT_EQ(want[0] - p.c[0], kc * 16384);  // exact, no saturation
        }
      }
  }
  EXPECT_GE(tested, 1);  // the tile model runs anywhere
}

// The part kernels (engine/int8_kernel.hpp): the live rows x cols x depth of a tile, with any bytes in the lines past
// the extent and in B past depth, and zero bytes in the live A rows from depth to kc, equal the whole-tile
// reference's live entries; c outside the extent is free (not compared). Every record has one.
TEST(CrtKernel, PartKernelsEqualWholeTile) {
  int tested = 0;
  for (const engine::Record& r : engine::records()) {
    if (!engine::int8_usable(r.id)) continue;
    ASSERT_NE(r.int8.part, nullptr) << r.name;
    ++tested;
    std::mt19937_64 g(std::uint64_t(r.id) * 31 + 7);
    for (int kc : {64, 128, 320}) {
      std::vector<int> depths = {4, 8, 16, 60, 64, kc - 4, kc};
      for (int depth : depths)
        for (int rows : {1, 2, 7, 8, 9, 16, 17, 31, 32})
          for (int cols : {1, 3, 8, 15, 16, 17, 32}) {
            if (depth > kc || (depth % 4) != 0) continue;
            Panels p(kc, g(), 0);
            // Zero in the live A rows past depth, garbage in the dead lines (their row sums included) and in B there.
            const int kend = kc;
            for (int i = 0; i < engine::int8::kTile; ++i)
              for (int l = 0; l < kc; ++l)
                if (i < rows && l >= depth && l < kend) p.a[engine::int8::a_index(i, l)] = 0;
            auto* sums = reinterpret_cast<std::int32_t*>(p.a.data() + std::size_t(kc) * engine::int8::kTile);
            for (int i = 0; i < engine::int8::kTile; ++i) {
              sums[i] = 0;
              for (int l = 0; l < kc; ++l) sums[i] += p.a[engine::int8::a_index(i, l)];
            }
            // The whole-tile reference on zero-padded copies (the dead lines and the k past depth zero).
            std::vector<std::int8_t> za = p.a, zb = p.b;
            for (int i = 0; i < engine::int8::kTile; ++i)
              for (int l = 0; l < kc; ++l)
                if (i >= rows || l >= depth) za[engine::int8::a_index(i, l)] = 0;
            for (int l = 0; l < kc; ++l)
              for (int j = 0; j < engine::int8::kTile; ++j)
                if (j >= cols || l >= depth) zb[engine::int8::b_index(l, j)] = 0;
            std::vector<std::int32_t> want = p.c, got = p.c;
            engine::int8::kernel_reference(za.data(), zb.data(), kc, want.data(), 40);
            r.int8.part(p.a.data(), p.b.data(), kc, depth, got.data(), 40, rows, cols);
            for (int i = 0; i < rows; ++i)
              for (int j = 0; j < cols; ++j)
                ASSERT_EQ(got[std::size_t(i) * 40 + j], want[std::size_t(i) * 40 + j])
                    << r.name << " kc=" << kc << " depth=" << depth << " rows=" << rows << " cols=" << cols << " at "
                    << i << "," << j;
          }
    }
    if (r.int8.thread_end) r.int8.thread_end();
  }
  EXPECT_GE(tested, 2);  // the reference and the tile model run anywhere
}

// The reference itself against a plain triple loop over unpacked values.
TEST(CrtKernel, ReferenceIsTheProduct) {
  Panels p(192, 99, 0);
  std::vector<std::int32_t> got = p.c;
  engine::int8::kernel_reference(p.a.data(), p.b.data(), 192, got.data(), 40);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      std::int64_t s = p.c[i * 40 + j];
      for (int l = 0; l < 192; ++l)
        s += std::int64_t(p.a[engine::int8::a_index(i, l)]) * p.b[engine::int8::b_index(l, j)];
      ASSERT_EQ(got[i * 40 + j], s);
    }
}

// TDPBSSD / TDPBSUD / TDPBUSD / TDPBUUD on the tile model: SDM semantics on a 16 x 16 (x 64 bytes) shape and a
// smaller one, the zeroing of the rest of the destination, and the #UD shape rules.
TEST(CrtTileModel, Int8DotProducts) {
  using engine::amx::TileConfig;
  using engine::amx::TileModel;
  std::mt19937_64 g(5);
  for (int variant = 0; variant < 4; ++variant)
    for (int shape = 0; shape < 2; ++shape) {
      const int M = shape ? 5 : 16, K = shape ? 3 : 16, N = shape ? 7 : 16;  // K, N in dwords
      TileConfig cfg;
      cfg.palette_id = 1;
      cfg.rows[0] = std::uint8_t(M), cfg.colsb[0] = std::uint16_t(4 * N);  // dst
      cfg.rows[1] = std::uint8_t(M), cfg.colsb[1] = std::uint16_t(4 * K);  // src1
      cfg.rows[2] = std::uint8_t(K), cfg.colsb[2] = std::uint16_t(4 * N);  // src2
      TileModel t;
      ASSERT_EQ(t.load_config(&cfg), engine::amx::ConfigError::none);
      std::uint8_t a[16][64], b[16][64];
      std::int32_t c[16][16], out[16][16];
      for (auto& r : a)
        for (auto& x : r) x = std::uint8_t(g());
      for (auto& r : b)
        for (auto& x : r) x = std::uint8_t(g());
      for (auto& r : c)
        for (auto& x : r) x = std::int32_t(g());
      t.load<0>(c, 64);
      t.load<1>(a, 64);
      t.load<2>(b, 64);
      const bool s1 = variant < 2, s2 = variant % 2 == 0;
      if (variant == 0) t.dpbssd<0, 1, 2>();
      if (variant == 1) t.dpb<0, 1, 2, true, false>();   // TDPBSUD
      if (variant == 2) t.dpb<0, 1, 2, false, true>();   // TDPBUSD
      if (variant == 3) t.dpb<0, 1, 2, false, false>();  // TDPBUUD
      std::memset(out, 0x55, sizeof out);
      t.store<0>(out, 64);
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          std::uint32_t s = std::uint32_t(c[m][n]);
          for (int k = 0; k < K; ++k)
            for (int i = 0; i < 4; ++i) {
              const std::int64_t x = s1 ? std::int8_t(a[m][4 * k + i]) : a[m][4 * k + i];
              const std::int64_t y = s2 ? std::int8_t(b[k][4 * n + i]) : b[k][4 * n + i];
              s += std::uint32_t(x * y);
            }
          ASSERT_EQ(std::uint32_t(out[m][n]), s) << variant << " " << m << "," << n;
        }
      // Shape faults: src2 rows must equal src1's dwords per row; three distinct tiles.
      cfg.rows[2] = std::uint8_t(K - 1);
      TileModel bad;
      ASSERT_EQ(bad.load_config(&cfg), engine::amx::ConfigError::none);
      EXPECT_THROW(bad.dp_int8_tiles(0, 1, 2, true, true), engine::amx::TileFault);
      EXPECT_THROW(t.dp_int8_tiles(0, 0, 2, true, true), engine::amx::TileFault);
    }
}

// The AMX-INT8 kernel on the tile model against the reference (the hardware kernel shares the source), in every
// schedule (BF16X_AMX_KERNEL); the prefetch schedule prefetches the next chunk's 64 lines while a chunk runs.
TEST(CrtTileModel, KernelOnModelEqualsReference) {
  using engine::amx::Schedule;
  for (Schedule s : {Schedule::plain, Schedule::interleaved, Schedule::prefetch})
    for (int kc : {64, 320}) {
      Panels p(kc, 11 + kc, 0);
      std::vector<std::int32_t> want = p.c, got = p.c;
      engine::int8::kernel_reference(p.a.data(), p.b.data(), kc, want.data(), 40);
      engine::amx::TileModel t;
      constexpr engine::amx::TileConfig cfg = engine::amx::kernel_amx_bf16_32x32_config();
      ASSERT_EQ(t.load_config(&cfg), engine::amx::ConfigError::none);
      engine::int8::kernel_amx_int8_32x32(t, p.a.data(), p.b.data(), kc, got.data(), 40, s);
      EXPECT_EQ(got, want) << kc << " " << engine::amx::schedule_name(s);
      EXPECT_EQ(t.prefetches(), s == Schedule::prefetch ? std::uint64_t(64 * (kc / 64 - 1)) : 0u);
    }
}

}  // namespace
}  // namespace bf16x::test
