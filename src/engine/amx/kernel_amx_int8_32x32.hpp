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

#include "engine/int8_kernel.hpp"

namespace bf16x::engine::int8 {

template <class Tiles>
void kernel_amx_int8_32x32(Tiles& t, const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c,
                           std::int64_t ldc) {
  const std::size_t cs = std::size_t(ldc) * sizeof(std::int32_t);
  t.template load<4>(c, cs);
  t.template load<5>(c + 16, cs);
  t.template load<6>(c + 16 * ldc, cs);
  t.template load<7>(c + 16 * ldc + 16, cs);
  for (int ch = 0; ch < kc / kKChunk; ++ch) {
    const std::int8_t* ap = a + std::size_t(ch) * 2048;
    const std::int8_t* bp = b + std::size_t(ch) * 16 * 128;
    t.template load<0>(ap, 64);
    t.template load<1>(ap + 1024, 64);
    t.template load<2>(bp, 128);
    t.template load<3>(bp + 64, 128);
    t.template dpbssd<4, 0, 2>();
    t.template dpbssd<5, 0, 3>();
    t.template dpbssd<6, 1, 2>();
    t.template dpbssd<7, 1, 3>();
  }
  t.template store<4>(c, cs);
  t.template store<5>(c + 16, cs);
  t.template store<6>(c + 16 * ldc, cs);
  t.template store<7>(c + 16 * ldc + 16, cs);
}

}  // namespace bf16x::engine::int8
