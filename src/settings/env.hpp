// Process-wide settings from the environment, read once on first use (documented in README "Environment"). Every
// variable is parsed by the strict rules of env/env_vars.hpp; a refused value keeps the default and says so.
#pragma once
#include <cstdint>

#include "env/env_vars.hpp"

namespace bf16x::settings {

struct Env {
  int sgemm_mode = 0;           // BF16X_SGEMM_MODE: an SGEMM mode, native or auto (default auto)
  int dgemm_mode = 0;           // BF16X_DGEMM_MODE: a DGEMM mode, native or auto (default auto)
  std::int64_t min_size = 0;    // BF16X_MIN_SIZE: calls with min(m,n,k) below it run native (default 0)
  int engine = 0;               // BF16X_ENGINE as a BF16X_ENGINE_* id (default BF16X_ENGINE_AUTO)
  bool engine_set = false;      // BF16X_ENGINE named an engine explicitly
  int crt_engine = 0;           // BF16X_CRT_ENGINE as an engine with an INT8 side (default BF16X_ENGINE_AUTO)
  bool crt_engine_set = false;  // BF16X_CRT_ENGINE is set (even to a refused value: it outranks BF16X_ENGINE)
  bool verbose = false;         // BF16X_VERBOSE=1 (or all): one line per call on stderr
  bool summary = false;         // BF16X_VERBOSE=summary (or all): a summary of the calls at exit
  int split = 0;                // BF16X_SPLIT=scaled|paper (default scaled)
  double auto_target = 0;       // BF16X_AUTO_TARGET: auto's target e_scaled (0 if unset: the native GEMM's bound)
  bool auto_cost = true;        // BF16X_AUTO_COST=off: auto decides on accuracy alone, ignoring the cost model
  int complex_method = 1;       // BF16X_COMPLEX_METHOD=4m|3m as BF16X_COMPLEX_4M / _3M (default 4m)
  bool crt_fast_scaling =
      false;            // BF16X_CRT_SCALING=fast|accurate (default accurate): CRT scales without the bound GEMM
  int guard = 0;        // BF16X_GUARD=on|off|default as BF16X_GUARD_* (default: the modes' defaults)
  int num_threads = 0;  // BF16X_NUM_THREADS: 1..BF16X_MAX_THREADS threads (0 or unset: OpenMP's default)
};

// The settings `src` describes (refusals reported through src.warn).
Env parse_env(const envvar::Source& src);

// One line on stderr for each BF16X_* variable of the environment that no part of bf16x reads (env/variables.hpp),
// with the known name it most likely meant.
void warn_unknown_variables();

// parse_env of this process's environment (and warn_unknown_variables).
Env process_env();

// process_env(), once: inline, so that each of a call's reads costs a load and a test (LAPACK's millions of calls).
inline const Env& env() {
  static const Env e = process_env();
  return e;
}

}  // namespace bf16x::settings
