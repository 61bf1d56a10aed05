// HwTiles: the TileBackend on the hardware tiles, one AMX instruction per operation. Include only from a *_isa.cpp
// translation unit (built with -mamx-tile -mamx-bf16), and call only after cpu::amx_available().
//
// GCC's _tile_* macros paste the tile number into the instruction text, so each needs a literal; the instructions
// here are the macros' own text (AT&T and Intel dialects) with the tile number an immediate operand printed bare
// (%c), so that a compile-time tile number serves every register.
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
    // The asm names no memory input: keep earlier stores to the panel ahead of the load.
    __asm__ volatile("" ::: "memory");
    __asm__ volatile("{tileloadd\t(%0,%1,1), %%tmm%c2|tileloadd\t%%tmm%c2, [%0+%1*1]}" ::"r"(base),
                     "r"(static_cast<long>(stride)), "i"(T));
  }

  template <int T>
  static void store(void* base, std::size_t stride) {
    static_assert(T >= 0 && T < kTiles);
    __asm__ volatile("{tilestored\t%%tmm%c2, (%0,%1,1)|tilestored\t[%0+%1*1], %%tmm%c2}" ::"r"(base),
                     "r"(static_cast<long>(stride)), "i"(T)
                     : "memory");
  }

  // PREFETCHT0: the line of p into L1 (the kernels' prefetch schedule).
  static void prefetch(const void* p) { _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0); }

  template <int T>
  static void zero() {
    static_assert(T >= 0 && T < kTiles);
    __asm__ volatile("tilezero\t%%tmm%c0" ::"i"(T));
  }

  // Destinations TMM4-7, first sources TMM0-1, second sources TMM2-3: the register roles of the 32x32 kernel.
  template <int Dst, int Src1, int Src2>
  static void dpbf16ps() {
    static_assert(Dst >= 4 && Dst <= 7 && (Src1 == 0 || Src1 == 1) && (Src2 == 2 || Src2 == 3),
                  "HwTiles maps the accumulator (4-7), A (0-1) and B (2-3) tile roles");
    __asm__ volatile("{tdpbf16ps\t%%tmm%c2, %%tmm%c1, %%tmm%c0|tdpbf16ps\t%%tmm%c0, %%tmm%c1, %%tmm%c2}" ::"i"(Dst),
                     "i"(Src1), "i"(Src2));
  }
};

}  // namespace bf16x::engine::amx
