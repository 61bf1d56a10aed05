// The two instantiations of kernel_amx_bf16_32x32 with their per-thread tile context:
//   hardware (kernel_hw_amx_bf16_isa.cpp, HwTiles)  and  model (kernel_amx_model.cpp, a thread_local TileModel).
// thread_begin loads the kernel's palette unless this thread already holds it; thread_end releases the tiles.
// A kernel called without thread_begin configures its thread on first use, so it is correct either way; the
// driver brackets each GEMM call's parallel region with the pair, which makes it one LDTILECFG per thread per call.
#pragma once
#include <cstdint>

#include "engine/amx/kernel_amx_bf16_32x32.hpp"
#include "engine/engine.hpp"

namespace bf16x::engine::amx {

// The schedule both AMX micro-kernels (BF16 and INT8) run, hardware and model alike: BF16X_AMX_KERNEL=plain|
// interleaved|prefetch (default plain), read once; set_schedule for tests and benchmarks (not while a call runs).
// Every schedule gives the same bits and the same tile loads (kernel_amx_bf16_32x32.hpp).
Schedule schedule();
void set_schedule(Schedule s);
const char* schedule_name(Schedule s);

// Hardware tiles: run only after cpu::amx_available() (the engine record's available(), which the drivers ask).
void kernel_amx_hw(const MicroTileArgs& args);
void hw_thread_begin();
void hw_thread_end();

// TDPBF16PS issue rate: 4 x iters instructions on register tiles; returns their number. After amx_available().
std::uint64_t tdpbf16ps_peak_loop(std::uint64_t iters);

// Tile model.
void kernel_amx_model(const MicroTileArgs& args);
void model_thread_begin();
void model_thread_end();

}  // namespace bf16x::engine::amx
