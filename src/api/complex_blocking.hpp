// The blocks of a complex GEMM (api/complex_gemm.cpp): C in blocks of at most MB rows x NB columns, the inner
// dimension in chunks of at most KB complex elements, so that the workspace (the parts of one block's operands,
// the block operands of 4M or the sums of 3M, and an FP64 P block) is bounded whatever m, n, k are.
//
//   KB = 2048: a multiple of the real driver's k-block (256), so chunk boundaries fall on its k-block boundaries
//        (4M's real products have length 2 KB).
//   MB = NB = 512: the 4M real product of one block is MB x 2 NB x 2 KB, two 256 x 256 thread blocks of the
//        real driver per row and four per column pair (driver/blocking.hpp BM, BN) and a few seconds of work at
//        fp64x21, against which re-reading each chunk of op(A) once per column block and of op(B) once per row
//        block is small.
//
// The blocks are fixed numbers, not derived from the thread count or the caches: the chunks set the real GEMMs'
// scales and the accumulation order, so fixed blocks give the same bits on every thread count and layout.
#pragma once
#include <cstdint>

namespace bf16x::api {

struct ComplexBlocking {
  std::int64_t mb = 512, nb = 512, kb = 2048;
};

ComplexBlocking complex_blocking();

// Tests: smaller blocks (kb a multiple of 256; 0, 0, 0: the defaults), so that small problems cross block and chunk
// boundaries. Not for use while calls run.
void set_complex_blocking(std::int64_t mb, std::int64_t nb, std::int64_t kb);

}  // namespace bf16x::api
