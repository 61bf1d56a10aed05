// Concurrent use of the C API: eight application threads (std::thread), each calling bf16x_dgemm / bf16x_sgemm (and
// the triangular level-3 routines) with OpenMP inside, with different modes, engines, shapes and layouts, several
// times, all released at once. Every result is checked against the double-double reference with the bound of the mode's
// error analysis (docs/numerics.md, as in tests/test_modes.cpp). scripts/test runs this file under ThreadSanitizer
// (data races) and AddressSanitizer (leaks); the per-thread workspace must be freed when its thread exits.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <atomic>
#include <cmath>
#include <latch>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bf16x/bf16x.h"
#include "bf16x/level3.h"
#include "check/exact_gemm.hpp"
#include "gemm_fixture.hpp"
#include "util/workspace.hpp"

using bf16x::test::Problem;

namespace {

constexpr double kU64 = 0x1p-53, kU32 = 0x1p-24;
double gamma_n(double n, double u) { return n * u / (1 - n * u); }

// Bound on |C_ij - R_ij| for the mode that ran (default block_k):
//   fp64x(d):  |alpha| k 2^(Ea_i+Eb_j) (T_d + gamma_(adds) + 2u) + 2u|beta C0| + u|R|, adds = d(d+1)/2 k-blocks + 2
//   fp32x6:    |alpha| ((|A||B|) (gamma_(12*64 + k/64) + 3.1u32) + k 2^(Ea+Eb) 2^-120) + u32|R| + 2u|beta C0|
//   native:    |alpha| (|A||B|) gamma_(k+2) + 2u|beta C0| + u|R|, in the routine's precision
template <typename T>
double bound(const Problem<T>& p, int mode, double absab, double scale, double r, double bc0) {
  const double k = double(p.k), alpha = std::fabs(double(p.alpha));
  if (mode == BF16X_MODE_NATIVE) {
    const double u = sizeof(T) == 8 ? kU64 : kU32;
    return 1.01 * (alpha * absab * gamma_n(k + 2, u) + 2 * u * bc0 + u * r);
  }
  if (mode == BF16X_MODE_FP32X6) {
    const double rel = gamma_n(12.0 * 64 + std::ceil(k / 64), kU32) * 1.02 + 3.1 * kU32;
    return alpha * (absab * rel + k * scale * 0x1p-120) + kU32 * r + 2 * kU64 * bc0;
  }
  const int d = mode - BF16X_MODE_FP64X6 + 3;
  const double adds = double((d * (d + 1)) / 2) * std::ceil(k / 256) + 2;
  const double rel = bf16x::test::fp64_truncation_bound(d) + gamma_n(adds, kU64) * 1.01 + 2 * kU64;
  return alpha * k * scale * rel + 2 * kU64 * bc0 + kU64 * r;
}

// Runs the problem and returns "" or the first entry outside the bound of the mode that ran.
template <typename T>
std::string run_and_check(Problem<T>& p, int mode, int engine) {
  bf16x_stats stats{};
  const int st = p.run(mode, engine, &stats);
  if (st != BF16X_OK) return std::string("status ") + bf16x_status_string(st);
  // The componentwise guard may hand a call to the host GEMM (entries 2^+-20 within rows): then native's bound.
  if (mode != BF16X_MODE_AUTO && stats.mode != mode && stats.guard != BF16X_GUARD_NATIVE)
    return "ran " + std::to_string(stats.mode);
  bf16x::check::Mat<double> r = bf16x::check::exact_gemm(p.opa, p.opb);
  const bf16x::check::Mat<double> absab = bf16x::check::abs_gemm(p.opa, p.opb);
  const auto sa = bf16x::test::row_scales(p.opa, true), sb = bf16x::test::row_scales(p.opb, false);
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) {
      const double bc0 = double(p.beta) * double(p.c0(i, j));
      const double want = double(p.alpha) * r(i, j) + bc0;
      const double tol =
          bound(p, stats.mode, absab(i, j), sa[std::size_t(i)] * sb[std::size_t(j)], std::fabs(want), std::fabs(bc0));
      const double got = double(p.cval(i, j));
      if (!(std::fabs(got - want) <= tol)) {
        std::ostringstream os;
        os << bf16x_mode_name(stats.mode) << " " << p.m << "x" << p.n << "x" << p.k << " C(" << i << "," << j
           << ") = " << got << ", reference " << want << ", bound " << tol;
        return os.str();
      }
    }
  return {};
}

struct Job {
  bool dbl;
  int mode, engine, layout, ta, tb;
  std::int64_t m, n, k;
};

}  // namespace

TEST(Concurrency, EightThreadsWithOpenMpInsideAgreeWithTheReference) {
  const int ref = BF16X_ENGINE_REFERENCE, any = BF16X_ENGINE_AUTO;
  const int model = bf16x_engine_available(BF16X_ENGINE_AMX_MODEL) ? BF16X_ENGINE_AMX_MODEL : ref;
  const int col = BF16X_COL_MAJOR, row = BF16X_ROW_MAJOR, N = BF16X_NO_TRANS, T = BF16X_TRANS, C = BF16X_CONJ_TRANS;
  // Every thread a different mode, engine and shape (several output blocks, so OpenMP splits each call).
  const Job jobs[8] = {
      {true, BF16X_MODE_FP64X6, any, col, N, N, 130, 70, 300},
      {true, BF16X_MODE_FP64X10, any, row, T, N, 65, 97, 129},
      {true, BF16X_MODE_FP64X15, ref, col, N, C, 40, 70, 64},
      {true, BF16X_MODE_FP64X21, any, row, N, T, 96, 33, 257},
      {false, BF16X_MODE_FP32X6, any, col, T, T, 100, 90, 200},
      {false, BF16X_MODE_FP32X6, model, row, N, N, 33, 64, 65},
      {true, BF16X_MODE_NATIVE, any, col, N, N, 80, 80, 80},
      {false, BF16X_MODE_AUTO, any, row, T, C, 70, 50, 100},
  };
  constexpr int kIterations = 3;
  // The OpenMP runtime starts on this thread, which outlives the eight: LLVM's libomp 14 with an OMPT tool loaded
  // (Archer, in the ThreadSanitizer run) reads the initial thread's state at every critical-section exit and
  // crashes once that thread has ended.
  (void)omp_get_max_threads();
  std::vector<std::string> errors(8);
  std::latch start(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      const Job& jb = jobs[t];
      start.arrive_and_wait();  // all eight call into the library at the same time
      for (int it = 0; it < kIterations && errors[std::size_t(t)].empty(); ++it) {
        // Shapes change between iterations so each thread's workspace is reused and regrown.
        const std::int64_t m = jb.m + 7 * it, n = jb.n - 5 * it, k = jb.k + 31 * it;
        const std::uint64_t seed = std::uint64_t(100 * t + it);
        if (jb.dbl) {
          Problem<double> p(m, n, k, jb.layout, jb.ta, jb.tb, seed, it, -20, 20);
          p.alpha = it == 1 ? -1.5 : 1.0;
          p.beta = it == 2 ? 0.25 : 0.0;
          errors[std::size_t(t)] = run_and_check(p, jb.mode, jb.engine);
        } else {
          Problem<float> p(m, n, k, jb.layout, jb.ta, jb.tb, seed, it, -20, 20);
          p.alpha = it == 1 ? 2.0f : 1.0f;
          p.beta = it == 2 ? -1.0f : 0.0f;
          errors[std::size_t(t)] = run_and_check(p, jb.mode, jb.engine);
        }
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(errors[std::size_t(t)], "") << "thread " << t;
}

// Each application thread gets its own workspace; it is released when the thread ends, so threads that come and go
// do not accumulate memory (LeakSanitizer would also see a leaked one at exit in the ASan run).
TEST(Concurrency, ThreadWorkspaceIsFreedAtThreadExit) {
  (void)omp_get_max_threads();  // as above: the OpenMP runtime's initial thread must outlive the others
  const std::size_t before = bf16x::util::workspace_bytes_held();
  for (int round = 0; round < 2; ++round) {
    std::vector<std::size_t> held(4, 0);
    std::atomic<std::size_t> peak{0};
    std::latch ran(4), done(1);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        Problem<double> p(40 + 10 * t, 50, 90, BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, std::uint64_t(t));
        EXPECT_EQ(p.run(BF16X_MODE_FP64X10), BF16X_OK);
        held[std::size_t(t)] = bf16x::util::thread_workspace().capacity();
        ran.count_down();
        done.wait();  // keep every workspace alive until all four are counted
      });
    ran.wait();
    peak = bf16x::util::workspace_bytes_held();
    done.count_down();
    for (std::thread& th : threads) th.join();
    std::size_t sum = 0;
    for (std::size_t h : held) {
      EXPECT_GT(h, 0u);
      sum += h;
    }
    EXPECT_EQ(peak.load(), before + sum) << "round " << round;
    EXPECT_EQ(bf16x::util::workspace_bytes_held(), before)
        << "round " << round << ": workspaces outlived their threads";
  }
}

// A program's parallel loop of one thread around the calls (OMP_NUM_THREADS=1 with `!$OMP PARALLEL DO`, as Elk runs):
// the library's worksharing constructs must not bind to that loop's team (util/team.hpp), where libgomp would skip
// or repeat the program's iterations. Every item, in every method, equals the same call made outside any region.
TEST(Concurrency, CallsInsideAOneThreadParallelLoopGiveTheSameBits) {
  const int modes[] = {BF16X_MODE_FP64X21, BF16X_MODE_FP64C(15), BF16X_MODE_FP64CR, BF16X_MODE_FP64X10,
                       BF16X_MODE_AUTO};
  constexpr int kItems = 12;
  // Past the scans' and the packers' team thresholds, and a small call (no team of the library's own at all).
  for (const std::array<std::int64_t, 3>& shape :
       {std::array<std::int64_t, 3>{300, 150, 260}, std::array<std::int64_t, 3>{8, 8, 8}}) {
    const std::int64_t m = shape[0], n = shape[1], k = shape[2];  // (not a structured binding: lambdas capture these)
    std::vector<double> a(std::size_t(m * k)), b(std::size_t(k * n));
    std::uint64_t x = 12345;
    const auto next = [&] {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return double(std::int64_t(x >> 11) % 2001 - 1000) / 1000;
    };
    for (double& v : a) v = std::ldexp(next(), int(x % 7) - 3);  // a little grading: some calls repair entries
    for (double& v : b) v = next();
    for (const int mode : modes) {
      bf16x_options o;
      bf16x_options_init(&o);
      o.mode = mode;
      std::vector<std::vector<double>> want(kItems, std::vector<double>(std::size_t(m * n))), got = want;
      const auto item = [&](int i, std::vector<double>& c) {  // odd items row-major
        const bool row = i % 2;
        return bf16x_dgemm_ex(row ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, 1.0 + i,
                              a.data(), row ? k : m, b.data(), row ? n : k, 0.0, c.data(), row ? n : m, &o);
      };
      for (int i = 0; i < kItems; ++i) ASSERT_EQ(item(i, want[std::size_t(i)]), BF16X_OK);
      std::vector<int> st(kItems, -1);
#pragma omp parallel for schedule(dynamic, 2) num_threads(1)
      for (int i = 0; i < kItems; ++i) st[std::size_t(i)] = item(i, got[std::size_t(i)]);
      for (int i = 0; i < kItems; ++i) {
        const std::string what = std::string(bf16x_mode_name(mode)) + " " + std::to_string(m) + "x" +
                                 std::to_string(n) + "x" + std::to_string(k) + " item " + std::to_string(i);
        EXPECT_EQ(st[std::size_t(i)], BF16X_OK) << what;
        EXPECT_TRUE(got[std::size_t(i)] == want[std::size_t(i)]) << what;
      }
    }
  }
}

// TRSM and TRMM from eight application threads at once, each with OpenMP inside: their packed blocks live in memory
// the calling thread keeps (level3/triangular.cpp), and every result must equal the same call made alone, bit for
// bit (shapes across TRSM's 128-row substitution blocks and TRMM's panels, both sides, both triangles).
TEST(Concurrency, TriangularRoutinesFromEightThreadsGiveTheBitsOfTheCallAlone) {
  struct Tri {
    bool solve;
    int mode, side, uplo, trans, diag;
    std::int64_t m, n;
  };
  const int L = BF16X_LEFT, R = BF16X_RIGHT, Lo = BF16X_LOWER, Up = BF16X_UPPER, N = BF16X_NO_TRANS, T = BF16X_TRANS;
  const int U = BF16X_UNIT, D = BF16X_NON_UNIT;
  const Tri jobs[8] = {
      {true, BF16X_MODE_FP64X21, L, Lo, N, D, 150, 40},  {true, BF16X_MODE_FP64C(15), R, Up, T, U, 30, 140},
      {true, BF16X_MODE_FP64CR, L, Up, N, D, 140, 20},   {true, BF16X_MODE_AUTO, L, Lo, T, D, 150, 70},
      {false, BF16X_MODE_FP64X21, L, Up, N, D, 150, 40}, {false, BF16X_MODE_FP64C(15), R, Lo, T, D, 30, 150},
      {false, BF16X_MODE_FP64CR, L, Lo, N, U, 140, 20},  {false, BF16X_MODE_AUTO, L, Up, T, D, 130, 30}};
  const auto run = [&](const Tri& jb, int it, std::vector<double>& b) {
    const std::int64_t m = jb.m + 3 * it, n = jb.n + 2 * it, ka = jb.side == L ? m : n;
    std::vector<double> a(std::size_t(ka * ka));
    std::uint64_t x = 777 + std::uint64_t(it);
    const auto next = [&] {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return double(std::int64_t(x >> 11) % 2001 - 1000) / 1000;
    };
    for (std::int64_t j = 0; j < ka; ++j)
      for (std::int64_t i = 0; i < ka; ++i) a[std::size_t(i + j * ka)] = i == j ? 2 + next() / 4 : next() / double(ka);
    b.assign(std::size_t(m * n), 0);
    for (double& v : b) v = next();
    bf16x_options o;
    bf16x_options_init(&o);
    o.mode = jb.mode;
    const auto side = bf16x_side(jb.side);
    const auto uplo = bf16x_uplo(jb.uplo);
    const auto trans = bf16x_transpose(jb.trans);
    const auto diag = bf16x_diag(jb.diag);
    return jb.solve
               ? bf16x_dtrsm_ex(BF16X_COL_MAJOR, side, uplo, trans, diag, m, n, 0.75, a.data(), ka, b.data(), m, &o)
               : bf16x_dtrmm_ex(BF16X_COL_MAJOR, side, uplo, trans, diag, m, n, 0.75, a.data(), ka, b.data(), m, &o);
  };
  constexpr int kIterations = 2;
  std::vector<std::vector<double>> want(8 * kIterations);
  for (int t = 0; t < 8; ++t)
    for (int it = 0; it < kIterations; ++it)
      ASSERT_EQ(run(jobs[t], it, want[std::size_t(t * kIterations + it)]), BF16X_OK);
  (void)omp_get_max_threads();  // as above: the OpenMP runtime's initial thread must outlive the others
  std::vector<std::string> errors(8);
  std::latch start(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int it = 0; it < kIterations && errors[std::size_t(t)].empty(); ++it) {
        std::vector<double> got;
        const int st = run(jobs[t], it, got);
        if (st != BF16X_OK)
          errors[std::size_t(t)] = std::string("status ") + bf16x_status_string(st);
        else if (got != want[std::size_t(t * kIterations + it)])
          errors[std::size_t(t)] = std::string(jobs[t].solve ? "trsm " : "trmm ") + bf16x_mode_name(jobs[t].mode) +
                                   ", iteration " + std::to_string(it) + ": bits differ from the call alone";
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(errors[std::size_t(t)], "") << "thread " << t;
}
