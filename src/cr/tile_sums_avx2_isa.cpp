// cr/tile_sums.hpp's vector kernels for AVX2 + FMA: tiles of 3 rows by one vector of 4 columns.
#include <immintrin.h>

#include "cr/tile_sums_impl.hpp"
#include "util/f64_vectors.hpp"

namespace bf16x::cr {
namespace {

// The tile sums' vectors; refine_row's additions stay on the adders.
struct Avx2 : util::F64x4 {
  static constexpr bool kAddsOnFma = false;
};

}  // namespace

const TileKernels& tile_kernels_avx2() {
  static const TileKernels k = sums::kernels<Avx2, 3>("avx2");
  return k;
}

}  // namespace bf16x::cr
