// cr/tile_sums.hpp's vector kernels for AVX-512 F/DQ: tiles of 4 rows by one vector of 8 columns (four rows keep
// the two adders busy past the latency of the s chains; s, c and the bias of each row stay in registers).
#include <immintrin.h>

#include "cr/tile_sums_impl.hpp"
#include "util/f64_vectors.hpp"

namespace bf16x::cr {
namespace {

// The tile sums' vectors, their adds on the multipliers (FMAs with 1) where those have cycles to spare.
struct Avx512 : util::F64x8 {
  static constexpr bool kAddsOnFma = true;
};

}  // namespace

const TileKernels& tile_kernels_avx512() {
  static const TileKernels k = sums::kernels<Avx512, 4>("avx512");
  return k;
}

}  // namespace bf16x::cr
