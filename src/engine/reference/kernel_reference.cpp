// Reference engine: the scalar oracle every optimised engine is compared with.
//
// It walks the micro-tile exactly as the AMX schedule does (k-chunks of 32 outer, the group's products inner,
// k pairs in order) and applies the SDM pair step (engine/dpbf16.hpp) element by element, so the tile model
// must match it bit for bit on every path and hardware engines must match it bit for bit on the FP64 path.
#include <vector>

#include "engine/dpbf16.hpp"
#include "engine/engine.hpp"

namespace bf16x::engine {

using pack::kBPairStride;
using pack::kKChunk;
using pack::kPair;
using pack::kTileM;
using pack::kTileN;

void kernel_reference(const MicroTileArgs& args) {
  float acc[kTileM][kTileN];
  for (int g = 0; g < args.ngroups; ++g) {
    const ProductGroup& grp = args.groups[g];
    float* out = args.out[g];
    for (int r = 0; r < kTileM; ++r)
      for (int c = 0; c < kTileN; ++c) acc[r][c] = args.accumulate ? out[r * args.ldo + c] : 0.0f;
    for (int kc = 0; kc < args.kb; kc += kKChunk) {
      for (int p = 0; p < grp.count; ++p) {
        const bf16_t* a = args.a[grp.products[p].a];
        const bf16_t* b = args.b[grp.products[p].b];
        for (int r = 0; r < kTileM; ++r)
          for (int c = 0; c < kTileN; ++c) {
            float t = acc[r][c];
            for (int kp = kc / kPair; kp < (kc + kKChunk) / kPair; ++kp) {
              const bf16_t* ar = a + std::int64_t(r) * args.kb + kp * kPair;
              const bf16_t* bp = b + std::int64_t(kp) * kBPairStride + c * kPair;
              t = dpbf16_pair(t, ar[0], ar[1], bp[0], bp[1]);
            }
            acc[r][c] = t;
          }
      }
    }
    for (int r = 0; r < kTileM; ++r)
      for (int c = 0; c < kTileN; ++c) out[r * args.ldo + c] = acc[r][c];
    if (args.counters) args.counters->add_group(args.kb, grp.count, kKChunk);  // in AMX units
  }
  if (args.counters) ++args.counters->micro_tiles;
}

}  // namespace bf16x::engine
