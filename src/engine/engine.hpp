// The micro-kernel contract shared by every engine (reference, avx2, avx512bf16, amx on hardware tiles or the tile
// model). One call computes, for one kTileM x kTileN output micro-tile and one k-block of padded depth kb:
//
//   for each group g:   out[g] (+)= sum over products (i,j) in group g of  A_i * B_j        (FP32)
//
// where A_i is the packed A micro-panel of slice i and B_j the VNNI B micro-panel of slice j (pack/layout.hpp).
// "(+)=" is "=" when accumulate is false (accumulators start at zero) and "+=" when true (accumulators start from
// out[g]). Products within a group share one FP32 accumulator and may be evaluated in any interleaving; engines
// use the operand-reuse order given. Arithmetic is that of TDPBF16PS/VDPBF16PS: exact BF16 products, FP32
// round-to-nearest-even accumulation, BF16 subnormal inputs read as zero, FP32 subnormal results flushed to zero.
// The FP64 path relies on each product's k-sum being exact (see docs/numerics.md), which makes every engine agree
// bit for bit there; on the FP32 path engines may differ by the accumulation-order bound stated in the tests.
#pragma once
#include <cstdint>

#include "pack/layout.hpp"
#include "split/bf16.hpp"
#include "split/product.hpp"

namespace bf16x::engine {

using split::Product;
using split::ProductGroup;

// Counters of engine operations (AMX terms: one tile load = 16 rows x 64 bytes; one dot = one 16x16x32 TDPBF16PS).
struct EngineCounters {
  std::uint64_t tile_loads = 0;
  std::uint64_t tile_stores = 0;
  std::uint64_t dot_products = 0;
  std::uint64_t micro_tiles = 0;
  // One group of `products` slice products over kb (a multiple of the 32-deep chunk), in AMX units so that schedules
  // compare across engines: per chunk and product 4 tile loads (2 A + 2 B) and 4 TDPBF16PS; 4 tile stores a group.
  void add_group(int kb, int products, int chunk) {
    const std::uint64_t chunks = std::uint64_t(kb / chunk);
    tile_loads += chunks * 4 * std::uint64_t(products);
    dot_products += chunks * 4 * std::uint64_t(products);
    tile_stores += 4;
  }
  void add(const EngineCounters& o) {
    tile_loads += o.tile_loads;
    tile_stores += o.tile_stores;
    dot_products += o.dot_products;
    micro_tiles += o.micro_tiles;
  }
};

struct MicroTileArgs {
  const bf16_t* const* a;  // a[s]: A micro-panel of slice s, kTileM x kb, row stride kb
  const bf16_t* const* b;  // b[s]: B micro-panel of slice s, kb/2 pair-rows, row stride pack::kBPairStride
  int kb;                  // padded depth, a positive multiple of pack::kKChunk, at most pack::kBlockK
  const ProductGroup* groups;
  int ngroups;
  float* const* out;  // out[g]: kTileM x kTileN FP32, row stride ldo
  int ldo;
  bool accumulate;
  EngineCounters* counters;  // may be null
  // Names the contents of the A panels: 0, or a value such that, between one thread_begin and thread_end, any two
  // calls with the same a[] pointers and the same nonzero a_generation read the same A data. Drivers repack their
  // buffers in place (the same addresses hold the next window's panels), so a pointer alone names nothing: an
  // engine may reuse work done on an A panel (avx2: its FP32 copy) only under the key (pointer, a_generation).
  std::uint64_t a_generation = 0;
  // The tile's operand extent: A rows at or past `rows` and B columns at or past `cols` are zero padding (the
  // packers write zeros there). Without `accumulate` an engine may skip their products and write +0 instead, which
  // is what the whole tile gives there (a sum of +-0 products starting at +0); edge tiles of skinny shapes then cost
  // what they hold.
  int rows = pack::kTileM, cols = pack::kTileN;
};

using MicroKernel = void (*)(const MicroTileArgs&);

// An engine's BF16 side (engine/records.hpp holds it with the engine's INT8 side and its properties).
struct EngineInfo {
  MicroKernel kernel;
  bool (*available)();  // runtime check (CPUID, XCR0, OS permission); never executes the engine's instructions
  // Optional, may be null: run by every thread of a GEMM call's parallel region before its first and after its
  // last micro-tile (AMX: load the tile palette once per thread per call, release the tiles at the end). Packed
  // panels may change between micro-kernel calls inside the bracket; only MicroTileArgs::a_generation says when
  // they did not. Each engine is tested for that in the engine suite (Engines.RepackedPanelsAtSameAddress*).
  void (*thread_begin)() = nullptr;
  void (*thread_end)() = nullptr;
};

// The scalar oracle (engine/reference), also the fallback of kernels for shapes they do not take.
void kernel_reference(const MicroTileArgs& args);

}  // namespace bf16x::engine
