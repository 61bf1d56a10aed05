// The host BLAS (native mode, fallbacks, baselines). Resolved at run time with dlopen/dlsym on the library handle,
// so the call reaches that library's own cblas_?gemm even when bf16x's BLAS shim interposes the global symbol.
// BF16X_HOST_BLAS names the library (default: libopenblas.so.0, then libblas.so.3, then libcblas.so.3).
#pragma once
#include <cstdint>

namespace bf16x::host {

// Column-major, CBLAS-style transposes (111/112/113). Return false if no host BLAS could be loaded.
bool sgemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);
bool dgemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
           std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc);

// sgemm or dgemm by the element type.
template <typename T>
bool gemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
          const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  if constexpr (sizeof(T) == sizeof(float))
    return sgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    return dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Complex: interleaved (re, im) pairs, alpha and beta by pointer as in CBLAS. False also where the library has no
// cblas_cgemm/cblas_zgemm.
bool cgemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, const float* alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, const float* beta, float* c, std::int64_t ldc);
bool zgemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, const double* alpha, const double* a,
           std::int64_t lda, const double* b, std::int64_t ldb, const double* beta, double* c, std::int64_t ldc);

// Whether the host BLAS is loaded and its 32-bit interface takes these sizes (what the calls above also check).
bool can_take(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc);

const char* library_name();  // the loaded library, or "" if none
const char* core_name();     // openblas_get_corename() when the host is OpenBLAS, else ""

}  // namespace bf16x::host
