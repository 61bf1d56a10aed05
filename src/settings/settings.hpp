// What a call's plan depends on besides its arguments: the environment (settings/env.hpp) under the runtime settings
// (settings/runtime.hpp), read once at the start of a call (current_settings) and handed to the planning functions
// (plan_call, resolve_mode, choose_auto, resolve_engine), which read nothing else; a test hands in any settings.
#pragma once
#include <cstdint>

#include "bf16x/bf16x.h"

namespace bf16x::settings {

struct Settings {
  int sgemm_mode = BF16X_MODE_AUTO;       // effective: bf16x_set_sgemm_mode, else BF16X_SGEMM_MODE, else auto
  int dgemm_mode = BF16X_MODE_AUTO;       // the same for DGEMM
  int engine = BF16X_ENGINE_AUTO;         // bf16x_set_engine's BF16 engine (AUTO: the process's choice)
  int crt_engine = BF16X_ENGINE_AUTO;     // bf16x_set_engine's INT8 engine (AUTO: the process's choice)
  int env_engine = BF16X_ENGINE_AUTO;     // BF16X_ENGINE
  double auto_target = 0;                 // effective: bf16x_set_auto_target, else BF16X_AUTO_TARGET; 0: native's bound
  bool auto_cost = true;                  // BF16X_AUTO_COST
  std::int64_t min_size = 0;              // BF16X_MIN_SIZE
  int split = BF16X_SPLIT_SCALED;         // BF16X_SPLIT
  int guard = BF16X_GUARD_DEFAULT;        // BF16X_GUARD
  bool crt_fast_scaling = false;          // BF16X_CRT_SCALING=fast
  int complex_method = BF16X_COMPLEX_4M;  // BF16X_COMPLEX_METHOD
  int mode(bool is_double) const { return is_double ? dgemm_mode : sgemm_mode; }
};

}  // namespace bf16x::settings
