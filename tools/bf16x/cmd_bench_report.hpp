// Results of `bf16x bench` and their outputs: the table on stdout, CSV, JSON and the gnuplot figures (speedup vs
// size per mode as in the paper's Fig. 6/7, the overhead ratio of Fig. 9, the split/compute breakdown of Fig. 10).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cmd_bench_baselines.hpp"

namespace bf16x::cli::bench {

inline constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// One measured line: an emulation mode, the native host GEMMs, or a raw BF16 baseline.
struct Row {
  std::int64_t n = 0;
  int threads = 1;
  std::string what;                // fp32x6, fp64x*, native, raw, raw-packed, onednn-bf16
  std::string routine;             // sgemm, dgemm, bf16
  int products = 0;                // BF16 products per output (emulation modes)
  double seconds = kNone;          // median of the repetitions
  double split = kNone;            // bf16x_stats.seconds_split, median
  double compute = kNone;          // bf16x_stats.seconds_compute, median
  double gflops = kNone;           // 2 n^3 / seconds
  double speedup_host = kNone;     // host GEMM of the routine's precision / this
  double speedup_onednn = kNone;   // oneDNN BF16 matmul / this
  double speedup_raw = kNone;      // our raw BF16 GEMM / this
  double overhead = kNone;         // seconds / (products x raw)
  double overhead_packed = kNone;  // seconds / (products x raw on packed operands)
  double peak_fraction = kNone;    // raw rows: GFLOPS / VDPBF16PS peak of this many threads
  double rel_err = kNone;          // ||C - C_dgemm||_F / ||C_dgemm||_F
};

struct Report {
  std::vector<std::pair<std::string, std::string>> header;  // machine, libraries, settings
  std::vector<Peak> peaks;
  std::vector<Row> rows;
};

void print_header(const Report& r);
void print_peaks(const Report& r);
void print_table_head();
void print_row(const Row& row);
bool write_csv(const Report& r, const std::string& path);
bool write_json(const Report& r, const std::string& path);
// Appends the peaks and rows of a file written by write_json (and its header, prefixed "<file>: ").
bool read_json(Report& r, const std::string& path);
// PNG figures (and their data and gnuplot scripts) under dir; false if gnuplot failed or is missing.
bool write_plots(const Report& r, const std::string& dir);

}  // namespace bf16x::cli::bench
