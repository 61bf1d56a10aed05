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

// The part kernel: the whole tile over the 64-k chunks that hold the live depth (as the model's).
void part_amx_hw(const std::int8_t* a, const std::int8_t* b, int, int depth, std::int32_t* c, std::int64_t ldc, int,
                 int) {
  kernel_amx_hw(a, b, (depth + kKChunk - 1) / kKChunk * kKChunk, c, ldc);
}

}  // namespace bf16x::engine::int8
