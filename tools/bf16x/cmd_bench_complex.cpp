#include "cmd_bench_complex.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>

#include "bf16x/bf16x.h"
#include "cli_checks.hpp"
#include "cmd_bench_baselines.hpp"
#include "command.hpp"
#include "host/host_blas.hpp"
#include "settings/names.hpp"

namespace bf16x::cli {
namespace {

template <typename T>
using Cx = std::conditional_t<std::is_same_v<T, float>, bf16x_complex_float, bf16x_complex_double>;

struct Row {
  std::int64_t n;
  int threads;
  std::string mode, method, engine;
  double seconds, host_seconds, rel_host;  // rel_host: ||C - C_host||_F / ||C_host||_F
  int status;
};

template <typename F>
double median_time(int warmup, int reps, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int r = 0; r < std::max(1, reps); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename T>
double rel_frobenius(const std::vector<Cx<T>>& c, const std::vector<Cx<T>>& ref) {
  long double num = 0, den = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const long double dr = (long double)c[i].re - ref[i].re, di = (long double)c[i].im - ref[i].im;
    num += dr * dr + di * di;
    den += (long double)ref[i].re * ref[i].re + (long double)ref[i].im * ref[i].im;
  }
  return den > 0 ? double(std::sqrt(num / den)) : 0.0;
}

template <typename T>
std::vector<Row> bench_size(const ComplexBenchArgs& a, std::int64_t n, int threads) {
  const std::size_t nn = std::size_t(n * n);
  std::vector<Cx<T>> A(nn), B(nn), host(nn), C(nn);
  std::mt19937_64 rng{std::uint64_t(n)};
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t i = 0; i < nn; ++i) A[i] = {T(u(rng)), T(u(rng))}, B[i] = {T(u(rng)), T(u(rng))};
  const Cx<T> one{1, 0}, zero{0, 0};
  const T one2[2] = {1, 0}, zero2[2] = {0, 0};
  const auto run_host = [&] {
    if constexpr (std::is_same_v<T, float>)
      host::cgemm(111, 111, n, n, n, one2, &A[0].re, n, &B[0].re, n, zero2, &host[0].re, n);
    else
      host::zgemm(111, 111, n, n, n, one2, &A[0].re, n, &B[0].re, n, zero2, &host[0].re, n);
  };
  const double t_host = median_time(a.warmup, a.reps, run_host);
  std::vector<Row> rows;
  rows.push_back({n, threads, "native", "-", host::library_name(), t_host, t_host, 0.0, 0});
  for (const std::string& mode : a.modes) {
    if (mode == "native") continue;
    for (const std::string& method : a.methods) {
      bf16x_options o;
      bf16x_options_init(&o);
      o.mode = bf16x_mode_from_name(mode.c_str());
      o.engine = a.engine;
      o.complex_method = method == "3m" ? BF16X_COMPLEX_3M : BF16X_COMPLEX_4M;
      bf16x_stats st{};
      o.stats = &st;
      int status = 0;
      const double t = median_time(a.warmup, a.reps, [&] {
        if constexpr (std::is_same_v<T, float>)
          status = bf16x_cgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, one, A.data(), n, B.data(),
                                  n, zero, C.data(), n, &o);
        else
          status = bf16x_zgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, one, A.data(), n, B.data(),
                                  n, zero, C.data(), n, &o);
      });
      rows.push_back(
          {n, threads, mode, method, engine_label(mode, st.engine), t, t_host, rel_frobenius<T>(C, host), status});
    }
  }
  return rows;
}

void print_row(const std::string& routine, const Row& r) {
  // 8 n^3 real flops per complex n x n x n product, whatever the method.
  const double gflops = 8.0 * double(r.n) * double(r.n) * double(r.n) / r.seconds * 1e-9;
  if (r.status != 0) {
    fmt::print("{:<6} {:>6} {:>4}  {:<9} {:<3}  error: {}\n", routine, r.n, r.threads, r.mode, r.method,
               bf16x_status_string(r.status));
    return;
  }
  fmt::print("{:<6} {:>6} {:>4}  {:<9} {:<3} {:<11} {:>10.3f} {:>9.2f} {:>8.3f} {:>11.3e}\n", routine, r.n, r.threads,
             r.mode, r.method, r.engine, r.seconds * 1e3, gflops, r.host_seconds / r.seconds, r.rel_host);
}

}  // namespace

int run_complex_bench(const ComplexBenchArgs& a) {
  const bool is_double = a.routine == "zgemm";
  for (const std::string& m : a.modes) {
    // cgemm takes the SGEMM modes, zgemm the DGEMM ones: the library's rule (native and auto fit both).
    const int id = bf16x_mode_from_name(m.c_str());
    if (id < 0 || !settings::mode_fits(id, is_double)) {
      std::fprintf(stderr, "bf16x bench: %s is not a %s mode\n", m.c_str(), a.routine.c_str());
      return kExitUsage;
    }
  }
  std::FILE* csv = a.csv.empty() ? nullptr : std::fopen(a.csv.c_str(), "w");
  if (!a.csv.empty() && !csv) {
    std::fprintf(stderr, "bf16x bench: --csv %s is not writable\n", a.csv.c_str());
    return kExitUsage;
  }
  if (csv) std::fprintf(csv, "routine,n,threads,mode,method,engine,ms,gflops,speedup,rel_host\n");
  fmt::print("host {} ({}); uniform [-1, 1] parts, square, column-major, alpha 1, beta 0; median of {} after {}\n",
             host::library_name(), host::core_name(), a.reps, a.warmup);
  fmt::print("{:<6} {:>6} {:>4}  {:<9} {:<3} {:<11} {:>10} {:>9} {:>8} {:>11}\n", "", "n", "thr", "mode", "alg",
             "engine", "t [ms]", "GFLOP/s", "speedup", "eF vs host");
  int rc = 0;
  for (std::int64_t n : a.sizes)
    for (int t : a.threads) {
      bf16x_set_num_threads(t);
      bench::set_host_threads(t);
      // A, B, the host C and ours (8 s n^2 for parts of s bytes) and twice the largest real workspace of a mode (the
      // complex call adds block buffers of its own, which bf16x_workspace_bytes does not report): a size that cannot
      // be held is skipped with the reason before anything is allocated.
      const double s = is_double ? 8 : 4, nn = double(n) * double(n);
      double ws = 0;
      for (const std::string& m : a.modes) {
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = bf16x_mode_from_name(m.c_str());
        o.engine = a.engine;
        ws = std::max(ws, gemm_workspace(is_double, n, n, n, o));
      }
      if (const std::string why = memory_shortfall(8 * s * nn + 2 * ws + threads_reserve(t)); !why.empty()) {
        fmt::print("{:<6} {:>6} {:>4}  skipped: {}\n", a.routine, n, t, why);
        std::fflush(stdout);
        std::fprintf(stderr, "bf16x bench: %s n=%lld skipped: %s\n", a.routine.c_str(), (long long)n, why.c_str());
        rc = kExitRunFailure;
        continue;
      }
      const auto rows = is_double ? bench_size<double>(a, n, t) : bench_size<float>(a, n, t);
      for (const Row& r : rows) {
        print_row(a.routine, r);
        std::fflush(stdout);
        if (r.status != 0) rc = kExitRunFailure;
        if (csv)
          std::fprintf(csv, "%s,%lld,%d,%s,%s,%s,%.6f,%.3f,%.4f,%.4e\n", a.routine.c_str(), (long long)r.n, r.threads,
                       r.mode.c_str(), r.method.c_str(), r.engine.c_str(), r.seconds * 1e3,
                       8.0 * double(r.n) * double(r.n) * double(r.n) / r.seconds * 1e-9, r.host_seconds / r.seconds,
                       r.rel_host);
      }
    }
  if (csv) std::fclose(csv);
  return rc;
}

}  // namespace bf16x::cli
