// The AMX-INT8 micro-kernel on the hardware tiles. Compiled with AMX flags; reached only through the amx engine record
// (engine/records.cpp), whose INT8 available() requires cpu::has_amx_int8() (AMX-TILE, AMX-INT8, XCR0 tile state, Linux
// permission).
#include "engine/amx/amx_kernels.hpp"
#include "engine/amx/hw_tiles.hpp"
#include "engine/amx/kernel_amx_int8_32x32.hpp"

namespace bf16x::engine::int8 {
namespace {

struct HwTilesInt8 : amx::HwTiles {
  // Destinations TMM4-7, first sources TMM0-1, second sources TMM2-3, as in the kernel.
  template <int Dst, int Src1, int Src2>
  static void dpbssd() {
    static_assert(Dst >= 4 && Dst <= 7 && (Src1 == 0 || Src1 == 1) && (Src2 == 2 || Src2 == 3));
    __asm__ volatile("{tdpbssd\t%%tmm%c2, %%tmm%c1, %%tmm%c0|tdpbssd\t%%tmm%c0, %%tmm%c1, %%tmm%c2}" ::"i"(Dst),
                     "i"(Src1), "i"(Src2));
  }
};

}  // namespace

void kernel_amx_hw(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc) {
  amx::hw_thread_begin();  // the BF16 kernel's palette (all tiles 16 x 64 bytes) serves this kernel too
  HwTilesInt8 t;
  kernel_amx_int8_32x32(t, a, b, kc, c, ldc, amx::schedule());
}

std::uint64_t tdpbssd_peak_loop(std::uint64_t iters) {
  // Operands stay in the tiles, four independent accumulators as in the kernel: the instruction's issue rate alone.
  alignas(64) std::int8_t a[16 * 64], b[16 * 64];
  alignas(64) std::int32_t sink[16 * 16];
  for (int i = 0; i < 16 * 64; ++i) a[i] = std::int8_t(i % 7 - 3), b[i] = std::int8_t(i % 5 - 2);
  amx::hw_thread_begin();
  HwTilesInt8 t;
  t.load<amx::kTileA0>(a, 64);
  t.load<amx::kTileA1>(a, 64);
  t.load<amx::kTileB0>(b, 64);
  t.load<amx::kTileB1>(b, 64);
  t.zero<amx::kTileC00>();
  t.zero<amx::kTileC01>();
  t.zero<amx::kTileC10>();
  t.zero<amx::kTileC11>();
  for (std::uint64_t i = 0; i < iters; ++i) {
    t.dpbssd<amx::kTileC00, amx::kTileA0, amx::kTileB0>();
    t.dpbssd<amx::kTileC01, amx::kTileA0, amx::kTileB1>();
    t.dpbssd<amx::kTileC10, amx::kTileA1, amx::kTileB0>();
    t.dpbssd<amx::kTileC11, amx::kTileA1, amx::kTileB1>();
  }
  t.store<amx::kTileC00>(sink, 64);
  t.store<amx::kTileC11>(sink, 64);
  __asm__ volatile("" : : "r"(sink) : "memory");
  amx::hw_thread_end();
  return 4 * iters;
}

// The part kernel: the whole tile over the 64-k chunks that hold the live depth (as the model's).
void part_amx_hw(const std::int8_t* a, const std::int8_t* b, int, int depth, std::int32_t* c, std::int64_t ldc, int,
                 int) {
  kernel_amx_hw(a, b, (depth + kKChunk - 1) / kKChunk * kKChunk, c, ldc);
}

}  // namespace bf16x::engine::int8
