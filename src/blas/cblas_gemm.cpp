// CBLAS cblas_sgemm/cblas_dgemm: reference CBLAS checks and error numbers, then the column-major call. Forwarded
// calls pass the caller's own arguments (layout included) to the next cblas_?gemm, so native results are those
// of the host routine itself.
#include "blas/arg_check.hpp"
#include "blas/dispatch.hpp"
#include "blas/next_blas.hpp"
#include "blas/xerbla.hpp"

namespace bf16x::blas {
namespace {

template <typename T, typename Next>
void cblas_gemm(const char* rout, Next (*next_definition)(), int layout, int transa, int transb, int m, int n, int k,
                T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  const auto forward = [&]() -> const void* {
    const Next next = next_definition();
    if (!next) return nullptr;
    next(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return reinterpret_cast<const void*>(next);
  };
  if (ShimScope::active()) {
    if (!forward()) no_next_definition(rout);
    return;
  }
  CblasError error{};
  const auto shape = cblas_gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc, rout, &error);
  if (!shape) {
    report_cblas(error);
    return;
  }
  // Row-major: the column-major call has A and B (and m, n) swapped, as in cblas_gemm_shape.
  const bool row = layout == 101;
  dispatch(GemmCall<T>{*shape, alpha, row ? b : a, row ? a : b, beta, c, row}, forward);
}

}  // namespace
}  // namespace bf16x::blas

extern "C" {

__attribute__((visibility("default"))) void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k,
                                                        float alpha, const float* a, int lda, const float* b, int ldb,
                                                        float beta, float* c, int ldc) {
  bf16x::blas::cblas_gemm("cblas_sgemm", bf16x::blas::next_cblas_sgemm, layout, transa, transb, m, n, k, alpha, a, lda,
                          b, ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k,
                                                        double alpha, const double* a, int lda, const double* b,
                                                        int ldb, double beta, double* c, int ldc) {
  bf16x::blas::cblas_gemm("cblas_dgemm", bf16x::blas::next_cblas_dgemm, layout, transa, transb, m, n, k, alpha, a, lda,
                          b, ldb, beta, c, ldc);
}

}  // extern "C"
