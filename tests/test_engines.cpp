// Every registered engine against the reference engine, from one place: the micro-kernel on panels made by the
// library's packers, the raw BF16 GEMM, and full GEMMs through the C API.
//
// Bit for bit: every engine on the FP64 path (each panel sum is exact, docs/numerics.md); reference, avx2 and
// amx-model on every path, fp32x6 and subnormal slices included (each computes the one pair step of
// engine/dpbf16.hpp in the reference's order). The hardware BF16 instructions (avx512bf16, amx) round inside
// VDPBF16PS / TDPBF16PS, so on the FP32 path they keep their summation bounds: two FP32 sums of the same N exact
// terms, each with at most one rounding (2^-24 relative for VDPBF16PS, 2^-23 for TDPBF16PS whose rounding may be
// directed) of a partial sum bounded by S = |start| + sum |terms|, or a flush (2^-126), differ by at most
// 2 N (ulp S + 2^-126).
//
// An engine that cannot run here is skipped with the reason, and the suite prints which engines ran.
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "check/inputs.hpp"
#include "cpu/features.hpp"
#include "driver/raw_gemm.hpp"
#include "engine/records.hpp"
#include "gemm_fixture.hpp"
#include "support/bounds.hpp"
#include "support/engine_panels.hpp"

using namespace bf16x;
using namespace bf16x::test;

namespace {

// ---- which engines exist, which run here, and why not --------------------------------------------------------

std::vector<int> registered_engines() {
  std::vector<int> ids;
  for (int id = BF16X_ENGINE_AUTO + 1; engine::engine_info(id); ++id) ids.push_back(id);
  return ids;
}

std::string unavailable_reason(int id) {
  switch (id) {
    case BF16X_ENGINE_AVX512BF16:
      return "CPUID/XCR0 lack AVX512-BF16";
    case BF16X_ENGINE_AVX2:
      return "CPUID/XCR0 lack AVX2+FMA";
    case BF16X_ENGINE_AMX:
      return std::string("AMX unavailable (") + cpu::amx_unavailable_reason() + " check failed)";
    default:
      return "not available";
  }
}

// The hardware BF16 instructions round internally; every other engine computes the reference's bits.
bool bitwise_on_fp32_path(int id) { return id != BF16X_ENGINE_AVX512BF16 && id != BF16X_ENGINE_AMX; }
bool counts_like_amx(int id) { return id == BF16X_ENGINE_AMX || id == BF16X_ENGINE_AMX_MODEL; }
double rounding_ulp(int id) { return id == BF16X_ENGINE_AMX ? 0x1p-23 : 0x1p-24; }

struct Coverage {
  std::map<std::string, std::string> skipped;  // engine -> reason
  std::map<std::string, int> ran;              // engine -> tests run
};
Coverage& coverage() {
  static Coverage c;
  return c;
}

class CoverageReport : public testing::Environment {
 public:
  void TearDown() override {
    const Coverage& c = coverage();
    if (c.ran.empty() && c.skipped.empty()) return;
    std::string ran, skipped;
    for (const auto& [name, n] : c.ran) ran += " " + name + " (" + std::to_string(n) + " tests)";
    for (const auto& [name, why] : c.skipped) skipped += " " + name + " (" + why + ")";
    std::printf("[ engines  ] ran:%s\n[ engines  ] skipped:%s\n", ran.empty() ? " none" : ran.c_str(),
                skipped.empty() ? " none" : skipped.c_str());
  }
};
const testing::Environment* const kReport = testing::AddGlobalTestEnvironment(new CoverageReport);

class Engines : public testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    const engine::EngineInfo* e = engine::engine_info(GetParam());
    ASSERT_NE(e, nullptr);
    if (!engine::engine_usable(GetParam())) {
      const std::string why = unavailable_reason(GetParam());
      coverage().skipped[name()] = why;
      GTEST_SKIP() << name() << ": " << why;
    }
    ++coverage().ran[name()];
    info = e;
  }
  int id() const { return GetParam(); }
  const engine::EngineInfo* info = nullptr;
  static const char* name() { return bf16x_engine_name(GetParam()); }
};

std::string engine_name(const testing::TestParamInfo<int>& p) {
  std::string s = bf16x_engine_name(p.param);
  for (char& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

// ---- micro-kernel --------------------------------------------------------------------------------------------

constexpr int kKernelK[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257};
constexpr int kFp64Modes[] = {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21};

// The engine's result against the reference's: bitwise where `bitwise`, else within the two-sums bound.
void compare_kernel(int id, const TilePanels& t, const Groups& g, bool accumulate, bool bitwise) {
  const KernelResult ref = run_kernel(*engine::engine_info(BF16X_ENGINE_REFERENCE), t, g, accumulate);
  const KernelResult got = run_kernel(*engine::engine_info(id), t, g, accumulate);
  if (bitwise) {
    expect_same_bits(ref, got);
  } else {
    for (std::size_t q = 0; q < g.size(); ++q)
      for (int i = 0; i < kTileM; ++i)
        for (int j = 0; j < kTileN; ++j) {
          const std::size_t e = std::size_t(i * kLdo + j);
          double sum, abs;
          term_sums(t, g[q], i, j, sum, abs);
          const double bound =
              fp32_two_sums_bound(term_count(t, g[q]), abs + std::fabs(ref.init[q][e]), rounding_ulp(id));
          ASSERT_LE(std::fabs(double(got.out[q][e]) - double(ref.out[q][e])), bound)
              << "group " << q << " (" << i << "," << j << ")";
        }
  }
  // Counters in AMX units: the AMX schedule reuses loaded tiles, every other engine counts as the reference does.
  EXPECT_EQ(got.counters.dot_products, ref.counters.dot_products);
  EXPECT_EQ(got.counters.tile_stores, ref.counters.tile_stores);
  if (!counts_like_amx(id)) {
    EXPECT_EQ(got.counters.tile_loads, ref.counters.tile_loads);
  }
  EXPECT_EQ(got.counters.micro_tiles, std::uint64_t(t.blocks()));
}

TEST_P(Engines, KernelFp64GroupPlansEqualReference) {
  using check::Dist;
  const Dist dists[] = {Dist::uniform, Dist::loguniform, Dist::cancel};
  int i = 0;
  auto one = [&](int mode, int k, bool fuse, bool accumulate) {
    const split::Scheme& s = *split::scheme_for_mode(mode);
    const Dist d = dists[i % 3];
    const TilePanels t = pack_tile<double>(k, 6, true, d, std::uint64_t(k * 7 + mode + 1000 * i));
    const Groups g = groups_of(split::plan_groups(s, fuse, int(pack::round_up(std::min(k, pack::kBlockK), 32))));
    SCOPED_TRACE(std::string(s.name) + " k=" + std::to_string(k) + (fuse ? " fused" : "") + " " + check::dist_name(d) +
                 (accumulate ? " accumulate" : ""));
    // Hardware: exact panel sums make any order agree; VDPBF16PS also matched with accumulate (as tested before),
    // TDPBF16PS is held to bit equality only from zero; a second k-block accumulates inexactly.
    const bool bitwise =
        bitwise_on_fp32_path(id()) || (t.blocks() == 1 && (id() == BF16X_ENGINE_AVX512BF16 || !accumulate));
    compare_kernel(id(), t, g, accumulate, bitwise);
    ++i;
  };
  for (int k : kKernelK)
    for (bool accumulate : {false, true}) one(kFp64Modes[i % 4], k, (i / 4) % 2 == 1, accumulate);
  for (int mode : kFp64Modes)
    for (bool fuse : {false, true}) one(mode, 256, fuse, false);
}

TEST_P(Engines, KernelFp32x6) {
  using check::Dist;
  int i = 0;
  for (int k : kKernelK)
    for (Dist d : {Dist::uniform, Dist::loguniform, Dist::cancel}) {
      const bool accumulate = (i++ % 2) == 1;
      SCOPED_TRACE("k=" + std::to_string(k) + " " + check::dist_name(d) + (accumulate ? " accumulate" : ""));
      compare_kernel(id(), pack_tile<float>(k, 3, true, d, std::uint64_t(k + 100)), fp32x6_group(), accumulate,
                     bitwise_on_fp32_path(id()));
    }
}

// An edge tile of a skinny shape: A's lines past `rows` and B's past `cols` are the packers' zero padding. With
// MicroTileArgs::rows / cols an engine may skip what lies wholly in the padding and write +0 there (engine.hpp);
// the tile must be the same bits as the engine's full computation of it, padding included.
TEST_P(Engines, KernelEdgeTilesEqualTheFullTile) {
  const engine::EngineInfo& e = *info;
  auto run = [&](const TilePanels& t, const Groups& groups, int rows, int cols) {
    std::vector<engine::ProductGroup> pg;
    std::vector<std::vector<float>> out;
    std::vector<float*> outs;
    for (const auto& g : groups) {
      pg.push_back({g.data(), int(g.size())});
      out.emplace_back(std::size_t(kTileM * kLdo), kSentinel);
    }
    for (auto& o : out) outs.push_back(o.data());
    if (e.thread_begin) e.thread_begin();
    e.kernel({t.a[0].data(), t.b[0].data(), t.kb[0], pg.data(), int(pg.size()), outs.data(), kLdo, false, nullptr, 0,
              rows, cols});
    if (e.thread_end) e.thread_end();
    return out;
  };
  const Groups fp64 = groups_of(split::plan_groups(*split::scheme_for_mode(BF16X_MODE_FP64X21), false, 256));
  for (const auto& [rows, cols] : {std::pair{8, 8}, {1, 32}, {32, 16}, {17, 5}, {9, 17}, {24, 31}, {32, 1}})
    for (int k : {64, 100, 256})
      for (bool fp32 : {false, true}) {
        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", k " + std::to_string(k) +
                     (fp32 ? " fp32x6" : " fp64x21"));
        const std::uint64_t seed = std::uint64_t(rows * 1000 + cols * 10 + k);
        const TilePanels t = fp32 ? pack_tile<float>(k, 3, true, check::Dist::uniform, seed, 1.0, rows, cols)
                                  : pack_tile<double>(k, 6, true, check::Dist::uniform, seed, 1.0, rows, cols);
        const Groups& g = fp32 ? fp32x6_group() : fp64;
        const auto full = run(t, g, kTileM, kTileN), edge = run(t, g, rows, cols);
        for (std::size_t q = 0; q < g.size(); ++q)
          for (int i = 0; i < kTileM; ++i)
            for (int j = 0; j < kLdo; ++j) {
              const std::size_t x = std::size_t(i * kLdo + j);
              ASSERT_EQ(std::memcmp(&full[q][x], &edge[q][x], sizeof(float)), 0)
                  << "group " << q << " (" << i << "," << j << "): " << full[q][x] << " vs " << edge[q][x];
              if (j >= kTileN) {
                ASSERT_EQ(edge[q][x], kSentinel) << "wrote past column 32";
              } else if (i >= rows || j >= cols) {
                ASSERT_TRUE(edge[q][x] == 0 && !std::signbit(edge[q][x])) << "padding (" << i << "," << j << ") not +0";
              }
            }
      }
}

TEST_P(Engines, KernelSubnormalSlicesAndScrambledProducts) {
  // The paper's unscaled split of tiny values: BF16-subnormal slices (read as zero) and FP32-subnormal products
  // and partial sums (flushed); 36 products in one scrambled accumulator; accumulation from arbitrary values.
  using check::Dist;
  const split::Scheme& s21 = *split::scheme_for_mode(BF16X_MODE_FP64X21);
  struct Case {
    const char* what;
    TilePanels t;
    Groups g;
    bool hw_bitwise;  // also bit for bit on avx512bf16 (one product per group keeps every sum on one grid)
  };
  std::vector<Case> cases;
  cases.push_back({"fp32x6 unscaled, BF16-subnormal third slices",
                   pack_tile<float>(64, 3, false, Dist::uniform, 3, 0x1p-112), fp32x6_group(), false});
  cases.push_back({"fp64x21 unscaled tiny, unfused", pack_tile<double>(64, 6, false, Dist::uniform, 8, 0x1p-75),
                   groups_of(split::plan_groups(s21, false, 64)), true});
  cases.push_back({"fp64x21 unscaled tiny, fused", pack_tile<double>(33, 6, false, Dist::uniform, 8, 0x1p-75),
                   groups_of(split::plan_groups(s21, true, 64)), false});
  cases.push_back({"fp32x6 unscaled, loguniform", pack_tile<float>(96, 3, false, Dist::loguniform, 2, 0x1p-60),
                   fp32x6_group(), false});
  cases.push_back({"36 products scrambled, k=64", pack_tile<double>(64, 6, true, Dist::uniform, 4),
                   all_products_scrambled(), false});
  for (const Case& c : cases)
    for (bool accumulate : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (accumulate ? ", accumulate" : ""));
      const bool bitwise =
          bitwise_on_fp32_path(id()) || (c.hw_bitwise && !accumulate && id() == BF16X_ENGINE_AVX512BF16);
      compare_kernel(id(), c.t, c.g, accumulate, bitwise);
    }
}

TEST_P(Engines, KernelLeavesMxcsrAsItFoundIt) {
  // A caller with FTZ, DAZ and round-down set (as -ffast-math programs run, plus a directed rounding mode): every
  // engine must hand MXCSR back unchanged. The avx2 engine computes the default environment's bits regardless
  // (it sets what it needs); the scalar engines follow the caller's environment, as plain C++ arithmetic does.
  const TilePanels t = pack_tile<double>(64, 6, false, check::Dist::uniform, 8, 0x1p-75);
  const Groups g = groups_of(split::plan_groups(*split::scheme_for_mode(BF16X_MODE_FP64X21), false, 64));
  // No accumulate: the random start values would be drawn in the caller's rounding mode.
  const KernelResult want = run_kernel(*info, t, g, false);
  const unsigned saved = _mm_getcsr();
  const unsigned caller = (saved & ~0x6000u) | 0x8040u | 0x2000u;  // FTZ, DAZ, RC = down
  _mm_setcsr(caller);
  const KernelResult got = run_kernel(*info, t, g, false);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after & ~0x3fu, caller & ~0x3fu) << "MXCSR changed (exception flags ignored)";
  if (id() == BF16X_ENGINE_AVX2) expect_same_bits(want, got);
}

TEST_P(Engines, RepackedPanelsAtSameAddressAreReadAgain) {
  // The driver's double-buffered steps repack the same buffers inside one thread_begin/thread_end bracket: an engine
  // may reuse work on a panel only while MicroTileArgs::a_generation names the same contents (engine/engine.hpp).
  // Two tiles' panels are copied in turn into one buffer at one address; each call must read what is there now.
  const Groups g = groups_of(split::plan_groups(*split::scheme_for_mode(BF16X_MODE_FP64X21), false, 256));
  const TilePanels x = pack_tile<double>(256, 6, true, check::Dist::uniform, 31);
  const TilePanels y = pack_tile<double>(256, 6, true, check::Dist::loguniform, 32);
  const KernelResult want_x = run_kernel(*engine::engine_info(BF16X_ENGINE_REFERENCE), x, g, false);
  const KernelResult want_y = run_kernel(*engine::engine_info(BF16X_ENGINE_REFERENCE), y, g, false);
  const std::size_t panel = std::size_t(kTileM) * 256;
  std::vector<bf16_t> abuf(6 * panel), bbuf(6 * panel);
  std::vector<const bf16_t*> ap, bp;
  for (int s = 0; s < 6; ++s) {
    ap.push_back(abuf.data() + s * panel);
    bp.push_back(bbuf.data() + s * panel);
  }
  auto load = [&](const TilePanels& t) {
    for (int s = 0; s < 6; ++s) {
      std::memcpy(abuf.data() + s * panel, t.a[0][std::size_t(s)], panel * sizeof(bf16_t));
      std::memcpy(bbuf.data() + s * panel, t.b[0][std::size_t(s)], panel * sizeof(bf16_t));
    }
  };
  std::vector<engine::ProductGroup> pg;
  for (const auto& q : g) pg.push_back({q.data(), int(q.size())});
  std::vector<std::vector<float>> out(g.size(), std::vector<float>(std::size_t(kTileM * kLdo), kSentinel));
  std::vector<float*> outs;
  for (auto& o : out) outs.push_back(o.data());
  auto call = [&](std::uint64_t generation, const KernelResult& want, const char* what) {
    info->kernel({ap.data(), bp.data(), 256, pg.data(), int(pg.size()), outs.data(), kLdo, false, nullptr, generation});
    for (std::size_t q = 0; q < g.size(); ++q)
      for (int i = 0; i < kTileM; ++i)
        ASSERT_EQ(
            0, std::memcmp(&out[q][std::size_t(i * kLdo)], &want.out[q][std::size_t(i * kLdo)], kTileN * sizeof(float)))
            << what << ": group " << q << " row " << i;
  };
  if (info->thread_begin) info->thread_begin();
  load(x);
  call(1, want_x, "first contents");
  call(1, want_x, "same contents, same generation");
  load(y);
  call(2, want_y, "repacked in place, next generation");
  load(x);
  call(0, want_x, "repacked in place, unnamed");
  load(y);
  call(0, want_y, "repacked again, unnamed");
  if (info->thread_end) info->thread_end();
}

// ---- raw BF16 GEMM -------------------------------------------------------------------------------------------

TEST_P(Engines, RawGemmWithinSummationBoundAndPackedEqualsUnpacked) {
  struct Shape {
    std::int64_t m, n, k;
    bool ta, tb;
  };
  std::uint64_t seed = 1;
  for (const Shape& cs : {Shape{1, 1, 1, false, false}, Shape{2, 15, 17, false, true}, Shape{33, 31, 63, true, false},
                          Shape{65, 16, 257, true, true}, Shape{257, 33, 65, false, false},
                          Shape{31, 255, 32, false, true}, Shape{63, 65, 513, false, false}}) {
    SCOPED_TRACE(testing::Message() << cs.m << "x" << cs.n << "x" << cs.k << (cs.ta ? " T" : " N")
                                    << (cs.tb ? "T" : "N"));
    std::mt19937_64 rng(seed++);
    std::uniform_real_distribution<float> u(-1, 1);
    const std::int64_t lda = (cs.ta ? cs.k : cs.m) + 2, ldb = (cs.tb ? cs.n : cs.k) + 1, ldc = cs.m + 3;
    std::vector<bf16_t> a(std::size_t(lda * (cs.ta ? cs.m : cs.k))), b(std::size_t(ldb * (cs.tb ? cs.k : cs.n)));
    for (auto& x : a) x = float_to_bf16(u(rng));
    for (auto& x : b) x = float_to_bf16(u(rng));
    const pack::MatrixView<bf16_t> av{a.data(), lda, cs.ta}, bv{b.data(), ldb, cs.tb};
    std::vector<float> cr(std::size_t(ldc * cs.n), -5.f), ce = cr, cp = cr;
    ASSERT_TRUE(
        driver::raw_gemm(*engine::engine_info(BF16X_ENGINE_REFERENCE), cs.m, cs.n, cs.k, av, bv, cr.data(), ldc));
    ASSERT_TRUE(driver::raw_gemm(*info, cs.m, cs.n, cs.k, av, bv, ce.data(), ldc));
    driver::RawPacked packed;
    driver::raw_pack(av, bv, cs.m, cs.n, cs.k, packed);
    ASSERT_TRUE(driver::raw_gemm_packed(*info, packed, cp.data(), ldc));
    ASSERT_EQ(0, std::memcmp(ce.data(), cp.data(), ce.size() * sizeof(float))) << "packed entry differs";
    if (bitwise_on_fp32_path(id())) {
      ASSERT_EQ(0, std::memcmp(ce.data(), cr.data(), ce.size() * sizeof(float))) << "differs from the reference";
    }
    // Every element within k u S of the exact sum of its k products (one rounding per product at most).
    for (std::int64_t j = 0; j < cs.n; ++j) {
      for (std::int64_t i = 0; i < cs.m; ++i) {
        double exact = 0, s = 0;
        for (std::int64_t l = 0; l < cs.k; ++l) {
          const double p = double(bf16_to_float(av(i, l))) * double(bf16_to_float(bv(l, j)));
          exact += p;  // FP64 sum: its error is far below the FP32 bound
          s += std::fabs(p);
        }
        const double x = cr[std::size_t(i + j * ldc)], y = ce[std::size_t(i + j * ldc)];
        const double bound = double(cs.k) * 0x1p-24 * s * 1.001 + double(cs.k) * 0x1p-126;
        ASSERT_LE(std::fabs(x - exact), bound) << "reference (" << i << "," << j << ")";
        ASSERT_LE(std::fabs(y - exact), bound) << name() << " (" << i << "," << j << ")";
        ASSERT_LE(std::fabs(x - y), 2 * bound) << "(" << i << "," << j << ")";
      }
      for (std::int64_t i = cs.m; i < ldc; ++i) ASSERT_EQ(ce[std::size_t(i + j * ldc)], -5.f) << "wrote past m";
    }
  }
}

// ---- full GEMMs through the C API ----------------------------------------------------------------------------

constexpr std::int64_t kSizes[] = {1, 2, 3, 5, 8, 9, 10, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257};

struct Variant {
  int mode;
  bool fuse;
  int block_k;  // 0: default
};

template <typename T>
int call(Problem<T>& p, std::vector<T>& c, int engine, const Variant& v) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = v.mode;
  o.engine = engine;
  o.fuse_diagonals = v.fuse;
  o.block_k = v.block_k;
  c = p.c;
  if constexpr (sizeof(T) == 8)
    return bf16x_dgemm_ex(bf16x_layout(p.layout), bf16x_transpose(p.ta), bf16x_transpose(p.tb), p.m, p.n, p.k, p.alpha,
                          p.a.data(), p.lda, p.b.data(), p.ldb, p.beta, c.data(), p.ldc, &o);
  else
    return bf16x_sgemm_ex(bf16x_layout(p.layout), bf16x_transpose(p.ta), bf16x_transpose(p.tb), p.m, p.n, p.k, p.alpha,
                          p.a.data(), p.lda, p.b.data(), p.ldb, p.beta, c.data(), p.ldc, &o);
}

template <typename T>
std::string describe(const Problem<T>& p) {
  return "m,n,k=" + std::to_string(p.m) + "," + std::to_string(p.n) + "," + std::to_string(p.k) +
         (p.layout == BF16X_ROW_MAJOR ? " row" : " col") + (p.ta == BF16X_NO_TRANS ? " N" : " T") +
         (p.tb == BF16X_NO_TRANS ? "N" : "T") + " ld+" +
         std::to_string(p.ldc - (p.layout == BF16X_COL_MAJOR ? p.m : p.n));
}

const std::vector<Variant>& all_fp64() {
  static const std::vector<Variant> v = [] {
    std::vector<Variant> r;
    for (int mode : kFp64Modes)
      for (bool fuse : {false, true}) r.push_back({mode, fuse, 0});
    r.push_back({BF16X_MODE_FP64X21, true, 64});  // 4 products per fused accumulator
    r.push_back({BF16X_MODE_FP64X10, true, 32});  // 8
    r.push_back({BF16X_MODE_FP64X15, false, 128});
    return r;
  }();
  return v;
}

// `count` variants starting at the i-th, cycling: every variant runs over the sweep, not on every shape (the scalar
// reference engine costs a full 32x32 tile per product however small the shape).
std::vector<Variant> rotate(std::size_t i, std::size_t count) {
  std::vector<Variant> r;
  for (std::size_t q = 0; q < count; ++q) r.push_back(all_fp64()[(i + q) % all_fp64().size()]);
  return r;
}

template <typename T>
void expect_same_c(const std::vector<T>& ref, const std::vector<T>& got, const char* name) {
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (std::memcmp(&ref[i], &got[i], sizeof(T)) != 0)
      FAIL() << "C[" << i << "]: reference " << ref[i] << " " << name << " " << got[i];
}

void expect_fp64_equal(int engine, std::int64_t m, std::int64_t n, std::int64_t k, int layout, int ta, int tb,
                       std::int64_t pad, std::uint64_t seed, const std::vector<Variant>& variants) {
  Problem<double> p(m, n, k, layout, ta, tb, seed, pad, -3, 3);
  if (seed % 3 == 0) {
    p.alpha = -1.5;
    p.beta = 0.25;
  }
  for (const Variant& v : variants) {
    SCOPED_TRACE(describe(p) + " " + bf16x_mode_name(v.mode) + (v.fuse ? " fused" : "") +
                 (v.block_k ? " bk=" + std::to_string(v.block_k) : ""));
    std::vector<double> cr, ce;
    ASSERT_EQ(call(p, cr, BF16X_ENGINE_REFERENCE, v), BF16X_OK);
    ASSERT_EQ(call(p, ce, engine, v), BF16X_OK);
    expect_same_c(cr, ce, bf16x_engine_name(engine));
  }
}

TEST_P(Engines, GemmFp64ModesEqualReferenceOnSmallOddShapes) {
  std::uint64_t seed = 1;
  for (std::int64_t m : {1, 2, 15, 16, 17, 31, 32, 33})
    for (std::int64_t n : {1, 17, 33})
      for (std::int64_t k : {1, 2, 31, 33}) {
        expect_fp64_equal(id(), m, n, k, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 0, seed, rotate(seed, 2));
        ++seed;
        if (HasFatalFailure()) return;
      }
}

TEST_P(Engines, GemmFp64ModesEqualReferenceOverSizesLayoutsAndTransposes) {
  constexpr int n = int(std::size(kSizes));
  std::uint64_t seed = 100;
  for (int i = 0; i < n; ++i) {
    // Every size appears as m, as n and as k; the large ones meet small partners to keep the reference quick.
    const std::int64_t m = kSizes[i], nn = kSizes[(i + 5) % n], k = kSizes[(i + 11) % n];
    const int layout = i % 2 ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
    const int ta = (i / 2) % 2 ? BF16X_TRANS : BF16X_NO_TRANS, tb = (i / 4) % 2 ? BF16X_TRANS : BF16X_NO_TRANS;
    expect_fp64_equal(id(), m, nn, k, layout, ta, tb, i % 3 == 0 ? 0 : 5, seed, rotate(std::size_t(i), 3));
    ++seed;
    if (HasFatalFailure()) return;
  }
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (int ta : {BF16X_NO_TRANS, BF16X_TRANS})
      for (int tb : {BF16X_NO_TRANS, BF16X_TRANS}) {
        expect_fp64_equal(id(), 65, 63, 257, layout, ta, tb, 3, seed, rotate(std::size_t(seed), 2));
        ++seed;
        if (HasFatalFailure()) return;
      }
}

TEST_P(Engines, GemmFp64LargeShapesSeveralBlocks) {
  const std::vector<Variant> v = {{BF16X_MODE_FP64X6, false, 0}, {BF16X_MODE_FP64X21, true, 64}};
  expect_fp64_equal(id(), 257, 255, 33, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 1, 7, v);
  expect_fp64_equal(id(), 255, 257, 65, BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, 0, 8, v);
  expect_fp64_equal(id(), 33, 65, 513, BF16X_COL_MAJOR, BF16X_TRANS, BF16X_TRANS, 2, 9, v);
}

// fp32x6. Bit for bit where the engine computes the reference's pair steps. Otherwise: per k-block of padded depth
// kp both engines sum the same 6*kp exact products into a fresh FP32 accumulator, with at most one rounding per
// product: each block sum is within 6 kp u S_b of the exact one (u = 2^-24, S_b = the block's sum of |a_i b_j|),
// the two within 2 * 6 kp u S_b. The driver adds the block sums in FP32 (one rounding each, at most u S per
// engine) and scales in FP64, then rounds once to FP32 (at most u |C| per engine). Summed: |C_e - C_ref| <=
// (12 k_pad + 2 nkb + 2) u |alpha| S + 2u |C|, with S <= 1.02 (|A||B|)_ij since the three slices of each value add
// up to at most (1 + 2^-7 + 2^-15) of its magnitude. The inputs here keep every slice normal.
TEST_P(Engines, GemmFp32x6) {
  constexpr double u = 0x1p-24;
  constexpr int n = int(std::size(kSizes));
  const bool bitwise = bitwise_on_fp32_path(id());
  std::int64_t differing = 0, total = 0;
  std::uint64_t seed = 300;
  for (int i = 0; i < 2 * n; ++i) {
    const std::int64_t m = kSizes[i % n], nn = kSizes[(i + 3) % n], k = kSizes[(i * 7 + 2) % n];
    const int layout = i % 2 ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
    const int ta = (i / 2) % 2 ? BF16X_TRANS : BF16X_NO_TRANS, tb = (i / 4) % 2 ? BF16X_TRANS : BF16X_NO_TRANS;
    Problem<float> p(m, nn, k, layout, ta, tb, seed++, i % 3 == 0 ? 0 : 4, -2, 2);
    if (i % 4 == 3) {
      p.alpha = 2.5f;
      p.beta = -0.5f;
    }
    for (int bk : {0, 256}) {
      const Variant v{BF16X_MODE_FP32X6, false, bk};
      SCOPED_TRACE(describe(p) + " bk=" + std::to_string(bk));
      std::vector<float> cr, ce;
      ASSERT_EQ(call(p, cr, BF16X_ENGINE_REFERENCE, v), BF16X_OK);
      ASSERT_EQ(call(p, ce, id(), v), BF16X_OK);
      if (bitwise) {
        expect_same_c(cr, ce, name());
        if (HasFatalFailure()) return;
        continue;
      }
      const check::Mat<double> absab = check::abs_gemm(p.opa, p.opb);
      const int kb = bk ? bk : 64;
      const double kpad = double((k + 31) / 32 * 32), nkb = double((k + kb - 1) / kb);
      for (std::int64_t c = 0; c < p.n; ++c)
        for (std::int64_t r = 0; r < p.m; ++r) {
          const std::size_t at = Problem<float>::at(p.layout, r, c, p.ldc);
          const double x = cr[at], y = ce[at];
          const double bound = (12 * kpad + 2 * nkb + 2) * u * std::fabs(double(p.alpha)) * 1.02 * absab(r, c) +
                               2 * u * std::max(std::fabs(x), std::fabs(y));
          ASSERT_LE(std::fabs(x - y), bound) << "(" << r << "," << c << ")";
          differing += x != y;
          ++total;
        }
    }
  }
  if (!bitwise)
    std::printf("[          ] fp32x6: %lld of %lld elements differ from the reference\n", (long long)differing,
                (long long)total);
}

// The final write rounds alpha * (A B) and beta * C separately and then their sum, as its definition says
// (no fused multiply-add in any code path): with inputs whose products the emulation computes exactly (small
// multiples of 1/16), C must equal fl(fl(alpha * AB) + fl(beta * C0)) bit for bit, in every layout.
TEST_P(Engines, GemmWriteRoundsAlphaAndBetaTermsSeparately) {
  std::mt19937_64 rng(99);
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{37, 45, 64}, {300, 17, 40}}) {
      std::vector<double> a(std::size_t(m * k)), b(std::size_t(k * n)), c0(std::size_t(m * n));
      for (auto& x : a) x = double(int(rng() % 33) - 16) / 16;
      for (auto& x : b) x = double(int(rng() % 33) - 16) / 16;
      std::uniform_real_distribution<double> u(-1, 1);
      for (auto& x : c0) x = u(rng);
      const double alpha = 1.0 / 3.0, beta = -0.7;
      const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t rows, std::int64_t cols) {
        return std::size_t(layout == BF16X_COL_MAJOR ? i + j * rows : j + i * cols);
      };
      for (int mode : {BF16X_MODE_FP64X21, BF16X_MODE_FP32X6}) {
        SCOPED_TRACE(std::string(bf16x_mode_name(mode)) + (layout == BF16X_ROW_MAJOR ? " row" : " col"));
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = mode;
        o.engine = id();
        const std::int64_t lda = layout == BF16X_COL_MAJOR ? m : k, ldb = layout == BF16X_COL_MAJOR ? k : n;
        const std::int64_t ldc = layout == BF16X_COL_MAJOR ? m : n;
        std::vector<double> c = c0;
        std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), cf(c0.begin(), c0.end());
        if (mode == BF16X_MODE_FP32X6)
          ASSERT_EQ(bf16x_sgemm_ex(bf16x_layout(layout), BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, float(alpha),
                                   af.data(), lda, bf.data(), ldb, float(beta), cf.data(), ldc, &o),
                    BF16X_OK);
        else
          ASSERT_EQ(bf16x_dgemm_ex(bf16x_layout(layout), BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, alpha, a.data(), lda,
                                   b.data(), ldb, beta, c.data(), ldc, &o),
                    BF16X_OK);
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t i = 0; i < m; ++i) {
            double ab = 0;
            for (std::int64_t l = 0; l < k; ++l) ab += a[at(i, l, m, k)] * b[at(l, j, k, n)];  // exact
            const std::size_t q = at(i, j, m, n);
            if (mode == BF16X_MODE_FP32X6) {
              const volatile double x = double(float(alpha)) * ab, y = double(float(beta)) * double(float(c0[q]));
              ASSERT_EQ(float(x + y), cf[q]) << "(" << i << "," << j << ")";
            } else {
              const volatile double x = alpha * ab, y = beta * c0[q];
              ASSERT_EQ(x + y, c[q]) << "(" << i << "," << j << ")";
            }
          }
      }
    }
}

INSTANTIATE_TEST_SUITE_P(All, Engines, testing::ValuesIn(registered_engines()), engine_name);

}  // namespace

// Which engines this machine can run and which it cannot, and why (informational; never fails).
TEST(EngineCoverage, Summary) {
  std::string ran, skipped;
  for (int id : registered_engines()) {
    const std::string name = bf16x_engine_name(id);
    if (engine::engine_usable(id))
      ran += " " + name;
    else
      skipped += " " + name + " (" + unavailable_reason(id) + ")";
  }
  std::printf("[ engines  ] runnable here:%s\n[ engines  ] skipped here:%s\n", ran.c_str(),
              skipped.empty() ? " none" : skipped.c_str());
  RecordProperty("engines_run", ran);
  RecordProperty("engines_skipped", skipped);
  EXPECT_FALSE(ran.empty());
}

// The engine table (engine/records.cpp): one row per id and name, each with a kernel, the shapes the packers build,
// and the names the C API maps both ways.
TEST(EngineRecords, EveryRowIsOneUsableShapeAndNamedBothWays) {
  std::set<int> ids;
  std::set<std::string> names;
  for (const engine::Record& r : engine::records()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.name;
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_TRUE(r.bf16.kernel || r.int8.kernel) << r.name << " has neither side";
    EXPECT_EQ(r.bf16.kernel != nullptr, r.bf16.available != nullptr) << r.name;
    EXPECT_EQ(r.int8.kernel != nullptr, r.int8.available != nullptr) << r.name;
    EXPECT_TRUE(r.bf16_tile == engine::kBf16Packed) << r.name;
    EXPECT_TRUE(r.int8_tile == engine::kInt8Packed) << r.name;
    EXPECT_EQ(bf16x_engine_from_name(r.name), r.id);
    EXPECT_STREQ(bf16x_engine_name(r.id), r.name);
    // The cost model plans with a rate for every side the engine has.
    if (r.bf16.kernel) {
      EXPECT_GT(r.rates.fp64_path, 0) << r.name;
    }
    if (r.int8.kernel) {
      EXPECT_GT(r.rates.int8, 0) << r.name;
    }
  }
  // The oracle closes every fallback chain and the auto choice of both sides.
  EXPECT_TRUE(engine::engine_usable(BF16X_ENGINE_REFERENCE));
  EXPECT_TRUE(engine::int8_usable(BF16X_ENGINE_REFERENCE));
  EXPECT_TRUE(engine::int8_usable(engine::best_int8()));
  EXPECT_TRUE(engine::engine_usable(engine::best_usable(BF16X_ENGINE_AMX)));
}
