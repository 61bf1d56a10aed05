// Mode resolution: DEFAULT -> the environment's mode; AUTO -> the accuracy target and the cost model; small
// problems (BF16X_MIN_SIZE) -> native.
#pragma once
#include <cstdint>

namespace bf16x::api {

struct ModeRequest {
  int mode;        // as passed (may be DEFAULT or AUTO)
  bool is_double;  // dgemm
  std::int64_t m, n, k;
  int engine;      // resolved engine id, or -1 if none usable
  double target;   // auto: target e_scaled (0: native level)
};

// Returns a concrete mode (NATIVE, FP32X6, FP64X*).
int resolve_mode(const ModeRequest& r);

}  // namespace bf16x::api
