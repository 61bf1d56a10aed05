/* Calls the C API the way a C program does: layout, transpose and mode are plain ints here, so the fuzzer can pass
 * invalid values without forming out-of-range C++ enum values on its own side. */
#include "fuzz/c_caller.h"

int fuzz_sgemm(int ex, int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc, const bf16x_options* opt) {
  if (ex) return bf16x_sgemm_ex(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
  return bf16x_sgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt->mode);
}

int fuzz_dgemm(int ex, int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc,
               const bf16x_options* opt) {
  if (ex) return bf16x_dgemm_ex(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
  return bf16x_dgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt->mode);
}
