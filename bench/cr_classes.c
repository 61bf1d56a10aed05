// fp64cr against the host DGEMM (bf16x mode native) on one input class, 1 call per run, medians of 3 after a
// warm-up, and how many entries took the exact sum (docs/performance.md, "Correctly rounded DGEMM").
// Usage: bf16x_cr_classes N uniform|phi0.5|phi4|float|int|triangular
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bf16x/bf16x.h"
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double nrm(void) {
  double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = rand() / (RAND_MAX + 1.0);
  return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}
static double draw(const char* cls, long i, long j) {
  double u = rand() / (RAND_MAX + 1.0);
  if (!strcmp(cls, "phi0.5")) return (u - 0.5) * exp(0.5 * nrm());
  if (!strcmp(cls, "phi4")) return (u - 0.5) * exp(4 * nrm());
  if (!strcmp(cls, "float")) return (float)(2 * u - 1);
  if (!strcmp(cls, "triangular")) return j >= i ? 2 * u - 1 : 0;
  if (!strcmp(cls, "int")) return (double)(rand() % 21 - 10);
  return 2 * u - 1;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}
int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int n = atoi(argv[1]);
  const char* cls = argv[2];
  double *a = malloc(8.0 * n * n), *b = malloc(8.0 * n * n), *c = malloc(8.0 * n * n);
  srand(7);
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < n; ++i) a[i + j * n] = draw(cls, i, j), b[i + j * n] = draw(cls, i, j);
  const char* modes[2] = {"native", "fp64cr"};
  double med[2];
  unsigned long long exact = 0;
  for (int m = 0; m < 2; ++m) {
    bf16x_stats st;
    bf16x_options o;
    bf16x_options_init(&o);
    bf16x_stats_init(&st);
    o.mode = bf16x_mode_from_name(modes[m]);
    o.stats = &st;
    double t[4];
    for (int r = 0; r < 4; ++r) {
      double t0 = now();
      if (bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a, n, b, n, 0.0, c, n, &o))
        return 1;
      t[r] = now() - t0;
    }
    qsort(t + 1, 3, sizeof(double), cmp);
    med[m] = t[2];
    if (m == 1) exact = st.entries_repaired;
  }
  printf("%-10s n=%5d native %9.2f ms  fp64cr %9.2f ms  ratio %6.2f  exact entries %llu of %lld\n", cls, n,
         med[0] * 1e3, med[1] * 1e3, med[1] / med[0], exact, (long long)n * n);
  return 0;
}
