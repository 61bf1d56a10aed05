// The raw single-product BF16 GEMM of an engine: C = op(A) op(B) with BF16 inputs and FP32 output, no splitting,
// one product per micro-tile, the engine accumulating across k-blocks. It measures the headroom of an engine
// (paper Section 8.1: emulation time over products x raw time) with the same packed layout, block loop and
// threads as the emulation modes, so the ratio isolates what splitting and reconstruction cost.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/engine.hpp"
#include "pack/operand.hpp"
#include "pack/panels.hpp"

namespace bf16x::driver {

// op(A) (m x k) and op(B) (k x n) packed once, one slice, k-blocks of pack::kBlockK.
struct RawPacked {
  std::int64_t m = 0, n = 0, k = 0;
  pack::PackedPanels a, b;
  std::vector<bf16_t> storage;
};

void raw_pack(const pack::MatrixView<bf16_t>& a, const pack::MatrixView<bf16_t>& b, std::int64_t m, std::int64_t n,
              std::int64_t k, RawPacked& out);

// C (column-major, ldc) = op(A) op(B) from packed operands. False if the block scratch cannot be allocated.
bool raw_gemm_packed(const engine::EngineInfo& e, const RawPacked& p, float* c, std::int64_t ldc,
                     engine::EngineCounters* counters = nullptr);

struct RawTimes {
  double pack = 0, compute = 0;  // seconds
};

// Unpacked operands: packs into a per-thread buffer (kept between calls), then computes.
bool raw_gemm(const engine::EngineInfo& e, std::int64_t m, std::int64_t n, std::int64_t k,
              const pack::MatrixView<bf16_t>& a, const pack::MatrixView<bf16_t>& b, float* c, std::int64_t ldc,
              RawTimes* times = nullptr);

}  // namespace bf16x::driver
