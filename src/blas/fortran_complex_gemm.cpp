// Fortran BLAS CGEMM/ZGEMM (LP64): cgemm_/zgemm_ with the plain and upper-case aliases, the reference checks and
// INFO numbers of cgemm.f/zgemm.f (those of sgemm.f: 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc).
#include <cstddef>

#include "blas/complex_dispatch.hpp"
#include "blas/next_complex_blas.hpp"
#include "blas/xerbla.hpp"

namespace bf16x::blas {
namespace {

template <typename C>
void fortran_complex_gemm(const char* name6, FortranComplexGemm (*next_definition)(), const char* transa,
                          const char* transb, const int* m, const int* n, const int* k, const void* alpha,
                          const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c,
                          const int* ldc) {
  const auto forward = [&]() -> const void* {
    const FortranComplexGemm next = next_definition();
    if (!next) return nullptr;
    next(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, std::size_t(1), std::size_t(1));
    return reinterpret_cast<const void*>(next);
  };
  if (ShimScope::active()) {
    if (!forward()) no_next_definition(name6);
    return;
  }
  const GemmShape s{fortran_trans(*transa), fortran_trans(*transb), *m, *n, *k, *lda, *ldb, *ldc};
  if (const int info = fortran_gemm_info(s)) {
    report_fortran(name6, info);
    return;
  }
  dispatch_complex(ComplexGemmCall<C>{s, *static_cast<const C*>(alpha), static_cast<const C*>(a),
                                      static_cast<const C*>(b), *static_cast<const C*>(beta), static_cast<C*>(c)},
                   forward);
}

}  // namespace
}  // namespace bf16x::blas

extern "C" {

__attribute__((visibility("default"))) void cgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                                   const int* k, const void* alpha, const void* a, const int* lda,
                                                   const void* b, const int* ldb, const void* beta, void* c,
                                                   const int* ldc) {
  bf16x::blas::fortran_complex_gemm<bf16x_complex_float>("CGEMM ", bf16x::blas::next_cgemm, transa, transb, m, n, k,
                                                         alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((visibility("default"))) void zgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                                   const int* k, const void* alpha, const void* a, const int* lda,
                                                   const void* b, const int* ldb, const void* beta, void* c,
                                                   const int* ldc) {
  bf16x::blas::fortran_complex_gemm<bf16x_complex_double>("ZGEMM ", bf16x::blas::next_zgemm, transa, transb, m, n, k,
                                                          alpha, a, lda, b, ldb, beta, c, ldc);
}

// Same routines under the other names; identical prototypes, so the aliases are the functions themselves.
using ComplexGemmFunction = void(const char*, const char*, const int*, const int*, const int*, const void*, const void*,
                                 const int*, const void*, const int*, const void*, void*, const int*);
__attribute__((visibility("default"), alias("cgemm_"))) ComplexGemmFunction cgemm;
__attribute__((visibility("default"), alias("cgemm_"))) ComplexGemmFunction CGEMM;
__attribute__((visibility("default"), alias("zgemm_"))) ComplexGemmFunction zgemm;
__attribute__((visibility("default"), alias("zgemm_"))) ComplexGemmFunction ZGEMM;

}  // extern "C"
