// pack::LowerOperand (TRMM's triangular panels): a driver that skips the zero products of a lower-triangular op(A)
// gives the bits of the same call without the hint, on every engine of the method that runs here. Skipping a
// nonzero product, or a k-block the rows still reach, changes the sums: the comparison is bit for bit.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "cr/cr_driver.hpp"
#include "crt/crt_driver.hpp"
#include "driver/gemm_driver.hpp"
#include "engine/records.hpp"
#include "level3/blocking.hpp"
#include "pack/operand.hpp"
#include "split/scheme.hpp"

namespace bf16x::test {
namespace {

// op(A) m x k with A(i, l) = 0 for l >= step (i + shift + 1) (step 2: a complex triangle's parts side by side,
// level3/complex_parts.cpp), op(B) k x n, uniform in [-1, 1] (T's values).
template <typename T>
struct LowerProblem {
  std::int64_t m, n, k, shift, step;
  std::vector<T> a, b;
  LowerProblem(std::int64_t m_, std::int64_t n_, std::int64_t k_, std::int64_t shift_, std::int64_t step_,
               std::uint64_t seed)
      : m(m_), n(n_), k(k_), shift(shift_), step(step_), a(std::size_t(m_ * k_)), b(std::size_t(k_ * n_)) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::int64_t l = 0; l < k; ++l)
      for (std::int64_t i = 0; i < m; ++i) a[std::size_t(i + l * m)] = l >= step * (i + shift + 1) ? T(0) : T(u(g));
    for (T& x : b) x = T(u(g));
  }
  // C (column-major, beta 0) with or without the hint, from run(args).
  template <typename Run>
  std::vector<T> product(bool hint, T alpha, Run run) const {
    std::vector<T> c(std::size_t(m * n), T(0));
    pack::GemmArgs<T> args{m, n, k, alpha, {a.data(), m, false}, {b.data(), k, false}, T(0), c.data(), m};
    args.a_lower = {hint, shift, step};
    EXPECT_EQ(run(args), util::DriverStatus::ok);
    return c;
  }
};

template <typename T>
int differing(const std::vector<T>& x, const std::vector<T>& y) {
  int d = 0;
  for (std::size_t q = 0; q < x.size(); ++q) d += std::memcmp(&x[q], &y[q], sizeof(T)) != 0;
  return d;
}

// Shapes: a whole triangle over several CRT k-blocks and slice k-blocks, and a TRMM panel (rows [r0, r1) of the
// triangle over k = r1: shift r0) with edges off the 32-line tiles; and the same of a complex triangle by parts
// (step 2, k twice the triangle's).
struct Shape {
  std::int64_t m, n, k, shift, step;
};
constexpr Shape kShapes[] = {{300, 70, 300, 0, 1}, {133, 45, 261, 128, 1}, {64, 33, 64, 0, 1},
                             {300, 40, 600, 0, 2}, {133, 45, 522, 128, 2}, {40, 33, 80, 0, 2}};

template <typename T>
void each_problem(const char* what, const std::function<std::vector<T>(const LowerProblem<T>&, bool)>& product) {
  std::uint64_t seed = 11;
  for (const Shape& s : kShapes) {
    const LowerProblem<T> p(s.m, s.n, s.k, s.shift, s.step, seed++);
    EXPECT_EQ(differing(product(p, true), product(p, false)), 0)
        << what << " m=" << s.m << " n=" << s.n << " k=" << s.k << " shift=" << s.shift << " step=" << s.step;
  }
}

TEST(LowerOperand, CrtSkipsOnlyZeroProducts) {
  for (int e : {BF16X_ENGINE_REFERENCE, BF16X_ENGINE_AVX512VNNI, BF16X_ENGINE_AVX2_INT8, BF16X_ENGINE_AMX_MODEL}) {
    if (!bf16x_engine_available(e) || !engine::int8_engine(e)) continue;
    each_problem<double>("fp64c15", [&](const LowerProblem<double>& p, bool hint) {
      return p.product(hint, -0.75, [&](const pack::GemmArgs<double>& args) {
        crt::CrtConfig cfg;
        cfg.moduli = 15;
        cfg.engine = engine::int8_engine(e);
        cfg.kc = 128;  // several k-blocks
        return crt::gemm_crt(args, cfg);
      });
    });
    each_problem<float>("fp32c8", [&](const LowerProblem<float>& p, bool hint) {
      return p.product(hint, 1.5f, [&](const pack::GemmArgs<float>& args) {
        crt::CrtConfig cfg;
        cfg.moduli = 8;
        cfg.engine = engine::int8_engine(e);
        return crt::gemm_crt(args, cfg);
      });
    });
  }
}

// The CRT driver's counters (bf16x_stats.dot_products, which the AMX projection prices) count the products it runs:
// a whole triangle of 512 rows, one k-block of 512, 16 row tiles of 32 whose k range ends at their last row, in
// chunks of 64: tile ip runs ceil(32 (ip + 1) / 64) chunks, 4 TDPBSSD equivalents each, for each of the 2 column
// tiles, in the 15 residue products and the bound pass's one digit product alike. Before, the residue products were
// counted to the whole k of their block whatever they ran.
TEST(LowerOperand, CrtCountsTheProductsItRuns) {
  const std::int64_t m = 512, n = 64, k = 512;
  const LowerProblem<double> p(m, n, k, 0, 1, 5);
  std::uint64_t dots[2] = {0, 0};
  for (const bool hint : {false, true})
    p.product(hint, 1.0, [&](const pack::GemmArgs<double>& args) {
      crt::CrtConfig cfg;
      cfg.moduli = 15;
      cfg.engine = engine::int8_engine(BF16X_ENGINE_REFERENCE);
      const util::DriverStatus st = crt::gemm_crt(args, cfg);
      dots[hint] = cfg.dot_products;
      return st;
    });
  std::uint64_t run = 0, whole = 0;
  for (std::int64_t ip = 0; ip < m / 32; ++ip) run += std::uint64_t((32 * (ip + 1) + 63) / 64), whole += k / 64;
  const std::uint64_t skipped = (whole - run) * 4 * (n / 32) * (15 + 1);
  EXPECT_EQ(dots[false] - dots[true], skipped) << dots[false] << " without the hint, " << dots[true] << " with it";
}

TEST(LowerOperand, SliceDriverSkipsOnlyZeroProducts) {
  for (int e : {BF16X_ENGINE_REFERENCE, BF16X_ENGINE_AVX512BF16, BF16X_ENGINE_AVX2}) {
    if (!bf16x_engine_available(e) || !engine::engine_info(e)) continue;
    each_problem<double>("fp64x21", [&](const LowerProblem<double>& p, bool hint) {
      return p.product(hint, -0.75, [&](const pack::GemmArgs<double>& args) {
        driver::DriverConfig cfg{};
        cfg.scheme = split::scheme_for_mode(BF16X_MODE_FP64X21), cfg.engine = engine::engine_info(e);
        return driver::gemm_emulated(args, cfg);
      });
    });
    each_problem<float>("fp32x6", [&](const LowerProblem<float>& p, bool hint) {
      return p.product(hint, 1.5f, [&](const pack::GemmArgs<float>& args) {
        driver::DriverConfig cfg{};
        cfg.scheme = split::scheme_for_mode(BF16X_MODE_FP32X6), cfg.engine = engine::engine_info(e);
        return driver::gemm_emulated(args, cfg);
      });
    });
  }
}

TEST(LowerOperand, CorrectlyRoundedTilesSkipOnlyZeroProducts) {
  each_problem<double>("fp64cr", [&](const LowerProblem<double>& p, bool hint) {
    return p.product(hint, -0.75, [&](const pack::GemmArgs<double>& args) {
      cr::CrConfig cfg;
      cfg.level = cpu::vector_level();
      return cr::gemm_cr(args, cfg);
    });
  });
}

// TRMM's panels (level3::trmm_panel_start): from the bottom they cover every row once, each packed panel (rows x
// its last row) within 64 MiB or at most 64 rows, and where that bound does not cut them, the rows of B their GEMMs
// reach add up to about 2m (halving), not the 4.5m of eight equal panels.
TEST(LowerOperand, TrmmPanelsCoverTheTriangleWithinTheirBound) {
  for (const std::size_t e : {std::size_t(4), std::size_t(8), std::size_t(16)})
    for (const std::int64_t m : {1, 31, 64, 65, 100, 2048, 4000, 8192, 100000}) {
      std::int64_t reach = 0, panels = 0;
      bool capped = false;
      for (std::int64_t r1 = m; r1 > 0;) {
        const std::int64_t r0 = level3::trmm_panel_start(r1, e), rows = r1 - r0;
        ASSERT_TRUE(r0 >= 0 && r0 < r1) << "m=" << m << " end=" << r1 << " start=" << r0;
        const bool within = double(rows) * double(r1) * double(e) <= double(64 << 20);
        EXPECT_TRUE(within || rows <= 64) << "m=" << m << " rows " << rows << " x " << r1;
        capped = capped || rows < r1 / 2 - 32;
        reach += r1, ++panels, r1 = r0;
      }
      if (!capped) {
        EXPECT_LE(reach, 2 * m + 64) << "m=" << m << " element " << e << ": " << panels << " panels";
      }
    }
}

}  // namespace
}  // namespace bf16x::test
