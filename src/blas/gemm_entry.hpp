// The body of every GEMM entry point, for either BLAS integer model: LP64 (int, fortran_gemm.cpp, cblas_gemm.cpp)
// and ILP64 (int64_t, ilp64_gemm.hpp). A re-entered call goes straight to the next definition; otherwise the
// reference argument checks, then dispatch (dispatch.hpp). Forwarded calls pass the caller's own arguments.
#pragma once
#include <cstddef>

#include "blas/arg_check.hpp"
#include "blas/dispatch.hpp"
#include "blas/reentry.hpp"
#include "blas/xerbla.hpp"

namespace bf16x::blas {

// Fortran xGEMM with INTEGER of type Int (gfortran convention: hidden character lengths last).
template <typename T, typename Int>
using FortranGemm = void (*)(const char*, const char*, const Int*, const Int*, const Int*, const T*, const T*,
                             const Int*, const T*, const Int*, const T*, T*, const Int*, std::size_t, std::size_t);
// cblas_xgemm with CBLAS_INT Int (layout and transposes stay C enums, int).
template <typename T, typename Int>
using CblasGemm = void (*)(int, int, int, Int, Int, Int, T, const T*, Int, const T*, Int, T, T*, Int);

// next() returns the next definition (a FortranGemm<T, Int>) or nullptr. The hidden character-length arguments
// are not read (TRANSA/TRANSB are CHARACTER*1); forwarded calls pass 1.
template <typename T, typename Int, typename Next>
void fortran_gemm(const char* name6, Next next, const ErrorHandlers& errors, const char* transa, const char* transb,
                  const Int* m, const Int* n, const Int* k, const T* alpha, const T* a, const Int* lda, const T* b,
                  const Int* ldb, const T* beta, T* c, const Int* ldc) {
  const auto forward = [&]() -> const void* {
    const FortranGemm<T, Int> fn = next();
    if (!fn) return nullptr;
    fn(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, std::size_t(1), std::size_t(1));
    return reinterpret_cast<const void*>(fn);
  };
  if (ShimScope::active()) {
    if (!forward()) no_next_definition(name6);
    return;
  }
  const GemmShape s{fortran_trans(*transa), fortran_trans(*transb), *m, *n, *k, *lda, *ldb, *ldc};
  if (const int info = fortran_gemm_info(s)) {
    if (verbose())
      verbose_rejected(sizeof(T) == sizeof(double), false, *transa, *transb, *m, *n, *k, *lda, *ldb, *ldc,
                       double(*alpha), double(*beta), info);
    report_fortran(name6, info, errors);
    return;
  }
  dispatch(GemmCall<T>{s, *alpha, a, b, *beta, c, false}, forward);
}

// Reference CBLAS checks and error numbers, then the column-major call.
template <typename T, typename Int, typename Next>
void cblas_gemm(const char* rout, Next next, const ErrorHandlers& errors, int layout, int transa, int transb, Int m,
                Int n, Int k, T alpha, const T* a, Int lda, const T* b, Int ldb, T beta, T* c, Int ldc) {
  const auto forward = [&]() -> const void* {
    const CblasGemm<T, Int> fn = next();
    if (!fn) return nullptr;
    fn(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return reinterpret_cast<const void*>(fn);
  };
  if (ShimScope::active()) {
    if (!forward()) no_next_definition(rout);
    return;
  }
  CblasError error{};
  const auto shape = cblas_gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc, rout, &error);
  if (!shape) {
    if (verbose()) {
      // The call as made (a refused transpose shows as '?'); error.info numbers the caller's CBLAS arguments.
      const char ta = cblas_trans(transa), tb = cblas_trans(transb);
      verbose_rejected(sizeof(T) == sizeof(double), layout == 101, ta ? ta : '?', tb ? tb : '?', m, n, k, lda, ldb, ldc,
                       double(alpha), double(beta), error.info == 1 ? 0 : error.info - 1);
    }
    report_cblas(error, errors);
    return;
  }
  // Row-major: the column-major call has A and B (and m, n) swapped, as in cblas_gemm_shape.
  const bool row = layout == 101;
  dispatch(GemmCall<T>{*shape, alpha, row ? b : a, row ? a : b, beta, c, row}, forward);
}

}  // namespace bf16x::blas
