#include "cmd_bench_phases.hpp"

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "util/clock.hpp"

namespace bf16x::cli::bench {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? kNone : v[v.size() / 2];
}

std::string num(double x, int prec) { return std::isfinite(x) ? fmt::format("{:.{}f}", x, prec) : "-"; }

// Phase time over its bandwidth bound.
double over_bound(double seconds, double bytes, double bandwidth) {
  return seconds > 0 && bytes > 0 && bandwidth > 0 ? seconds / (bytes / bandwidth) : kNone;
}

}  // namespace

double stream_bandwidth(int threads) {
  // Each buffer 256 MiB, far past any last-level cache here; smaller where memory is short (a bound from a buffer
  // that fits in cache would flatter the phases), none below 32 MiB: then no bound (the xbw columns show "-").
  std::unique_ptr<char[]> src, dst;
  std::size_t bytes = std::size_t(256) << 20;
  for (; bytes >= (std::size_t(32) << 20); bytes /= 2) {
    src.reset(new (std::nothrow) char[bytes]);
    dst.reset(new (std::nothrow) char[bytes]);
    if (src && dst) break;
  }
  if (!src || !dst) return kNone;
  const std::size_t chunk = bytes / std::size_t(threads);
  std::vector<double> rate;
  for (int pass = 0; pass < 6; ++pass) {
    const double t0 = util::now();
#pragma omp parallel num_threads(threads)
    {
      const std::size_t off = chunk * std::size_t(omp_get_thread_num());
      if (pass == 0)
        std::memset(src.get() + off, 1, chunk);  // first touch by the thread that copies it
      else
        std::memcpy(dst.get() + off, src.get() + off, chunk);
    }
    if (pass > 0) rate.push_back(2.0 * double(chunk * std::size_t(threads)) / (util::now() - t0));
  }
  return median_of(rate);
}

double core_clock_hz() {
  // A chain of dependent 64-bit IMULs: 3 cycles each on every x86-64 core of the last fifteen years (Intel since
  // Nehalem, AMD since Zen). A chain of ADDs of an immediate is not a clock: on an AMX Xeon (a KVM guest) it ran
  // 3 to 4 adds per cycle and read 11-12 GHz.
  constexpr std::uint64_t kIters = 20'000'000;  // x 8 dependent multiplications
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::uint64_t x = 1;
    const std::uint64_t m = 3;
    const double t0 = util::now();
    for (std::uint64_t i = 0; i < kIters; ++i)
      asm volatile(
          "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
          "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0"
          : "+r"(x)
          : "r"(m));
    best = std::max(best, 3.0 * 8.0 * double(kIters) / (util::now() - t0));
  }
  return best;
}

double amx_projected_seconds(double seconds, double products, double sums, double dot_products, double clock_hz,
                             int threads, bool on_amx) {
  // The sums of the engine's results stay on the vector units with AMX: outside the tile operations' time.
  return on_amx ? seconds : (seconds - products + sums) + dot_products * 16.0 / (clock_hz * double(threads));
}

void project_amx(Row& r, double bandwidth, double clock_hz, bool fp64, bool on_amx) {
  r.bandwidth = bandwidth;
  r.clock_hz = clock_hz;
  if (!(r.prod >= 0) || !(r.dot_products >= 0) || !(clock_hz > 0)) return;
  const double t = double(r.threads), n = double(r.n);
  r.amx_measured = on_amx;
  // A row loaded from a file written before bf16x_stats version 4 has no sums (taken as 0).
  const double sums = r.sums >= 0 ? r.sums : 0.0;
  r.amx_seconds = amx_projected_seconds(r.seconds, r.prod, sums, r.dot_products, clock_hz, r.threads, on_amx);
  r.amx_native = 2.0 * n * n * n / ((fp64 ? 32.0 : 64.0) * 0.9 * clock_hz * t);
}

void print_phase_head() {
  fmt::print(
      "\n  Phases (bf16x_stats, medians, the first thread's seconds) against the stream-copy bound bytes / B_t, and "
      "the "
      "AMX projection (a MODEL, not a measurement: docs/performance.md \"AMX projection\"):\n"
      "  xbw = phase time / (bytes / B_t); nonprod = 1 - products / time; sums_ms = the part of prod_ms outside the "
      "engine (exact sums of its results); amx_ms = (time - products + sums) + tile ops x 16 cycles / (f t), or * = "
      "measured: the call ran on the AMX hardware; nat512_ms = 2n^3 / (32 or 64 x 0.9 x f t); xnat = nat512_ms / "
      "amx_ms\n");
  fmt::print("{:>5} {:>2} {:<11} {:>8} {:>6} {:>8} {:>6} {:>9} {:>8} {:>8} {:>6} {:>7} {:>7} {:>9} {:>9} {:>6}\n", "n",
             "t", "mode", "scan_ms", "xbw", "pack_ms", "xbw", "prod_ms", "sums_ms", "write_ms", "xbw", "nonprod",
             "B_GB/s", "amx_ms", "nat512_ms", "xnat");
}

void print_phase_row(const Row& r) {
  const double ms = 1e3;
  fmt::print("{:>5} {:>2} {:<11} {:>8} {:>6} {:>8} {:>6} {:>9} {:>8} {:>8} {:>6} {:>7} {:>7} {:>9} {:>9} {:>6}\n", r.n,
             r.threads, r.what, num(r.scan * ms, 2), num(over_bound(r.scan, r.bytes_scan, r.bandwidth), 1),
             num(r.pack * ms, 2), num(over_bound(r.pack, r.bytes_pack, r.bandwidth), 1), num(r.prod * ms, 2),
             num(r.sums * ms, 2), num(r.write * ms, 2), num(over_bound(r.write, r.bytes_write, r.bandwidth), 1),
             num(1.0 - r.prod / r.seconds, 3), num(r.bandwidth * 1e-9, 1),
             num(r.amx_seconds * ms, 2) + (r.amx_measured ? "*" : ""), num(r.amx_native * ms, 2),
             num(r.amx_native / r.amx_seconds, 2));
  std::fflush(stdout);
}

}  // namespace bf16x::cli::bench
