// Debian's ILP64 BLAS names, for libbf16x_blas64.so: libblas64.so.3 (netlib and OpenBLAS alternatives) and
// libopenblas64.so.0 keep the LP64 names sgemm_/dgemm_/cblas_sgemm/cblas_dgemm and change only the integer
// width, so these are those names with 64-bit integers. Preloaded in front of a program linked with -lblas64
// (or -lopenblas64), the next definition is that library's. Errors go to xerbla_ / cblas_xerbla with a 64-bit
// INFO and to the reference CBLAS's RowMajorStrg (netlib libblas64 has both).
#include "blas/ilp64_gemm.hpp"

namespace {

constexpr bf16x::blas::ErrorHandlers kDebian64{"xerbla_", "cblas_xerbla", "RowMajorStrg", true};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void sgemm_(const char* transa, const char* transb, const std::int64_t* m,
                                                   const std::int64_t* n, const std::int64_t* k, const float* alpha,
                                                   const float* a, const std::int64_t* lda, const float* b,
                                                   const std::int64_t* ldb, const float* beta, float* c,
                                                   const std::int64_t* ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_fortran_gemm("SGEMM ", "sgemm_", next, kDebian64, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                  beta, c, ldc);
}

__attribute__((visibility("default"))) void dgemm_(const char* transa, const char* transb, const std::int64_t* m,
                                                   const std::int64_t* n, const std::int64_t* k, const double* alpha,
                                                   const double* a, const std::int64_t* lda, const double* b,
                                                   const std::int64_t* ldb, const double* beta, double* c,
                                                   const std::int64_t* ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_fortran_gemm("DGEMM ", "dgemm_", next, kDebian64, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                  beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_sgemm(int layout, int transa, int transb, std::int64_t m,
                                                        std::int64_t n, std::int64_t k, float alpha, const float* a,
                                                        std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                                                        float* c, std::int64_t ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_cblas_gemm("cblas_sgemm", next, kDebian64, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm(int layout, int transa, int transb, std::int64_t m,
                                                        std::int64_t n, std::int64_t k, double alpha, const double* a,
                                                        std::int64_t lda, const double* b, std::int64_t ldb,
                                                        double beta, double* c, std::int64_t ldc) {
  static std::atomic<void*> next;
  bf16x::blas::ilp64_cblas_gemm("cblas_dgemm", next, kDebian64, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                beta, c, ldc);
}

}  // extern "C"
