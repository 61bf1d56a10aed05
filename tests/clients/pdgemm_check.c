/* ScaLAPACK PDGEMM on a BLACS process grid, each rank's local DGEMMs going through libbf16x_blas.so (LD_PRELOAD):
 * C = alpha op(A) op(B) + beta C for global M x N x K matrices in nb x nb block-cyclic layout, checked element
 * by element against a long double triple loop over the global matrices (every rank regenerates them from the
 * element indices) with the tolerance of the mode in BF16X_DGEMM_MODE, and normwise:
 *   fp64x6: 1e-10 < eF < 1e-7 (dropped products about 2^-27 of the row/column scales per term, random signs:
 *           eF about 1.5e-8 on uniform inputs, native about 1e-16, so the lower bound shows the emulation ran);
 *   other modes: eF < 1e-14.
 * Usage: pdgemm_check M N K NB TRANSA TRANSB. Rank 0 prints a summary; exit status 1 on failure. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blacs_grid.h"

void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);

static double gamma_n(double n) { return n * 0x1p-53 / (1 - n * 0x1p-53); }

/* Per-term bound of the emulation relative to the row/column power-of-two scales: six slices on a grid stepping
 * 2^9 leave 2^-54 of the scale per operand, and the dropped products i+j >= d add min(s+1, 11-s) pairs of 2^-9s
 * on anti-diagonal s; 0 for native. */
static double mode_rel(const char* mode) {
  static const char* names[] = {"fp64x6", "fp64x10", "fp64x15", "fp64x21"};
  for (int i = 0; i < 4; ++i)
    if (mode && strcmp(mode, names[i]) == 0) {
      const int d = 3 + i;
      double t = 2 * 0x1p-54;
      for (int s = d; s <= 10; ++s) t += (s + 1 < 11 - s ? s + 1 : 11 - s) * ldexp(1.0, -9 * s);
      return t + gamma_n(d * (d + 1) / 2.0 + 2) + 0x1p-52;
    }
  return 0;
}

static double pow2_above(double mx) {
  int e = 0;
  if (mx <= 0) return 0;
  frexp(mx, &e);
  return ldexp(1.0, e);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 7) {
    fprintf(stderr, "usage: %s M N K NB TRANSA TRANSB\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]), nb = atoi(argv[4]);
  const char ta = argv[5][0], tb = argv[6][0];
  const int tra = ta != 'N', trb = tb != 'N';
  const double alpha = 0.75, beta = -0.5;

  int rank, nprocs, ctxt, nprow, npcol, myrow, mycol;
  Cblacs_pinfo(&rank, &nprocs);
  int pr = 1;
  for (int d = 1; d * d <= nprocs; ++d)
    if (nprocs % d == 0) pr = d;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", pr, nprocs / pr);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);

  /* A is (tra ? K x M : M x K), B is (trb ? N x K : K x N), C is M x N, all nb x nb blocks from process (0, 0) */
  const int ar = tra ? K : M, ac = tra ? M : K, br = trb ? N : K, bc = trb ? K : N, zero = 0, one = 1;
  int dims[3][2] = {{ar, ac}, {br, bc}, {M, N}}, desc[3][9], lr[3], lc[3], info;
  double* x[3];
  for (int t = 0; t < 3; ++t) {
    lr[t] = numroc_(&dims[t][0], &nb, &myrow, &zero, &nprow);
    lc[t] = numroc_(&dims[t][1], &nb, &mycol, &zero, &npcol);
    const int lld = lr[t] > 1 ? lr[t] : 1;
    descinit_(desc[t], &dims[t][0], &dims[t][1], &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    x[t] = malloc(sizeof(double) * (size_t)lld * (size_t)(lc[t] > 0 ? lc[t] : 1));
    for (int j = 0; j < lc[t]; ++j)
      for (int i = 0; i < lr[t]; ++i)
        x[t][i + (size_t)j * lld] = element(t, global_index(i, nb, myrow, nprow), global_index(j, nb, mycol, npcol));
  }
  pdgemm_(&ta, &tb, &M, &N, &K, &alpha, x[0], &one, &one, desc[0], x[1], &one, &one, desc[1], &beta, x[2], &one, &one,
          desc[2]);

  /* Local part of C against the triple loop over the global matrices. The local DGEMMs are rank-nb updates, so
   * besides the emulation's per-term bound, C collects one FP64 rounding per update (K/nb + 2 of them). */
  const char* mode = getenv("BF16X_DGEMM_MODE");
  const double rel = mode_rel(mode);
  double sums[3] = {0, 0, 0}; /* |C - R|^2, |R|^2, elements beyond tolerance */
  double worst = 0;
  const int ldc = lr[2] > 1 ? lr[2] : 1;
  for (int j = 0; j < lc[2]; ++j) {
    const int gj = global_index(j, nb, mycol, npcol);
    double sb = 0;
    for (int p = 0; p < K; ++p) sb = fmax(sb, fabs(trb ? element(1, gj, p) : element(1, p, gj)));
    for (int i = 0; i < lr[2]; ++i) {
      const int gi = global_index(i, nb, myrow, nprow);
      long double r = 0, g = 0;
      double sa = 0;
      for (int p = 0; p < K; ++p) {
        const double a = tra ? element(0, p, gi) : element(0, gi, p);
        const double b = trb ? element(1, gj, p) : element(1, p, gj);
        sa = fmax(sa, fabs(a));
        r += (long double)a * b;
        g += fabsl((long double)a * b);
      }
      const double c0 = element(2, gi, gj);
      const double want = (double)((long double)alpha * r + (long double)beta * c0);
      const double tol = fabs(alpha) * K * pow2_above(sa) * pow2_above(sb) * rel +
                         gamma_n(K + K / nb + 4) * (fabs(alpha) * (double)g + fabs(beta * c0));
      const double err = fabs(x[2][i + (size_t)j * ldc] - want);
      sums[0] += err * err;
      sums[1] += want * want;
      if (!(err <= tol)) sums[2] += 1;
      worst = fmax(worst, err / tol);
    }
  }
  double total[3], worst_all;
  MPI_Allreduce(sums, total, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double eF = sqrt(total[0] / total[1]);
  const int is_fp64x6 = mode && strcmp(mode, "fp64x6") == 0;
  const int norm_ok = is_fp64x6 ? (eF > 1e-10 && eF < 1e-7) : eF < 1e-14;
  const int ok = total[2] == 0 && norm_ok;
  if (rank == 0)
    printf(
        "pdgemm_check: %d ranks (%d x %d), M,N,K=%d,%d,%d nb=%d %c%c mode=%s: eF=%.3e, max err/tol=%.3f, "
        "%.0f elements beyond tolerance: %s\n",
        nprocs, nprow, npcol, M, N, K, nb, ta, tb, mode ? mode : "(unset)", eF, worst_all, total[2],
        ok ? "PASS" : "FAIL");
  for (int t = 0; t < 3; ++t) free(x[t]);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return ok ? 0 : 1;
}
