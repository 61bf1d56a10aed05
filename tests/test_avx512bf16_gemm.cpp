// The AVX512-BF16 engine through the C API against the reference engine on the same call: every fp64 mode bit for
// bit (fused and unfused diagonals, several block_k), fp32x6 within the summation bound below; odd shapes,
// both layouts, all transposes, ld > rows, alpha/beta.
//
// fp32x6 bound. Per k-block of padded depth kp both engines sum the same 6*kp exact products into a fresh FP32
// accumulator, with at most one rounding per product: each block sum is within 6 kp u S_b of the exact one
// (u = 2^-24, S_b = the block's sum of |a_i b_j|), the two within 2 * 6 kp u S_b. The driver adds the block sums in
// FP32 (one rounding each, at most u S per engine) and scales in FP64, then rounds once to FP32 (at most u |C| per
// engine). Summed: |C_avx - C_ref| <= (12 k_pad + 2 nkb + 2) u |alpha| S + 2u |C|, with S <= 1.02 (|A||B|)_ij since
// the three slices of each value add up to at most (1 + 2^-7 + 2^-15) of its magnitude. Flushed subnormal
// partial sums would add 2^-126 per term of the scaled sum; the inputs here keep every slice normal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "bf16x/bf16x.h"
#include "check/exact_gemm.hpp"
#include "cpu/features.hpp"
#include "gemm_fixture.hpp"

using namespace bf16x;
using bf16x::test::Problem;

namespace {

constexpr std::int64_t kSizes[] = {1, 2, 15, 16, 17, 31, 32, 33, 63, 65, 255, 257};

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

std::string describe(const Problem<double>& p) {
  return "m,n,k=" + std::to_string(p.m) + "," + std::to_string(p.n) + "," + std::to_string(p.k) +
         (p.layout == BF16X_ROW_MAJOR ? " row" : " col") + (p.ta == BF16X_NO_TRANS ? " N" : " T") +
         (p.tb == BF16X_NO_TRANS ? "N" : "T") + " ld+" +
         std::to_string(p.ldc - (p.layout == BF16X_COL_MAJOR ? p.m : p.n));
}

void expect_fp64_equal(std::int64_t m, std::int64_t n, std::int64_t k, int layout, int ta, int tb, std::int64_t pad,
                       std::uint64_t seed, const std::vector<Variant>& variants) {
  Problem<double> p(m, n, k, layout, ta, tb, seed, pad, -3, 3);
  if (seed % 3 == 0) {
    p.alpha = -1.5;
    p.beta = 0.25;
  }
  for (const Variant& v : variants) {
    SCOPED_TRACE(describe(p) + " " + bf16x_mode_name(v.mode) + (v.fuse ? " fused" : "") +
                 (v.block_k ? " bk=" + std::to_string(v.block_k) : ""));
    std::vector<double> cr, ca;
    ASSERT_EQ(call(p, cr, BF16X_ENGINE_REFERENCE, v), BF16X_OK);
    ASSERT_EQ(call(p, ca, BF16X_ENGINE_AVX512BF16, v), BF16X_OK);
    for (std::size_t i = 0; i < cr.size(); ++i)
      if (std::memcmp(&cr[i], &ca[i], sizeof(double)) != 0) {
        FAIL() << "C[" << i << "]: reference " << cr[i] << " avx512bf16 " << ca[i];
      }
  }
}

const std::vector<Variant>& all_fp64() {
  static const std::vector<Variant> v = [] {
    std::vector<Variant> r;
    for (int mode : {BF16X_MODE_FP64X6, BF16X_MODE_FP64X10, BF16X_MODE_FP64X15, BF16X_MODE_FP64X21})
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
  const auto& all = all_fp64();
  std::vector<Variant> r;
  for (std::size_t q = 0; q < count; ++q) r.push_back(all[(i + q) % all.size()]);
  return r;
}

bool skip() { return !cpu::has_avx512bf16(); }

}  // namespace

TEST(Avx512Bf16Gemm, Fp64ModesEqualReferenceOnSmallOddShapes) {
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  std::uint64_t seed = 1;
  for (std::int64_t m : {1, 2, 15, 16, 17, 31, 32, 33})
    for (std::int64_t n : {1, 17, 33})
      for (std::int64_t k : {1, 2, 31, 33}) {
        expect_fp64_equal(m, n, k, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, 0, seed, rotate(seed, 2));
        ++seed;
        if (HasFatalFailure()) return;
      }
}

TEST(Avx512Bf16Gemm, Fp64ModesEqualReferenceOverEverySizeLayoutsAndTransposes) {
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  constexpr int n = int(std::size(kSizes));
  std::uint64_t seed = 100;
  for (int i = 0; i < n; ++i) {
    // Every size appears as m, as n and as k; the large ones meet small partners to keep the reference quick.
    const std::int64_t m = kSizes[i], nn = kSizes[(i + 5) % n], k = kSizes[(i + 9) % n];
    const int layout = i % 2 ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
    const int ta = (i / 2) % 2 ? BF16X_TRANS : BF16X_NO_TRANS, tb = (i / 4) % 2 ? BF16X_TRANS : BF16X_NO_TRANS;
    expect_fp64_equal(m, nn, k, layout, ta, tb, i % 3 == 0 ? 0 : 5, seed, rotate(std::size_t(i), 3));
    ++seed;
    if (HasFatalFailure()) return;
  }
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (int ta : {BF16X_NO_TRANS, BF16X_TRANS})
      for (int tb : {BF16X_NO_TRANS, BF16X_TRANS}) {
        expect_fp64_equal(65, 63, 257, layout, ta, tb, 3, seed, rotate(std::size_t(seed), 2));
        ++seed;
        if (HasFatalFailure()) return;
      }
}

TEST(Avx512Bf16Gemm, Fp64LargeShapesSeveralBlocks) {
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  const std::vector<Variant> v = {{BF16X_MODE_FP64X6, false, 0}, {BF16X_MODE_FP64X21, true, 64}};
  expect_fp64_equal(257, 255, 33, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, 1, 7, v);
  expect_fp64_equal(255, 257, 65, BF16X_ROW_MAJOR, BF16X_TRANS, BF16X_NO_TRANS, 0, 8, v);
  expect_fp64_equal(33, 65, 513, BF16X_COL_MAJOR, BF16X_TRANS, BF16X_TRANS, 2, 9, v);
}

TEST(Avx512Bf16Gemm, Fp32x6WithinSummationBoundOfReference) {
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  constexpr double u = 0x1p-24;
  constexpr int n = int(std::size(kSizes));
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
      std::vector<float> cr, ca;
      ASSERT_EQ(call(p, cr, BF16X_ENGINE_REFERENCE, v), BF16X_OK);
      ASSERT_EQ(call(p, ca, BF16X_ENGINE_AVX512BF16, v), BF16X_OK);
      const check::Mat<double> absab = check::abs_gemm(p.opa, p.opb);
      const int kb = bk ? bk : 64;
      const double kpad = double((k + 31) / 32 * 32), nkb = double((k + kb - 1) / kb);
      for (std::int64_t c = 0; c < p.n; ++c)
        for (std::int64_t r = 0; r < p.m; ++r) {
          const std::size_t at = Problem<float>::at(p.layout, r, c, p.ldc);
          const double x = cr[at], y = ca[at];
          const double bound = (12 * kpad + 2 * nkb + 2) * u * std::fabs(double(p.alpha)) * 1.02 * absab(r, c) +
                               2 * u * std::max(std::fabs(x), std::fabs(y));
          ASSERT_LE(std::fabs(x - y), bound)
              << "m,n,k=" << m << "," << nn << "," << k << " bk " << kb << " (" << r << "," << c << ")";
          differing += x != y;
          ++total;
        }
    }
  }
  std::printf("[          ] fp32x6: %lld of %lld elements differ from the reference\n", (long long)differing,
              (long long)total);
}

// The final write rounds alpha * (A B) and beta * C separately and then their sum, as its definition says
// (no fused multiply-add in any code path): with inputs whose products the emulation computes exactly (small
// multiples of 1/16), C must equal fl(fl(alpha * AB) + fl(beta * C0)) bit for bit, in every layout.
TEST(Avx512Bf16Gemm, WriteRoundsAlphaAndBetaTermsSeparately) {
  if (skip()) GTEST_SKIP() << "no AVX512-BF16 here";
  std::mt19937_64 rng(99);
  for (int layout : {BF16X_COL_MAJOR, BF16X_ROW_MAJOR})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{37, 45, 64}, {300, 17, 40}}) {
      std::vector<double> a(std::size_t(m * k)), b(std::size_t(k * n)), c0(std::size_t(m * n));
      for (auto& x : a) x = double(int(rng() % 33) - 16) / 16;
      for (auto& x : b) x = double(int(rng() % 33) - 16) / 16;
      std::uniform_real_distribution<double> u(-1, 1);
      for (auto& x : c0) x = u(rng);
      const double alpha = 1.0 / 3.0, beta = -0.7;
      // Column-major reference of the exact product.
      const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t rows, std::int64_t cols) {
        return std::size_t(layout == BF16X_COL_MAJOR ? i + j * rows : j + i * cols);
      };
      for (int mode : {BF16X_MODE_FP64X21, BF16X_MODE_FP32X6}) {
        SCOPED_TRACE(std::string(bf16x_mode_name(mode)) + (layout == BF16X_ROW_MAJOR ? " row" : " col"));
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = mode;
        o.engine = BF16X_ENGINE_AVX512BF16;
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
