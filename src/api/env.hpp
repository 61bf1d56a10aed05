// Process-wide settings from the environment, read once on first use (documented in README "Environment").
#pragma once
#include <cstdint>

namespace bf16x::api {

struct Env {
  int sgemm_mode;         // BF16X_SGEMM_MODE (default auto)
  int dgemm_mode;         // BF16X_DGEMM_MODE (default auto)
  std::int64_t min_size;  // BF16X_MIN_SIZE: calls with min(m,n,k) below it run native (default 0)
  const char* engine;     // BF16X_ENGINE (nullptr if unset)
  bool verbose;           // BF16X_VERBOSE=1: one line per call on stderr
  int split;              // BF16X_SPLIT=scaled|paper
  double auto_target;     // BF16X_AUTO_TARGET: auto's target e_scaled (0 if unset: the native GEMM's bound)
  bool auto_cost;         // BF16X_AUTO_COST=off: auto decides on accuracy alone, ignoring the cost model
};

const Env& env();

}  // namespace bf16x::api
