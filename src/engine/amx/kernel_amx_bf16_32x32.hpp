// kernel_amx_bf16_32x32: the AMX micro-kernel, written once over a TileBackend (HwTiles: the _tile_* intrinsics;
// TileModel: the same operations in software).
//
// Contract (engine/engine.hpp, MicroTileArgs): for one 32x32 micro-tile and one k-block of padded depth kb,
//   for each group g:  out[g] (+)= sum over products (i,j) of g of  A_i * B_j    (FP32, TDPBF16PS arithmetic)
// "(+)=" starts the accumulators from out[g] when accumulate, from zero otherwise.
//
// Tiles (palette 1, every tile 16 rows x 64 bytes):
//
//                         TMM2 = B_j cols 0-15   TMM3 = B_j cols 16-31     (16 k-pairs x 16 VNNI pairs)
//   TMM0 = A_i rows 0-15      TMM4 = C00             TMM5 = C01            (16 rows x 32 BF16 of k)
//   TMM1 = A_i rows 16-31     TMM6 = C10             TMM7 = C11            (16 x 16 FP32 accumulators)
//
// Schedule per group: accumulators zeroed (or loaded from out[g]); for each k-chunk of 32, for each product of
// the group in the order given, load only the panel (A_i: TMM0-1, B_j: TMM2-3) that differs from the previous
// product's, then four TDPBF16PS; after the last chunk one store of TMM4-7 to out[g]. fp32x6's order
// A1B1, A1B0, A2B0, A0B0, A0B1, A0B2 thus loads 7 panels (14 tiles) per chunk instead of 12 (24).
//
// Counters (AMX units, as the reference engine counts them): tile_loads = A/B operand tiles loaded (accumulator
// loads for `accumulate` are not operand loads), dot_products = TDPBF16PS issued, tile_stores = accumulator tiles
// stored, micro_tiles = calls.
#pragma once
#include <cstddef>

#include "engine/amx/tile_config.hpp"
#include "engine/engine.hpp"

namespace bf16x::engine::amx {

// Tile roles of the kernel.
inline constexpr int kTileA0 = 0, kTileA1 = 1, kTileB0 = 2, kTileB1 = 3;
inline constexpr int kTileC00 = 4, kTileC01 = 5, kTileC10 = 6, kTileC11 = 7;

inline constexpr int kHalf = 16;  // rows of an A tile, columns of a B tile

static_assert(pack::kTileM == 2 * kHalf && pack::kTileN == 2 * kHalf, "a micro-tile is 2 x 2 tile quadrants");
static_assert(pack::kKChunk * sizeof(bf16_t) == kMaxColsBytes, "an A tile row is one k-chunk of BF16");
static_assert(kHalf * pack::kPair * sizeof(bf16_t) == kMaxColsBytes, "a B tile row is 16 VNNI pairs");
static_assert(pack::kKChunk / pack::kPair == kMaxRows, "a B tile holds the k-pairs of one chunk");
static_assert(kHalf * sizeof(float) == kMaxColsBytes && kHalf == kMaxRows, "a C tile is 16 x 16 FP32");

// The kernel's palette: all eight tiles 16 rows x 64 bytes.
constexpr TileConfig kernel_amx_bf16_32x32_config() {
  TileConfig c;
  c.palette_id = 1;
  for (int t = 0; t < kTiles; ++t) {
    c.colsb[t] = kMaxColsBytes;
    c.rows[t] = kMaxRows;
  }
  return c;
}
static_assert(check_tile_config(kernel_amx_bf16_32x32_config()) == ConfigError::none);

template <class Tiles>
void kernel_amx_bf16_32x32(Tiles& t, const MicroTileArgs& args) {
  using pack::kBPairStride;
  using pack::kKChunk;
  using pack::kPair;
  const int kb = args.kb;
  const std::size_t a_stride = std::size_t(kb) * sizeof(bf16_t);            // one A row
  const std::size_t b_stride = std::size_t(kBPairStride) * sizeof(bf16_t);  // one B k-pair row
  const std::size_t c_stride = std::size_t(args.ldo) * sizeof(float);
  std::uint64_t loads = 0, dots = 0, stores = 0;

  for (int g = 0; g < args.ngroups; ++g) {
    const ProductGroup& grp = args.groups[g];
    float* out = args.out[g];
    float* const c01 = out + kHalf;
    float* const c10 = out + std::ptrdiff_t(kHalf) * args.ldo;
    float* const c11 = c10 + kHalf;
    if (args.accumulate) {
      t.template load<kTileC00>(out, c_stride);
      t.template load<kTileC01>(c01, c_stride);
      t.template load<kTileC10>(c10, c_stride);
      t.template load<kTileC11>(c11, c_stride);
    } else {
      t.template zero<kTileC00>();
      t.template zero<kTileC01>();
      t.template zero<kTileC10>();
      t.template zero<kTileC11>();
    }
    for (int kc = 0; kc < kb; kc += kKChunk) {
      int held_a = -1, held_b = -1;  // slices whose chunk-kc panels are in TMM0-1 / TMM2-3
      for (int p = 0; p < grp.count; ++p) {
        const Product pr = grp.products[p];
        if (pr.a != held_a) {
          const bf16_t* a = args.a[pr.a] + kc;
          t.template load<kTileA0>(a, a_stride);
          t.template load<kTileA1>(a + std::ptrdiff_t(kHalf) * kb, a_stride);
          held_a = pr.a;
          loads += 2;
        }
        if (pr.b != held_b) {
          const bf16_t* b = args.b[pr.b] + std::ptrdiff_t(kc / kPair) * kBPairStride;
          t.template load<kTileB0>(b, b_stride);
          t.template load<kTileB1>(b + kHalf * kPair, b_stride);
          held_b = pr.b;
          loads += 2;
        }
        t.template dpbf16ps<kTileC00, kTileA0, kTileB0>();
        t.template dpbf16ps<kTileC01, kTileA0, kTileB1>();
        t.template dpbf16ps<kTileC10, kTileA1, kTileB0>();
        t.template dpbf16ps<kTileC11, kTileA1, kTileB1>();
        dots += 4;
      }
    }
    t.template store<kTileC00>(out, c_stride);
    t.template store<kTileC01>(c01, c_stride);
    t.template store<kTileC10>(c10, c_stride);
    t.template store<kTileC11>(c11, c_stride);
    stores += 4;
  }
  if (args.counters) {
    args.counters->tile_loads += loads;
    args.counters->dot_products += dots;
    args.counters->tile_stores += stores;
    ++args.counters->micro_tiles;
  }
}

}  // namespace bf16x::engine::amx
