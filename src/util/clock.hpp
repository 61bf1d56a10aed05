// The one clock of timings (stats, benchmarks): monotonic seconds.
#pragma once
#include <chrono>

namespace bf16x::util {

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace bf16x::util
