// The blocks of a complex GEMM (complex/complex_gemm.cpp): C in blocks of at most MB rows x NB columns, the inner
// dimension in chunks of at most KB complex elements, so that the workspace (the parts of one block's operands,
// the block operands of 4M or the sums of 3M, and an FP64 P block) is bounded whatever m, n, k are.
//
//   KB = 1024: a multiple of the real driver's k-block (256), so chunk boundaries fall on its k-blocks (4M's real
//        products have length 2 KB); a 1024 x 1024 x 4096 real product costs what two of 1024 x 1024 x 2048 do.
//   MB = 1024, NB = 512: the 4M real product of one block is MB x 2 NB x 2 KB = 1024 x 1024 x 2048. Measured
//        (real fp64x21, 2 threads): four 512 x 1024 x 2048 products took 15-20% longer than one of
//        1024 x 2048 x 2048, two of 1024 x 1024 x 2048 the same time, so blocks keep 1024 rows and halve the
//        columns. Workspace (zgemm 4M): 16 MiB [Ar Ai], 16 MiB B~, 8 MiB P, and the real GEMM's own.
//
// The blocks are fixed numbers, not derived from the thread count or the caches: the chunks set the real GEMMs'
// scales and the accumulation order, so fixed blocks give the same bits on every thread count and layout.
#pragma once
#include <cstdint>

namespace bf16x::complex {

struct ComplexBlocking {
  std::int64_t mb = 1024, nb = 512, kb = 1024;
};

ComplexBlocking complex_blocking();

// Tests: smaller blocks (kb a multiple of 256; 0, 0, 0: the defaults), so that small problems cross block and chunk
// boundaries. Not for use while calls run.
void set_complex_blocking(std::int64_t mb, std::int64_t nb, std::int64_t kb);

}  // namespace bf16x::complex
