// Results of `bf16x bench` and their outputs: the table on stdout, CSV, JSON and the gnuplot figures (speedup vs
// size per mode as in the paper's Fig. 6/7, the overhead ratio of Fig. 9, the split/compute breakdown of Fig. 10).
#pragma once
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
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
  // The phases (bf16x_stats version 3, medians; emulation modes) and what they are measured against.
  double scan = kNone, pack = kNone, prod = kNone, write = kNone;  // seconds (the first thread's)
  double sums = kNone;  // the part of prod outside the engine (bf16x_stats.seconds_sums, version 4)
  double bytes_scan = kNone, bytes_pack = kNone, bytes_write = kNone;
  double dot_products = kNone;  // TDPBF16PS / TDPBSSD equivalents of one call
  double bandwidth = kNone;     // stream copy on this many threads, bytes/s (cmd_bench_phases.hpp)
  double clock_hz = kNone;      // the core clock of the AMX projection
  double amx_seconds = kNone;   // AMX projection of this mode (cmd_bench_phases.hpp), or its time on AMX
  bool amx_measured = false;    // amx_seconds is the measured time: the call ran on the AMX hardware
  double amx_native = kNone;    // native GEMM at the AVX-512 FMA rate on the same clock (model)
  std::string error;            // why a mode has no measurement: printed in the table, not kept as a row
};

// The header of a file merged with --load, as it was read (schema 1: strings; schema 2: typed, cmd_bench_header.hpp).
struct Source {
  std::string file;
  int schema_version = 0;
  nlohmann::ordered_json header;
};

struct Report {
  nlohmann::ordered_json header;  // this run's (run_header), null when the report only merges --load files
  std::vector<Source> merged;
  std::vector<Peak> peaks;
  std::vector<Row> rows;
};

// A header value as the table shows it: strings as they are, booleans yes/no, arrays comma-separated, null "-".
std::string header_text(const nlohmann::ordered_json& v);
void print_header(const Report& r);
void print_peaks(const Report& r);
void print_table_head();
void print_row(const Row& row);  // flushed: rows measured before a failure are not lost with it
bool write_csv(const Report& r, const std::string& path);
// JSON schema 2 (docs/bench_json.md).
bool write_json(const Report& r, const std::string& path);
// Appends the peaks, rows and header(s) of a file written by write_json, schema 1 (no "schema_version") or 2; any
// other schema, or a malformed file, is refused with the reason on stderr.
bool read_json(Report& r, const std::string& path);
// PNG figures (and their data and gnuplot scripts) under dir; false if gnuplot failed or is missing.
bool write_plots(const Report& r, const std::string& dir);

}  // namespace bf16x::cli::bench
