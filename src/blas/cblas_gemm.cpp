// CBLAS cblas_sgemm/cblas_dgemm (LP64): reference CBLAS checks and error numbers, then the column-major call
// (gemm_entry.hpp). Forwarded calls pass the caller's own arguments (layout included) to the next cblas_?gemm, so
// native results are those of the host routine itself.
#include "blas/gemm_entry.hpp"
#include "blas/next_blas.hpp"

extern "C" {

__attribute__((visibility("default"))) void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k,
                                                        float alpha, const float* a, int lda, const float* b, int ldb,
                                                        float beta, float* c, int ldc) {
  bf16x::blas::cblas_gemm("cblas_sgemm", bf16x::blas::next_cblas_sgemm, bf16x::blas::kLp64Handlers, layout, transa,
                          transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k,
                                                        double alpha, const double* a, int lda, const double* b,
                                                        int ldb, double beta, double* c, int ldc) {
  bf16x::blas::cblas_gemm("cblas_dgemm", bf16x::blas::next_cblas_dgemm, bf16x::blas::kLp64Handlers, layout, transa,
                          transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // extern "C"
