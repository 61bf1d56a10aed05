/* The fuzzer's C-language entry into the API (see c_caller.c). ex = 0 calls bf16x_?gemm with opt->mode only. */
#ifndef BF16X_FUZZ_C_CALLER_H
#define BF16X_FUZZ_C_CALLER_H
#include "bf16x/bf16x.h"

#ifdef __cplusplus
extern "C" {
#endif

int fuzz_sgemm(int ex, int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc, const bf16x_options* opt);
int fuzz_dgemm(int ex, int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc,
               const bf16x_options* opt);

#ifdef __cplusplus
}
#endif
#endif
