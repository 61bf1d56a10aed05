// ILP64 GEMM entry points: the BLAS interface with 64-bit INTEGER / CBLAS_INT, in two namings. libbf16x_blas.so
// defines the suffixed names of OpenBLAS INTERFACE64 builds with SYMBOLSUFFIX=64_ and of Reference-LAPACK's
// index-64 API (ilp64_suffixed.cpp); libbf16x_blas64.so defines Debian's libblas64 / libopenblas64 names, which
// are the plain LP64 names with 64-bit integers (ilp64_plain.cpp). Each forwards to the next definition of its
// own name, so it reaches the ILP64 host routine the program would have called.
#pragma once
#include <atomic>
#include <cstdint>

#include "blas/gemm_entry.hpp"
#include "blas/next_blas.hpp"

namespace bf16x::blas {

// slot caches the next definition of symbol (one static slot per entry point).
template <typename T>
void ilp64_fortran_gemm(const char* name6, const char* symbol, std::atomic<void*>& slot, const ErrorHandlers& errors,
                        const char* transa, const char* transb, const std::int64_t* m, const std::int64_t* n,
                        const std::int64_t* k, const T* alpha, const T* a, const std::int64_t* lda, const T* b,
                        const std::int64_t* ldb, const T* beta, T* c, const std::int64_t* ldc) {
  const auto next = [&] { return reinterpret_cast<FortranGemm<T, std::int64_t>>(next_definition(slot, symbol)); };
  fortran_gemm(name6, next, errors, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <typename T>
void ilp64_cblas_gemm(const char* symbol, std::atomic<void*>& slot, const ErrorHandlers& errors, int layout, int transa,
                      int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
                      const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  const auto next = [&] { return reinterpret_cast<CblasGemm<T, std::int64_t>>(next_definition(slot, symbol)); };
  cblas_gemm(symbol, next, errors, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace bf16x::blas
