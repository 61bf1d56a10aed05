// The element loops of the block loop: FP32 block sums, FP64 reconstruction and the final write of C. The loops
// are built once per vector level (driver/block_loops.hpp) and chosen once from CPUID.
#pragma once
#include <cstdint>

namespace bf16x::driver {

// dst (32 x 32, row stride ld) += part (32 x 32, row stride 32), in FP32: fp32x6's k-block sums.
void add_tile_fp32(float* dst, int ld, const float* part);

// dst (32 x 32, row stride ld) = (first ? 0 : dst) + src[0] + src[1] + ... + src[n-1], each element in that
// order in FP64, src[g] 32 x 32 FP32 at row stride 32: the exact group sums widened, smallest diagonals first.
void add_groups_fp64(double* dst, int ld, const float* const* src, int n, bool first);

// C(i0 + r, j0 + c) = alpha * 2^(ea[r] + eb[c]) * acc(r, c) + beta * C(...) for r < rows, c < cols, in FP64 and
// rounded to T; acc is row-major with row stride ld, C column-major; beta == 0 does not read C. ea / eb (null: no
// scaling) are the exponents of the block's rows and columns. alpha's exponent joins them: the value is
// (m_alpha * acc) * 2^(ea + eb + e_alpha), alpha = m_alpha * 2^e_alpha, so scaled sums whose 2^(ea + eb) * acc alone
// would overflow or underflow come back exactly when alpha brings the result into range. The power of two
// multiplies exactly where it is a normal double (the same rounding as ldexp), else ldexp does it.
template <typename T, typename Acc>
void write_block(T* c, std::int64_t ldc, const Acc* acc, int ld, int rows, int cols, double alpha, double beta,
                 const int* ea, const int* eb);

}  // namespace bf16x::driver
