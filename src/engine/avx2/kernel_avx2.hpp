// The AVX2 + FMA micro-kernel. It lives in a *_isa.cpp translation unit built with -mavx2 -mfma (and nothing
// wider); call it only after cpu::has_avx2_fma().
#pragma once
#include "engine/engine.hpp"

namespace bf16x::engine::avx2 {

// The engine contract of engine/engine.hpp on one 32x32 micro-tile, bit for bit the reference engine's result
// (see kernel_avx2_isa.cpp).
void kernel_avx2_32x32(const MicroTileArgs& args);

// EngineInfo hooks: between them the kernel reuses the FP32 copy of an A micro-panel it converted for the previous
// call on the same panel (the panels must not change in between, as engine/engine.hpp states).
void thread_begin();
void thread_end();

}  // namespace bf16x::engine::avx2
