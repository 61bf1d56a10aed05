// The AVX512-BF16 micro-kernel and its VDPBF16PS peak probe. Both live in *_isa.cpp translation units built with
// -mavx512bf16; call them only after cpu::has_avx512bf16().
#pragma once
#include <cstdint>

#include "engine/engine.hpp"

namespace bf16x::engine::avx512bf16 {

// The engine contract of engine/engine.hpp on one 32x32 micro-tile (see kernel_avx512bf16_isa.cpp).
void kernel_avx512bf16_32x32(const MicroTileArgs& args);

// Runs `iters` rounds of `chains` independent register-only VDPBF16PS zmm chains (1 <= chains <= 24) and returns
// the number of instructions executed; the caller times it. 64 flops per instruction (16 lanes x 2 pairs x 2).
std::uint64_t dpbf16_peak_loop(std::uint64_t iters, int chains);

}  // namespace bf16x::engine::avx512bf16
