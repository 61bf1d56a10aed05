// The suffixed ILP64 names, next to the LP64 ones in libbf16x_blas.so, for each of s, d, c, z and each level-3
// routine (GEMM here, the others at the end: level3_entry.hpp): ?gemm_64_ (Fortran,
// both conventions), cblas_?gemm64_ (OpenBLAS INTERFACE64 with SYMBOLSUFFIX=64_) and cblas_?gemm_64
// (Reference-LAPACK index-64 API), with 64-bit INTEGER / CBLAS_INT. Each forwards to the next definition of its own
// name, so it reaches the ILP64 host routine the program would have called. Errors go to the same library's
// suffixed XERBLA / cblas_xerbla with a 64-bit INFO; neither convention has a RowMajorStrg of its own, so the number
// passed is the final one.
#include <cstdint>

#include "blas/gemm_entry.hpp"
#include "blas/level3_entry.hpp"

namespace {

constexpr bf16x::blas::ErrorHandlers kOpenblas64{"xerbla_64_", "cblas_xerbla64_", nullptr, true};
constexpr bf16x::blas::ErrorHandlers kReference64{"xerbla_64_", "cblas_xerbla_64", nullptr, true};

}  // namespace

#define BF16X_SUFFIXED_NAMES(p, T)                                        \
  BF16X_BLAS_FORTRAN_GEMM(T, std::int64_t, p##gemm_64_, kOpenblas64)      \
  BF16X_BLAS_CBLAS_GEMM(T, std::int64_t, cblas_##p##gemm64_, kOpenblas64) \
  BF16X_BLAS_CBLAS_GEMM(T, std::int64_t, cblas_##p##gemm_64, kReference64)

BF16X_SUFFIXED_NAMES(s, float)
BF16X_SUFFIXED_NAMES(d, double)
BF16X_SUFFIXED_NAMES(c, bf16x_complex_float)
BF16X_SUFFIXED_NAMES(z, bf16x_complex_double)

// The other level-3 routines (level3_entry.hpp) under the same three suffixed names.
#define BF16X_SUFFIXED_LEVEL3(r, R, p, P, T)                                   \
  BF16X_BLAS_LEVEL3(r, fortran, T, std::int64_t, p##r##_64_, kOpenblas64)      \
  BF16X_BLAS_LEVEL3(r, cblas, T, std::int64_t, cblas_##p##r##64_, kOpenblas64) \
  BF16X_BLAS_LEVEL3(r, cblas, T, std::int64_t, cblas_##p##r##_64, kReference64)
BF16X_LEVEL3_EACH(BF16X_SUFFIXED_LEVEL3)
