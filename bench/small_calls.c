/* small_calls: R small DGEMM (or DTRSM) calls in one mode, for callgrind's instruction counts (docs/performance.md,
 * "Where a small call's time goes (callgrind)").
 *
 *   bf16x_small_calls MODE N [R]                (R = 100)
 *   bf16x_small_calls MODE N R trsm [NRHS]      (NRHS = N)
 *
 * The second form solves L X = B for an N x N lower triangular L (diagonal 2, off-diagonal entries uniform in
 * (-1/N, 1/N): well conditioned) and an N x NRHS B, left side, no transpose, non-unit, alpha = 1, each call on a
 * fresh copy of B (the copy is in the time); `host` calls cblas_dtrsm.
 *
 * MODE is any name bf16x_mode_from_name takes (native, fp64x21, fp64c15, fp64cr, ...) or `host`: cblas_dgemm of
 * libopenblas.so.0 called directly (the host BLAS without the library in front of it). Square N x N x N,
 * column-major, no transposes, alpha = 1, beta = 0, A and B uniform in (-1, 1). One untimed warm-up call (first-call
 * set-up: CPUID, environment, engine choice, host BLAS loading, workspace) runs first; then `small_calls_loop` makes
 * the R calls, so that
 *
 *   valgrind --tool=callgrind --toggle-collect=small_calls_loop ./bf16x_small_calls fp64x21 2 100
 *
 * counts exactly the R calls (Ir / R = instructions per call). Without valgrind it prints the mean wall time per
 * call. After the loop one more call with bf16x_stats says which engine ran and what the guard did (not counted).
 * Set OMP_NUM_THREADS=1 (and OPENBLAS_NUM_THREADS=1) for the single-thread figures. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bf16x/bf16x.h"

typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                               double*, int);

typedef void (*cblas_dtrsm_fn)(int, int, int, int, int, int, int, double, const double*, int, double*, int);

static cblas_dgemm_fn host_dgemm;
static cblas_dtrsm_fn host_dtrsm;
static int64_t nrhs; /* > 0: DTRSM calls with this many right sides */
static const double* b0;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int one_call(int mode, int64_t n, const double* a, const double* b, double* c) {
  if (nrhs > 0) { /* c = L^-1 b0, in a fresh copy of b0 */
    memcpy(c, b0, sizeof(double) * (size_t)(n * nrhs));
    if (mode < 0) {
      host_dtrsm(102, 141, 122, 111, 131, (int)n, (int)nrhs, 1.0, a, (int)n, c, (int)n);
      return BF16X_OK;
    }
    bf16x_options opt;
    bf16x_options_init(&opt);
    opt.mode = mode;
    return bf16x_dtrsm_ex(BF16X_COL_MAJOR, BF16X_LEFT, BF16X_LOWER, BF16X_NO_TRANS, BF16X_NON_UNIT, n, nrhs, 1.0, a, n,
                          c, n, &opt);
  }
  if (mode < 0) {
    host_dgemm(102, 111, 111, (int)n, (int)n, (int)n, 1.0, a, (int)n, b, (int)n, 0.0, c, (int)n);
    return BF16X_OK;
  }
  return bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a, n, b, n, 0.0, c, n,
                     (bf16x_mode)mode);
}

/* The measured calls: callgrind's --toggle-collect names this function. */
__attribute__((noinline)) int small_calls_loop(int mode, int64_t n, long reps, const double* a, const double* b,
                                               double* c) {
  int st = BF16X_OK;
  for (long r = 0; r < reps && st == BF16X_OK; ++r) st = one_call(mode, n, a, b, c);
  return st;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODE|host N [R]\n", argv[0]);
    return 2;
  }
  int mode = -1;
  if (strcmp(argv[1], "host") == 0) {
    void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    host_dgemm = h ? (cblas_dgemm_fn)dlsym(h, "cblas_dgemm") : NULL;
    host_dtrsm = h ? (cblas_dtrsm_fn)dlsym(h, "cblas_dtrsm") : NULL;
    if (!host_dgemm || !host_dtrsm) {
      fprintf(stderr, "libopenblas.so.0 with cblas_dgemm and cblas_dtrsm not found\n");
      return 2;
    }
  } else {
    mode = bf16x_mode_from_name(argv[1]);
    if (mode < 0) {
      fprintf(stderr, "unknown mode %s\n", argv[1]);
      return 2;
    }
  }
  const int64_t n = atoll(argv[2]);
  const long reps = argc > 3 ? atol(argv[3]) : 100;
  if (argc > 4) {
    if (strcmp(argv[4], "trsm") != 0) return 2;
    nrhs = argc > 5 ? atoll(argv[5]) : n;
    if (nrhs <= 0) return 2;
  }
  if (n <= 0 || reps < 0) return 2;
  const int64_t cols = nrhs > n ? nrhs : n; /* b and c: N x max(N, NRHS) */
  double* a = malloc(sizeof(double) * (size_t)(n * n));
  double* b = malloc(sizeof(double) * (size_t)(n * cols));
  double* c = malloc(sizeof(double) * (size_t)(n * cols));
  if (!a || !b || !c) return 3;
  unsigned s = 12345u;
  for (int64_t i = 0; i < n * n; ++i) {
    s = s * 1103515245u + 12345u;
    a[i] = 2.0 * ((double)(s >> 8) + 0.5) / 16777216.0 - 1.0;
    s = s * 1103515245u + 12345u;
    b[i] = 2.0 * ((double)(s >> 8) + 0.5) / 16777216.0 - 1.0;
  }
  if (nrhs > 0) { /* L: the diagonal 2, the rest of the lower triangle scaled by 1/N; B: b's first NRHS columns */
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = j; i < n; ++i) a[i + j * n] = i == j ? 2.0 : a[i + j * n] / (double)n;
    for (int64_t i = n * n; i < n * cols; ++i) b[i] = 0.5;
    b0 = b;
  }
  int st = one_call(mode, n, a, b, c); /* warm-up: first-call set-up */
  if (st != BF16X_OK) {
    fprintf(stderr, "warm-up call: %s\n", bf16x_status_string(st));
    return 1;
  }
  const double t0 = now();
  st = small_calls_loop(mode, n, reps, a, b, c);
  const double t1 = now();
  if (st != BF16X_OK) {
    fprintf(stderr, "call: %s\n", bf16x_status_string(st));
    return 1;
  }
  const char* engine = "-";
  const char* guard = "-";
  if (mode >= 0 && nrhs == 0) {
    bf16x_stats stats;
    bf16x_options opt;
    bf16x_stats_init(&stats);
    bf16x_options_init(&opt);
    opt.mode = mode;
    opt.stats = &stats;
    st = bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a, n, b, n, 0.0, c, n, &opt);
    if (st == BF16X_OK) {
      const char* e = bf16x_engine_name(stats.engine);
      engine = e ? e : "-";
      static const char* guards[] = {"none", "envelope", "entries", "native"};
      guard = stats.guard >= 0 && stats.guard <= 3 ? guards[stats.guard] : "?";
    }
  }
  char trsm[48] = "";
  if (nrhs > 0) snprintf(trsm, sizeof trsm, " trsm nrhs=%lld", (long long)nrhs);
  printf("mode=%s n=%lld%s reps=%ld us_per_call=%.3f engine=%s guard=%s c00=%.17g\n", argv[1], (long long)n, trsm, reps,
         reps ? 1e6 * (t1 - t0) / (double)reps : 0.0, engine, guard, c[0]);
  free(a);
  free(b);
  free(c);
  return 0;
}
