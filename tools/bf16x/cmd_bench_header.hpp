// The typed header of a `bf16x bench` report (JSON schema 2, docs/bench_json.md): when and where the run was made,
// with which library, engine, host BLAS and settings. Booleans are booleans and numbers numbers, so that scripts
// comparing reports need no parsing of "yes"/"no" or "5 timed (median)".
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bf16x::cli::bench {

// What the run was asked to do (the header records it next to the machine).
struct RunSettings {
  int engine_id = 0;
  std::vector<std::int64_t> sizes;
  std::vector<int> threads;
  std::vector<std::string> modes;
  int reps = 0, warmup = 0;
  int wait_idle_s = 0;
};

// The header at the start of a run: date, bf16x version, CPU and its ISA, engine, host BLAS, oneDNN, settings,
// load average. Keys in a fixed order.
nlohmann::ordered_json run_header(const RunSettings& s);

// Now, as ISO 8601 UTC to the second ("2026-12-03T06:50:00Z").
std::string utc_now_iso8601();

// The 1, 5 and 15 minute load averages (/proc/loadavg) as numbers; null where unreadable.
nlohmann::ordered_json load_average();

}  // namespace bf16x::cli::bench
