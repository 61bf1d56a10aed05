/* phases: the phases of one square DGEMM call in one mode, from bf16x_stats (docs/performance.md, "Phases").
 *
 *   bf16x_phases MODE N [R [B]]        (R = 5 timed calls after one untimed, B = 25.2e9 bytes per second)
 *
 * Column-major, no transposes, alpha = 1, beta = 0, A and B uniform in [-1, 1] (seed 1), the guard off
 * (BF16X_GUARD in the environment does not apply: the options say off). Prints the medians of the call's time and of
 * its scan, pack, products and write phases (the first thread's seconds), each phase's bytes over B as xbw (B: the
 * stream-copy rate of the thread count, as `bf16x bench` measures it), and a hash of C's bits, so that two builds can
 * be run alternately and compared. Set OMP_NUM_THREADS for the thread count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bf16x/bf16x.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return v[n / 2];
}

enum { kMaxReps = 100 };

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODE N [R [BYTES_PER_SECOND]]\n", argv[0]);
    return 2;
  }
  const int mode = bf16x_mode_from_name(argv[1]);
  const long n = atol(argv[2]);
  const int reps = argc > 3 ? atoi(argv[3]) : 5;
  const double bw = argc > 4 ? atof(argv[4]) : 25.2e9;
  if (mode < 0 || n < 1 || reps < 1 || reps > kMaxReps || !(bw > 0)) {
    fprintf(stderr, "%s: bad mode, size, repetitions (1..%d) or rate\n", argv[0], kMaxReps);
    return 2;
  }
  double* a = malloc(sizeof(double) * (size_t)(n * n));
  double* b = malloc(sizeof(double) * (size_t)(n * n));
  double* c = malloc(sizeof(double) * (size_t)(n * n));
  if (!a || !b || !c) return 1;
  srand(1);
  for (long i = 0; i < n * n; ++i) {
    a[i] = 2.0 * rand() / RAND_MAX - 1;
    b[i] = 2.0 * rand() / RAND_MAX - 1;
  }
  bf16x_options o;
  bf16x_options_init(&o);
  bf16x_stats s;
  bf16x_stats_init(&s);
  o.mode = mode;
  o.stats = &s;
  o.guard = BF16X_GUARD_OFF;
  double t[kMaxReps], scan[kMaxReps], pack[kMaxReps], prod[kMaxReps], write[kMaxReps];
  for (int r = -1; r < reps; ++r) {
    const double t0 = now();
    const int st =
        bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, a, n, b, n, 0.0, c, n, &o);
    const double t1 = now();
    if (st != BF16X_OK) {
      fprintf(stderr, "%s: bf16x_dgemm_ex: %s\n", argv[0], bf16x_status_string(st));
      return 1;
    }
    if (r < 0) continue;  // the untimed call
    t[r] = t1 - t0, scan[r] = s.seconds_scan, pack[r] = s.seconds_pack, prod[r] = s.seconds_products;
    write[r] = s.seconds_write;
  }
  uint64_t hash = 0;
  for (long i = 0; i < n * n; ++i) {
    uint64_t u;
    memcpy(&u, &c[i], sizeof u);
    hash = hash * 1000003u ^ u;
  }
  const double ms = 1e3, sc = median(scan, reps), pk = median(pack, reps), wr = median(write, reps);
  printf(
      "%s n=%ld time %.2f ms scan %.2f (xbw %.2f) pack %.2f (xbw %.2f) products %.2f write %.2f (xbw %.2f) "
      "hash %016llx\n",
      argv[1], n, median(t, reps) * ms, sc * ms, sc / ((double)s.bytes_scan / bw), pk * ms,
      pk / ((double)s.bytes_pack / bw), median(prod, reps) * ms, wr * ms, wr / ((double)s.bytes_write / bw),
      (unsigned long long)hash);
  free(a);
  free(b);
  free(c);
  return 0;
}
