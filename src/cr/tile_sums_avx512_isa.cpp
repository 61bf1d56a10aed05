// cr/tile_sums.hpp's vector kernels for AVX-512 F/DQ: tiles of 4 rows by one vector of 8 columns (four rows keep
// the two adders busy past the latency of the s chains; s, c and the bias of each row stay in registers).
#include <immintrin.h>

#include "cr/tile_sums_impl.hpp"
#include "util/f64_vectors.hpp"

namespace bf16x::cr {
namespace {

// The tile sums' vectors. A step of a row is 2 multiplications and 5 additions, and the magnitudes' pass 1 more
// multiplication; where the 512-bit multipliers and adders are separate units (Zen 4: each one a cycle per
// operation), two additions of even rows and one of odd rows go to the multipliers as FMAs with 1: 14 operations on
// each unit per 4 rows against 16 and 12 with two on every row (same results: FMAs with 1 round as the additions).
struct Avx512 : util::F64x8 {
  static constexpr int adds_on_fma(int row) { return row % 2 ? 1 : 2; }
};

}  // namespace

const TileKernels& tile_kernels_avx512() {
  static const TileKernels k = sums::kernels<Avx512, 4>("avx512");
  return k;
}

}  // namespace bf16x::cr
