/* Small calls start no OpenMP team (util/team.hpp): libgomp starts even a one-thread team with futex system calls,
 * microseconds each, and LAPACK makes millions of small calls. This program defines GOMP_parallel, which every
 * `#pragma omp parallel` of the library calls (it imports no other team entry), counts the calls and forwards them
 * to libgomp's. Every level-3 routine (real and complex) in every method's mode, on 1 and 2 threads, at sizes
 * whose work is far below any team threshold, must start none. Exits 1 and names the call where one does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "bf16x/bf16x.h"
#include "bf16x/level3.h"

static long teams;

void GOMP_parallel(void (*fn)(void*), void* data, unsigned threads, unsigned flags) {
  static void (*next)(void (*)(void*), void*, unsigned, unsigned);
  if (!next) *(void**)&next = dlsym(RTLD_NEXT, "GOMP_parallel");
  ++teams;
  next(fn, data, threads, flags);
}

enum { kMax = 8 };
static double a[2 * kMax * kMax], b[2 * kMax * kMax], c[2 * kMax * kMax];

/* One call of routine r on n x n operands. */
static int call(int r, int64_t n, const bf16x_options* o) {
  const bf16x_complex_double one = {1, 0}, zero = {0, 0};
  const bf16x_complex_double *za = (const bf16x_complex_double*)a, *zb = (const bf16x_complex_double*)b;
  bf16x_complex_double* zc = (bf16x_complex_double*)c;
  switch (r) {
    case 0:
      return bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_TRANS, n, n, n, -1.0, a, n, b, n, 1.0, c, n, o);
    case 1:
      return bf16x_dtrmm_ex(BF16X_COL_MAJOR, BF16X_LEFT, BF16X_UPPER, BF16X_NO_TRANS, BF16X_NON_UNIT, n, n, 1.0, a, n,
                            c, n, o);
    case 2:
      return bf16x_dtrsm_ex(BF16X_COL_MAJOR, BF16X_RIGHT, BF16X_LOWER, BF16X_TRANS, BF16X_UNIT, n, n, 1.0, a, n, c, n,
                            o);
    case 3:
      return bf16x_dsyrk_ex(BF16X_COL_MAJOR, BF16X_LOWER, BF16X_NO_TRANS, n, n, -1.0, a, n, 1.0, c, n, o);
    case 4:
      return bf16x_dsyr2k_ex(BF16X_ROW_MAJOR, BF16X_UPPER, BF16X_TRANS, n, n, 1.0, a, n, b, n, 0.0, c, n, o);
    case 5:
      return bf16x_dsymm_ex(BF16X_COL_MAJOR, BF16X_LEFT, BF16X_UPPER, n, n, 1.0, a, n, b, n, 0.0, c, n, o);
    case 6:
      return bf16x_dgemmt_ex(BF16X_COL_MAJOR, BF16X_UPPER, BF16X_NO_TRANS, BF16X_TRANS, n, n, 1.0, a, n, b, n, 0.0, c,
                             n, o);
    case 7:
      return bf16x_zgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_CONJ_TRANS, n, n, n, one, za, n, zb, n, zero, zc, n,
                            o);
    case 8:
      return bf16x_zherk_ex(BF16X_COL_MAJOR, BF16X_UPPER, BF16X_NO_TRANS, n, n, 1.0, za, n, 0.0, zc, n, o);
    default:
      return bf16x_ztrmm_ex(BF16X_COL_MAJOR, BF16X_RIGHT, BF16X_LOWER, BF16X_CONJ_TRANS, BF16X_NON_UNIT, n, n, one, za,
                            n, zc, n, o);
  }
}

int main(void) {
  static const char* const names[] = {"dgemm", "dtrmm",  "dtrsm", "dsyrk", "dsyr2k",
                                      "dsymm", "dgemmt", "zgemm", "zherk", "ztrmm"};
  static const char* const modes[] = {"native", "fp64x21", "fp64c15", "fp64cr", "auto"};
  int failed = 0;
  srand(7);
  for (int i = 0; i < 2 * kMax * kMax; ++i) a[i] = rand() / (double)RAND_MAX - 0.5, b[i] = rand() / (double)RAND_MAX;
  for (int threads = 1; threads <= 2; ++threads) {
    omp_set_num_threads(threads);
    for (unsigned md = 0; md < sizeof modes / sizeof *modes; ++md)
      for (int r = 0; r < 10; ++r)
        for (int64_t n = 1; n <= kMax; n *= 2) {
          bf16x_options o;
          bf16x_options_init(&o);
          o.mode = bf16x_mode_from_name(modes[md]);
          for (int i = 0; i < 2 * kMax * kMax; ++i) c[i] = 1.0;
          if (call(r, n, &o) != BF16X_OK) { /* the first call sets up the library: not counted */
            printf("%s %s n=%d: status not ok\n", names[r], modes[md], (int)n);
            return 1;
          }
          teams = 0;
          for (int rep = 0; rep < 3; ++rep) call(r, n, &o);
          if (teams) {
            printf("FAIL: %s %s n=%d on %d threads started %ld teams in 3 calls\n", names[r], modes[md], (int)n,
                   threads, teams);
            failed = 1;
          }
        }
  }
  /* The count is live: a large call on 2 threads starts a team. */
  enum { kLarge = 192 };
  double* big = calloc(3 * kLarge * kLarge, sizeof(double));
  if (!big) return 1;
  for (int i = 0; i < 2 * kLarge * kLarge; ++i) big[i] = 1.0 + (i % 7);
  omp_set_num_threads(2);
  teams = 0;
  const int st = bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, kLarge, kLarge, kLarge, 1.0, big, kLarge,
                             big + kLarge * kLarge, kLarge, 0.0, big + 2 * kLarge * kLarge, kLarge, BF16X_MODE_FP64X21);
  free(big);
  if (st != BF16X_OK || teams == 0) {
    printf("FAIL: a %d^3 call on 2 threads started no team seen here (status %d): the count does not work\n", kLarge,
           st);
    return 1;
  }
  if (!failed) printf("no team in %d small calls; %ld in one %d^3 call\n", 2 * 5 * 10 * 4 * 3, teams, kLarge);
  return failed;
}
