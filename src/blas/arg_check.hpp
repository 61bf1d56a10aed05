// Argument checks of the reference xGEMM (dgemm.f) and of reference CBLAS's cblas_xgemm (cblas_dgemm.c), in their
// order and with their argument numbers.
#pragma once
#include <cstdint>
#include <optional>

#include "blas/xerbla.hpp"

namespace bf16x::blas {

// A column-major GEMM as the Fortran routine sees it: transposes as 'N', 'T' or 'C'. 64-bit sizes, so the ILP64
// entry points (ilp64_gemm.hpp) share the checks.
struct GemmShape {
  char transa, transb;
  std::int64_t m, n, k, lda, ldb, ldc;
};

// 'n'/'N' -> 'N', 't'/'T' -> 'T', 'c'/'C' -> 'C' (LSAME), anything else -> 0.
char fortran_trans(char c);
// CblasNoTrans / CblasTrans / CblasConjTrans -> 'N' / 'T' / 'C', anything else -> 0.
char cblas_trans(int t);

// INFO of the reference: 0, or 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc (first failure).
int fortran_gemm_info(const GemmShape& s);

// Reference CBLAS: checks layout and the transposes, then the Fortran routine checks the column-major call
// (row-major C = A B is column-major C^T = B^T A^T: m/n, A/B and lda/ldb swap). Returns that column-major call,
// or fills *error.
std::optional<GemmShape> cblas_gemm_shape(int layout, int transa, int transb, std::int64_t m, std::int64_t n,
                                          std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc,
                                          const char* rout, CblasError* error);

}  // namespace bf16x::blas
