// HwTiles: the TileBackend on the hardware tiles, one _tile_* intrinsic per operation. Include only from a
// *_isa.cpp translation unit (built with -mamx-tile -mamx-bf16), and call only after cpu::amx_available().
//
// GCC's _tile_* macros paste the tile number into the instruction text, so each needs a literal: the templates
// below map a compile-time tile number to its literal.
#pragma once
#if !(defined(__AMX_TILE__) || defined(__AMXTILE__)) || !(defined(__AMX_BF16__) || defined(__AMXBF16__))
#error "hw_tiles.hpp needs -mamx-tile -mamx-bf16 (name the translation unit *_isa.cpp under src/engine/amx/)"
#endif
#include <immintrin.h>

#include <cstddef>

#include "engine/amx/tile_config.hpp"

namespace bf16x::engine::amx {

struct HwTiles {
  static void load_config(const TileConfig& c) { _tile_loadconfig(&c); }
  static void release() { _tile_release(); }

  template <int T>
  static void load(const void* base, std::size_t stride) {
    static_assert(T >= 0 && T < kTiles);
    // The intrinsic's asm names no memory input: keep earlier stores to the panel ahead of the load.
    __asm__ volatile("" ::: "memory");
    if constexpr (T == 0)
      _tile_loadd(0, base, stride);
    else if constexpr (T == 1)
      _tile_loadd(1, base, stride);
    else if constexpr (T == 2)
      _tile_loadd(2, base, stride);
    else if constexpr (T == 3)
      _tile_loadd(3, base, stride);
    else if constexpr (T == 4)
      _tile_loadd(4, base, stride);
    else if constexpr (T == 5)
      _tile_loadd(5, base, stride);
    else if constexpr (T == 6)
      _tile_loadd(6, base, stride);
    else
      _tile_loadd(7, base, stride);
  }

  template <int T>
  static void store(void* base, std::size_t stride) {
    static_assert(T >= 0 && T < kTiles);
    if constexpr (T == 0)
      _tile_stored(0, base, stride);
    else if constexpr (T == 1)
      _tile_stored(1, base, stride);
    else if constexpr (T == 2)
      _tile_stored(2, base, stride);
    else if constexpr (T == 3)
      _tile_stored(3, base, stride);
    else if constexpr (T == 4)
      _tile_stored(4, base, stride);
    else if constexpr (T == 5)
      _tile_stored(5, base, stride);
    else if constexpr (T == 6)
      _tile_stored(6, base, stride);
    else
      _tile_stored(7, base, stride);
  }

  template <int T>
  static void zero() {
    static_assert(T >= 0 && T < kTiles);
    if constexpr (T == 0)
      _tile_zero(0);
    else if constexpr (T == 1)
      _tile_zero(1);
    else if constexpr (T == 2)
      _tile_zero(2);
    else if constexpr (T == 3)
      _tile_zero(3);
    else if constexpr (T == 4)
      _tile_zero(4);
    else if constexpr (T == 5)
      _tile_zero(5);
    else if constexpr (T == 6)
      _tile_zero(6);
    else
      _tile_zero(7);
  }

  // Destinations TMM4-7, first sources TMM0-1, second sources TMM2-3: the register roles of the 32x32 kernel.
  template <int Dst, int Src1, int Src2>
  static void dpbf16ps() {
    static_assert(Dst >= 4 && Dst <= 7 && (Src1 == 0 || Src1 == 1) && (Src2 == 2 || Src2 == 3),
                  "HwTiles maps the accumulator (4-7), A (0-1) and B (2-3) tile roles");
    constexpr int id = (Dst - 4) * 4 + Src1 * 2 + (Src2 - 2);
    if constexpr (id == 0)
      _tile_dpbf16ps(4, 0, 2);
    else if constexpr (id == 1)
      _tile_dpbf16ps(4, 0, 3);
    else if constexpr (id == 2)
      _tile_dpbf16ps(4, 1, 2);
    else if constexpr (id == 3)
      _tile_dpbf16ps(4, 1, 3);
    else if constexpr (id == 4)
      _tile_dpbf16ps(5, 0, 2);
    else if constexpr (id == 5)
      _tile_dpbf16ps(5, 0, 3);
    else if constexpr (id == 6)
      _tile_dpbf16ps(5, 1, 2);
    else if constexpr (id == 7)
      _tile_dpbf16ps(5, 1, 3);
    else if constexpr (id == 8)
      _tile_dpbf16ps(6, 0, 2);
    else if constexpr (id == 9)
      _tile_dpbf16ps(6, 0, 3);
    else if constexpr (id == 10)
      _tile_dpbf16ps(6, 1, 2);
    else if constexpr (id == 11)
      _tile_dpbf16ps(6, 1, 3);
    else if constexpr (id == 12)
      _tile_dpbf16ps(7, 0, 2);
    else if constexpr (id == 13)
      _tile_dpbf16ps(7, 0, 3);
    else if constexpr (id == 14)
      _tile_dpbf16ps(7, 1, 2);
    else
      _tile_dpbf16ps(7, 1, 3);
  }
};

}  // namespace bf16x::engine::amx
