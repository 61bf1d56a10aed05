// bf16x bench --routine syrk|syr2k|symm|trmm|trsm|gemmt|herk|her2k|hemm (with or without the precision letter:
// dsyrk, zherk, ...): a level-3 routine's rate, its own flop count over its time, against the same mode's GEMM at
// the same n in the same run (each timed run of the routine right after one of the GEMM), and their ratio.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bf16x::cli {

struct Level3BenchArgs {
  std::string routine;  // as given: "syrk" (the precision from each mode) or "dsyrk", "zherk", ...
  std::vector<std::int64_t> sizes;
  std::vector<int> threads;
  std::vector<std::string> modes;    // "native" runs the host's routine through the library's native mode
  std::vector<std::string> methods;  // complex routines: "4m", "3m"; empty: the library's default
  int engine = 0, crt_engine = 0;    // of the slice modes and of the CRT modes
  int reps = 5, warmup = 1;
  std::string csv;  // optional: the rows as CSV
};

// The --routine values this bench takes: every routine bare and with each of its precision letters.
std::vector<std::string> level3_routine_names();
bool is_level3_routine(const std::string& routine);
// The default modes of a routine's bench: native and the DGEMM-accurate modes of its precision.
std::vector<std::string> level3_default_modes(const std::string& routine);

int run_level3_bench(const Level3BenchArgs& a);  // the process exit code

}  // namespace bf16x::cli
