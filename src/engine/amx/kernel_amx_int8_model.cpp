// The AMX-INT8 micro-kernel on the software tile model (one TileModel per thread, like the hardware's tile state).
#include "engine/amx/amx_kernels.hpp"
#include "engine/amx/kernel_amx_bf16_32x32.hpp"
#include "engine/amx/kernel_amx_int8_32x32.hpp"
#include "engine/amx/tile_model.hpp"

namespace bf16x::engine::int8 {
namespace {

constexpr amx::TileConfig kPalette = amx::kernel_amx_bf16_32x32_config();
thread_local amx::TileModel tls_tiles;

}  // namespace

void kernel_amx_model(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc) {
  if (!tls_tiles.configured() && tls_tiles.load_config(&kPalette) != amx::ConfigError::none)
    throw amx::TileFault("kernel palette rejected");
  kernel_amx_int8_32x32(tls_tiles, a, b, kc, c, ldc, amx::schedule());
}

// The part kernel: the whole tile over the 64-k chunks that hold the live depth (the rest of a live line's chunk
// is zero; entries outside the extent are left unspecified by the contract).
void part_amx_model(const std::int8_t* a, const std::int8_t* b, int, int depth, std::int32_t* c, std::int64_t ldc, int,
                    int) {
  kernel_amx_model(a, b, (depth + kKChunk - 1) / kKChunk * kKChunk, c, ldc);
}

void amx_model_thread_end() { tls_tiles.release(); }

}  // namespace bf16x::engine::int8
