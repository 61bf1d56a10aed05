// The suffixed ILP64 names, next to the LP64 ones in libbf16x_blas.so: sgemm_64_/dgemm_64_ (Fortran, both
// conventions), cblas_sgemm64_/cblas_dgemm64_ (OpenBLAS SYMBOLSUFFIX=64_) and cblas_sgemm_64/cblas_dgemm_64
// (Reference-LAPACK index-64 API). Errors go to the same library's suffixed XERBLA / cblas_xerbla with a 64-bit
// INFO; neither convention has a RowMajorStrg of its own, so the number passed is the final one.
#include "blas/ilp64_gemm.hpp"

namespace {

constexpr bf16x::blas::ErrorHandlers kOpenblas64{"xerbla_64_", "cblas_xerbla64_", nullptr, true};
constexpr bf16x::blas::ErrorHandlers kReference64{"xerbla_64_", "cblas_xerbla_64", nullptr, true};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void sgemm_64_(const char* transa, const char* transb, const std::int64_t* m,
                                                      const std::int64_t* n, const std::int64_t* k, const float* alpha,
                                                      const float* a, const std::int64_t* lda, const float* b,
                                                      const std::int64_t* ldb, const float* beta, float* c,
                                                      const std::int64_t* ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_fortran_gemm("SGEMM ", "sgemm_64_", next, kOpenblas64, transa, transb, m, n, k, alpha, a, lda, b,
                                  ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void dgemm_64_(const char* transa, const char* transb, const std::int64_t* m,
                                                      const std::int64_t* n, const std::int64_t* k, const double* alpha,
                                                      const double* a, const std::int64_t* lda, const double* b,
                                                      const std::int64_t* ldb, const double* beta, double* c,
                                                      const std::int64_t* ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_fortran_gemm("DGEMM ", "dgemm_64_", next, kOpenblas64, transa, transb, m, n, k, alpha, a, lda, b,
                                  ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_sgemm64_(int layout, int transa, int transb, std::int64_t m,
                                                           std::int64_t n, std::int64_t k, float alpha, const float* a,
                                                           std::int64_t lda, const float* b, std::int64_t ldb,
                                                           float beta, float* c, std::int64_t ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_cblas_gemm("cblas_sgemm64_", next, kOpenblas64, layout, transa, transb, m, n, k, alpha, a, lda, b,
                                ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm64_(int layout, int transa, int transb, std::int64_t m,
                                                           std::int64_t n, std::int64_t k, double alpha,
                                                           const double* a, std::int64_t lda, const double* b,
                                                           std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_cblas_gemm("cblas_dgemm64_", next, kOpenblas64, layout, transa, transb, m, n, k, alpha, a, lda, b,
                                ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_sgemm_64(int layout, int transa, int transb, std::int64_t m,
                                                           std::int64_t n, std::int64_t k, float alpha, const float* a,
                                                           std::int64_t lda, const float* b, std::int64_t ldb,
                                                           float beta, float* c, std::int64_t ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_cblas_gemm("cblas_sgemm_64", next, kReference64, layout, transa, transb, m, n, k, alpha, a, lda, b,
                                ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm_64(int layout, int transa, int transb, std::int64_t m,
                                                           std::int64_t n, std::int64_t k, double alpha,
                                                           const double* a, std::int64_t lda, const double* b,
                                                           std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_cblas_gemm("cblas_dgemm_64", next, kReference64, layout, transa, transb, m, n, k, alpha, a, lda, b,
                                ldb, beta, c, ldc);
}

}  // extern "C"
