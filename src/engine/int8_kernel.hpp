// The INT8 micro-kernel contract of the CRT modes and its packed layout.
//
// One call: c[i * ldc + j] += sum_{l < kc} a(i, l) b(l, j) for a 32 x 32 tile, int8 x int8 products summed exactly
// in int32 (the caller keeps |sum| < 2^31: kc * 2^14 plus what c holds). Every engine returns the same int32
// values bit for bit, as exact sums must.
//
// Packed A panel (32 rows x kc, kc a multiple of 64): byte (r, l) at (l / 64) * 2048 + r * 64 + l % 64, i.e. kc/64
// chunks of 32 rows x 64 bytes (two AMX A tiles of 16 rows per chunk), then int32 rowsum[32] = sum_l a(r, l) (for
// engines that bias the A operand, e.g. VPDPBUSD's unsigned operand).
// Packed B panel (kc x 32 columns): byte (l, c) at (l / 4) * 128 + c * 4 + l % 4, i.e. per group of 4 k a row of
// 32 dwords (VNNI order: two AMX B tile rows of 16 dwords, or two zmm).
//
// The part kernel (Engine::part) computes only the live part of an edge or shallow tile, for small calls: the
// rows < rows x columns < cols of c (1 <= rows, cols <= 32) from the first `depth` k of the panels (depth a multiple
// of 4, 4 <= depth <= kc; kc, a multiple of 64, is the panels' layout, where the A row sums are). The panels' rows
// past `rows` and columns past `cols` may hold any bytes (the A row sums of those rows too), and so may the B bytes
// from depth on; in the live A rows the bytes from depth to kc are zero (as the packers leave them: kc is depth
// rounded up to 64 there), so an engine may run whole chunks (a zero A byte cancels any B byte) and an A row sum is
// the sum of the live depth. c entries outside the
// rows x cols extent are left unspecified (an engine may compute the whole tile there). The live entries are the same
// int32 values as the whole-tile kernel's, bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bf16x::engine::int8 {

inline constexpr int kTile = 32;    // rows of an A panel, columns of a B panel, side of a micro-tile
inline constexpr int kKChunk = 64;  // k granularity of the panels

inline constexpr std::size_t a_panel_bytes(int kc) { return std::size_t(kc) * kTile + kTile * sizeof(std::int32_t); }
inline constexpr std::size_t b_panel_bytes(int kc) { return std::size_t(kc) * kTile; }
inline constexpr std::size_t a_index(int r, int l) { return std::size_t(l / 64) * 2048 + r * 64 + l % 64; }
inline constexpr std::size_t b_index(int l, int c) { return std::size_t(l / 4) * 128 + c * 4 + l % 4; }
inline const std::int32_t* a_rowsums(const std::int8_t* a, int kc) {
  return reinterpret_cast<const std::int32_t*>(a + std::size_t(kc) * kTile);
}

using Kernel = void (*)(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc);
using PartKernel = void (*)(const std::int8_t* a, const std::int8_t* b, int kc, int depth, std::int32_t* c,
                            std::int64_t ldc, int rows, int cols);

// An engine's INT8 side (engine/records.hpp holds it with the engine's BF16 side).
struct Engine {
  Kernel kernel;
  bool (*available)();     // runtime check (CPUID, XCR0, OS permission); never executes the kernel's instructions
  void (*thread_begin)();  // per-thread set-up (LDTILECFG), may be null
  // per-thread tear-down at the end of the parallel region that ran the kernel (TILERELEASE), may be null
  void (*thread_end)();
  // The live rows x cols x depth of a tile (above), may be null: the driver then runs `kernel` on the whole tile.
  PartKernel part = nullptr;
};

// The kernels, each in its engine's directory.
void kernel_reference(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc);
void kernel_avx2(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc);
void kernel_avx512vnni(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc);
void kernel_amx_hw(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc);
void kernel_amx_model(const std::int8_t* a, const std::int8_t* b, int kc, std::int32_t* c, std::int64_t ldc);
void amx_model_thread_end();  // the model's TILERELEASE for this thread
// TDPBSSD issue rate (16 x 16 x 64 multiply-adds each): 4 x iters instructions on register tiles; returns their
// number. Only after the amx engine's INT8 available() (bench/bench_engine.cpp: AmxInt8Peak).
std::uint64_t tdpbssd_peak_loop(std::uint64_t iters);
void part_reference(const std::int8_t* a, const std::int8_t* b, int kc, int depth, std::int32_t* c, std::int64_t ldc,
                    int rows, int cols);
void part_avx2(const std::int8_t* a, const std::int8_t* b, int kc, int depth, std::int32_t* c, std::int64_t ldc,
               int rows, int cols);
void part_avx512vnni(const std::int8_t* a, const std::int8_t* b, int kc, int depth, std::int32_t* c, std::int64_t ldc,
                     int rows, int cols);
void part_amx_hw(const std::int8_t* a, const std::int8_t* b, int kc, int depth, std::int32_t* c, std::int64_t ldc,
                 int rows, int cols);
void part_amx_model(const std::int8_t* a, const std::int8_t* b, int kc, int depth, std::int32_t* c, std::int64_t ldc,
                    int rows, int cols);

}  // namespace bf16x::engine::int8
