// kernel_amx_int8_32x32: the AMX-INT8 micro-kernel, written once over a tile backend (the hardware tiles, or the
// software TileModel with the SDM semantics of TDPBSSD). Contract: engine/int8_kernel.hpp.
//
// Tiles (palette 1, every tile 16 rows x 64 bytes, the BF16 kernel's palette):
//                          TMM2 = B cols 0-15      TMM3 = B cols 16-31     (16 k-quads x 16 dwords)
//   TMM0 = A rows 0-15      TMM4 = C00              TMM5 = C01              (16 rows x 64 int8 of k)
//   TMM1 = A rows 16-31     TMM6 = C10              TMM7 = C11              (16 x 16 int32)
// C tiles are loaded from c, each 64-k chunk loads the two A and two B tiles and issues four TDPBSSD, and the
// accumulators are stored back: c += A B exactly (int32 wraps modulo 2^32 as the true sum fits).
#pragma once
#include <cstddef>
#include <cstdint>

#include "engine/amx/kernel_amx_bf16_32x32.hpp"
#include "engine/int8_kernel.hpp"

namespace bf16x::engine::int8 {

// The schedules of kernel_amx_bf16_32x32.hpp: every chunk loads all four operand tiles, so `interleaved` loads
// chunk ch + 1's tiles between chunk ch's dot products (B0' after C00 and C10, A0' after C01, then B1' and A1')
// and `prefetch` prefetches chunk ch + 1's 64 lines while chunk ch runs; the dot products on each accumulator come
// in the same order, so every schedule gives the same sums.
template <amx::Schedule S = amx::Schedule::plain, class Tiles>
void kernel_amx_int8_32x32(Tiles& t, const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c,
                           std::int64_t ldc) {
  const std::size_t cs = std::size_t(ldc) * sizeof(std::int32_t);
  const auto ap = [&](int ch) { return a + std::size_t(ch) * 2048; };
  const auto bp = [&](int ch) { return b + std::size_t(ch) * 16 * 128; };
  const int chunks = kc / kKChunk;
  t.template load<4>(c, cs);
  t.template load<5>(c + 16, cs);
  t.template load<6>(c + 16 * ldc, cs);
  t.template load<7>(c + 16 * ldc + 16, cs);
  if constexpr (S == amx::Schedule::interleaved) {
    if (chunks > 0) {
      t.template load<0>(ap(0), 64);
      t.template load<1>(ap(0) + 1024, 64);
      t.template load<2>(bp(0), 128);
      t.template load<3>(bp(0) + 64, 128);
    }
    for (int ch = 0; ch < chunks; ++ch) {
      const bool more = ch + 1 < chunks;
      t.template dpbssd<4, 0, 2>();
      t.template dpbssd<6, 1, 2>();
      if (more) t.template load<2>(bp(ch + 1), 128);
      t.template dpbssd<5, 0, 3>();
      if (more) t.template load<0>(ap(ch + 1), 64);
      t.template dpbssd<7, 1, 3>();
      if (more) {
        t.template load<3>(bp(ch + 1) + 64, 128);
        t.template load<1>(ap(ch + 1) + 1024, 64);
      }
    }
  } else {
    for (int ch = 0; ch < chunks; ++ch) {
      if constexpr (S == amx::Schedule::prefetch) {
        if (ch + 1 < chunks)
          for (int line = 0; line < 32; ++line) {
            t.prefetch(ap(ch + 1) + 64 * line);
            t.prefetch(bp(ch + 1) + 64 * line);
          }
      }
      t.template load<0>(ap(ch), 64);
      t.template load<1>(ap(ch) + 1024, 64);
      t.template load<2>(bp(ch), 128);
      t.template load<3>(bp(ch) + 64, 128);
      t.template dpbssd<4, 0, 2>();
      t.template dpbssd<5, 0, 3>();
      t.template dpbssd<6, 1, 2>();
      t.template dpbssd<7, 1, 3>();
    }
  }
  t.template store<4>(c, cs);
  t.template store<5>(c + 16, cs);
  t.template store<6>(c + 16 * ldc, cs);
  t.template store<7>(c + 16 * ldc + 16, cs);
}

// The kernel in the schedule s (chosen at run time).
template <class Tiles>
void kernel_amx_int8_32x32(Tiles& t, const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c,
                           std::int64_t ldc, amx::Schedule s) {
  switch (s) {
    case amx::Schedule::interleaved:
      return kernel_amx_int8_32x32<amx::Schedule::interleaved>(t, a, b, kc, c, ldc);
    case amx::Schedule::prefetch:
      return kernel_amx_int8_32x32<amx::Schedule::prefetch>(t, a, b, kc, c, ldc);
    case amx::Schedule::plain:
      break;
  }
  kernel_amx_int8_32x32<amx::Schedule::plain>(t, a, b, kc, c, ldc);
}

}  // namespace bf16x::engine::int8
