#include "cmd_bench_report.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <fstream>

namespace bf16x::cli::bench {
namespace {

std::string num(double x, int prec = 3) { return std::isnan(x) ? "-" : fmt::format("{:.{}f}", x, prec); }

}  // namespace

std::string header_text(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_array()) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + header_text(x);
    return s;
  }
  return v.dump();
}

void print_header(const Report& r) {
  fmt::print("bf16x bench\n");
  if (r.header.is_object())
    for (const auto& [k, v] : r.header.items()) fmt::print("  {:<22}: {}\n", k, header_text(v));
  for (const Source& s : r.merged) {
    fmt::print("  merged {} (schema {})\n", s.file, s.schema_version);
    if (s.header.is_object())
      for (const auto& [k, v] : s.header.items()) fmt::print("    {:<20}: {}\n", k, header_text(v));
  }
  fmt::print(
      "  columns: time = median of reps; GFLOPS = 2n^3/time; xhost = host GEMM time / time (SGEMM for fp32x6, "
      "DGEMM for fp64); xdnnl, xraw = oneDNN BF16 matmul / our raw BF16 GEMM time over time; overhead = time / "
      "(products x raw); split, compute = bf16x_stats; err = ||C - C_dgemm||_F / ||C_dgemm||_F\n\n");
}

void print_peaks(const Report& r) {
  for (const Peak& p : r.peaks)
    fmt::print("  VDPBF16PS peak, {} thread(s): {:.1f} GFLOPS ({:.1f} per thread), one-chain latency {:.2f} ns\n",
               p.threads, p.gflops, p.gflops_per_thread, p.latency_ns);
  if (!r.peaks.empty()) fmt::print("\n");
}

void print_table_head() {
  fmt::print("{:>5} {:>2} {:<11} {:<5} {:>3} {:>10} {:>8} {:>7} {:>7} {:>7} {:>8} {:>9} {:>10} {:>6} {:>9}\n", "n", "t",
             "mode", "rout", "prd", "time_ms", "GFLOPS", "xhost", "xdnnl", "xraw", "overhead", "split_ms", "compute_ms",
             "peak%", "err");
}

void print_row(const Row& x) {
  if (!x.error.empty()) {
    fmt::print("{:>5} {:>2} {:<11} {:<5} error: {}\n", x.n, x.threads, x.what, x.routine, x.error);
    std::fflush(stdout);
    return;
  }
  fmt::print("{:>5} {:>2} {:<11} {:<5} {:>3} {:>10} {:>8} {:>7} {:>7} {:>7} {:>8} {:>9} {:>10} {:>6} {:>9}\n", x.n,
             x.threads, x.what, x.routine, x.products ? std::to_string(x.products) : "-", num(x.seconds * 1e3, 2),
             num(x.gflops, 1), num(x.speedup_host, 3), num(x.speedup_onednn, 3), num(x.speedup_raw, 3),
             num(x.overhead, 3), num(x.split * 1e3, 2), num(x.compute * 1e3, 2), num(x.peak_fraction * 100, 1),
             std::isnan(x.rel_err) ? std::string("-") : fmt::format("{:.2e}", x.rel_err));
  std::fflush(stdout);
}

bool write_csv(const Report& r, const std::string& path) {
  std::ofstream f(path);
  if (!f) return false;
  f << "n,threads,mode,routine,products,seconds,gflops,speedup_host,speedup_onednn,speedup_raw,overhead,"
       "overhead_packed,seconds_split,seconds_compute,peak_fraction,rel_err,seconds_scan,seconds_pack,seconds_products,"
       "seconds_write,bytes_scan,bytes_pack,bytes_write,dot_products,bandwidth,clock_hz,amx_projected_seconds,"
       "amx_native_model_seconds,seconds_sums\n";
  auto c = [](double x) { return std::isnan(x) ? std::string() : fmt::format("{:.9g}", x); };
  for (const Row& x : r.rows)
    f << x.n << ',' << x.threads << ',' << x.what << ',' << x.routine << ',' << x.products << ',' << c(x.seconds) << ','
      << c(x.gflops) << ',' << c(x.speedup_host) << ',' << c(x.speedup_onednn) << ',' << c(x.speedup_raw) << ','
      << c(x.overhead) << ',' << c(x.overhead_packed) << ',' << c(x.split) << ',' << c(x.compute) << ','
      << c(x.peak_fraction) << ',' << c(x.rel_err) << ',' << c(x.scan) << ',' << c(x.pack) << ',' << c(x.prod) << ','
      << c(x.write) << ',' << c(x.bytes_scan) << ',' << c(x.bytes_pack) << ',' << c(x.bytes_write) << ','
      << c(x.dot_products) << ',' << c(x.bandwidth) << ',' << c(x.clock_hz) << ',' << c(x.amx_seconds) << ','
      << c(x.amx_native) << ',' << c(x.sums) << '\n';
  return bool(f);
}

}  // namespace bf16x::cli::bench
