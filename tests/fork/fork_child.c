/* A program that has run every path of the library (slices, CRT, correct rounding, the guard's repairs, complex,
 * batch) forks while one of its own threads is inside a call; each child, and a grandchild, repeats every call and
 * must get the parent's bits, within a time limit (a child that inherited OpenMP's pool without its threads used to
 * wait for them forever). Usage: fork_child [children]; exit 0 when every child matched. */
#include <bf16x/bf16x.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { M = 96, N = 80, K = 300, PATHS = 8 };

static double a[M * K], b[K * N], c0[M * N];
static float af[M * K], bf[K * N], cf0[M * N];
static bf16x_complex_double az[M * K], bz[K * N];
static double want[PATHS][3 * M * N], got[3 * M * N];
static const char* names[PATHS] = {"sgemm fp32x6",  "sgemm fp32c8",       "dgemm fp64x21 (guard repairs)",
                                   "dgemm fp64c15", "dgemm fp64cr",       "dgemm auto",
                                   "zgemm fp64x21", "dgemm fp64x21 batch"};

static unsigned long long rng = 88172645463325252ull;
static double uniform(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Path p into out (as doubles; complex: 2 M N). */
static int run(int p, double* out) {
  static float cf[M * N];
  static bf16x_complex_double cz[M * N];
  const bf16x_layout L = BF16X_COL_MAJOR;
  const bf16x_transpose T = BF16X_NO_TRANS;
  int r = 0;
  for (int i = 0; i < 3; ++i) memcpy(out + i * M * N, c0, sizeof c0);
  switch (p) {
    case 0:
    case 1:
      memcpy(cf, cf0, sizeof cf);
      r = bf16x_sgemm(L, T, T, M, N, K, 1.5f, af, M, bf, K, 0.5f, cf, M, p ? BF16X_MODE_FP32C(8) : BF16X_MODE_FP32X6);
      for (int i = 0; i < M * N; ++i) out[i] = cf[i];
      return r;
    case 2:
      return bf16x_dgemm(L, T, T, M, N, K, 1.5, a, M, b, K, 0.5, out, M, BF16X_MODE_FP64X21);
    case 3:
      return bf16x_dgemm(L, T, T, M, N, K, 1.5, a, M, b, K, 0.5, out, M, BF16X_MODE_FP64C(15));
    case 4:
      return bf16x_dgemm(L, T, T, M, N, K, 1.5, a, M, b, K, 0.5, out, M, BF16X_MODE_FP64CR);
    case 5:
      return bf16x_dgemm(L, T, T, M, N, K, 1.5, a, M, b, K, 0.5, out, M, BF16X_MODE_AUTO);
    case 6: {
      const bf16x_complex_double one = {1, 0.25}, zero = {0, 0};
      r = bf16x_zgemm(L, T, T, M, N, K, one, az, M, bz, K, zero, cz, M, BF16X_MODE_FP64X21);
      memcpy(out, cz, sizeof cz);
      return r;
    }
    default: {
      bf16x_options opt;
      bf16x_options_init(&opt);
      opt.mode = BF16X_MODE_FP64X21;
      /* Three items, one k-third each. */
      return bf16x_dgemm_batch_strided(L, T, T, M, N, K / 3, 1.5, a, M, M * (K / 3), b, K, K / 3, 0.5, out, M, M * N, 3,
                                       &opt);
    }
  }
}
static size_t bytes(int p) { return sizeof(double) * M * N * (p == 6 ? 2 : p == 7 ? 3 : 1); }

/* Every path once more, against the parent's bits: the number that differ or fail. */
static int check(const char* who) {
  int bad = 0;
  for (int p = 0; p < PATHS; ++p) {
    if (run(p, got) != 0 || memcmp(got, want[p], bytes(p)) != 0) {
      fprintf(stderr, "%s: %s differs from the parent's\n", who, names[p]);
      ++bad;
    }
  }
  return bad;
}

static atomic_int stop;
static void* busy(void* arg) {  // the parent's own thread, inside calls while the main thread forks
  (void)arg;
  static double c[M * N];
  while (!atomic_load(&stop))
    bf16x_dgemm(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, M, N, K, 1, a, M, b, K, 0, c, M, BF16X_MODE_FP64C(15));
  return NULL;
}

static int wait_child(pid_t pid, const char* who) {
  int st = 0;
  if (waitpid(pid, &st, 0) != pid) return 1;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  if (WIFSIGNALED(st))
    fprintf(stderr, "%s: killed by signal %d%s\n", who, WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (hung)" : "");
  else
    fprintf(stderr, "%s: exit %d\n", who, WEXITSTATUS(st));
  return 1;
}

int main(int argc, char** argv) {
  const int children = argc > 1 ? atoi(argv[1]) : 3;
  for (int i = 0; i < M * K; ++i)
    a[i] = uniform(), af[i] = (float)uniform(), az[i].re = uniform(), az[i].im = uniform();
  for (int i = 0; i < K * N; ++i)
    b[i] = uniform(), bf[i] = (float)uniform(), bz[i].re = uniform(), bz[i].im = uniform();
  for (int i = 0; i < M * N; ++i) c0[i] = uniform(), cf0[i] = (float)c0[i];
  /* Rows 0..3 graded along k (2^(-p/8), 2^(p/8) in B): their entries are far below max|A_i:| max|B_:j|, the guard
   * cannot prove them from the row and column scales and repairs them. */
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < K; ++p) a[i + p * M] = uniform() * ldexp(1.0, -p / 8);
  for (int p = 0; p < K; ++p)
    for (int j = 0; j < N; ++j) b[p + j * K] *= ldexp(1.0, p / 8 - 16);
  for (int p = 0; p < PATHS; ++p)
    if (run(p, want[p]) != 0) return fprintf(stderr, "parent: %s failed\n", names[p]), 1;
  bf16x_stats st;
  bf16x_stats_init(&st);
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = BF16X_MODE_FP64X21;
  opt.stats = &st;
  memcpy(got, c0, sizeof c0);
  bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, M, N, K, 1.5, a, M, b, K, 0.5, got, M, &opt);
  if (st.entries_repaired == 0) return fprintf(stderr, "parent: the guard repaired nothing\n"), 1;

  pthread_t t;
  pthread_create(&t, NULL, busy, NULL);
  int failed = 0;
  for (int i = 0; i < children; ++i) {
    usleep(20000 * (i + 1));
    const pid_t pid = fork();
    if (pid == 0) {
      alarm(60);
      int bad = check("child");
      const pid_t g = fork();  // a grandchild of a child that is single-threaded now
      if (g == 0) {
        alarm(60);
        _exit(check("grandchild") ? 1 : 0);
      }
      bad += wait_child(g, "grandchild");
      _exit(bad ? 1 : 0);
    }
    failed += wait_child(pid, "child");
  }
  atomic_store(&stop, 1);
  pthread_join(t, NULL);
  failed += check("parent after the forks");
  printf("fork_child: threads=%d, %d paths, %d children (each with a grandchild): %s\n", bf16x_get_num_threads(), PATHS,
         children, failed ? "FAILED" : "the parent's bits");
  return failed ? 1 : 0;
}
