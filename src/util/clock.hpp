// The one clock of timings (stats, benchmarks): monotonic seconds.
#pragma once
#include <chrono>

namespace bf16x::util {

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// now() where the call is timed (its stats or a verbose line want the seconds), else 0 without reading the clock: a
// read costs 20-30 ns on a virtual machine, and a tiny call made a dozen of them (a tenth of its time).
inline double now_if(bool timed) { return timed ? now() : 0.0; }

}  // namespace bf16x::util
