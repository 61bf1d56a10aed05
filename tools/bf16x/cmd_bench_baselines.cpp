#include "cmd_bench_baselines.hpp"

#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "cpu/features.hpp"
#include "engine/avx512bf16/kernel_avx512bf16.hpp"
#include "host/host_blas.hpp"
#include "util/clock.hpp"

namespace bf16x::cli::bench {
namespace {

using util::now;

}  // namespace

std::string set_host_threads(int threads) {
  const char* lib = host::library_name();  // loads the host library if not yet loaded
  if (!lib || !*lib) return "";
  void* h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
  if (!h) return "";
  std::string used;
  if (auto f = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"))) {
    f(threads);
    used = "openblas_set_num_threads";
  } else if (auto g = reinterpret_cast<void (*)(std::int64_t)>(dlsym(h, "bli_thread_set_num_threads"))) {
    g(threads);
    used = "bli_thread_set_num_threads";
  }
  dlclose(h);
  return used;
}

namespace {

std::uint64_t calibrate(double seconds) {
  std::uint64_t iters = 1 << 12;
  for (;;) {
    const double t0 = now();
    engine::avx512bf16::dpbf16_peak_loop(iters, 16);
    const double t = now() - t0;
    if (t > 0.005) return std::uint64_t(double(iters) * seconds / t) + 1;
    iters *= 4;
  }
}

double run_threads(int threads, std::uint64_t iters) {
  std::vector<double> rate(std::size_t(threads), 0.0);
#pragma omp parallel num_threads(threads)
  {
    const double t0 = now();
    const std::uint64_t ins = engine::avx512bf16::dpbf16_peak_loop(iters, 16);
    rate[std::size_t(omp_get_thread_num())] = double(ins) * 64 / (now() - t0) * 1e-9;
  }
  double sum = 0;
  for (double r : rate) sum += r;
  return sum;
}

}  // namespace

Peak measure_peak(int threads, double seconds) {
  Peak p;
  p.threads = threads;
  if (!cpu::has_avx512bf16()) return p;
  // Median of five runs of seconds / 5 each: the machine may be shared.
  const std::uint64_t iters = calibrate(seconds / 5);
  std::vector<double> g;
  for (int r = 0; r < 5; ++r) g.push_back(run_threads(threads, iters));
  std::sort(g.begin(), g.end());
  p.gflops = g[2];
  p.gflops_per_thread = p.gflops / threads;
  const std::uint64_t lat_iters = iters / 16 + 1;
  const double t0 = now();
  const std::uint64_t ins = engine::avx512bf16::dpbf16_peak_loop(lat_iters, 1);
  p.latency_ns = (now() - t0) / double(ins) * 1e9;
  return p;
}

PeakProbe::PeakProbe(int threads, double seconds) : threads_(threads) {
  if (cpu::has_avx512bf16()) iters_ = calibrate(seconds);
}

double PeakProbe::gflops() const { return iters_ ? run_threads(threads_, iters_) : 0.0; }

}  // namespace bf16x::cli::bench
