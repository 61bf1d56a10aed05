// Fortran BLAS SGEMM/DGEMM (LP64): sgemm_/dgemm_ as gfortran and f2c name them, with the plain and upper-case
// aliases some C programs call (the body: gemm_entry.hpp). Names ending in a second underscore (g77
// -fsecond-underscore) only apply to routine names that contain an underscore, which SGEMM/DGEMM do not, so
// sgemm__/dgemm__ are not defined.
#include "blas/gemm_entry.hpp"
#include "blas/next_blas.hpp"

extern "C" {

__attribute__((visibility("default"))) void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                                   const int* k, const float* alpha, const float* a, const int* lda,
                                                   const float* b, const int* ldb, const float* beta, float* c,
                                                   const int* ldc) {
  bf16x::blas::fortran_gemm("SGEMM ", bf16x::blas::next_sgemm, bf16x::blas::kLp64Handlers, transa, transb, m, n, k,
                            alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                                   const int* k, const double* alpha, const double* a, const int* lda,
                                                   const double* b, const int* ldb, const double* beta, double* c,
                                                   const int* ldc) {
  bf16x::blas::fortran_gemm("DGEMM ", bf16x::blas::next_dgemm, bf16x::blas::kLp64Handlers, transa, transb, m, n, k,
                            alpha, a, lda, b, ldb, beta, c, ldc);
}

// Same routines under the other names; identical prototypes, so the aliases are the functions themselves.
using SgemmFunction = void(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                           const int*, const float*, const int*, const float*, float*, const int*);
using DgemmFunction = void(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                           const int*, const double*, const int*, const double*, double*, const int*);
__attribute__((visibility("default"), alias("sgemm_"))) SgemmFunction sgemm;
__attribute__((visibility("default"), alias("sgemm_"))) SgemmFunction SGEMM;
__attribute__((visibility("default"), alias("dgemm_"))) DgemmFunction dgemm;
__attribute__((visibility("default"), alias("dgemm_"))) DgemmFunction DGEMM;

}  // extern "C"
