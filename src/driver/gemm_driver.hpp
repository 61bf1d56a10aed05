// The blocked emulation driver: C = alpha * op(A) op(B) + beta * C (column-major) from BF16 slice products.
#pragma once
#include <cstddef>
#include <cstdint>

#include "engine/engine.hpp"
#include "pack/operand.hpp"
#include "split/scheme.hpp"
#include "util/driver_status.hpp"
#include "util/phase_times.hpp"

namespace bf16x::driver {

using pack::GemmArgs;

struct DriverConfig {
  const split::Scheme* scheme;
  const engine::EngineInfo* engine;
  bool scaled = true;           // power-of-two row/column scaling (false: the paper's unscaled slices)
  bool fuse_diagonals = false;  // FP64: share exact accumulators along anti-diagonals
  int block_k = 0;              // 0: pack::kBlockK (FP64) / pack::kBlockKFp32 (FP32)
  engine::EngineCounters* counters = nullptr;
  double seconds_split = 0, seconds_compute = 0;  // filled by the call
  util::PhaseTimes phases;                        // filled by the call
  std::size_t workspace_bytes = 0;                // filled by the call: the workspace it reserved
  bool timed = true;        // the phases' seconds wanted (stats or a verbose line): else no clock is read
  pack::KnownScales known;  // the lines' scale exponents where the caller measured them: no scan
};

using util::DriverStatus;

// Never writes C unless it returns ok (nonfinite_input: the caller routes the call to its exact fallback).
template <typename T>
DriverStatus gemm_emulated(const GemmArgs<T>& args, DriverConfig& cfg);

// Bytes of workspace a call needs, besides the two scale vectors (m + n ints): bounded by the block sizes, the
// slices and `threads` (driver/blocking.hpp), whatever m, n, k are. 0 for an empty product.
std::size_t workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, const split::Scheme& s, int bk, int threads,
                            bool fp64, bool fuse);

}  // namespace bf16x::driver
