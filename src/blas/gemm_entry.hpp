// The body of every GEMM entry point, for each call type (s, d, c, z: call_type.hpp) and either BLAS integer model
// (LP64 int, ILP64 std::int64_t), and the macros that stamp out an exported entry point from its (type, integer,
// name, error handlers). A re-entered call goes straight to the next definition of the same name; otherwise the
// reference argument checks, then dispatch (dispatch.hpp). Forwarded calls pass the caller's own arguments, so
// native results are those of the host routine itself.
#pragma once
#include <cstddef>

#include "blas/arg_check.hpp"
#include "blas/call_type.hpp"
#include "blas/dispatch.hpp"
#include "blas/next_blas.hpp"
#include "blas/reentry.hpp"
#include "blas/xerbla.hpp"

namespace bf16x::blas {

// Fortran xGEMM (reference checks and INFO numbers of sgemm.f; cgemm.f numbers them the same). The hidden
// character-length arguments are not read (TRANSA/TRANSB are CHARACTER*1); forwarded calls pass 1.
template <typename T, typename Int>
void fortran_gemm(NextDefinition& next, const ErrorHandlers& errors, const char* transa, const char* transb,
                  const Int* m, const Int* n, const Int* k, const T* alpha, const T* a, const Int* lda, const T* b,
                  const Int* ldb, const T* beta, T* c, const Int* ldc) {
  const auto forward = [&]() -> const void* {
    const auto fn = next_definition<FortranGemmWithLengths<T, Int>>(next);
    if (!fn) return nullptr;
    fn(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, std::size_t(1), std::size_t(1));
    return reinterpret_cast<const void*>(fn);
  };
  if (ShimScope::active()) {
    if (!forward()) no_next_definition(CallType<T>::name6);
    return;
  }
  const GemmShape s{fortran_trans(*transa), fortran_trans(*transb), *m, *n, *k, *lda, *ldb, *ldc};
  if (const int info = fortran_gemm_info(s)) {
    if (verbose())
      verbose_rejected(verbose_call(*alpha, *beta), false, *transa, *transb, *m, *n, *k, *lda, *ldb, *ldc, info,
                       fortran_reported(CallType<T>::name6, info));
    report_fortran(CallType<T>::name6, info, errors);
    return;
  }
  dispatch(GemmCall<T>{s, *alpha, a, b, *beta, c, false}, forward);
}

// cblas_xgemm: reference CBLAS checks and error numbers (the routine's name, next.name, in the reports), then the
// column-major call.
template <typename T, typename Int>
void cblas_gemm(NextDefinition& next, const ErrorHandlers& errors, int layout, int transa, int transb, Int m, Int n,
                Int k, CblasScalar<T> alpha, const T* a, Int lda, const T* b, Int ldb, CblasScalar<T> beta, T* c,
                Int ldc) {
  const auto forward = [&]() -> const void* {
    const auto fn = next_definition<CblasGemm<T, Int>>(next);
    if (!fn) return nullptr;
    fn(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return reinterpret_cast<const void*>(fn);
  };
  if (ShimScope::active()) {
    if (!forward()) no_next_definition(next.name);
    return;
  }
  CblasError error{};
  const auto shape = cblas_gemm_shape(layout, transa, transb, m, n, k, lda, ldb, ldc, next.name, &error);
  if (!shape) {
    if (verbose()) {
      // The call as made (a refused transpose shows as '?'); error.info numbers the caller's CBLAS arguments.
      const char ta = cblas_trans(transa), tb = cblas_trans(transb);
      verbose_rejected(verbose_call(scalar_value<T>(alpha), scalar_value<T>(beta)), layout == 101, ta ? ta : '?',
                       tb ? tb : '?', m, n, k, lda, ldb, ldc, error.info == 1 ? 0 : error.info - 1,
                       cblas_reported(error, errors));
    }
    report_cblas(error, errors);
    return;
  }
  // Row-major: the column-major call has A and B (and m, n) swapped, as in cblas_gemm_shape (conjugation carries
  // over unchanged); dispatch gives the library the caller's row-major call back.
  const bool row = layout == 101;
  dispatch(GemmCall<T>{*shape, scalar_value<T>(alpha), row ? b : a, row ? a : b, scalar_value<T>(beta), c, row},
           forward);
}

}  // namespace bf16x::blas

// The exported Fortran entry point `symbol` (call type T, INTEGER Int), forwarding to the next definition of its
// own name and reporting errors to `handlers` (xerbla.hpp).
#define BF16X_BLAS_FORTRAN_GEMM(T, Int, symbol, handlers)                                                           \
  extern "C" __attribute__((visibility("default"))) void symbol(                                                    \
      const char* transa, const char* transb, const Int* m, const Int* n, const Int* k, const T* alpha, const T* a, \
      const Int* lda, const T* b, const Int* ldb, const T* beta, T* c, const Int* ldc) {                            \
    static ::bf16x::blas::NextDefinition next{#symbol};                                                             \
    ::bf16x::blas::fortran_gemm(next, handlers, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);      \
  }

// The exported CBLAS entry point `symbol` (call type T, CBLAS_INT Int), likewise.
#define BF16X_BLAS_CBLAS_GEMM(T, Int, symbol, handlers)                                                                \
  extern "C" __attribute__((visibility("default"))) void symbol(                                                       \
      int layout, int transa, int transb, Int m, Int n, Int k, ::bf16x::blas::CblasScalar<T> alpha, const T* a,        \
      Int lda, const T* b, Int ldb, ::bf16x::blas::CblasScalar<T> beta, T* c, Int ldc) {                               \
    static ::bf16x::blas::NextDefinition next{#symbol};                                                                \
    ::bf16x::blas::cblas_gemm<T, Int>(next, handlers, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, \
                                      ldc);                                                                            \
  }

// Another exported name of the Fortran entry point `symbol` (the same function: identical prototypes).
#define BF16X_BLAS_FORTRAN_ALIAS(T, Int, name, symbol) \
  extern "C" __attribute__((visibility("default"), alias(#symbol))) ::bf16x::blas::FortranGemm<T, Int> name;
