/* ScaLAPACK PDPOTRF and PDGETRF on a BLACS process grid, each rank's local level-3 BLAS (PBLAS's dtrsm_, dsyrk_,
 * dgemm_...) going through libbf16x_blas.so (bf16x-run in front of each rank). The global N x N matrix in nb x nb
 * block-cyclic layout from process (0, 0), the same on every rank from the element indices:
 *   potrf: A = S + d I, S symmetric uniform in [-1, 1) off the diagonal, d = 1.2 * 2 sqrt(N / 3) (the semicircle's
 *          radius of S's spectrum, 2 sqrt(N/3), times 1.2: SPD with a condition number about 10);
 *   getrf: A uniform in [-1, 1) (partial pivoting).
 * The factors and pivots are gathered onto every rank (one Allreduce of the global array: each entry has one owner)
 * and the backward error ||A - L L^T||_F / ||A||_F (potrf, lower) or ||P A - L U||_F / ||A||_F (getrf) formed in
 * long double. It is printed with the scaled residual r = backward error / (N u), LAPACK's test ratio without its
 * threshold: the caller compares the modes' r with native's (tests/clients/pdfact.sh). Failing: info != 0 or r >= 1.
 * Usage: pdfact_check N NB potrf|getrf. Rank 0 prints one line; exit status 1 on failure. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blacs_grid.h"

void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* info);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
              int* info);

static double global_a(int chol, int n, int i, int j) {
  if (!chol) return element(4, i, j);
  if (i == j) return 1.2 * 2 * sqrt(n / 3.0);
  return i < j ? element(3, i, j) : element(3, j, i);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4 || (strcmp(argv[3], "potrf") != 0 && strcmp(argv[3], "getrf") != 0)) {
    fprintf(stderr, "usage: %s N NB potrf|getrf\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = atoi(argv[1]), nb = atoi(argv[2]), chol = strcmp(argv[3], "potrf") == 0, zero = 0, one = 1;

  int rank, nprocs, ctxt, nprow, npcol, myrow, mycol, info;
  Cblacs_pinfo(&rank, &nprocs);
  int pr = 1;
  for (int d = 1; d * d <= nprocs; ++d)
    if (nprocs % d == 0) pr = d;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", pr, nprocs / pr);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);

  const int lr = numroc_(&n, &nb, &myrow, &zero, &nprow), lc = numroc_(&n, &nb, &mycol, &zero, &npcol);
  const int lld = lr > 1 ? lr : 1;
  int desc[9];
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  double* a = malloc(sizeof(double) * (size_t)lld * (size_t)(lc > 0 ? lc : 1));
  int* ipiv = malloc(sizeof(int) * (size_t)(lr + nb));
  for (int j = 0; j < lc; ++j)
    for (int i = 0; i < lr; ++i)
      a[i + (size_t)j * lld] = global_a(chol, n, global_index(i, nb, myrow, nprow), global_index(j, nb, mycol, npcol));
  if (chol)
    pdpotrf_("L", &n, a, &one, &one, desc, &info);
  else
    pdgetrf_(&n, &n, a, &one, &one, desc, ipiv, &info);

  /* Gather the factors (column-major n x n) and the pivots (global row -> the 1-based row it was swapped with, the
   * same on every process column: column 0 gives them). */
  double* f = calloc((size_t)n * n, sizeof(double));
  int* piv = calloc((size_t)n, sizeof(int));
  for (int j = 0; j < lc; ++j)
    for (int i = 0; i < lr; ++i)
      f[global_index(i, nb, myrow, nprow) + (size_t)global_index(j, nb, mycol, npcol) * n] = a[i + (size_t)j * lld];
  if (!chol && mycol == 0)
    for (int i = 0; i < lr; ++i) piv[global_index(i, nb, myrow, nprow)] = ipiv[i];
  MPI_Allreduce(MPI_IN_PLACE, f, n * n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, piv, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int worst_info = info < 0 ? -info : info;
  MPI_Allreduce(MPI_IN_PLACE, &worst_info, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  int ok = worst_info == 0;
  if (rank == 0) {
    /* P A: the interchanges in order. */
    int* row = malloc(sizeof(int) * (size_t)n); /* row[i]: the row of A now at position i */
    for (int i = 0; i < n; ++i) row[i] = i;
    for (int i = 0; !chol && i < n; ++i) {
      const int p = piv[i] - 1;
      if (p < 0 || p >= n) {
        ok = 0;
        break;
      }
      const int t = row[i];
      row[i] = row[p];
      row[p] = t;
    }
    long double num = 0, den = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        /* (L L^T)_ij = sum_{p <= min(i,j)} L_ip L_jp; (L U)_ij = sum_{p < min(i,j+1)} L_ip U_pj + [i <= j] U_ij */
        long double s = 0;
        const int top = i < j ? i : j;
        if (chol) {
          for (int p = 0; p <= top; ++p) s += (long double)f[i + (size_t)p * n] * f[j + (size_t)p * n];
        } else {
          for (int p = 0; p <= top; ++p) {
            const long double l = p == i ? 1.0L : (long double)f[i + (size_t)p * n];
            s += l * f[p + (size_t)j * n];
          }
        }
        const double want = chol ? global_a(1, n, i, j) : global_a(0, n, row[i], j);
        const long double d = (long double)want - s;
        num += d * d;
        den += (long double)want * want;
      }
    const double berr = sqrt((double)(num / den)), r = berr / (n * 0x1p-53);
    ok = ok && r < 1;
    const char* mode = getenv("BF16X_DGEMM_MODE");
    printf("pdfact_check: %d ranks (%d x %d), pd%s n=%d nb=%d mode=%s: info=%d, %s = %.3e, r = %.4f: %s\n", nprocs,
           nprow, npcol, argv[3], n, nb, mode ? mode : "(unset)", worst_info,
           chol ? "||A - L L^T||_F/||A||_F" : "||P A - L U||_F/||A||_F", berr, r, ok ? "PASS" : "FAIL");
    free(row);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(a);
  free(ipiv);
  free(f);
  free(piv);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return ok ? 0 : 1;
}
