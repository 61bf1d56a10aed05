/* rss_one_call: peak resident memory of one GEMM call through the C API (issue 12's measurement).
 *
 *   bf16x_rss s|d|c|z MODE M N K [row|col]
 *
 * Allocates and fills op(A) (M x K), op(B) (K x N) and C (M x N), no transposes, in the given layout, makes one call
 * of sgemm, dgemm, cgemm or zgemm in MODE (native, fp32x6, fp64x6, ...) and prints the process's peak RSS
 * (getrusage ru_maxrss) before and after the call, the call's time and the workspace (bf16x_workspace_bytes for
 * the real routines, bf16x_stats.workspace_bytes of the call for the complex ones). Run it under /usr/bin/time -f %M
 * for the same peak from outside. One call per process, so that each mode's peak is its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bf16x/bf16x.h"

static long peak_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s s|d|c|z MODE M N K [row|col]\n", argv[0]);
    return 2;
  }
  const char routine = argv[1][0];
  const int dbl = routine == 'd' || routine == 'z', cplx = routine == 'c' || routine == 'z';
  const int64_t parts = cplx ? 2 : 1; /* reals per element */
  const int mode = bf16x_mode_from_name(argv[2]);
  const int64_t m = atoll(argv[3]), n = atoll(argv[4]), k = atoll(argv[5]);
  const int row = argc > 6 && strcmp(argv[6], "row") == 0;
  if (mode < 0 || m <= 0 || n <= 0 || k <= 0) return 2;
  const size_t es = (size_t)parts * (dbl ? sizeof(double) : sizeof(float));
  void* a = malloc((size_t)(m * k) * es);
  void* b = malloc((size_t)(k * n) * es);
  void* c = malloc((size_t)(m * n) * es);
  if (!a || !b || !c) return 3;
  unsigned s = 12345u;
  for (int64_t i = 0; i < m * k * parts; ++i) {
    s = s * 1103515245u + 12345u;
    const double v = (double)(s >> 8) / 16777216.0 - 0.5;
    if (dbl)
      ((double*)a)[i] = v;
    else
      ((float*)a)[i] = (float)v;
  }
  for (int64_t i = 0; i < k * n * parts; ++i) {
    s = s * 1103515245u + 12345u;
    const double v = (double)(s >> 8) / 16777216.0 - 0.5;
    if (dbl)
      ((double*)b)[i] = v;
    else
      ((float*)b)[i] = (float)v;
  }
  memset(c, 0, (size_t)(m * n) * es);
  const bf16x_layout layout = row ? BF16X_ROW_MAJOR : BF16X_COL_MAJOR;
  const int64_t lda = row ? k : m, ldb = row ? n : k, ldc = row ? n : m;
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  uint64_t ws = 0;
#ifndef BF16X_RSS_NO_WORKSPACE_API /* defined to measure builds that predate bf16x_workspace_bytes */
  if (!cplx) bf16x_workspace_bytes(dbl, layout, m, n, k, &o, &ws);
#endif
  bf16x_stats stats;
#ifdef bf16x_stats_init /* versioned structs (libbf16x.so.1): the size field must hold the struct's size */
  bf16x_stats_init(&stats);
#else
  memset(&stats, 0, sizeof stats);
#endif
  if (cplx) o.stats = &stats;
  const long before = peak_kib();
  const double t0 = now();
  const bf16x_transpose nt = BF16X_NO_TRANS;
  int st;
  if (routine == 'z') {
    const bf16x_complex_double one = {1, 0}, zero = {0, 0};
    st = bf16x_zgemm_ex(layout, nt, nt, m, n, k, one, (const bf16x_complex_double*)a, lda,
                        (const bf16x_complex_double*)b, ldb, zero, (bf16x_complex_double*)c, ldc, &o);
  } else if (routine == 'c') {
    const bf16x_complex_float one = {1, 0}, zero = {0, 0};
    st = bf16x_cgemm_ex(layout, nt, nt, m, n, k, one, (const bf16x_complex_float*)a, lda, (const bf16x_complex_float*)b,
                        ldb, zero, (bf16x_complex_float*)c, ldc, &o);
  } else if (dbl) {
    st = bf16x_dgemm(layout, nt, nt, m, n, k, 1.0, (const double*)a, lda, (const double*)b, ldb, 0.0, (double*)c, ldc,
                     (bf16x_mode)mode);
  } else {
    st = bf16x_sgemm(layout, nt, nt, m, n, k, 1.0f, (const float*)a, lda, (const float*)b, ldb, 0.0f, (float*)c, ldc,
                     (bf16x_mode)mode);
  }
  const double t = now() - t0;
  if (cplx) ws = stats.workspace_bytes;
  printf(
      "%cgemm %s %lldx%lldx%lld %s: status %d, %.3f s, peak RSS before the call %ld KiB, after %ld KiB, "
      "workspace %.2f MiB\n",
      routine, argv[2], (long long)m, (long long)n, (long long)k, row ? "row" : "col", st, t, before, peak_kib(),
      (double)ws / 1048576.0);
  free(a);
  free(b);
  free(c);
  return st;
}
