// CRT modes (fp64c<N>, fp32c<N>): the scaling invariant, the error bound of tests/crt_bound.hpp against the
// double-double reference, BLAS semantics through the C API, IEEE specials, error returns, names.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x_runtime.h"
#include "check/exact_gemm.hpp"
#include "crt/crt_driver.hpp"
#include "crt/crt_mode.hpp"
#include "crt/direct_products.hpp"
#include "crt/moduli.hpp"
#include "crt_bound.hpp"
#include "engine/records.hpp"
#include "gemm_fixture.hpp"

namespace bf16x::test {
namespace {

// Entries u * 2^e with u uniform in [-1, 1] and e uniform in [emin, emax] per entry, plus per-row (A) / per-column
// (B) offsets from `spread` (full-range tests), zero lines where asked.
template <typename T>
check::Mat<T> make(std::int64_t r, std::int64_t c, std::uint64_t seed, double emin, double emax, int spread, bool rows,
                   bool zero_line = false) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1), e(emin, emax);
  std::uniform_int_distribution<int> off(-spread, spread);
  std::vector<int> o(std::size_t(rows ? r : c));
  for (int& x : o) x = spread ? off(g) : 0;
  check::Mat<T> x(r, c);
  for (std::int64_t j = 0; j < c; ++j)
    for (std::int64_t i = 0; i < r; ++i) x(i, j) = T(std::ldexp(u(g) * std::exp2(e(g)), o[std::size_t(rows ? i : j)]));
  if (zero_line && r > 2 && c > 2) {
    for (std::int64_t j = 0; j < c; ++j)
      if (rows) x(1, j) = 0;
    for (std::int64_t i = 0; i < r; ++i)
      if (!rows) x(i, 1) = 0;
  }
  return x;
}

template <typename T>
void check_bound(const check::Mat<T>& a, const check::Mat<T>& b, int moduli, int engine, const char* what,
                 bool fast = false) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  check::Mat<T> c(m, n);
  crt::CrtScales s;
  crt::CrtConfig cfg;
  cfg.moduli = moduli;
  cfg.engine = engine::int8_engine(engine);
  cfg.scales = &s;
  cfg.fast_scaling = fast;
  const pack::GemmArgs<T> args{m, n, k, T(1), {a.data(), m, false}, {b.data(), k, false}, T(0), c.data(), m};
  ASSERT_EQ(crt::gemm_crt(args, cfg), util::DriverStatus::ok);
  if (fast) {
    // Fast scaling's guarantee (docs/numerics.md): ||64 A^_i.||^2 <= 4096 k, so rho_i <= ceil(log2 k) + 1 and
    // every nonzero line keeps sa_i >= floor((L - ceil(log2 k) - 1) / 2) bits.
    const int L = crt::crt_plan(moduli).L, lk = int(std::ceil(std::log2(double(k))));
    const int least = int(std::floor((L - lk - 1) / 2.0));
    for (std::int64_t i = 0; i < m; ++i) {
      bool zero = true;
      for (std::int64_t l = 0; l < k; ++l) zero = zero && a(i, l) == 0;
      if (!zero) {
        EXPECT_GE(s.sa[i], least) << what << " row " << i;
      }
    }
    for (std::int64_t j = 0; j < n; ++j) {
      bool zero = true;
      for (std::int64_t l = 0; l < k; ++l) zero = zero && b(l, j) == 0;
      if (!zero) {
        EXPECT_GE(s.sb[j], least) << what << " column " << j;
      }
    }
  }
  const CrtBound bd = crt_bound(a, b, s, moduli);
  EXPECT_LE(bd.max_invariant_excess, 0.0) << what;
  const check::Mat<double> ref = check::exact_gemm(a, b);
  // Subnormal products: the double-double reference's TwoProd is exact only above the subnormal range, so it
  // carries up to k half-units of denorm_min itself.
  const double uT = sizeof(T) == 4 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  int bad = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      const double err = std::fabs(double(c(i, j)) - ref(i, j));
      const double tol = bd.tol(i, j) * (1 + 1e-14) + 3 * uT * std::fabs(ref(i, j)) +
                         double(k + 2) * double(std::numeric_limits<double>::denorm_min()) +
                         2 * double(std::numeric_limits<T>::denorm_min());
      if (!(err <= tol) && bad++ < 5)
        ADD_FAILURE() << what << " N=" << moduli << " (" << i << "," << j << "): |C - R| = " << err << " > bound "
                      << tol << " (R = " << ref(i, j) << ")";
    }
}

TEST(CrtGemm, ScalingInvariantAndErrorBoundFp64) {
  for (int N : {8, 10, 12, 14, 16, 18, 20}) {
    const auto a = make<double>(70, 150, 1 + N, 0, 0, 0, true), b = make<double>(150, 45, 100 + N, 0, 0, 0, false);
    check_bound(a, b, N, BF16X_ENGINE_REFERENCE, "uniform");
  }
  // Wide exponents inside rows and columns, and a full-range spread across them (subnormal to near-overflow
  // magnitudes in different rows), with zero lines.
  for (int N : {8, 13, 20}) {
    const auto a = make<double>(64, 96, 7 + N, -30, 30, 0, true), b = make<double>(96, 40, 8 + N, -30, 30, 0, false);
    check_bound(a, b, N, BF16X_ENGINE_REFERENCE, "wide");
    // Rows of A (then columns of B) spread over 2^-1000 .. 2^1000, the other operand near 1: products from
    // subnormal to near-overflow.
    const auto a2 = make<double>(40, 70, 9 + N, -8, 8, 1000, true, true);
    const auto b2 = make<double>(70, 33, 10 + N, -8, 8, 0, false, true);
    check_bound(a2, b2, N, BF16X_ENGINE_REFERENCE, "full range rows");
    const auto a4 = make<double>(40, 70, 11 + N, -8, 8, 0, true);
    const auto b4 = make<double>(70, 33, 12 + N, -8, 8, 1000, false);
    check_bound(a4, b4, N, BF16X_ENGINE_REFERENCE, "full range columns");
  }
  // Subnormal inputs.
  const auto a3 = make<double>(33, 64, 11, -1070, -1060, 0, true), b3 = make<double>(64, 35, 12, 0, 40, 0, false);
  check_bound(a3, b3, 16, BF16X_ENGINE_REFERENCE, "subnormal A");
}

TEST(CrtGemm, ScalingInvariantAndErrorBoundFp32) {
  for (int N = BF16X_FP32C_MIN; N <= BF16X_FP32C_MAX; ++N) {
    const auto a = make<float>(50, 130, 21 + N, 0, 0, 0, true), b = make<float>(130, 66, 40 + N, 0, 0, 0, false);
    check_bound(a, b, N, BF16X_ENGINE_REFERENCE, "uniform fp32");
    const auto a2 = make<float>(40, 64, 61 + N, -20, 20, 40, true, true);
    const auto b2 = make<float>(64, 37, 62 + N, -20, 20, 40, false);
    check_bound(a2, b2, N, BF16X_ENGINE_REFERENCE, "wide fp32");
  }
}

// Fast scaling (scales from the 2-norms, no bound GEMM): the same invariant sum_l |A'||B'| <= 2^L and hence the
// same error bound in terms of the scales it chose, on the accurate scaling's inputs.
TEST(CrtGemm, FastScalingInvariantAndErrorBound) {
  for (int N : {8, 12, 16, 20}) {
    const auto a = make<double>(70, 150, 1 + N, 0, 0, 0, true), b = make<double>(150, 45, 100 + N, 0, 0, 0, false);
    check_bound(a, b, N, BF16X_ENGINE_REFERENCE, "fast uniform", true);
    const auto a1 = make<double>(64, 96, 7 + N, -30, 30, 0, true), b1 = make<double>(96, 40, 8 + N, -30, 30, 0, false);
    check_bound(a1, b1, N, BF16X_ENGINE_REFERENCE, "fast wide", true);
    const auto a2 = make<double>(40, 70, 9 + N, -8, 8, 1000, true, true);
    const auto b2 = make<double>(70, 33, 10 + N, -8, 8, 0, false, true);
    check_bound(a2, b2, N, BF16X_ENGINE_REFERENCE, "fast full range rows", true);
    const auto a4 = make<double>(40, 70, 11 + N, -8, 8, 0, true);
    const auto b4 = make<double>(70, 33, 12 + N, -8, 8, 1000, false);
    check_bound(a4, b4, N, BF16X_ENGINE_REFERENCE, "fast full range columns", true);
  }
  const auto a3 = make<double>(33, 64, 11, -1070, -1060, 0, true), b3 = make<double>(64, 35, 12, 0, 40, 0, false);
  check_bound(a3, b3, 16, BF16X_ENGINE_REFERENCE, "fast subnormal A", true);
  for (int N = BF16X_FP32C_MIN; N <= BF16X_FP32C_MAX; ++N) {
    const auto a = make<float>(50, 130, 21 + N, 0, 0, 0, true), b = make<float>(130, 66, 40 + N, 0, 0, 0, false);
    check_bound(a, b, N, BF16X_ENGINE_REFERENCE, "fast uniform fp32", true);
    const auto a2 = make<float>(40, 64, 61 + N, -20, 20, 40, true, true);
    const auto b2 = make<float>(64, 37, 62 + N, -20, 20, 40, false);
    check_bound(a2, b2, N, BF16X_ENGINE_REFERENCE, "fast wide fp32", true);
  }
  const auto a5 = make<double>(32, 3000, 5, 0, 0, 0, true), b5 = make<double>(3000, 20, 6, 0, 0, 0, false);
  check_bound(a5, b5, 15, bf16x_get_crt_engine(), "fast k = 3000", true);
}

// Past 2^17 / kc k-blocks the int32 accumulators are reduced modulo p_t on the way.
TEST(CrtGemm, LongKReducesAccumulators) {
  const auto a = make<double>(32, 140000, 5, 0, 0, 0, true), b = make<double>(140000, 20, 6, 0, 0, 0, false);
  check_bound(a, b, 16, bf16x_get_crt_engine(), "k = 140000");
}

// Past 2^31 / (kc 4096) k-blocks (k > 2^19) the bound pass's int32 digit sums no longer fit at once and are added
// into FP64 sums on the way; below that it reads its maxima from the accumulators themselves.
// The terms past the last such flush (k-block 256 on) carry most of H here: entries of 2^-30 before, of order 1
// after, so a bound pass that dropped or lost them would choose scales that overflow the CRT range.
TEST(CrtGemm, VeryLongKFlushesTheBoundSums) {
  constexpr std::int64_t k = 600000, tail = 256 * 2048;
  auto a = make<double>(8, k, 7, 0, 0, 0, true), b = make<double>(k, 5, 8, 0, 0, 0, false);
  for (std::int64_t l = 0; l < tail; ++l) {
    for (std::int64_t i = 0; i < a.rows; ++i) a(i, l) = std::ldexp(a(i, l), -30);
    for (std::int64_t j = 0; j < b.cols; ++j) b(l, j) = std::ldexp(b(l, j), -30);
  }
  check_bound(a, b, 15, bf16x_get_crt_engine(), "k = 600000");
}

// Every engine gives the same C bit for bit on a full GEMM (edges in m, n and k included).
TEST(CrtGemm, EnginesBitForBit) {
  for (int mode : {int(BF16X_MODE_FP64C(14)), int(BF16X_MODE_FP64C(20)), int(BF16X_MODE_FP32C(7))}) {
    const bool dbl = crt::is_fp64c(mode);
    std::vector<std::vector<unsigned char>> results;
    std::vector<const char*> names;
    for (int e : {BF16X_ENGINE_REFERENCE, BF16X_ENGINE_AVX512VNNI, BF16X_ENGINE_AVX2_INT8, BF16X_ENGINE_AMX_MODEL,
                  BF16X_ENGINE_AMX}) {
      if (!engine::int8_usable(e)) continue;
      std::vector<unsigned char> bytes;
      if (dbl) {
        Problem<double> p(77, 65, 300, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 3, 2, -10, 10);
        ASSERT_EQ(p.run(mode, e), BF16X_OK);
        bytes.assign(reinterpret_cast<unsigned char*>(p.c.data()),
                     reinterpret_cast<unsigned char*>(p.c.data() + p.c.size()));
      } else {
        Problem<float> p(77, 65, 300, BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, 4, 1, -10, 10);
        ASSERT_EQ(p.run(mode, e), BF16X_OK);
        bytes.assign(reinterpret_cast<unsigned char*>(p.c.data()),
                     reinterpret_cast<unsigned char*>(p.c.data() + p.c.size()));
      }
      results.push_back(bytes);
      names.push_back(bf16x_engine_name(e));
    }
    ASSERT_GE(results.size(), 2u);  // reference and the tile model run anywhere
    for (std::size_t i = 1; i < results.size(); ++i)
      EXPECT_EQ(results[i], results[0]) << names[i] << " vs " << names[0] << " in " << bf16x_mode_name(mode);
  }
}

// C API: layouts, transposes, leading dimensions, alpha/beta with BLAS semantics, against the bound.
TEST(CrtGemm, LayoutsAndAlphaBeta) {
  struct Case {
    int layout, ta, tb;
    double alpha, beta;
  };
  const Case cases[] = {{BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 1, 0},
                        {BF16X_COL_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, -2.5, 0.5},
                        {BF16X_ROW_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 0.75, -1},
                        {BF16X_ROW_MAJOR, BF16X_CONJ_TRANS, BF16X_CONJ_TRANS, 3, 1}};
  int seed = 50;
  for (const Case& cs : cases) {
    Problem<double> p(45, 38, 70, cs.layout, cs.ta, cs.tb, seed++, 3, -5, 5);
    p.alpha = cs.alpha;
    p.beta = cs.beta;
    if (cs.beta == 0)
      for (double& x : p.c) x = NAN;  // beta = 0 never reads C
    ASSERT_EQ(p.run(BF16X_MODE_FP64C(16)), BF16X_OK);
    // The scales depend only on op(A) and op(B): the driver on the column-major copies gives the same ones.
    crt::CrtScales s;
    crt::CrtConfig cfg;
    cfg.moduli = 16;
    cfg.engine = engine::int8_engine(BF16X_ENGINE_REFERENCE);
    cfg.scales = &s;
    check::Mat<double> tmp(p.m, p.n);
    const pack::GemmArgs<double> args{p.m, p.n,        p.k, 1.0, {p.opa.data(), p.m, false}, {p.opb.data(), p.k, false},
                                      0.0, tmp.data(), p.m};
    ASSERT_EQ(crt::gemm_crt(args, cfg), util::DriverStatus::ok);
    const CrtBound bd = crt_bound(p.opa, p.opb, s, 16);
    const check::Mat<double> ref = check::exact_gemm(p.opa, p.opb);
    const double u = std::ldexp(1.0, -53);
    for (std::int64_t j = 0; j < p.n; ++j)
      for (std::int64_t i = 0; i < p.m; ++i) {
        const double want = cs.alpha * ref(i, j) + (cs.beta == 0 ? 0.0 : cs.beta * p.c0(i, j));
        const double tol = std::fabs(cs.alpha) * bd.tol(i, j) * (1 + 4 * u) +
                           3 * u * (std::fabs(cs.alpha * ref(i, j)) + std::fabs(cs.beta * p.c0(i, j)));
        ASSERT_LE(std::fabs(p.cval(i, j) - want), tol) << i << "," << j;
      }
    // Padding between columns untouched.
    for (std::size_t e = 0; e < p.c.size(); ++e) {
      const std::int64_t lead = std::int64_t(e) % p.ldc;
      if (lead >= (cs.layout == BF16X_COL_MAJOR ? p.m : p.n)) {
        ASSERT_TRUE(std::isnan(p.c[e]));
      }
    }
  }
}

TEST(CrtGemm, MeetsNativeDgemmOnUniform) {
  const std::int64_t n = 256;
  Problem<double> p(n, n, n, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 77);
  Problem<double> q = p;
  ASSERT_EQ(p.run(BF16X_MODE_FP64C(16)), BF16X_OK);
  ASSERT_EQ(q.run(BF16X_MODE_NATIVE), BF16X_OK);
  const check::Mat<double> ref = check::exact_gemm(p.opa, p.opb);
  long double e1 = 0, e2 = 0, r2 = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      e1 += std::pow((long double)(p.cval(i, j) - ref(i, j)), 2);
      e2 += std::pow((long double)(q.cval(i, j) - ref(i, j)), 2);
      r2 += std::pow((long double)ref(i, j), 2);
    }
  EXPECT_LE(e1, e2) << "fp64c16 eF " << double(std::sqrt(e1 / r2)) << " native " << double(std::sqrt(e2 / r2));
}

// NaN/Inf anywhere in A or B: the host GEMM runs (as for the BF16 modes), bit-equal to native mode.
TEST(CrtGemm, SpecialValuesRouteToHost) {
  for (double special : {double(NAN), double(INFINITY), -double(INFINITY)}) {
    for (int where = 0; where < 2; ++where) {
      Problem<double> p(20, 18, 33, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 9);
      p.beta = 0.5;
      (where ? p.b : p.a)[5] = special;
      Problem<double> q = p;
      bf16x_stats st{};
      ASSERT_EQ(p.run(BF16X_MODE_FP64C(12), BF16X_ENGINE_AUTO, &st), BF16X_OK);
      ASSERT_EQ(q.run(BF16X_MODE_NATIVE), BF16X_OK);
      EXPECT_EQ(st.mode, BF16X_MODE_NATIVE);
      EXPECT_EQ(std::memcmp(p.c.data(), q.c.data(), p.c.size() * sizeof(double)), 0);
    }
    Problem<float> p(20, 18, 33, BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, 10);
    p.b[7] = float(special);
    Problem<float> q = p;
    ASSERT_EQ(p.run(BF16X_MODE_FP32C(6)), BF16X_OK);
    ASSERT_EQ(q.run(BF16X_MODE_NATIVE), BF16X_OK);
    EXPECT_EQ(std::memcmp(p.c.data(), q.c.data(), p.c.size() * sizeof(float)), 0);
  }
}

TEST(CrtGemm, ErrorsLeaveCUntouched) {
  Problem<double> p(16, 16, 16, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 11);
  p.beta = 1;
  const std::vector<double> c0 = p.c;
  double* c = p.c.data();
  // lda too small
  EXPECT_EQ(bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 16, 16, 16, 1.0, p.a.data(), 15, p.b.data(),
                        p.ldb, 1.0, c, p.ldc, BF16X_MODE_FP64C(16)),
            BF16X_ERR_LDA);
  // fp32c for dgemm, fp64c for sgemm, out-of-range moduli counts
  for (int mode : {int(BF16X_MODE_FP32C(7)), BF16X_MODE_FP64C_BASE + 7, BF16X_MODE_FP64C_BASE + 21})
    EXPECT_EQ(p.run(mode), BF16X_ERR_MODE) << mode;
  Problem<float> f(8, 8, 8, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 12);
  EXPECT_EQ(f.run(BF16X_MODE_FP64C(12)), BF16X_ERR_MODE);
  EXPECT_EQ(f.run(BF16X_MODE_FP32C_BASE + 4), BF16X_ERR_MODE);
  // A BF16-only engine is the wrong kind (whether this CPU has it or not); an INT8 engine this CPU lacks is
  // unavailable.
  EXPECT_EQ(p.run(BF16X_MODE_FP64C(16), BF16X_ENGINE_AVX512BF16), BF16X_ERR_ENGINE_KIND);
  EXPECT_EQ(p.run(BF16X_MODE_FP64C(16), BF16X_ENGINE_AVX2), BF16X_ERR_ENGINE_KIND);
  for (int e : {BF16X_ENGINE_AMX, BF16X_ENGINE_AVX512VNNI, BF16X_ENGINE_AVX2_INT8})
    if (!bf16x_engine_available(e)) {
      EXPECT_EQ(p.run(BF16X_MODE_FP64C(16), e), BF16X_ERR_ENGINE);
    }
  EXPECT_EQ(std::memcmp(c0.data(), p.c.data(), c0.size() * sizeof(double)), 0);
}

TEST(CrtGemm, Names) {
  for (int n = BF16X_FP64C_MIN; n <= BF16X_FP64C_MAX; ++n) {
    const std::string name = "fp64c" + std::to_string(n);
    EXPECT_EQ(bf16x_mode_from_name(name.c_str()), BF16X_MODE_FP64C(n));
    EXPECT_STREQ(bf16x_mode_name(BF16X_MODE_FP64C(n)), name.c_str());
  }
  for (int n = BF16X_FP32C_MIN; n <= BF16X_FP32C_MAX; ++n) {
    const std::string name = "fp32c" + std::to_string(n);
    EXPECT_EQ(bf16x_mode_from_name(name.c_str()), BF16X_MODE_FP32C(n));
    EXPECT_STREQ(bf16x_mode_name(BF16X_MODE_FP32C(n)), name.c_str());
  }
  for (const char* bad : {"fp64c7", "fp64c21", "fp64c08", "fp32c4", "fp32c11", "fp64c", "fp64c1x", "fp32c+5"})
    EXPECT_EQ(bf16x_mode_from_name(bad), -1) << bad;
  EXPECT_EQ(bf16x_mode_name(BF16X_MODE_FP64C_BASE + 21), nullptr);
  EXPECT_STREQ(bf16x_engine_name(BF16X_ENGINE_AVX512VNNI), "avx512vnni");
  EXPECT_EQ(bf16x_engine_from_name("avx2-int8"), BF16X_ENGINE_AVX2_INT8);
}

}  // namespace
}  // namespace bf16x::test

namespace bf16x::test {
namespace {

// The workspace is bounded by the block sizes, the moduli and the thread count, not by m, n or k: the per-thread
// panels and accumulators, the operand caches, which take at most max(64 MiB, the per-thread panels), and the A
// panels kept for all k-blocks of a block row, at most 64 MiB over all threads.
TEST(CrtGemm, WorkspaceBoundedByBlocks) {
  crt::CrtConfig cfg;
  cfg.moduli = 20;
  cfg.threads = 4;
  // No cache fits here: the per-thread panels alone.
  const std::size_t big =
      crt::crt_workspace_bytes(20, 1 << 20, 1 << 20, 1 << 24, crt::crt_blocking(1 << 20, 1 << 20, 1 << 24, cfg));
  const std::size_t mid = crt::crt_workspace_bytes(20, 4096, 4096, 4096, crt::crt_blocking(4096, 4096, 4096, cfg));
  EXPECT_EQ(big, mid);
  EXPECT_LE(big, std::size_t(4) * 64 << 20);  // under 64 MiB per thread at N = 20
  for (std::int64_t n : {64, 512, 2048, 3000, 4096, 1 << 20})
    for (std::int64_t k : {64, 2048, 2049, 4096, 1 << 24}) {
      const std::size_t ws = crt::crt_workspace_bytes(20, n, n, k, crt::crt_blocking(n, n, k, cfg));
      EXPECT_LE(ws, big + std::max(big, std::size_t(64) << 20)) << n << " " << k;
    }
  // One thread, n = k = 2048, 15 moduli: B's residues (63 MB) fit the 64 MiB, so the call holds them once instead of
  // packing them again for each of the four block rows.
  cfg.threads = 1;
  EXPECT_GT(crt::crt_workspace_bytes(15, 2048, 2048, 2048, crt::crt_blocking(2048, 2048, 2048, cfg)),
            crt::crt_workspace_bytes(15, 4096, 4096, 4096, crt::crt_blocking(4096, 4096, 4096, cfg)));
  // There no cache fits, and the thread keeps the A panels of both k-blocks of a block row (15 planes of 16 panels,
  // 31.5 MB) instead of packing them again for each of its eight blocks; at k = 2^24 they would not fit: one k-block.
  const crt::Blocking b4 = crt::crt_blocking(4096, 4096, 4096, cfg), b24 = crt::crt_blocking(4096, 4096, 1 << 24, cfg);
  ASSERT_EQ(b4.kc, b24.kc);
  EXPECT_EQ(crt::crt_workspace_bytes(15, 4096, 4096, 4096, b4) - crt::crt_workspace_bytes(15, 4096, 4096, 1 << 24, b24),
            std::size_t(15) * std::size_t(b4.mc / 32) * engine::int8::a_panel_bytes(b4.kc));
}

// The operand caches change where the panels are packed, not what they hold: the same bits with and without them,
// over shapes that cache both operands, or A or B alone (n large, k past one k-block), at 1 and 3 threads. Without
// the caches, 300 x 1100 x 2100 at one thread keeps the A panels of both its k-blocks along its block row of three
// blocks (with them, A is cached).
TEST(CrtGemm, OperandCachesGiveTheSameBits) {
  struct Shape {
    std::int64_t m, n, k;
  };
  for (const Shape s :
       {Shape{45, 38, 70}, Shape{600, 300, 2100}, Shape{40, 1100, 2100}, Shape{520, 1030, 129}, Shape{300, 1100, 2100}})
    for (int threads : {1, 3})
      for (int moduli : {8, 20}) {
        Problem<double> p(s.m, s.n, s.k, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 61, 8, -12, 12);
        check::Mat<double> with(p.m, p.n), without(p.m, p.n);
        for (check::Mat<double>* c : {&with, &without}) {
          crt::CrtConfig cfg;
          cfg.moduli = moduli;
          cfg.threads = threads;
          cfg.engine = engine::int8_engine(engine::best_int8());  // this CPU's: the caches are the driver's
          cfg.operand_caches = c == &with;
          const pack::GemmArgs<double> args{
              p.m, p.n, p.k, 1.0, {p.opa.data(), p.m, false}, {p.opb.data(), p.k, false}, 0.0, c->data(), p.m};
          ASSERT_EQ(crt::gemm_crt(args, cfg), util::DriverStatus::ok);
        }
        ASSERT_EQ(std::memcmp(with.data(), without.data(), sizeof(double) * std::size_t(p.m * p.n)), 0)
            << s.m << "x" << s.n << "x" << s.k << ", " << threads << " threads, " << moduli << " moduli";
      }
}

// Tiny calls (crt/direct_products.hpp: up to 32 lines a side, m n k <= 3375, at most 16 moduli) take their bound
// and products exactly in integers, not on the INT8 engine; C must have the blocked passes' bits. The blocked run of
// each is the same call with 33 zero rows below op(A) (m > 32): a zero row changes no column's bound (its H is 0) and
// the rows' scales are their own, so its first m rows are the tiny call's entries. Every m, n, k in 1..17 for fp64c15
// and fp32c8; graded lines (their scales differ by up to 2^24), beta != 0 and an inexact alpha; a few shapes at the
// edges of the direct path's limits and the other moduli counts up to 16.
template <typename T>
void expect_direct_is_blocked(std::int64_t m, std::int64_t n, std::int64_t k, int moduli, std::uint64_t seed) {
  constexpr std::int64_t kPad = 33;
  const check::Mat<T> a = make<T>(m, k, seed, -2, 2, 12, true), b = make<T>(k, n, seed + 1, -2, 2, 12, false);
  check::Mat<T> ap(m + kPad, k), c0(m, n), cp(m + kPad, n);
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t i = 0; i < m; ++i) ap(i, l) = a(i, l);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) c0(i, j) = cp(i, j) = T(0.25) * T(i - j);
  for (const bool padded : {false, true}) {
    crt::CrtConfig cfg;
    cfg.moduli = moduli;
    cfg.threads = 1;
    cfg.engine = engine::int8_engine(engine::best_int8());
    check::Mat<T>& c = padded ? cp : c0;
    const std::int64_t rows = padded ? m + kPad : m;
    const pack::GemmArgs<T> args{
        rows, n, k, T(0.7), {(padded ? ap : a).data(), rows, false}, {b.data(), k, false}, T(-1.5), c.data(), rows};
    ASSERT_EQ(crt::gemm_crt(args, cfg), util::DriverStatus::ok);
    // The direct path runs no micro-tile; the blocked one does: where the shape fits the direct path, the two runs
    // are the two paths (elsewhere both are blocked, and must agree all the same).
    ASSERT_EQ(cfg.micro_tiles == 0, !padded && crt::direct_fits(m, n, k, moduli)) << m << "x" << n << "x" << k;
  }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      ASSERT_EQ(std::memcmp(&c0(i, j), &cp(i, j), sizeof(T)), 0)
          << m << "x" << n << "x" << k << ", " << moduli << " moduli, entry " << i << "," << j;
}

TEST(CrtGemm, DirectProductsOfTinyCallsGiveTheBlockedBits) {
  for (std::int64_t m = 1; m <= 17; ++m)
    for (std::int64_t n = 1; n <= 17; ++n)
      for (std::int64_t k = 1; k <= 17; ++k) {
        expect_direct_is_blocked<double>(m, n, k, 15, std::uint64_t(m * 400 + n * 20 + k));
        expect_direct_is_blocked<float>(m, n, k, 8, std::uint64_t(m * 400 + n * 20 + k));
      }
  for (int moduli : {2, 5, 9, 12, 14, 16})
    for (const auto& s : {std::array<std::int64_t, 3>{32, 3, 32}, {3, 32, 32}, {15, 15, 15}, {32, 32, 3}, {1, 1, 32}}) {
      expect_direct_is_blocked<double>(s[0], s[1], s[2], moduli, 99);
      expect_direct_is_blocked<float>(s[0], s[1], s[2], moduli, 98);
    }
}

// bf16x_workspace_bytes in a CRT mode is the CRT driver's workspace, what the call reserves and reports in
// stats.workspace_bytes: the mode in the options, or set with bf16x_set_dgemm_mode / bf16x_set_sgemm_mode under
// NULL options, with OpenMP's thread count or bf16x_set_num_threads'. The query died with SIGSEGV (the BF16 scheme
// lookup has no CRT entries) and the stats said 0.
TEST(CrtGemm, WorkspaceBytesIsWhatTheCallReserves) {
  struct Case {
    int mode;
    std::int64_t m, n, k;
  };
  const Case cases[] = {{BF16X_MODE_FP64C(15), 70, 50, 300},
                        {BF16X_MODE_FP64C(20), 600, 40, 1500},
                        {BF16X_MODE_FP64C(8), 40, 30, 2200},  // two k-blocks: the int32 sums of every modulus
                        {BF16X_MODE_FP32C(8), 33, 90, 64},
                        {BF16X_MODE_FP32C(10), 130, 200, 40}};
  std::uint64_t seed = 30;
  for (int threads : {0, 1}) {
    ASSERT_EQ(bf16x_set_num_threads(threads), BF16X_OK);
    for (const Case& cs : cases)
      for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR}) {
        const bool dbl = crt::is_fp64c(cs.mode);
        const auto set_mode = dbl ? bf16x_set_dgemm_mode : bf16x_set_sgemm_mode;
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = cs.mode;
        std::uint64_t named = 0, runtime = 0;
        ASSERT_EQ(bf16x_workspace_bytes(dbl, bf16x_layout(layout), cs.m, cs.n, cs.k, &o, &named), BF16X_OK);
        ASSERT_EQ(set_mode(cs.mode), BF16X_OK);
        ASSERT_EQ(bf16x_workspace_bytes(dbl, bf16x_layout(layout), cs.m, cs.n, cs.k, nullptr, &runtime), BF16X_OK);
        bf16x_stats named_st{}, runtime_st{};
        if (dbl) {
          Problem<double> p(cs.m, cs.n, cs.k, layout, BF16X_NO_TRANS, BF16X_TRANS, seed++);
          Problem<double> q = p;
          ASSERT_EQ(p.run(cs.mode, BF16X_ENGINE_AUTO, &named_st), BF16X_OK);
          ASSERT_EQ(q.run(BF16X_MODE_DEFAULT, BF16X_ENGINE_AUTO, &runtime_st), BF16X_OK);
        } else {
          Problem<float> p(cs.m, cs.n, cs.k, layout, BF16X_TRANS, BF16X_NO_TRANS, seed++);
          Problem<float> q = p;
          ASSERT_EQ(p.run(cs.mode, BF16X_ENGINE_AUTO, &named_st), BF16X_OK);
          ASSERT_EQ(q.run(BF16X_MODE_DEFAULT, BF16X_ENGINE_AUTO, &runtime_st), BF16X_OK);
        }
        ASSERT_EQ(set_mode(BF16X_MODE_DEFAULT), BF16X_OK);
        const std::string what = std::string(bf16x_mode_name(cs.mode)) + " threads " + std::to_string(threads) +
                                 (layout == BF16X_ROW_MAJOR ? " row-major" : " column-major");
        EXPECT_EQ(runtime_st.mode, cs.mode) << what;
        EXPECT_GT(named, 0u) << what;
        EXPECT_EQ(named_st.workspace_bytes, named) << what;
        EXPECT_EQ(runtime, named) << what;
        EXPECT_EQ(runtime_st.workspace_bytes, named) << what;
        // What the driver reserves for this shape, on the call's thread count.
        crt::CrtConfig cfg;
        cfg.threads = threads > 0 ? threads : omp_get_max_threads();
        EXPECT_EQ(named, crt::crt_workspace_bytes(crt::crt_moduli(cs.mode), cs.m, cs.n, cs.k,
                                                  crt::crt_blocking(cs.m, cs.n, cs.k, cfg)))
            << what;
      }
  }
  ASSERT_EQ(bf16x_set_num_threads(0), BF16X_OK);
  // The error the call would return: an engine without INT8 products, a mode of the other precision.
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_FP64C(15);
  o.engine = BF16X_ENGINE_AVX512BF16;
  std::uint64_t bytes = 1;
  Problem<double> p(40, 40, 40, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, seed);
  const int call = p.run(o.mode, o.engine);
  EXPECT_NE(call, BF16X_OK);
  EXPECT_EQ(bf16x_workspace_bytes(1, BF16X_COL_MAJOR, 40, 40, 40, &o, &bytes), call);
  o.engine = BF16X_ENGINE_AUTO;
  EXPECT_EQ(bf16x_workspace_bytes(0, BF16X_COL_MAJOR, 40, 40, 40, &o, &bytes), BF16X_ERR_MODE);
}

// Calls from several threads at once (each calling thread has its own workspace) give the single-call result.
TEST(CrtGemm, ConcurrentCallers) {
  Problem<double> p(90, 70, 130, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 21);
  Problem<double> want = p;
  ASSERT_EQ(want.run(BF16X_MODE_FP64C(13)), BF16X_OK);
  std::vector<Problem<double>> runs(4, p);
  std::vector<std::thread> th;
  for (auto& r : runs) th.emplace_back([&r] { EXPECT_EQ(r.run(BF16X_MODE_FP64C(13)), BF16X_OK); });
  for (auto& t : th) t.join();
  for (auto& r : runs) EXPECT_EQ(std::memcmp(r.c.data(), want.c.data(), r.c.size() * sizeof(double)), 0);
}

}  // namespace
}  // namespace bf16x::test
