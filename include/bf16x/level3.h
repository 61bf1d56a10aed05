/* bf16x: the level-3 BLAS beyond GEMM, in every mode of GEMM (included by bf16x.h).
 *
 * Each routine has BLAS semantics and CBLAS argument order (layout first) and takes the GEMM options (NULL: the
 * defaults; opt->mode picks the mode, DEFAULT reads BF16X_SGEMM_MODE for s and c, BF16X_DGEMM_MODE for d and z).
 * Every one is induced from the emulated GEMM (src/level3/): the stored triangle of C is written block by block as
 * emulated GEMMs on packed blocks, each entry of C in exactly one GEMM over its whole inner dimension, so that every
 * entry keeps GEMM's bound (the guard's componentwise 4 k u (|A||B|)_ij where the mode has it; fp64cr/fp32cr:
 * correctly rounded, except HER2K with a complex alpha that is not real, whose alpha is folded into a packed operand
 * as the reference HER2K folds it). The triangle that is not stored is neither read nor written; HERK/HER2K set the
 * imaginary parts of the diagonal to zero. TRSM solves by blocks: emulated GEMM updates and diagonal blocks by
 * substitution in one fixed order (docs/numerics.md states its backward error). The statuses of GEMM, and
 * BF16X_ERR_UPLO, BF16X_ERR_SIDE, BF16X_ERR_DIAG; TRANS_A for the routine's transpose argument, M/N/K for its sizes and
 * LDA/LDB/LDC for its leading dimensions. On any error C (B for TRMM/TRSM) is untouched. Stats (opt->stats): the
 * mode and engine of the call's GEMMs, their counters and times summed. Sizes: n x n C of inner dimension k
 * (SYRK, SYR2K, HERK, HER2K, GEMMT), m x n B or C (SYMM, HEMM, TRMM, TRSM; A is m x m for side LEFT, n x n for
 * RIGHT). Leading dimensions count complex elements for c and z. */
#ifndef BF16X_LEVEL3_H
#define BF16X_LEVEL3_H

#ifdef __cplusplus
extern "C" {
#endif

/* C = alpha op(A) op(A)^T + beta C (op(A) n x k), uplo's triangle of C. */
BF16X_API int bf16x_ssyrk_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                             float alpha, const float* a, int64_t lda, float beta, float* c, int64_t ldc,
                             const bf16x_options* opt);
BF16X_API int bf16x_dsyrk_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                             double alpha, const double* a, int64_t lda, double beta, double* c, int64_t ldc,
                             const bf16x_options* opt);
BF16X_API int bf16x_csyrk_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                             bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda,
                             bf16x_complex_float beta, bf16x_complex_float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zsyrk_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                             bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda,
                             bf16x_complex_double beta, bf16x_complex_double* c, int64_t ldc, const bf16x_options* opt);

/* C = alpha op(A) op(A)^H + beta C, alpha and beta real (trans: NO_TRANS or CONJ_TRANS). */
BF16X_API int bf16x_cherk_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                             float alpha, const bf16x_complex_float* a, int64_t lda, float beta, bf16x_complex_float* c,
                             int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zherk_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                             double alpha, const bf16x_complex_double* a, int64_t lda, double beta,
                             bf16x_complex_double* c, int64_t ldc, const bf16x_options* opt);

/* C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C. */
BF16X_API int bf16x_ssyr2k_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                              float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                              float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_dsyr2k_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                              double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                              double* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_csyr2k_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                              bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda,
                              const bf16x_complex_float* b, int64_t ldb, bf16x_complex_float beta,
                              bf16x_complex_float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zsyr2k_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                              bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda,
                              const bf16x_complex_double* b, int64_t ldb, bf16x_complex_double beta,
                              bf16x_complex_double* c, int64_t ldc, const bf16x_options* opt);

/* C = alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C, beta real. */
BF16X_API int bf16x_cher2k_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                              bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda,
                              const bf16x_complex_float* b, int64_t ldb, float beta, bf16x_complex_float* c,
                              int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zher2k_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose trans, int64_t n, int64_t k,
                              bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda,
                              const bf16x_complex_double* b, int64_t ldb, double beta, bf16x_complex_double* c,
                              int64_t ldc, const bf16x_options* opt);

/* C = alpha A B + beta C (side LEFT) or alpha B A + beta C (RIGHT), A symmetric (SYMM) or Hermitian (HEMM: the
 * imaginary parts of its diagonal are not read), uplo's triangle of A stored. */
BF16X_API int bf16x_ssymm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, int64_t m, int64_t n, float alpha,
                             const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                             int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_dsymm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, int64_t m, int64_t n, double alpha,
                             const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                             int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_csymm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, int64_t m, int64_t n,
                             bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda,
                             const bf16x_complex_float* b, int64_t ldb, bf16x_complex_float beta,
                             bf16x_complex_float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zsymm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, int64_t m, int64_t n,
                             bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda,
                             const bf16x_complex_double* b, int64_t ldb, bf16x_complex_double beta,
                             bf16x_complex_double* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_chemm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, int64_t m, int64_t n,
                             bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda,
                             const bf16x_complex_float* b, int64_t ldb, bf16x_complex_float beta,
                             bf16x_complex_float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zhemm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, int64_t m, int64_t n,
                             bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda,
                             const bf16x_complex_double* b, int64_t ldb, bf16x_complex_double beta,
                             bf16x_complex_double* c, int64_t ldc, const bf16x_options* opt);

/* B = alpha op(A) B (side LEFT) or alpha B op(A) (RIGHT), A triangular (uplo, diag), in place. */
BF16X_API int bf16x_strmm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, float alpha, const float* a, int64_t lda, float* b,
                             int64_t ldb, const bf16x_options* opt);
BF16X_API int bf16x_dtrmm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, double alpha, const double* a, int64_t lda,
                             double* b, int64_t ldb, const bf16x_options* opt);
BF16X_API int bf16x_ctrmm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, bf16x_complex_float alpha,
                             const bf16x_complex_float* a, int64_t lda, bf16x_complex_float* b, int64_t ldb,
                             const bf16x_options* opt);
BF16X_API int bf16x_ztrmm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, bf16x_complex_double alpha,
                             const bf16x_complex_double* a, int64_t lda, bf16x_complex_double* b, int64_t ldb,
                             const bf16x_options* opt);

/* Solves op(A) X = alpha B (side LEFT) or X op(A) = alpha B (RIGHT), X over B. A singular A is not detected (as
 * in the BLAS): its zero pivots give Inf or NaN. */
BF16X_API int bf16x_strsm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, float alpha, const float* a, int64_t lda, float* b,
                             int64_t ldb, const bf16x_options* opt);
BF16X_API int bf16x_dtrsm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, double alpha, const double* a, int64_t lda,
                             double* b, int64_t ldb, const bf16x_options* opt);
BF16X_API int bf16x_ctrsm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, bf16x_complex_float alpha,
                             const bf16x_complex_float* a, int64_t lda, bf16x_complex_float* b, int64_t ldb,
                             const bf16x_options* opt);
BF16X_API int bf16x_ztrsm_ex(bf16x_layout layout, bf16x_side side, bf16x_uplo uplo, bf16x_transpose transa,
                             bf16x_diag diag, int64_t m, int64_t n, bf16x_complex_double alpha,
                             const bf16x_complex_double* a, int64_t lda, bf16x_complex_double* b, int64_t ldb,
                             const bf16x_options* opt);

/* C = alpha op(A) op(B) + beta C on uplo's triangle of the n x n C only (op(A) n x k, op(B) k x n). */
BF16X_API int bf16x_sgemmt_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose transa, bf16x_transpose transb,
                              int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                              int64_t ldb, float beta, float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_dgemmt_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose transa, bf16x_transpose transb,
                              int64_t n, int64_t k, double alpha, const double* a, int64_t lda, const double* b,
                              int64_t ldb, double beta, double* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_cgemmt_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose transa, bf16x_transpose transb,
                              int64_t n, int64_t k, bf16x_complex_float alpha, const bf16x_complex_float* a,
                              int64_t lda, const bf16x_complex_float* b, int64_t ldb, bf16x_complex_float beta,
                              bf16x_complex_float* c, int64_t ldc, const bf16x_options* opt);
BF16X_API int bf16x_zgemmt_ex(bf16x_layout layout, bf16x_uplo uplo, bf16x_transpose transa, bf16x_transpose transb,
                              int64_t n, int64_t k, bf16x_complex_double alpha, const bf16x_complex_double* a,
                              int64_t lda, const bf16x_complex_double* b, int64_t ldb, bf16x_complex_double beta,
                              bf16x_complex_double* c, int64_t ldc, const bf16x_options* opt);

#ifdef __cplusplus
}
#endif
#endif
