// tdpbf16ps_peak_loop: the TDPBF16PS throughput probe behind bench/bench_engine (AmxPeak). Operands stay in the
// tiles: four independent accumulators (TMM4-7) from two A and two B tiles, as in the 32x32 kernel, so the loop
// measures the instruction's issue rate and nothing of the memory system. Call only after cpu::amx_available().
#include "engine/amx/amx_kernels.hpp"
#include "engine/amx/hw_tiles.hpp"
#include "engine/amx/kernel_amx_bf16_32x32.hpp"

namespace bf16x::engine::amx {

std::uint64_t tdpbf16ps_peak_loop(std::uint64_t iters) {
  // Normal BF16 operands (1.0 and 2^-7 in every pair): no zero or subnormal fast path flatters the rate.
  alignas(64) std::uint32_t a[16 * 16], b[16 * 16];
  alignas(64) float sink[16 * 16];
  for (int i = 0; i < 16 * 16; ++i) {
    a[i] = 0x3f803f80u;
    b[i] = 0x3c003c00u;
  }
  hw_thread_begin();  // the kernel's palette, and this thread's record of it
  HwTiles t;
  t.load<kTileA0>(a, 64);
  t.load<kTileA1>(a, 64);
  t.load<kTileB0>(b, 64);
  t.load<kTileB1>(b, 64);
  t.zero<kTileC00>();
  t.zero<kTileC01>();
  t.zero<kTileC10>();
  t.zero<kTileC11>();
  for (std::uint64_t i = 0; i < iters; ++i) {
    t.dpbf16ps<kTileC00, kTileA0, kTileB0>();
    t.dpbf16ps<kTileC01, kTileA0, kTileB1>();
    t.dpbf16ps<kTileC10, kTileA1, kTileB0>();
    t.dpbf16ps<kTileC11, kTileA1, kTileB1>();
  }
  t.store<kTileC00>(sink, 64);
  t.store<kTileC11>(sink, 64);
  __asm__ volatile("" : : "r"(sink) : "memory");
  hw_thread_end();
  return 4 * iters;
}

}  // namespace bf16x::engine::amx
