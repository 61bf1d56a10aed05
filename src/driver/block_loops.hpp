// The element loops of the block loop (driver/block_ops.cpp), built once per vector level: plain loops that the
// compiler vectorises for the flags of their translation unit (cmake/isa.cmake). Every variant gives the same bits:
// the loops are single IEEE operations per element, and no variant contracts a multiply and an add into an FMA.
#pragma once
#include <cstdint>

namespace bf16x::driver {

struct BlockLoops {
  // dst (32 x 32, row stride ld) += part (32 x 32, row stride 32), in FP32.
  void (*add_tile_fp32)(float* dst, int ld, const float* part);
  // dst (32 x 32) = (first ? 0 : dst) + src[0] + ... + src[n-1], in FP64, in that order.
  void (*add_groups_fp64)(double* dst, int ld, const float* const* src, int n, bool first);
  // col[r] = T((alpha * acc[r * ld]) * s[r] [+ beta * col[r]]) for r < rows, in FP64 (beta == 0 reads no col).
  void (*write_column_fp32)(float* col, const float* acc, int ld, int rows, double alpha, double beta, const double* s);
  void (*write_column_fp64)(double* col, const double* acc, int ld, int rows, double alpha, double beta,
                            const double* s);
};

// block_loops_generic.cpp (x86-64), block_loops_avx2_isa.cpp, block_loops_avx512_isa.cpp.
extern const BlockLoops kBlockLoopsGeneric, kBlockLoopsAvx2, kBlockLoopsAvx512;

// The variant for this CPU (cpu::vector_level()).
const BlockLoops& block_loops();

}  // namespace bf16x::driver
