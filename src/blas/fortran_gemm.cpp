// Fortran BLAS SGEMM/DGEMM (LP64): sgemm_/dgemm_ as gfortran and f2c name them, with the plain and upper-case
// aliases some C programs call. The hidden character-length arguments are not read (TRANSA/TRANSB are
// CHARACTER*1); forwarded calls pass 1. Names ending in a second underscore (g77 -fsecond-underscore) only apply
// to routine names that contain an underscore, which SGEMM/DGEMM do not, so sgemm__/dgemm__ are not defined.
#include <cstddef>

#include "blas/dispatch.hpp"
#include "blas/next_blas.hpp"
#include "blas/xerbla.hpp"

namespace bf16x::blas {
namespace {

template <typename T, typename Next>
void fortran_gemm(const char* name6, Next (*next_definition)(), const char* transa, const char* transb, const int* m,
                  const int* n, const int* k, const T* alpha, const T* a, const int* lda, const T* b, const int* ldb,
                  const T* beta, T* c, const int* ldc) {
  const auto forward = [&]() -> const void* {
    const Next next = next_definition();
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
  dispatch(GemmCall<T>{s, *alpha, a, b, *beta, c}, forward);
}

}  // namespace
}  // namespace bf16x::blas

extern "C" {

__attribute__((visibility("default"))) void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                                   const int* k, const float* alpha, const float* a, const int* lda,
                                                   const float* b, const int* ldb, const float* beta, float* c,
                                                   const int* ldc) {
  bf16x::blas::fortran_gemm("SGEMM ", bf16x::blas::next_sgemm, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                            ldc);
}

__attribute__((visibility("default"))) void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                                   const int* k, const double* alpha, const double* a, const int* lda,
                                                   const double* b, const int* ldb, const double* beta, double* c,
                                                   const int* ldc) {
  bf16x::blas::fortran_gemm("DGEMM ", bf16x::blas::next_dgemm, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                            ldc);
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
