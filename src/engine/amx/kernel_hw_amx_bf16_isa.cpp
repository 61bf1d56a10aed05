// The AMX micro-kernel on the hardware tiles. Everything in this translation unit may compile to AMX (and
// AVX-512) instructions, so every path to a tile instruction passes the cpu::amx_available() check first: the
// engine record's available(), which every driver asks before its parallel region.
#include "engine/amx/amx_kernels.hpp"
#include "engine/amx/hw_tiles.hpp"
#include "engine/amx/kernel_amx_bf16_32x32.hpp"

namespace bf16x::engine::amx {
namespace {

// Static storage: LDTILECFG reads all 64 bytes from memory.
constexpr TileConfig kPalette = kernel_amx_bf16_32x32_config();

thread_local bool tls_configured = false;  // this thread's tiles hold kPalette

}  // namespace

// Reached only through the amx engine record, after its available() (cpu::amx_available(): CPUID, XCR0 and the
// process's tile permission) passed: the drivers check it before their parallel regions, so every thread may load
// the palette.
void hw_thread_begin() {
  if (tls_configured) return;
  HwTiles::load_config(kPalette);
  tls_configured = true;
}

void hw_thread_end() {
  if (!tls_configured) return;
  HwTiles::release();
  tls_configured = false;
}

void kernel_amx_hw(const MicroTileArgs& args) {
  hw_thread_begin();
  HwTiles tiles;
  kernel_amx_bf16_32x32(tiles, args, schedule());
}

}  // namespace bf16x::engine::amx
