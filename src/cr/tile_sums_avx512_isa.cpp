// cr/tile_sums.hpp's vector kernels for AVX-512 F/DQ: tiles of 4 rows by one vector of 8 columns (four rows keep
// the two adders busy past the latency of the s chains; s, c and the bias of each row stay in registers).
#include <immintrin.h>

#include "cr/tile_sums_impl.hpp"
#include "util/f64_vectors.hpp"

namespace bf16x::cr {
namespace {

// The tile sums' vectors. A step of a row is two FMAs and two additions, each kind on its own 512-bit unit (Zen 4:
// one operation a cycle each); refine_row's fifteen additions a product are more than its five multiplications, so
// six of them go to the multipliers as FMAs with 1 (same results: FMAs with 1 round as the additions).
struct Avx512 : util::F64x8 {
  static constexpr bool kAddsOnFma = true;
};

}  // namespace

const TileKernels& tile_kernels_avx512() {
  static const TileKernels k = sums::kernels<Avx512, 4>("avx512");
  return k;
}

}  // namespace bf16x::cr
