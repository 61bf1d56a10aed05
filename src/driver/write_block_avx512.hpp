// The AVX-512 version of write_block's exact-scale path (driver/block_ops.hpp): sa[r] and sb[c] are exact powers of
// two (1 where unscaled) whose products are normal doubles. Equal bit for bit to the element loop. Defined in
// write_block_avx512_isa.cpp: call only where cpu::vector_level() is avx512.
#pragma once
#include <cstdint>

namespace bf16x::driver {

void write_block_avx512(float* c, std::int64_t ldc, const float* acc, int ld, int rows, int cols, double alpha,
                        double beta, const double* sa, const double* sb);
void write_block_avx512(double* c, std::int64_t ldc, const double* acc, int ld, int rows, int cols, double alpha,
                        double beta, const double* sa, const double* sb);

}  // namespace bf16x::driver
