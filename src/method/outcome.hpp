// What a call did, for the stats and the verbose line: filled by the method that ran it (method/table.hpp), summed
// over the GEMMs of a call that runs several (complex, level 3).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "bf16x/bf16x.h"
#include "engine/engine.hpp"
#include "util/phase_times.hpp"

namespace bf16x::method {

// What a method returns for a triangular call (method::Call::part not all) that it cannot run as one: nothing was
// written, and the caller covers the triangle with whole GEMMs instead (level3/gemmt.cpp). Never a caller's status.
constexpr int kPartDeclined = 0x7fff0001;

// What the guard's second fixed-point level (method/second_level.hpp) returns where it did not run: C untouched, the
// caller runs the host GEMM instead. Never a caller's status.
constexpr int kSecondLevelNotRun = 0x7fff0002;

struct Outcome {
  int mode = BF16X_MODE_NATIVE;  // mode that ran
  int engine = -1;               // engine that ran, -1: the host BLAS
  std::string why;               // ",key=value..." for the verbose line
  engine::EngineCounters counters;
  double seconds_split = 0, seconds_compute = 0;
  std::size_t workspace_bytes = 0;
  int guard = 0;                 // bf16x_guard_result
  std::uint64_t repaired = 0;    // entries the guard recomputed (by dot products, or by the host on its host lines)
  std::uint64_t host_lines = 0;  // rows and columns the guard sent to the host (method/guard_lines.hpp)
  int levels = 1;                // 2: the guard's second fixed-point level ran the call (method/second_level.hpp)
  double seconds_guard = 0;      // the guard's proof and repair
  util::PhaseTimes phases;       // the driver's (bf16x_stats version 3)
};

// Adds one GEMM's outcome to a call's that runs several (complex, level 3): counters, times and repairs summed, the
// mode and engine of the last, the first non-empty why, the largest workspace, the strongest guard step.
void merge_outcome(Outcome& total, const Outcome& one);

}  // namespace bf16x::method
