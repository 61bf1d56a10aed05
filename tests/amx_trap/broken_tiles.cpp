#include "broken_tiles.hpp"

#include <immintrin.h>

#include "engine/amx/kernel_amx_bf16_32x32.hpp"

namespace bf16x::test::broken {

namespace {
constexpr engine::amx::TileConfig kPalette = engine::amx::kernel_amx_bf16_32x32_config();
}

void configure_this_thread() { _tile_loadconfig(&kPalette); }

void tilezero_without_ldtilecfg() { _tile_zero(4); }

}  // namespace bf16x::test::broken
