// One block of an INT8 product on the engine's tile kernels, the blocked INT8 GEMM that the CRT bound pass (the
// digits of op(A) and op(B), for the scales: crt_driver.cpp) and the componentwise guard (the digits of |op(A)| and
// |op(B)|, for each entry's bound: method/guard_check.cpp) share. Each k-block's int32 sums are exact; they stay in
// the int32 tiles while they fit, else they are added into FP64 sums, which stay exact below 2^53.
#pragma once
#include <emmintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "crt/crt_ops.hpp"
#include "engine/int8_kernel.hpp"
#include "pack/operand.hpp"

namespace bf16x::crt {

// A block of C: its first row and column, its rows and columns, and its panels of kTile rows and columns.
struct Block {
  std::int64_t i0, j0;
  int rows, cols, rp, cp;
};
// A k-block: its first index, its length and that length padded to whole chunks (engine::int8::kKChunk).
struct KBlock {
  std::int64_t l0;
  int len, kcp;
};

// The live rows x cols of the tile (ip, jp) of a block of rows x cols.
inline int live_lines(int extent, int p) { return std::min(engine::int8::kTile, extent - p * engine::int8::kTile); }

// Whether the tile (ip, jp) of block b holds an entry of the call's output part (pack::OutputPart): the tiles of a
// triangular call that hold none are neither multiplied nor written.
inline bool tile_in_part(pack::OutputPart part, const Block& b, int ip, int jp) {
  constexpr int kTile = engine::int8::kTile;
  return pack::block_in_part(part, b.i0 + std::int64_t(ip) * kTile, live_lines(b.rows, ip),
                             b.j0 + std::int64_t(jp) * kTile, live_lines(b.cols, jp));
}

// The part of k-block kb that the rows of tile row ip of block b reach in a lower-triangular op(A), whose products
// past it are zero (pack::LowerOperand): 0 for none, kb.len where op(A) is not triangular. A depth below the
// k-block's runs the engine's part kernel on it (TileRunner), or the whole kernel on the zeros where it has none.
inline int tile_depth(pack::LowerOperand a_lower, const Block& b, int ip, const KBlock& kb) {
  if (!a_lower.on) return kb.len;
  const std::int64_t reach =
      a_lower.reach(b.i0 + std::int64_t(ip) * engine::int8::kTile, live_lines(b.rows, ip), kb.l0 + kb.len);
  return int(std::max<std::int64_t>(0, reach - kb.l0));
}

// TDPBSSD (16 x 16 x 64) equivalents of one micro-tile's product to `depth` (a 32 x 32 tile: four per chunk of k).
inline std::uint64_t tile_dots(int depth) {
  return std::uint64_t((depth + engine::int8::kKChunk - 1) / engine::int8::kKChunk) * 4;
}

// The micro-tiles of k-block kb of block b that the kernels run, and their TDPBSSD equivalents: the tiles of the
// output part, each to its depth (the zero products of a lower-triangular op(A) are neither run nor counted).
struct TileWork {
  std::uint64_t tiles = 0, dots = 0;
};
inline TileWork tile_work(pack::OutputPart part, pack::LowerOperand a_lower, const Block& b, const KBlock& kb) {
  TileWork w;
  for (int ip = 0; ip < b.rp; ++ip) {
    const int depth = tile_depth(a_lower, b, ip, kb);
    if (depth == 0) continue;
    for (int jp = 0; jp < b.cp; ++jp)
      if (tile_in_part(part, b, ip, jp)) ++w.tiles, w.dots += tile_dots(depth);
  }
  return w;
}

// The kTile x kTile accumulator tile at c (row stride ldc) set to zero, 16 bytes a store (SSE2, baseline x86-64):
// a fill of each 128-byte row compiles to `rep stos`, whose start-up cost per row made this a tenth of fp64c15's
// products phase outside the kernel.
// Only the rows < rows and the columns < cols (rounded up to 4) where the tile is an edge tile whose other entries
// are not read (part kernels).
inline void zero_tile(std::int32_t* c, int ldc, int rows = engine::int8::kTile, int cols = engine::int8::kTile) {
  constexpr int kTile = engine::int8::kTile;
  const __m128i z = _mm_setzero_si128();
  if (cols == kTile) {  // whole rows: the constant trip count keeps the stores (a variable one becomes a memset call)
    for (int r = 0; r < rows; ++r) {
      auto* row = reinterpret_cast<__m128i*>(c + std::size_t(r) * ldc);
      for (int q = 0; q < kTile / 4; ++q) _mm_storeu_si128(row + q, z);
    }
    return;
  }
  for (int r = 0; r < rows; ++r) {
    auto* row = reinterpret_cast<__m128i*>(c + std::size_t(r) * ldc);
    for (int q = 0; q < (cols + 3) / 4; ++q) _mm_storeu_si128(row + q, z);
  }
}

// One micro-tile: the engine's whole-tile kernel where the tile is whole (all 32 x 32 entries live, k a whole kcp),
// else its part kernel on the live rows x cols x depth (engine/int8_kernel.hpp), where it has one. The panels were
// packed for it (pack_panel): with a part kernel, the lines past the live ones are not written.
struct TileRunner {
  engine::int8::Kernel kernel;
  engine::int8::PartKernel part;
  explicit TileRunner(const engine::int8::Engine& e) : kernel(e.kernel), part(e.part) {}
  void operator()(const std::int8_t* a, const std::int8_t* b, int kcp, int len, std::int32_t* c, std::int64_t ldc,
                  int rows, int cols) const {
    const int depth = (len + 3) / 4 * 4;
    if (!part || (rows == engine::int8::kTile && cols == engine::int8::kTile && depth == kcp))
      kernel(a, b, kcp, c, ldc);
    else
      part(a, b, kcp, depth, c, ldc, rows, cols);
  }
  // Whether the panels it reads need only the live lines and k (pack_*_live).
  bool live() const { return part != nullptr; }
};

// The panels of one k-block for a block's tiles: A panel ip at a + ip a_bytes, B panel jp at b + jp b_bytes.
struct KPanels {
  const std::int8_t* a;
  const std::int8_t* b;
  std::size_t a_bytes, b_bytes;
  KBlock kb;
};

// The k-blocks whose int32 sums fit an accumulator together, for entries of at most `digit` each: k-blocks of kc.
inline std::int64_t kblocks_in_int32(int digit, int kc) {
  return std::max<std::int64_t>(1, ((std::int64_t(1) << 31) - 1) / (std::int64_t(kc) * digit * digit));
}

// Where a block's product ended up.
struct BlockSums {
  bool in_acc;                        // true: H_ij in acc[i ld + j]; false: in sums[i ld + j]
  std::uint64_t tiles = 0, dots = 0;  // micro-tiles, and TDPBSSD (16 x 16 x 64) equivalents
};

// H = X Y over one block, k-block by k-block: panels(kk) packs (or finds) k-block kk's panels (KPanels), and each
// live tile's product is summed into acc (row stride ld). Where all `kblocks` fit the int32 sums (at most `fit`) H
// stays in acc, each tile zeroed before its first product (only its live entries: the others are not read);
// else acc and sums (row stride ld) start zero and acc is added into sums every `fit` k-blocks and at the end.
// lap(step) after each k-block's packing (0), products (1) and sums (2): the caller's phase clock. The tiles outside
// `part` are left zero, not multiplied; a tile's k range stops where its rows of a lower-triangular op(A) do
// (tile_depth).
template <typename Panels, typename Lap>
BlockSums block_product(const TileRunner& kernel, const Block& blk, std::int64_t kblocks, std::int64_t fit,
                        std::int32_t* acc, double* sums, int ld, Panels&& panels, Lap&& lap,
                        pack::OutputPart part = pack::OutputPart::all, pack::LowerOperand a_lower = {}) {
  constexpr int kTile = engine::int8::kTile;
  const int rows = blk.rows, cols = blk.cols, rp = blk.rp, cp = blk.cp;  // (lambdas capture no structured bindings)
  BlockSums r{kblocks <= fit};
  const auto zero_rows = [&](auto* p) {
    for (int i = 0; i < rp * kTile; ++i) std::fill_n(p + std::size_t(i) * ld, cp * kTile, 0);
  };
  if (!r.in_acc) zero_rows(acc), zero_rows(sums);
  std::int64_t pending = 0;
  for (std::int64_t kk = 0; kk < kblocks; ++kk) {
    const KPanels p = panels(kk);
    lap(0);
    for (int jp = 0; jp < cp; ++jp)
      for (int ip = 0; ip < rp; ++ip) {
        std::int32_t* tile = acc + std::size_t(ip) * kTile * ld + jp * kTile;
        const int tr = live_lines(rows, ip), tc = live_lines(cols, jp);
        if (r.in_acc && kk == 0) zero_tile(tile, ld, tr, tc);
        const int depth = tile_depth(a_lower, blk, ip, p.kb);
        if (depth == 0 || !tile_in_part(part, blk, ip, jp)) continue;
        kernel(p.a + ip * p.a_bytes, p.b + jp * p.b_bytes, p.kb.kcp, depth, tile, ld, tr, tc);
        ++r.tiles;
        r.dots += tile_dots(depth);
      }
    lap(1);
    if (!r.in_acc && (++pending == fit || kk + 1 == kblocks)) {
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
          sums[std::size_t(i) * ld + j] += double(acc[std::size_t(i) * ld + j]);
          acc[std::size_t(i) * ld + j] = 0;
        }
      pending = 0;
      lap(2);
    }
  }
  return r;
}

}  // namespace bf16x::crt
