// CBLAS cblas_cgemm/cblas_zgemm: alpha and beta by address, reference CBLAS checks and error numbers (those of
// cblas_sgemm/cblas_dgemm), then the complex call in the caller's layout. Forwarded calls pass the caller's own
// arguments.
#include "blas/arg_check.hpp"
#include "blas/complex_dispatch.hpp"
#include "blas/next_complex_blas.hpp"
#include "blas/xerbla.hpp"

namespace bf16x::blas {
namespace {

template <typename C>
void cblas_complex_gemm(const char* rout, CblasComplexGemm (*next_definition)(), int layout, int transa, int transb,
                        int m, int n, int k, const void* alpha, const void* a, int lda, const void* b, int ldb,
                        const void* beta, void* c, int ldc) {
  const auto forward = [&]() -> const void* {
    const CblasComplexGemm next = next_definition();
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
  // Row-major: the column-major call has A and B (and m, n) swapped, as in cblas_gemm_shape (conjugation carries
  // over unchanged); the library gets the caller's row-major call back (complex_dispatch.cpp).
  const bool row = layout == 101;
  const C* pa = static_cast<const C*>(a);
  const C* pb = static_cast<const C*>(b);
  dispatch_complex(ComplexGemmCall<C>{*shape, *static_cast<const C*>(alpha), row ? pb : pa, row ? pa : pb,
                                      *static_cast<const C*>(beta), static_cast<C*>(c), row},
                   forward);
}

}  // namespace
}  // namespace bf16x::blas

extern "C" {

__attribute__((visibility("default"))) void cblas_cgemm(int layout, int transa, int transb, int m, int n, int k,
                                                        const void* alpha, const void* a, int lda, const void* b,
                                                        int ldb, const void* beta, void* c, int ldc) {
  bf16x::blas::cblas_complex_gemm<bf16x_complex_float>("cblas_cgemm", bf16x::blas::next_cblas_cgemm, layout, transa,
                                                       transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void cblas_zgemm(int layout, int transa, int transb, int m, int n, int k,
                                                        const void* alpha, const void* a, int lda, const void* b,
                                                        int ldb, const void* beta, void* c, int ldc) {
  bf16x::blas::cblas_complex_gemm<bf16x_complex_double>("cblas_zgemm", bf16x::blas::next_cblas_zgemm, layout, transa,
                                                        transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // extern "C"
