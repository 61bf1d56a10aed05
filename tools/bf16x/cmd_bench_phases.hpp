// The phases of each mode in `bf16x bench`: their times against a memory-bandwidth bound measured in the same run,
// and the AMX projection (docs/performance.md, "Phases" and "AMX projection"):
//
//   bound(phase)  = bytes(phase) / B_t, B_t the stream-copy bandwidth of t threads (bytes read + written per s)
//   T_proj        = (T(mode) - T(products) + T(sums)) + tile operations x 16 cycles / (f t)
//   T_native,AVX-512 = 2 n^3 / (r x 0.9 x f t), r = 32 (FP64) or 64 (FP32) flop per cycle per core
//
// with f the core clock measured by a chain of dependent integer multiplications, and T(sums)
// (bf16x_stats.seconds_sums) the part of the products phase that runs outside the engine, on the vector units: the
// exact sums of its results, which stay where they are on AMX. The projection is a model, labelled as such
// wherever it is printed, until AMX hardware runs the same bench.
#pragma once
#include <cstdint>

#include "cmd_bench_report.hpp"

namespace bf16x::cli::bench {

// Bytes per second that `threads` threads move copying between two buffers far larger than the caches (read +
// written), median of five passes; NaN where two 32 MiB buffers cannot be had.
double stream_bandwidth(int threads);

// The core clock in Hz: a chain of dependent integer multiplications (three cycles each), best of three.
double core_clock_hz();

// T_proj of a call that took `seconds`, `products` of them in the engine's products (`sums` of those outside the
// engine), with `dot_products` tile operations on `threads` threads at `clock_hz`; its own time where it ran on the
// AMX hardware (`on_amx`).
double amx_projected_seconds(double seconds, double products, double sums, double dot_products, double clock_hz,
                             int threads, bool on_amx);

// Fills r.bandwidth, r.clock_hz, r.amx_seconds and r.amx_native from the row's phases and tile operations. A row
// that ran on the AMX hardware (`on_amx`) keeps its measured time as amx_seconds (r.amx_measured): no model.
void project_amx(Row& r, double bandwidth, double clock_hz, bool fp64, bool on_amx);

void print_phase_head();
void print_phase_row(const Row& r);

}  // namespace bf16x::cli::bench
