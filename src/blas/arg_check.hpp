// Argument checks of the reference xGEMM (dgemm.f) and of reference CBLAS's cblas_xgemm (cblas_dgemm.c), in their
// order and with their argument numbers.
#pragma once
#include <optional>

#include "blas/xerbla.hpp"

namespace bf16x::blas {

// A column-major GEMM as the Fortran routine sees it: transposes as 'N', 'T' or 'C'.
struct GemmShape {
  char transa, transb;
  int m, n, k, lda, ldb, ldc;
};

// 'n'/'N' -> 'N', 't'/'T' -> 'T', 'c'/'C' -> 'C' (LSAME), anything else -> 0.
char fortran_trans(char c);

// INFO of the reference: 0, or 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc (first failure).
int fortran_gemm_info(const GemmShape& s);

// Reference CBLAS: checks layout and the transposes, then the Fortran routine checks the column-major call
// (row-major C = A B is column-major C^T = B^T A^T: m/n, A/B and lda/ldb swap). Returns that column-major call,
// or fills *error.
std::optional<GemmShape> cblas_gemm_shape(int layout, int transa, int transb, int m, int n, int k, int lda, int ldb,
                                          int ldc, const char* rout, CblasError* error);

}  // namespace bf16x::blas
