/* Bad-argument cblas_sgemm/dgemm calls in a program linked to OpenBLAS, which has no handlers of its own: OpenBLAS
 * reports them through its XERBLA (prints, returns), although it also exports a cblas_xerbla that exits. Run once
 * alone and once under the shim (openblas_bad_args.sh): the output and exit status must be the same. */
#include <cblas.h>
#include <stdio.h>

int main(void) {
  double a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, c[4] = {0};
  float fa[4] = {1, 2, 3, 4}, fc[4] = {0};
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 1, b, 2, 0.0, c, 2); /* lda */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 1, 0.0, c, 2); /* ldb, row-major */
  cblas_dgemm((enum CBLAS_ORDER)99, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
  cblas_sgemm(CblasColMajor, (enum CBLAS_TRANSPOSE)7, CblasNoTrans, 2, 2, 2, 1.0f, fa, 2, fa, 2, 0.0f, fc, 2);
  cblas_sgemm(CblasRowMajor, (enum CBLAS_TRANSPOSE)7, CblasNoTrans, 2, 2, 2, 1.0f, fa, 2, fa, 2, 0.0f, fc, 2);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, (enum CBLAS_TRANSPOSE)7, 2, 2, 2, 1.0f, fa, 2, fa, 2, 0.0f, fc, 2);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2); /* m */
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 1); /* ldc */
  printf("returned, c untouched: %g %g\n", c[0], (double)fc[0]);
  return 0;
}
