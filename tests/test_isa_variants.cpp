// The per-level loop variants (driver/block_loops.hpp, pack/scan_loops.hpp, crt/crt_loops.hpp,
// policy/fill_loops.hpp, level3/substitution_loops.hpp) against their generic x86-64 build, bit for bit, on random and
// special values. A variant the CPU cannot run is skipped, so each level is checked on the CPUs that have it (the qemu
// stage of scripts/test runs the avx2 one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/features.hpp"
#include "crt/crt_loops.hpp"
#include "driver/block_loops.hpp"
#include "engine/int8_kernel.hpp"
#include "level3/substitution_loops.hpp"
#include "pack/line_scan.hpp"
#include "pack/scan_loops.hpp"
#include "policy/error_model.hpp"
#include "policy/fill_loops.hpp"

namespace bf16x {
namespace {

// 64-byte-aligned storage, as the drivers' workspace is (streaming stores take whole lines only there).
template <typename T>
struct Align64 {
  using value_type = T;
  Align64() = default;
  template <typename U>
  Align64(const Align64<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const Align64&) const { return true; }
  bool operator!=(const Align64&) const { return false; }
};

struct Level {
  const char* name;
  bool runs;
  const driver::BlockLoops& block;
  const pack::ScanLoops& scan;
  const crt::CrtLoops& crt;
  const policy::FillLoops& fill;
  const level3::SubstitutionLoops& substitution;
};

std::vector<Level> vector_levels() {
  return {{"avx2", cpu::has_avx2_fma(), driver::kBlockLoopsAvx2, pack::kScanLoopsAvx2, crt::kCrtLoopsAvx2,
           policy::kFillLoopsAvx2, level3::kSubstitutionLoopsAvx2},
          {"avx512", cpu::has_avx512(), driver::kBlockLoopsAvx512, pack::kScanLoopsAvx512, crt::kCrtLoopsAvx512,
           policy::kFillLoopsAvx512, level3::kSubstitutionLoopsAvx512},
          // The CRT loops' VNNI build (the residues' digit way); the other tables have no VNNI build.
          {"avx512vnni", cpu::has_avx512vnni(), driver::kBlockLoopsAvx512, pack::kScanLoopsAvx512,
           crt::kCrtLoopsAvx512Vnni, policy::kFillLoopsAvx512, level3::kSubstitutionLoopsAvx512}};
}

// Random values over a wide exponent range, with signed zeros, subnormals, infinities and NaNs mixed in.
template <typename T>
std::vector<T> values(std::size_t n, unsigned seed, bool special = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> m(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-60, 60), pick(0, 31);
  using L = std::numeric_limits<T>;
  const T odd[] = {T(0), -T(0), L::denorm_min(), -L::min(), L::max(), L::infinity(), -L::infinity(), L::quiet_NaN()};
  std::vector<T> v(n);
  for (auto& x : v) {
    const int p = pick(rng);
    x = special && p < 8 ? odd[p] : T(std::ldexp(m(rng), e(rng)));
  }
  return v;
}

// Equal bit patterns; a NaN matches any NaN (IEEE 754 leaves the sign and payload of a NaN result open, and a
// vectorised sum may take them from the other operand).
template <typename T>
void expect_same_bits(const std::vector<T>& a, const std::vector<T>& b, const char* what, const char* level) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0 && !(std::isnan(a[i]) && std::isnan(b[i]))) {
      ADD_FAILURE() << what << " differs on " << level << " at " << i << ": " << a[i] << " (generic) vs " << b[i];
      return;
    }
}

TEST(IsaVariants, LevelIsConsistentWithTheChecks) {
  const auto level = cpu::vector_level();
  EXPECT_EQ(level == cpu::Level::avx512, cpu::has_avx512());
  EXPECT_EQ(level != cpu::Level::generic, cpu::has_avx2_fma());
  std::printf("[ isa      ] vector level here: %s\n", level == cpu::Level::avx512 ? "avx512"
                                                      : level == cpu::Level::avx2 ? "avx2"
                                                                                  : "generic");
}

TEST(IsaVariants, BlockLoopsEqualGeneric) {
  const auto& g = driver::kBlockLoopsGeneric;
  constexpr int kLd = 40;
  for (const Level& lv : vector_levels()) {
    if (!lv.runs) continue;
    const auto& v = lv.block;
    const auto part = values<float>(32 * 32, 1);
    auto d0 = values<float>(32 * kLd, 2), d1 = d0;
    g.add_tile_fp32(d0.data(), kLd, part.data());
    v.add_tile_fp32(d1.data(), kLd, part.data());
    expect_same_bits(d0, d1, "add_tile_fp32", lv.name);

    // One group, fp64x6's 6 and fp64x21's 21 (one per product, the default), into a fresh tile and onto one.
    std::vector<std::vector<float>> groups;
    std::vector<const float*> src;
    for (int i = 0; i < 21; ++i) groups.push_back(values<float>(32 * 32, 10 + i, i != 2));
    for (const auto& x : groups) src.push_back(x.data());
    for (int n : {1, 6, 21})
      for (bool first : {true, false}) {
        auto e0 = values<double>(32 * kLd, 3), e1 = e0;
        g.add_groups_fp64(e0.data(), kLd, src.data(), n, first);
        v.add_groups_fp64(e1.data(), kLd, src.data(), n, first);
        expect_same_bits(e0, e1, "add_groups_fp64", lv.name);
      }

    const auto s = values<double>(64, 4, false);
    for (double alpha : {1.0, -0.75, 0.6180339887498949})
      for (double beta : {0.0, 1.0, -0.3}) {
        const auto af = values<float>(64 * kLd, 5);
        auto c0 = values<float>(64, 6), c1 = c0;
        g.write_column_fp32(c0.data(), af.data(), kLd, 61, alpha, beta, s.data());
        v.write_column_fp32(c1.data(), af.data(), kLd, 61, alpha, beta, s.data());
        expect_same_bits(c0, c1, "write_column_fp32", lv.name);
        const auto ad = values<double>(64 * kLd, 7);
        auto x0 = values<double>(64, 8), x1 = x0;
        g.write_column_fp64(x0.data(), ad.data(), kLd, 61, alpha, beta, s.data());
        v.write_column_fp64(x1.data(), ad.data(), kLd, 61, alpha, beta, s.data());
        expect_same_bits(x0, x1, "write_column_fp64", lv.name);
      }
  }
}

TEST(IsaVariants, ScanLoopsEqualGeneric) {
  const auto& g = pack::kScanLoopsGeneric;
  for (const Level& lv : vector_levels()) {
    if (!lv.runs) continue;
    for (int len : {0, 1, 7, 64, 1000}) {
      const auto f = values<float>(std::size_t(len) + 1, 20 + len);
      const auto d = values<double>(std::size_t(len) + 1, 30 + len);
      EXPECT_EQ(g.line_max_fp32(f.data(), len), lv.scan.line_max_fp32(f.data(), len)) << lv.name;
      EXPECT_EQ(g.line_max_fp64(d.data(), len), lv.scan.line_max_fp64(d.data(), len)) << lv.name;
      std::vector<std::uint32_t> m0(std::size_t(len) + 1, 5), m1 = m0;
      std::vector<std::uint64_t> n0(std::size_t(len) + 1, 5), n1 = n0;
      g.lane_max_fp32(f.data(), len, m0.data());
      lv.scan.lane_max_fp32(f.data(), len, m1.data());
      g.lane_max_fp64(d.data(), len, n0.data());
      lv.scan.lane_max_fp64(d.data(), len, n1.data());
      EXPECT_EQ(m0, m1) << lv.name;
      EXPECT_EQ(n0, n1) << lv.name;
    }
  }
}

// Entries for the extremes loops, their special values dense: kind 0 random with values()'s odd ones (zeros, NaN,
// Inf, subnormals), 1 only zeros of both signs (no nonzero entry: 0), 2 zeros, subnormals and the least normal of
// both signs, 3 random finite.
template <typename T>
std::vector<T> extremes_values(std::size_t n, unsigned seed, int kind) {
  if (kind == 0 || kind == 3) return values<T>(n, seed, kind == 0);
  using L = std::numeric_limits<T>;
  const T pool[] = {T(0), -T(0), L::denorm_min(), -L::denorm_min(), 3 * L::denorm_min(), -L::min() / 4, L::min()};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, kind == 1 ? 1 : 6);
  std::vector<T> v(n);
  for (auto& x : v) x = pool[pick(rng)];
  return v;
}

// The largest and smallest nonzero patterns (pack/line_scan.hpp) of every length 0..70: one line at odd starts (no
// alignment to lean on), and as many lines side by side, walked column by column at an odd stride as the scan's
// walk across memory takes them.
template <typename T>
void expect_same_extremes(const pack::ScanLoops& g, const Level& lv) {
  using U = pack::Bits<T>;
  const auto line = [](const pack::ScanLoops& s) {
    if constexpr (sizeof(T) == 4)
      return s.line_extremes_fp32;
    else
      return s.line_extremes_fp64;
  };
  const auto lane = [](const pack::ScanLoops& s) {
    if constexpr (sizeof(T) == 4)
      return s.lane_extremes_fp32;
    else
      return s.lane_extremes_fp64;
  };
  constexpr std::int64_t kColumns = 5;
  for (int kind = 0; kind < 4; ++kind)
    for (std::int64_t len = 0; len <= 70; ++len) {
      const auto x = extremes_values<T>(std::size_t(len) + 3, unsigned(100 * kind + len), kind);
      for (int off : {0, 1, 3}) {
        U h0 = 7, l0 = 7, h1 = 9, l1 = 9;
        line(g)(x.data() + off, len, &h0, &l0);
        line(lv.scan)(x.data() + off, len, &h1, &l1);
        EXPECT_EQ(h0, h1) << lv.name << " line, kind " << kind << ", length " << len << ", offset " << off;
        EXPECT_EQ(l0, l1) << lv.name << " line, kind " << kind << ", length " << len << ", offset " << off;
      }
      const std::int64_t ld = len / 2 * 2 + 3;
      const auto m = extremes_values<T>(std::size_t(ld * kColumns + 1), unsigned(1000 + 100 * kind + len), kind);
      std::vector<U> hi0(std::size_t(len), 0), lo0(std::size_t(len), 0), hi1 = hi0, lo1 = lo0;
      for (std::int64_t l = 0; l < kColumns; ++l) {
        lane(g)(m.data() + 1 + l * ld, len, hi0.data(), lo0.data());
        lane(lv.scan)(m.data() + 1 + l * ld, len, hi1.data(), lo1.data());
      }
      EXPECT_EQ(hi0, hi1) << lv.name << " lanes, kind " << kind << ", length " << len;
      EXPECT_EQ(lo0, lo1) << lv.name << " lanes, kind " << kind << ", length " << len;
    }
}

TEST(IsaVariants, ScanExtremesEqualGeneric) {
  for (const Level& lv : vector_levels()) {
    if (!lv.runs) continue;
    expect_same_extremes<float>(pack::kScanLoopsGeneric, lv);
    expect_same_extremes<double>(pack::kScanLoopsGeneric, lv);
  }
}

// The fill pass's counts (policy/fill_loops.hpp): the same counts as the generic loops, which add one count per
// entry. For line scales E from the smallest of the fast form to the largest FP64 one, on values of every range
// below 2^E (zeros, subnormals and entries far below the scale among them: bin 0), at every length around the
// vector widths, blocks of 32 to 256 lines.
TEST(IsaVariants, FillLoopsEqualGeneric) {
  const auto& g = policy::kFillLoopsGeneric;
  constexpr int kBins = policy::FillEnvelope::kBins;
  const int scales[] = {-894, -60, 0, 1, 60, 1024};
  auto offset = [](int e) { return 1 + 4 * (policy::FillEnvelope::kBinades - 1023 - e); };
  auto below = [](auto x, int e) {  // |x| < 2^e, as in a line of scale e
    using T = decltype(x);
    const T top = std::min(T(std::ldexp(0.75, e)), std::numeric_limits<T>::max());
    return std::fabs(double(x)) < std::ldexp(1.0, e) ? x : std::signbit(x) ? -top : top;
  };
  for (const Level& lv : vector_levels()) {
    if (!lv.runs) continue;
    for (int len : {0, 1, 3, 7, 8, 15, 16, 17, 33, 100})
      for (int e : scales) {
        auto f = values<float>(std::size_t(len) + 1, 40 + len);
        auto d = values<double>(std::size_t(len) + 1, 50 + len);
        for (auto& x : f) x = below(x, e);
        for (auto& x : d) x = below(x, e);
        std::vector<std::uint32_t> h0(4 * kBins, 7), h1 = h0, k0 = h0, k1 = h0;
        g.count_along_fp32(f.data(), len, offset(e), kBins, h0.data());
        lv.fill.count_along_fp32(f.data(), len, offset(e), kBins, h1.data());
        g.count_along_fp64(d.data(), len, offset(e), kBins, k0.data());
        lv.fill.count_along_fp64(d.data(), len, offset(e), kBins, k1.data());
        EXPECT_EQ(h0, h1) << lv.name << " along fp32, len " << len << ", scale " << e;
        EXPECT_EQ(k0, k1) << lv.name << " along fp64, len " << len << ", scale " << e;
        std::uint64_t total = 0;
        for (auto n : k0) total += n - 7;
        EXPECT_EQ(total, std::uint64_t(len));
      }
    for (int shift : {5, 6, 8})
      for (int nr : {1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 63, 64, 200, 256}) {
        if (nr > (1 << shift)) continue;
        const std::int64_t sl = nr + 9;  // columns of the block at a stride past its lines
        for (int len : {1, 5, 19}) {
          auto f = values<float>(std::size_t(sl * len), 60 + nr + len);
          auto d = values<double>(std::size_t(sl * len), 70 + nr + len);
          std::vector<int> c(static_cast<std::size_t>(nr));
          for (int r = 0; r < nr; ++r) {  // line r of scale scales[(r + len) % 6]
            const int e = scales[(r + len) % 6];
            c[std::size_t(r)] = offset(e);
            for (int l = 0; l < len; ++l) {
              f[std::size_t(r + l * sl)] = below(f[std::size_t(r + l * sl)], e);
              d[std::size_t(r + l * sl)] = below(d[std::size_t(r + l * sl)], e);
            }
          }
          std::vector<std::uint32_t> h0(std::size_t(kBins) << shift, 3), h1 = h0, k0 = h0, k1 = h0;
          g.count_across_fp32(f.data(), sl, nr, len, c.data(), shift, h0.data());
          lv.fill.count_across_fp32(f.data(), sl, nr, len, c.data(), shift, h1.data());
          g.count_across_fp64(d.data(), sl, nr, len, c.data(), shift, k0.data());
          lv.fill.count_across_fp64(d.data(), sl, nr, len, c.data(), shift, k1.data());
          EXPECT_EQ(h0, h1) << lv.name << " across fp32, " << nr << " lines of " << (1 << shift) << ", len " << len;
          EXPECT_EQ(k0, k1) << lv.name << " across fp64, " << nr << " lines of " << (1 << shift) << ", len " << len;
          std::uint64_t total = 0;
          for (auto n : k0) total += n - 3;
          EXPECT_EQ(total, std::uint64_t(nr) * std::uint64_t(len));
        }
      }
  }
}

// The tiny calls' fill-bound products (policy/direct_fill.cpp): the least positive sum of every level against the
// generic loop and against the sums formed one by one, with zero rows, zero columns past n, sums that cancel to
// zero, and m, n, k in whole and partial strips of eight.
TEST(IsaVariants, LeastSumEqualsGeneric) {
  std::mt19937_64 rng(81);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const auto& [m, n, k] : {std::tuple{1, 1, 1}, {3, 7, 5}, {8, 8, 8}, {5, 13, 17}, {16, 9, 64}, {2, 24, 3}}) {
    const std::int64_t nn = (n + 7) / 8 * 8;
    std::vector<double> va(std::size_t(m * k)), vb(std::size_t(k * nn), 0.0);
    for (auto& x : va) x = u(rng) < 0.3 ? 0.0 : std::ldexp(u(rng), int(u(rng) * 40) - 20);
    for (int l = 0; l < k; ++l)
      for (int j = 0; j < n; ++j)
        vb[std::size_t(l * nn + j)] = u(rng) < 0.3 ? 0.0 : std::ldexp(u(rng), -int(u(rng) * 30));
    for (int l = 0; l < k; ++l) va[std::size_t(l)] = 0.0;  // row 0: every sum zero
    double want = std::numeric_limits<double>::infinity();
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int l = 0; l < k; ++l) s += va[std::size_t(i * k + l)] * vb[std::size_t(l * nn + j)];
        if (s > 0) want = std::min(want, s);
      }
    EXPECT_EQ(policy::kFillLoopsGeneric.least_sum(va.data(), vb.data(), m, n, nn, k), want);
    for (const Level& lv : vector_levels()) {
      if (!lv.runs) continue;
      EXPECT_EQ(lv.fill.least_sum(va.data(), vb.data(), m, n, nn, k), want)
          << lv.name << ", " << m << " x " << n << " x " << k;
    }
  }
}

TEST(IsaVariants, CrtLoopsEqualGeneric) {
  const auto& g = crt::kCrtLoopsGeneric;
  for (const Level& lv : vector_levels()) {
    if (!lv.runs) continue;
    const auto& v = lv.crt;
    constexpr int kLen = 77;
    auto xf = values<float>(kLen, 40, false);
    auto xd = values<double>(kLen, 41, false);
    for (int l = 0; l < kLen; l += 9) xf[std::size_t(l)] = 0, xd[std::size_t(l)] = l % 2 ? -0.0 : 0.0;  // D(0) = 0
    using crt::Scaled;
    for (Scaled kind : {Scaled::trunc, Scaled::digits, Scaled::guard}) {
      // (the guard's digits of lines scaled below 1, as its loads scale them: 2^-e)
      const double f1 = kind == Scaled::guard ? 0x1p-2 : 0x1p20, f1d = kind == Scaled::guard ? 0x1p-2 : 0x1p40;
      std::vector<double> o0(kLen), o1(kLen);
      g.load_scaled_fp32(xf.data(), kLen, f1, 0x1p-3, kind, o0.data());
      v.load_scaled_fp32(xf.data(), kLen, f1, 0x1p-3, kind, o1.data());
      expect_same_bits(o0, o1, "load_scaled_fp32", lv.name);
      g.load_scaled_fp64(xd.data(), kLen, f1d, 0x1p-3, kind, o0.data());
      v.load_scaled_fp64(xd.data(), kLen, f1d, 0x1p-3, kind, o1.data());
      expect_same_bits(o0, o1, "load_scaled_fp64", lv.name);
      for (int l = 0; l < kLen && kind == Scaled::guard; ++l) {  // the guard's digit by its definition
        const double x = std::fabs(xd[std::size_t(l)]) * f1d * 0x1p-3;
        EXPECT_EQ(o0[std::size_t(l)], x == 0 ? 0.0 : std::max(1.0, std::ceil(x * 127))) << l;
      }
    }
    // Lines across memory into the rows x kcp block: whole and partial groups of 8 rows and of 8 lines, and more rows
    // than a panel's 32 (the A panels loaded together, crt_driver.cpp pack_a_lines).
    constexpr int kLd = 77, kKcp = 32, kCols = 2, kRows = 72;
    auto af = values<float>(kLd * kCols * 16, 43, false);
    auto ad = values<double>(kLd * kCols * 16, 44, false);
    for (std::size_t e = 0; e < ad.size(); e += 7) af[e] = 0, ad[e] = 0;
    const auto g1 = values<double>(kRows, 45, false), g2 = values<double>(kRows, 46, false);
    for (Scaled kind : {Scaled::trunc, Scaled::digits, Scaled::guard})
      for (int rows : {70, 45, 32, 24, 13, 5})
        for (int len : {32, 16, 11, 3}) {
          std::vector<double> y0(kRows * kKcp, -1.0), y1 = y0;
          g.load_across_fp32(af.data(), kLd, rows, len, g1.data(), g2.data(), kind, y0.data(), kKcp);
          v.load_across_fp32(af.data(), kLd, rows, len, g1.data(), g2.data(), kind, y1.data(), kKcp);
          expect_same_bits(y0, y1, "load_across_fp32", lv.name);
          g.load_across_fp64(ad.data(), kLd, rows, len, g1.data(), g2.data(), kind, y0.data(), kKcp);
          v.load_across_fp64(ad.data(), kLd, rows, len, g1.data(), g2.data(), kind, y1.data(), kKcp);
          expect_same_bits(y0, y1, "load_across_fp64", lv.name);
          // The element formula, and nothing written outside the rows x len block.
          for (int r = 0; r < kRows; ++r)
            for (int l = 0; l < kKcp; ++l) {
              const double a = ad[std::size_t(r + l * kLd)], x = a * g1[std::size_t(r)] * g2[std::size_t(r)];
              const double want =
                  r >= rows || l >= len    ? -1.0
                  : kind == Scaled::digits ? std::ceil(std::fabs(x))
                  : kind == Scaled::trunc  ? std::trunc(x)
                  : a == 0                 ? 0.0
                           : std::max(1.0, std::ceil(((std::fabs(a) * g1[std::size_t(r)]) * g2[std::size_t(r)]) * 127));
              ASSERT_EQ(std::memcmp(&y0[std::size_t(r * kKcp + l)], &want, sizeof want), 0)
                  << "load_across_fp64 (" << r << ", " << l << ") rows " << rows << " len " << len;
            }
        }

    std::mt19937_64 rng(50);
    for (int n : {3, 8, 20}) {
      const crt::CrtPlan& plan = crt::crt_plan(n);
      constexpr int kKcp = 128;
      // |y| < 2^bits: each way of the vector residues (crt_loops_impl.hpp: direct, split, two steps) at and below its
      // limit; the element path takes one or two steps.
      for (int bits : {12, 51, 58, 62, 63, 75, 100}) {
        // Integer-valued inputs, as the driver gives them, and the edge cases: ties of p = 256 (128 + 256 j), zeros,
        // 2^bits - 1, and multiples of 2^32 plus or minus 2^31 (the split's halves at their limits).
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        std::vector<double> yb(32 * kKcp);
        const double top = std::ldexp(1.0, bits) - std::ldexp(1.0, std::max(0, bits - 53));  // 2^bits - 1 in FP64
        for (std::size_t i = 0; i < yb.size(); ++i) {
          const double y = std::trunc(std::ldexp(u(rng), bits));
          switch (i % 8) {
            case 1:
              yb[i] = i % 16 == 1 ? top : -top;
              break;
            case 3:
              yb[i] = std::trunc(y / 256) * 256 + (i % 16 == 3 ? 128 : -128);
              break;
            case 5:
              yb[i] = bits > 33 ? std::trunc(y * 0x1p-32) * 0x1p32 + (i % 16 == 5 ? 0x1p31 : -0x1p31) : y;
              break;
            case 7:
              yb[i] = i % 64 == 7 ? 0.0 : y;
              break;
            default:
              yb[i] = y;
          }
          if (std::fabs(yb[i]) >= std::ldexp(1.0, bits)) yb[i] = y;
        }
        std::vector<std::int8_t> r0(yb.size()), r1(yb.size());
        for (int t : {0, 1, n - 1}) {
          g.residues(yb.data(), int(yb.size()), plan.p[t], plan.invp[t], plan.hi[t], plan.lo[t], bits, r0.data());
          v.residues(yb.data(), int(yb.size()), plan.p[t], plan.invp[t], plan.hi[t], plan.lo[t], bits, r1.data());
          EXPECT_EQ(r0, r1) << "residues on " << lv.name << ", bits " << bits;
          // Against exact integer arithmetic where y fits an int64.
          if (bits <= 62)
            for (std::size_t i = 0; i < yb.size(); ++i) {
              const std::int64_t p = std::int64_t(plan.p[t]), y = std::int64_t(yb[i]);
              std::int64_t r = y % p;
              if (r > std::int64_t(plan.hi[t])) r -= p;
              if (r < std::int64_t(plan.lo[t])) r += p;
              ASSERT_EQ(r0[i], r) << "y " << y << " modulo " << p;
            }
        }
        // All n moduli in one pass (panel t at t * stride, a gap between them), and the digits (no plan).
        const std::size_t panel = std::size_t(kKcp) * 32 + 32 * 4, stride = panel + 64;
        std::vector<std::int8_t, Align64<std::int8_t>> streamed;
        for (const crt::CrtPlan* pl : {&plan, static_cast<const crt::CrtPlan*>(nullptr)})
          for (const int lines : {32, 13}) {  // 13: the rest are padding (zero bytes, yb not read there)
            std::vector<double> in = yb;
            if (!pl)
              for (auto& y : in) y = std::fmod(std::fabs(y), 65.0);                   // digits: integers in [0, 64]
            std::fill(in.begin() + std::ptrdiff_t(lines) * kKcp, in.end(), 12345.0);  // must not be read
            std::vector<std::int8_t> p0(stride * std::size_t(n), 7), p1 = p0;
            g.pack_a(in.data(), kKcp, kKcp, lines, pl, bits, p0.data(), stride, false, true, nullptr);
            v.pack_a(in.data(), kKcp, kKcp, lines, pl, bits, p1.data(), stride, false, true, nullptr);
            EXPECT_EQ(p0, p1) << "pack_a_panel on " << lv.name;
            {  // the live k only (not pad), the last chunk with 16 of them: the vector ways' groups of 16
              std::vector<std::int8_t> q0(p0.size(), 7), q1 = q0;
              g.pack_a(in.data(), kKcp, 80, lines, pl, bits, q0.data(), stride, false, false, nullptr);
              v.pack_a(in.data(), kKcp, 80, lines, pl, bits, q1.data(), stride, false, false, nullptr);
              EXPECT_EQ(q0, q1) << "pack_a_panel of 80 live k on " << lv.name;
            }
            // Chunk by chunk (each chunk's 64 values of a line side by side, the row sums carried and written
            // after the last), padded and live: the bytes of the whole panel.
            for (const bool pad : {true, false}) {
              const int len = pad ? kKcp : 80;
              std::vector<std::int8_t> whole(p0.size(), 7), chunked = whole;
              v.pack_a(in.data(), kKcp, len, lines, pl, bits, whole.data(), stride, false, pad, nullptr);
              std::vector<std::int32_t> carry(std::size_t(n) * 32, 0);
              std::vector<double> chunk(32 * 64, 12345.0);
              for (int ch = 0; ch < kKcp; ch += 64) {
                const int w = std::clamp(len - ch, 0, 64);
                for (int r = 0; r < lines; ++r)
                  for (int l = 0; l < 64; ++l)
                    chunk[std::size_t(r * 64 + l)] = l < w ? in[std::size_t(r * kKcp + ch + l)] : 0.0;
                v.pack_a(chunk.data(), 64, pad ? 64 : w, lines, pl, bits, chunked.data() + ch * 32, stride, false, pad,
                         carry.data());
              }
              for (int t = 0; t < (pl ? n : 1); ++t)
                for (int r = 0; r < (pad ? 32 : lines); ++r)
                  std::memcpy(chunked.data() + stride * std::size_t(t) + std::size_t(kKcp) * 32 + 4 * r,
                              &carry[std::size_t(t * 32 + r)], 4);
              EXPECT_EQ(whole, chunked) << "pack_a_panel chunk by chunk on " << lv.name << (pad ? "" : ", live k");
            }
            if (pl) {  // the layout of engine/int8_kernel.hpp: panel t holds the residues modulo p_t
              std::vector<std::int8_t> want(in.size());
              g.residues(in.data(), int(in.size()), plan.p[n - 1], plan.invp[n - 1], plan.hi[n - 1], plan.lo[n - 1],
                         bits, want.data());
              for (int r = 0; r < 32; ++r)
                for (int l = 0; l < kKcp; ++l)
                  ASSERT_EQ(p0[stride * std::size_t(n - 1) + engine::int8::a_index(r, l)],
                            r < lines ? want[std::size_t(r) * kKcp + l] : 0);
            }
            // Streaming stores (the operand caches) into 64-byte-aligned panels: the same bytes.
            streamed.assign(p0.size(), 7);
            v.pack_a(in.data(), kKcp, kKcp, lines, pl, bits, streamed.data(), stride, true, true, nullptr);
            EXPECT_TRUE(std::equal(p0.begin(), p0.end(), streamed.begin())) << "streamed pack_a_panel on " << lv.name;
            std::fill(p0.begin(), p0.end(), 7), std::fill(p1.begin(), p1.end(), 7);
            g.pack_b(in.data(), kKcp, kKcp, lines, pl, bits, p0.data(), stride, false, true);
            v.pack_b(in.data(), kKcp, kKcp, lines, pl, bits, p1.data(), stride, false, true);
            EXPECT_EQ(p0, p1) << "pack_b_panel on " << lv.name;
            {  // the live k only (not pad): the live lines' bytes of the live k (rounded up to 16) agree; the rest
               // is the variant's to leave or fill (crt_ops.hpp)
              std::vector<std::int8_t> q0(p0.size(), 7), q1 = q0;
              g.pack_b(in.data(), kKcp, 80, lines, pl, bits, q0.data(), stride, false, false);
              v.pack_b(in.data(), kKcp, 80, lines, pl, bits, q1.data(), stride, false, false);
              for (int t = 0; t < (pl ? n : 1); ++t)
                for (int c = 0; c < lines; ++c)
                  for (int l = 0; l < 80; ++l) {
                    const std::size_t e = stride * std::size_t(t) + engine::int8::b_index(l, c);
                    ASSERT_EQ(q0[e], q1[e])
                        << "pack_b_panel of 80 live k on " << lv.name << ", line " << c << " k " << l;
                  }
            }
            if (pl) {  // panel t holds the residues modulo p_t in the VNNI layout, padding columns zero
              std::vector<std::int8_t> want(in.size());
              g.residues(in.data(), int(in.size()), plan.p[0], plan.invp[0], plan.hi[0], plan.lo[0], bits, want.data());
              for (int c = 0; c < 32; ++c)
                for (int l = 0; l < kKcp; ++l)
                  ASSERT_EQ(p0[engine::int8::b_index(l, c)], c < lines ? want[std::size_t(c) * kKcp + l] : 0);
            }
            streamed.assign(p0.size(), 7);
            v.pack_b(in.data(), kKcp, kKcp, lines, pl, bits, streamed.data(), stride, true, true);
            EXPECT_TRUE(std::equal(p0.begin(), p0.end(), streamed.begin())) << "streamed pack_b_panel on " << lv.name;
          }
      }
      std::uniform_int_distribution<std::int32_t> acc_d(-(1 << 30), 1 << 30);
      constexpr int kCols = 45;
      std::vector<std::int32_t> acc(std::size_t(n) * 64);
      for (auto& a : acc) a = acc_d(rng);
      // The edges of the reduction: ties of p = 256 (128 + 256 j) and the int32 extremes.
      const std::int32_t edges[] = {128,
                                    -128,
                                    384,
                                    -384,
                                    2147483520,
                                    std::numeric_limits<std::int32_t>::max(),
                                    std::numeric_limits<std::int32_t>::min(),
                                    0};
      for (std::size_t i = 0; i < acc.size(); i += 5) acc[i] = edges[(i / 5) % 8];
      for (int t = 0; t < n; ++t) {  // every modulus, 256 (the one with ties) among them
        auto a0 = acc, a1 = acc;
        g.reduce_mod(a0.data(), a0.size(), plan, t);
        v.reduce_mod(a1.data(), a1.size(), plan, t);
        EXPECT_EQ(a0, a1) << "reduce_mod on " << lv.name << ", modulus " << plan.p[t];
        // A count that ends in a part of a vector (the last five not touched)
        a0 = acc, a1 = acc;
        g.reduce_mod(a0.data(), a0.size() - 5, plan, t);
        v.reduce_mod(a1.data(), a1.size() - 5, plan, t);
        EXPECT_EQ(a0, a1) << "reduce_mod of a partial vector on " << lv.name << ", modulus " << plan.p[t];
        EXPECT_TRUE(std::equal(acc.end() - 5, acc.end(), a1.end() - 5)) << "reduce_mod wrote past its count";
      }
      // residue_rows on blocks of int32 with a row stride, whole and partial groups of 32, 16 and 8, into byte planes
      // with a stride of their own, and in place (the driver's many k-blocks): the same bytes.
      for (int t = 0; t < n; ++t)
        for (const auto& [rows, cols] : {std::pair{2, 64}, {3, 45}, {1, 7}}) {
          if (rows > n) continue;
          auto reduced = acc;
          g.reduce_mod(reduced.data(), reduced.size(), plan, t);
          std::vector<std::int8_t> r0(std::size_t(rows) * 70, 5), r1(r0);
          g.residue_rows(acc.data(), 64, rows, cols, plan, t, r0.data(), 70);
          v.residue_rows(acc.data(), 64, rows, cols, plan, t, r1.data(), 70);
          EXPECT_EQ(r0, r1) << "residue_rows on " << lv.name << ", modulus " << plan.p[t];
          for (int i = 0; i < rows; ++i)
            for (int j = 0; j < 70; ++j)
              ASSERT_EQ(r0[std::size_t(i) * 70 + j], j < cols ? reduced[std::size_t(i) * 64 + j] : 5)
                  << "residue_rows, modulus " << plan.p[t];
          std::vector<std::int32_t> in_place(acc.begin(), acc.begin() + std::ptrdiff_t(rows) * 64);
          auto* bytes = reinterpret_cast<std::int8_t*>(in_place.data());
          v.residue_rows(in_place.data(), 64, rows, cols, plan, t, bytes, 64);
          for (int i = 0; i < rows; ++i)
            EXPECT_TRUE(std::equal(bytes + i * 64, bytes + i * 64 + cols, r0.begin() + i * 70))
                << "residue_rows in place on " << lv.name << ", modulus " << plan.p[t];
        }
      std::vector<double> s1(kCols), s2(kCols), o0(kCols), o1(kCols);
      std::vector<std::int8_t> res(acc.size());
      for (int t = 0; t < n; ++t) g.residue_rows(acc.data() + t * 64, 64, 1, 64, plan, t, res.data() + t * 64, 64);
      {
        g.reconstruct_row(res.data(), 64, kCols, plan, s1.data(), s2.data(), o0.data());
        v.reconstruct_row(res.data(), 64, kCols, plan, s1.data(), s2.data(), o1.data());
        expect_same_bits(o0, o1, "reconstruct_row", lv.name);
      }
      // The exact way (the second level's): every column the generic loop's bits, whole rows and 13 columns (a
      // vector of 8, one of 4 and a scalar one).
      for (const int cols : {kCols, 13}) {
        std::vector<double> e0(kCols, 7.0), e1(kCols, 7.0);
        g.reconstruct_exact(res.data(), 64, cols, plan, e0.data());
        v.reconstruct_exact(res.data(), 64, cols, plan, e1.data());
        expect_same_bits(e0, e1, "reconstruct_exact", lv.name);
        EXPECT_EQ(e1[std::size_t(cols) % std::size_t(kCols)], cols < kCols ? 7.0 : e0[0]) << "wrote past its columns";
      }
    }
  }
}

// The CRT's scaled write of C, every level against the generic loop bit for bit and both against ldexp (the
// definition: one rounding of m_alpha X 2^(e_row + e_col), then beta C added in FP64 and one rounding to T): FP64 and
// FP32, C column-major and row-major inside a larger array whose other entries must stay, beta zero (C not read: NaN
// there) and not, blocks whose sides end in whole and partial groups of eight, rows and columns whose factors are 0
// (the ldexp path: results that overflow or fall below the normal range) among fast ones.
template <typename T>
auto write_of(const crt::CrtLoops& l) {
  if constexpr (sizeof(T) == 8)
    return l.write_fp64;
  else
    return l.write_fp32;
}

template <typename T>
void check_write_loops(const char* level, const crt::CrtLoops& v) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-40, 40);
  for (const auto& [rows, cols] : {std::pair{16, 24}, {13, 21}, {8, 8}, {5, 3}, {40, 17}})
    for (const bool row_major : {false, true})
      for (const double beta : {0.0, -0.75}) {
        const int ldx = cols + 3;
        const auto nr = static_cast<std::size_t>(rows), ncl = static_cast<std::size_t>(cols);
        std::vector<double> x(nr * ldx), fr(nr), fc(ncl);
        std::vector<int> er(nr), ec(ncl);
        for (auto& xv : x) xv = std::ldexp(std::round(u(rng) * 0x1p40), 20);
        x[0] = 0x1p90, x[1] = -0x1p90;
        for (int i = 0; i < rows; ++i) {
          const bool slow = i % 16 == 11;  // the row blocks of 8 from row 8 on, every other one
          er[std::size_t(i)] = slow ? (i / 16 % 2 ? 1000 : -1150) : e(rng);
          fr[std::size_t(i)] = slow ? 0.0 : std::ldexp(1.0, er[std::size_t(i)]);
        }
        for (int j = 0; j < cols; ++j) {
          ec[std::size_t(j)] = j == 9 ? -1030 : e(rng);
          fc[std::size_t(j)] = j == 9 ? 0.0 : std::ldexp(1.0, ec[std::size_t(j)]);
        }
        const double m_alpha = 0.625;
        const crt::WriteScales w{m_alpha, beta, fr.data(), fc.data(), er.data(), ec.data()};
        const std::int64_t ld = (row_major ? cols : rows) + 5, rs = row_major ? ld : 1, cs = row_major ? 1 : ld;
        std::vector<T> c_in(std::size_t(ld) * std::size_t(row_major ? rows : cols) + 7);
        for (auto& cv : c_in) cv = beta == 0.0 ? std::numeric_limits<T>::quiet_NaN() : T(u(rng));
        auto c0 = c_in, c1 = c_in;
        write_of<T>(crt::kCrtLoopsGeneric)(c0.data() + 2, rs, cs, x.data(), ldx, rows, cols, w);
        write_of<T>(v)(c1.data() + 2, rs, cs, x.data(), ldx, rows, cols, w);
        const std::string what = std::string(level) + (sizeof(T) == 8 ? " fp64 " : " fp32 ") + std::to_string(rows) +
                                 "x" + std::to_string(cols) + (row_major ? " row-major" : " column-major") +
                                 (beta == 0 ? " beta 0" : " beta -0.75");
        EXPECT_EQ(0, std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(T))) << what;
        std::vector<bool> inside(c_in.size());
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j) {
            const std::size_t at = std::size_t(2 + i * rs + j * cs);
            inside[at] = true;
            const double s = std::ldexp(m_alpha * x[std::size_t(i) * ldx + j], er[std::size_t(i)] + ec[std::size_t(j)]);
            const T want = beta == 0 ? T(s) : T(s + beta * double(c_in[at]));
            ASSERT_EQ(0, std::memcmp(&want, &c0[at], sizeof(T))) << what << " at " << i << ", " << j;
          }
        for (std::size_t at = 0; at < c_in.size(); ++at)
          if (!inside[at]) {
            ASSERT_EQ(0, std::memcmp(&c_in[at], &c1[at], sizeof(T))) << what << " wrote outside at " << at;
          }
      }
}

TEST(IsaVariants, CrtWriteEqualsGenericAndLdexp) {
  check_write_loops<double>("generic", crt::kCrtLoopsGeneric);
  check_write_loops<float>("generic", crt::kCrtLoopsGeneric);
  for (const Level& lv : vector_levels()) {
    if (!lv.runs) continue;
    check_write_loops<double>(lv.name, lv.crt);
    check_write_loops<float>(lv.name, lv.crt);
  }
}

// The bound pass's block maxima, every level against the definition: blocks whose widths end in whole and partial
// vectors of 16 and 8, with a row stride past the width (the accumulator blocks) and nothing outside the block read
// into them (poison values there), sums up to the int32 limit, and rows or columns with only zeros.
TEST(IsaVariants, CrtMaximaAreTheBlockMaxima) {
  std::mt19937_64 rng(29);
  std::uniform_int_distribution<std::int32_t> d(0, std::numeric_limits<std::int32_t>::max());
  constexpr int kLd = 96;
  for (const auto& [rows, cols] : {std::pair{32, 64}, {7, 45}, {1, 1}, {13, 24}, {64, 96}, {3, 15}}) {
    std::vector<std::int32_t> acc(std::size_t(rows) * kLd, std::numeric_limits<std::int32_t>::max());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) acc[std::size_t(i) * kLd + j] = i == 1 || j == 2 ? 0 : d(rng) >> (i + j) % 31;
    std::vector<std::int32_t> want_r(std::size_t(rows), 0), want_c(std::size_t(cols), 0);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        want_r[std::size_t(i)] = std::max(want_r[std::size_t(i)], acc[std::size_t(i) * kLd + j]);
        want_c[std::size_t(j)] = std::max(want_c[std::size_t(j)], acc[std::size_t(i) * kLd + j]);
      }
    std::vector<std::pair<const char*, const crt::CrtLoops*>> levels{{"generic", &crt::kCrtLoopsGeneric}};
    for (const Level& lv : vector_levels())
      if (lv.runs) levels.emplace_back(lv.name, &lv.crt);
    for (const auto& [name, loops] : levels) {
      std::vector<std::int32_t> got_r(std::size_t(rows), -1), got_c(std::size_t(cols), -1);
      loops->maxima(acc.data(), kLd, rows, cols, got_r.data(), got_c.data());
      EXPECT_EQ(got_r, want_r) << "row maxima on " << name << ", " << rows << " x " << cols;
      EXPECT_EQ(got_c, want_c) << "column maxima on " << name << ", " << rows << " x " << cols;
    }
  }
}

// TRSM's substitution (level3/substitution_loops.hpp), every level against the element-by-element substitution
// written here, a column at a time in the order the header states (x_c = b_c / d_cc, then b_r = b_r - d_rc x_c for
// the rows still to solve), bit for bit: lower and upper, unit and not, both layouts with a leading dimension past
// the block (whose padding must stay as it was), column ranges that end in whole and partial blocks of every width,
// s up to kSubstitutionRows; B with signed zeros, subnormals, infinities and NaNs mixed in, D with a zero pivot in
// one case, complex pivots with either part the larger (both branches of Smith's division). The old loop nest ran a
// column at a time; the loops run a row of a block of columns at a time.
template <typename R>
struct SubstitutionCase {
  static constexpr bool kComplex = false;
  using E = R;
  static E make(R re, R) { return re; }
  static R re(E x) { return x; }
  static R im(E) { return 0; }
  static E div(E x, E y) { return x / y; }
  static E sub_mul(E x, E u, E v) { return x - u * v; }
};
template <typename C, typename R>
struct ComplexSubstitutionCase {
  static constexpr bool kComplex = true;
  using E = C;
  static E make(R re, R im) { return E{re, im}; }
  static R re(E x) { return x.re; }
  static R im(E x) { return x.im; }
  // level3/element.hpp's complex operations, as the BLAS-level routine documents them (Smith's division).
  static E div(E x, E y) {
    if ((y.re < 0 ? -y.re : y.re) >= (y.im < 0 ? -y.im : y.im)) {
      const R r = y.im / y.re, d = y.re + y.im * r;
      return E{(x.re + x.im * r) / d, (x.im - x.re * r) / d};
    }
    const R r = y.re / y.im, d = y.im + y.re * r;
    return E{(x.re * r + x.im) / d, (x.im * r - x.re) / d};
  }
  static E sub_mul(E x, E u, E v) {
    const R pr = u.re * v.re - u.im * v.im, pi = u.re * v.im + u.im * v.re;
    return E{x.re - pr, x.im - pi};
  }
};

// The substitution loops of every level this CPU runs, the generic build first.
std::vector<std::pair<const char*, const level3::SubstitutionLoops*>> substitution_levels() {
  std::vector<std::pair<const char*, const level3::SubstitutionLoops*>> levels{
      {"generic", &level3::kSubstitutionLoopsGeneric}};
  for (const Level& lv : vector_levels())
    if (lv.runs) levels.emplace_back(lv.name, &lv.substitution);
  return levels;
}

// The first element of got whose bits differ from want's (any NaN matching any NaN), or -1; its values in w and g.
template <typename Case, typename R>
std::ptrdiff_t first_difference(const std::vector<typename Case::E>& want, const std::vector<typename Case::E>& got,
                                R& w, R& g) {
  for (std::size_t q = 0; q < got.size(); ++q) {
    const R a[2] = {Case::re(want[q]), Case::im(want[q])}, b[2] = {Case::re(got[q]), Case::im(got[q])};
    for (int part = 0; part < 2; ++part)
      if (std::memcmp(&a[part], &b[part], sizeof(R)) != 0 && !(std::isnan(a[part]) && std::isnan(b[part]))) {
        w = a[part], g = b[part];
        return std::ptrdiff_t(q);
      }
  }
  return -1;
}

template <typename Case, typename R>
void check_substitution(level3::SolveColumns<typename Case::E> (*pick)(const level3::SubstitutionLoops&)) {
  using E = typename Case::E;
  const auto levels = substitution_levels();
  unsigned seed = 100;
  int cases = 0;
  for (const std::int64_t s :
       {std::int64_t(1), std::int64_t(5), std::int64_t(64), std::int64_t(127), level3::kSubstitutionRows})
    for (const auto& [j0, j1] : {std::pair<std::int64_t, std::int64_t>{0, 1}, {0, 3}, {2, 11}, {0, 16}, {1, 37}})
      for (const int flags : {0, 1, 2, 3})
        for (const bool rows : {false, true}) {
          const bool lower = flags & 1, unit = flags & 2;
          const std::int64_t n = j1 + 2, ld = rows ? n + 3 : s + 2, size = rows ? s * ld : n * ld;
          // D: off-diagonal entries below 1, pivots between 1 and 2 (one zero where s = 5 and not unit), entries
          // across the unused triangle too (the loops must not read them: they would change B).
          const std::vector<R> dr = values<R>(std::size_t(2 * s * s), seed++, false);
          std::vector<E> d(std::size_t(s * s));
          for (std::int64_t c = 0; c < s; ++c)
            for (std::int64_t r = 0; r < s; ++r) {
              const std::size_t q = std::size_t(r + c * s);
              const R re = std::ldexp(dr[2 * q], -std::ilogb(dr[2 * q] == 0 ? R(1) : dr[2 * q]) - 1 - int(q % 3));
              const R im = Case::kComplex
                               ? std::ldexp(dr[2 * q + 1], -std::ilogb(dr[2 * q + 1] == 0 ? R(1) : dr[2 * q + 1]) - 2)
                               : R(0);
              d[q] = Case::make(re, im);
              // (complex: every other pivot with the larger imaginary part, Smith's division's other branch)
              if (r == c) d[q] = r % 2 ? Case::make(im, R(1) + std::abs(re)) : Case::make(R(1) + std::abs(re), im);
              if (r == c && r == 2 && s == 5 && !unit) d[q] = Case::make(R(0), R(0));
            }
          const std::vector<R> br = values<R>(std::size_t(2 * size), seed++);
          std::vector<E> b0(static_cast<std::size_t>(size));
          for (std::size_t q = 0; q < b0.size(); ++q)
            b0[q] = Case::make(br[2 * q], Case::kComplex ? br[2 * q + 1] : R(0));
          // The reference: a column at a time.
          std::vector<E> want = b0;
          const auto at = [&](std::vector<E>& b, std::int64_t i, std::int64_t j) -> E& {
            return rows ? b[std::size_t(i * ld + j)] : b[std::size_t(i + j * ld)];
          };
          for (std::int64_t j = j0; j < j1; ++j)
            for (std::int64_t q = 0; q < s; ++q) {
              const std::int64_t c = lower ? q : s - 1 - q, r0 = lower ? c + 1 : 0, r1 = lower ? s : c;
              if (!unit) at(want, c, j) = Case::div(at(want, c, j), d[std::size_t(c + c * s)]);
              for (std::int64_t r = r0; r < r1; ++r)
                at(want, r, j) = Case::sub_mul(at(want, r, j), d[std::size_t(r + c * s)], at(want, c, j));
            }
          for (const auto& [name, loops] : levels) {
            std::vector<E> got = b0;
            pick (*loops)(d.data(), s, lower, unit, got.data(), ld, rows, j0, j1);
            R w = 0, g = 0;
            if (const std::ptrdiff_t q = first_difference<Case>(want, got, w, g); q >= 0) {
              ADD_FAILURE() << "substitution on " << name << (Case::kComplex ? " complex" : "") << " sizeof "
                            << sizeof(R) << ", s = " << s << ", columns " << j0 << ".." << j1
                            << (lower ? " lower" : " upper") << (unit ? " unit" : "") << (rows ? " rows" : " cols")
                            << ": element " << q << " is " << g << ", the element loop gives " << w;
              return;
            }
          }
          ++cases;
        }
  EXPECT_EQ(cases, 5 * 5 * 4 * 2);
}

TEST(IsaVariants, SubstitutionEqualsTheElementLoop) {
  check_substitution<SubstitutionCase<float>, float>([](const level3::SubstitutionLoops& l) { return l.solve_fp32; });
  check_substitution<SubstitutionCase<double>, double>([](const level3::SubstitutionLoops& l) { return l.solve_fp64; });
  check_substitution<ComplexSubstitutionCase<bf16x_complex_float, float>, float>(
      [](const level3::SubstitutionLoops& l) { return l.solve_c64; });
  check_substitution<ComplexSubstitutionCase<bf16x_complex_double, double>, double>(
      [](const level3::SubstitutionLoops& l) { return l.solve_c128; });
}

// A narrow B's TRSM update (level3/substitution_loops.hpp, SubtractProducts), every level against the element loop
// written here (y_r = y_r - a_rc x_c, c ascending or descending), bit for bit: a's columns contiguous (the vectors
// along the rows) or its rows (rows side by side), conjugated or not (complex), row counts off every vector width and
// off the eight rows side by side, column counts off the groups of four, 1-8 columns of x and y with leading
// dimensions past them (whose padding must stay as it was), values with signed zeros, subnormals, infinities and
// NaNs mixed in.
template <typename Case, typename R>
void check_subtract(level3::SubtractProducts<typename Case::E> (*pick)(const level3::SubstitutionLoops&)) {
  using E = typename Case::E;
  const auto levels = substitution_levels();
  unsigned seed = 500;
  int cases = 0;
  const auto complex_of = [](const std::vector<R>& v) {
    std::vector<E> out(v.size() / 2);
    for (std::size_t q = 0; q < out.size(); ++q) out[q] = Case::make(v[2 * q], Case::kComplex ? v[2 * q + 1] : R(0));
    return out;
  };
  for (const std::int64_t rows : {1, 7, 16, 37, 130})
    for (const std::int64_t cols : {1, 4, 6, 67})
      for (const std::int64_t n : {1, 3, 8})
        for (const int form : {0, 1, 2, 3}) {  // bit 0: descending; bit 1: a's rows contiguous (and conjugated)
          const bool descending = form & 1, by_rows = form & 2, conj = by_rows && Case::kComplex && n != 3;
          const std::int64_t lda = (by_rows ? cols : rows) + 3, ldx = cols + 1, ldy = rows + 2;
          const std::int64_t ra = by_rows ? lda : 1, ca = by_rows ? 1 : lda;
          const std::vector<E> a = complex_of(values<R>(std::size_t(2 * lda * (by_rows ? rows : cols)), seed++, false));
          const std::vector<E> x = complex_of(values<R>(std::size_t(2 * ldx * n), seed++));
          const std::vector<E> y0 = complex_of(values<R>(std::size_t(2 * ldy * n), seed++));
          std::vector<E> want = y0;
          for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t r = 0; r < rows; ++r)
              for (std::int64_t q = 0; q < cols; ++q) {
                const std::int64_t c = descending ? cols - 1 - q : q;
                E arc = a[std::size_t(r * ra + c * ca)];
                if (conj) arc = Case::make(Case::re(arc), -Case::im(arc));
                E& v = want[std::size_t(r + j * ldy)];
                v = Case::sub_mul(v, arc, x[std::size_t(c + j * ldx)]);
              }
          for (const auto& [name, loops] : levels) {
            std::vector<E> got = y0;
            pick (*loops)(a.data(), ra, ca, conj, rows, cols, descending, x.data(), ldx, got.data(), ldy, n);
            R w = 0, g = 0;
            if (const std::ptrdiff_t q = first_difference<Case>(want, got, w, g); q >= 0) {
              ADD_FAILURE() << "subtract on " << name << (Case::kComplex ? " complex" : "") << " sizeof " << sizeof(R)
                            << ", " << rows << " x " << cols << " x " << n
                            << (descending ? " descending" : " ascending") << (by_rows ? " by rows" : "")
                            << (conj ? " conjugated" : "") << ": element " << q << " is " << g
                            << ", the element loop gives " << w;
              return;
            }
          }
          ++cases;
        }
  EXPECT_EQ(cases, 5 * 4 * 3 * 4);
}

TEST(IsaVariants, NarrowUpdateEqualsTheElementLoop) {
  check_subtract<SubstitutionCase<float>, float>([](const level3::SubstitutionLoops& l) { return l.subtract_fp32; });
  check_subtract<SubstitutionCase<double>, double>([](const level3::SubstitutionLoops& l) { return l.subtract_fp64; });
  check_subtract<ComplexSubstitutionCase<bf16x_complex_float, float>, float>(
      [](const level3::SubstitutionLoops& l) { return l.subtract_c64; });
  check_subtract<ComplexSubstitutionCase<bf16x_complex_double, double>, double>(
      [](const level3::SubstitutionLoops& l) { return l.subtract_c128; });
}

}  // namespace
}  // namespace bf16x
