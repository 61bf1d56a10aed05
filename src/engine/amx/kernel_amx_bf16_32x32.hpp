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

// The kernel's schedules (engine/amx/amx_kernels.hpp, BF16X_AMX_KERNEL): the same tile operations on every
// accumulator in the same order, so the same bits and the same loads; they differ in where the operand loads sit.
//   plain        each product's changed panels loaded before its four TDPBF16PS (above).
//   interleaved  the next product's panels loaded between this product's dot products, each tile as soon as its last
//                reader has issued: C00 (A0 B0), C10 (A1 B0), [B0'], C01 (A0 B1), [A0'], C11 (A1 B1), [B1', A1'],
//                so that a load waits on one dot product instead of the four (oneDNN's brgemm interleaves so).
//   prefetch     plain, and at each k-chunk the next chunk's lines of every panel the group reads prefetched into
//                L1 (PREFETCHT0: 32 lines a panel), so that the tile loads find them there (libxsmm's and oneDNN's
//                kernels prefetch one k-step ahead).
enum class Schedule { plain, interleaved, prefetch };

// The panels of one call: the chunk-kc panel of a slice of A (rows 0-15, and 16-31 at a_hi) and of B (columns
// 0-15, and 16-31 at b_hi), and the tile counts.
struct KernelPanels {
  const MicroTileArgs& args;
  std::size_t a_stride, b_stride;  // one A row, one B k-pair row, in bytes
  std::uint64_t loads = 0, dots = 0;

  explicit KernelPanels(const MicroTileArgs& x)
      : args(x),
        a_stride(std::size_t(x.kb) * sizeof(bf16_t)),
        b_stride(std::size_t(pack::kBPairStride) * sizeof(bf16_t)) {}
  const bf16_t* a(int slice, int kc) const { return args.a[slice] + kc; }
  const bf16_t* b(int slice, int kc) const {
    return args.b[slice] + std::ptrdiff_t(kc / pack::kPair) * pack::kBPairStride;
  }
  const bf16_t* a_hi(const bf16_t* a) const { return a + std::ptrdiff_t(kHalf) * args.kb; }
  static const bf16_t* b_hi(const bf16_t* b) { return b + kHalf * pack::kPair; }
  // A slice's chunk-kc panel whole: A into TMM0-1, B into TMM2-3.
  template <class Tiles>
  void load_a(Tiles& t, int slice, int kc) {
    t.template load<kTileA0>(a(slice, kc), a_stride);
    t.template load<kTileA1>(a_hi(a(slice, kc)), a_stride);
    loads += 2;
  }
  template <class Tiles>
  void load_b(Tiles& t, int slice, int kc) {
    t.template load<kTileB0>(b(slice, kc), b_stride);
    t.template load<kTileB1>(b_hi(b(slice, kc)), b_stride);
    loads += 2;
  }
};

// plain and prefetch: per chunk, each product's changed panels, then its four dot products.
template <Schedule S, class Tiles>
void group_chunks(Tiles& t, KernelPanels& p, const ProductGroup& grp) {
  using pack::kKChunk;
  const int kb = p.args.kb;
  for (int kc = 0; kc < kb; kc += kKChunk) {
    if constexpr (S == Schedule::prefetch) {
      if (kc + kKChunk < kb) {
        // The next chunk's lines of each distinct panel of the group (products sharing a slice share it).
        unsigned seen_a = 0, seen_b = 0;
        for (int q = 0; q < grp.count; ++q) {
          const Product pr = grp.products[q];
          if (!(seen_a >> pr.a & 1u)) {
            const bf16_t* a = p.a(pr.a, kc + kKChunk);
            for (int r = 0; r < 2 * kHalf; ++r) t.prefetch(a + std::ptrdiff_t(r) * kb);
            seen_a |= 1u << pr.a;
          }
          if (!(seen_b >> pr.b & 1u)) {
            const bf16_t* b = p.b(pr.b, kc + kKChunk);
            for (int r = 0; r < kHalf; ++r) {
              t.prefetch(b + std::ptrdiff_t(r) * pack::kBPairStride);
              t.prefetch(p.b_hi(b + std::ptrdiff_t(r) * pack::kBPairStride));
            }
            seen_b |= 1u << pr.b;
          }
        }
      }
    }
    int held_a = -1, held_b = -1;  // slices whose chunk-kc panels are in TMM0-1 / TMM2-3
    for (int q = 0; q < grp.count; ++q) {
      const Product pr = grp.products[q];
      if (pr.a != held_a) p.load_a(t, pr.a, kc), held_a = pr.a;
      if (pr.b != held_b) p.load_b(t, pr.b, kc), held_b = pr.b;
      t.template dpbf16ps<kTileC00, kTileA0, kTileB0>();
      t.template dpbf16ps<kTileC01, kTileA0, kTileB1>();
      t.template dpbf16ps<kTileC10, kTileA1, kTileB0>();
      t.template dpbf16ps<kTileC11, kTileA1, kTileB1>();
      p.dots += 4;
    }
  }
}

// interleaved: step s = (chunk, product) in order; step s + 1's panels load while step s's dot products issue, each
// tile once its last reader has. A new chunk loads both panels, as plain does.
template <class Tiles>
void group_interleaved(Tiles& t, KernelPanels& p, const ProductGroup& grp) {
  using pack::kKChunk;
  const int steps = p.args.kb / kKChunk * grp.count;
  if (steps == 0) return;
  p.load_a(t, grp.products[0].a, 0);
  p.load_b(t, grp.products[0].b, 0);
  for (int st = 0; st < steps; ++st) {
    const int kc = st / grp.count * kKChunk, kn = (st + 1) / grp.count * kKChunk;
    const Product pr = grp.products[st % grp.count], nx = grp.products[(st + 1) % grp.count];
    const bool more = st + 1 < steps;
    const bool new_a = more && (kn != kc || nx.a != pr.a), new_b = more && (kn != kc || nx.b != pr.b);
    t.template dpbf16ps<kTileC00, kTileA0, kTileB0>();
    t.template dpbf16ps<kTileC10, kTileA1, kTileB0>();
    if (new_b) t.template load<kTileB0>(p.b(nx.b, kn), p.b_stride);
    t.template dpbf16ps<kTileC01, kTileA0, kTileB1>();
    if (new_a) t.template load<kTileA0>(p.a(nx.a, kn), p.a_stride);
    t.template dpbf16ps<kTileC11, kTileA1, kTileB1>();
    if (new_b) t.template load<kTileB1>(p.b_hi(p.b(nx.b, kn)), p.b_stride);
    if (new_a) t.template load<kTileA1>(p.a_hi(p.a(nx.a, kn)), p.a_stride);
    p.loads += 2 * (int(new_a) + int(new_b));
    p.dots += 4;
  }
}

template <Schedule S, class Tiles>
void kernel_amx_bf16_32x32(Tiles& t, const MicroTileArgs& args) {
  const std::size_t c_stride = std::size_t(args.ldo) * sizeof(float);
  KernelPanels p(args);
  std::uint64_t stores = 0;
  for (int g = 0; g < args.ngroups; ++g) {
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
    if constexpr (S == Schedule::interleaved)
      group_interleaved(t, p, args.groups[g]);
    else
      group_chunks<S>(t, p, args.groups[g]);
    t.template store<kTileC00>(out, c_stride);
    t.template store<kTileC01>(c01, c_stride);
    t.template store<kTileC10>(c10, c_stride);
    t.template store<kTileC11>(c11, c_stride);
    stores += 4;
  }
  if (args.counters) {
    args.counters->tile_loads += p.loads;
    args.counters->dot_products += p.dots;
    args.counters->tile_stores += stores;
    ++args.counters->micro_tiles;
  }
}

// The kernel in the schedule s (chosen at run time).
template <class Tiles>
void kernel_amx_bf16_32x32(Tiles& t, const MicroTileArgs& args, Schedule s) {
  switch (s) {
    case Schedule::interleaved:
      return kernel_amx_bf16_32x32<Schedule::interleaved>(t, args);
    case Schedule::prefetch:
      return kernel_amx_bf16_32x32<Schedule::prefetch>(t, args);
    case Schedule::plain:
      break;
  }
  kernel_amx_bf16_32x32<Schedule::plain>(t, args);
}

}  // namespace bf16x::engine::amx
