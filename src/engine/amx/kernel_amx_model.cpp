// The AMX micro-kernel on the software tile model: one TileModel per thread, as each hardware thread has its
// own tile state.
#include "engine/amx/amx_kernels.hpp"
#include "engine/amx/kernel_amx_bf16_32x32.hpp"
#include "engine/amx/tile_model.hpp"

namespace bf16x::engine::amx {
namespace {

constexpr TileConfig kPalette = kernel_amx_bf16_32x32_config();

thread_local TileModel tls_tiles;  // constant-initialised: all zero, unconfigured; only kPalette is ever loaded

}  // namespace

void model_thread_begin() {
  if (tls_tiles.configured()) return;
  if (tls_tiles.load_config(&kPalette) != ConfigError::none) throw TileFault("kernel palette rejected");
}

void model_thread_end() { tls_tiles.release(); }

void kernel_amx_model(const MicroTileArgs& args) {
  model_thread_begin();
  kernel_amx_bf16_32x32(tls_tiles, args, schedule());
}

}  // namespace bf16x::engine::amx
