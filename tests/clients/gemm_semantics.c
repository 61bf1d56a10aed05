/* A plain C program linked against the host BLAS (-lblas) and run with LD_PRELOAD=libbf16x_blas.so: the BLAS
 * semantics of the shim's sgemm_/dgemm_ (and aliases) and cblas_sgemm/cblas_dgemm.
 *
 *  - error exits: the reference argument numbers, reported through this program's own xerbla_ / cblas_xerbla
 *    (exported with -rdynamic, so the shim finds them first), and C untouched;
 *  - results for both layouts, every transpose spelling, alpha/beta, ld > rows, against a long double triple loop
 *    with the tolerance of the mode in BF16X_SGEMM_MODE / BF16X_DGEMM_MODE (derived at tolerance());
 *  - C outside its m x n part, A and B untouched; beta = 0 ignores NaN in C; alpha = 0 reads neither A nor B;
 *    the quick returns leave C bit-for-bit as it was;
 *  - non-finite inputs propagate as IEEE arithmetic says (the library hands them to the host BLAS);
 *  - an emulated mode gives row-major and column-major CBLAS calls of the same product the same bits.
 * Prints one line per failure and "gemm_semantics: N checks, 0 failures" at the end; exit status 1 on failure. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROW = 101, COL = 102, NOTR = 111, TR = 112, CTR = 113 };

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);

static int checks, failures;
#define CHECK(cond, ...)                          \
  do {                                            \
    ++checks;                                     \
    if (!(cond)) {                                \
      ++failures;                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                        \
      printf("\n");                               \
    }                                             \
  } while (0)

/* ---- error handlers: record what the library reported ---- */
static char xerbla_name[8];
static int xerbla_info, xerbla_calls;
static char cblas_rout[32];
static int cblas_info, cblas_calls;

void xerbla_(const char* name, const int* info, size_t len) {
  memset(xerbla_name, 0, sizeof xerbla_name);
  memcpy(xerbla_name, name, len < 7 ? len : 7);
  xerbla_info = *info;
  ++xerbla_calls;
}

/* As reference CBLAS's cblas_xerbla: where the process has a RowMajorStrg (netlib's CBLAS), a row-major gemm
 * reports the number of the swapped Fortran call and the handler swaps it back. */
void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  (void)form;
  const int* row_major = (const int*)dlsym(RTLD_DEFAULT, "RowMajorStrg");
  if (row_major && *row_major && strstr(rout, "gemm")) {
    if (info == 4)
      info = 5;
    else if (info == 5)
      info = 4;
    else if (info == 9)
      info = 11;
    else if (info == 11)
      info = 9;
  }
  snprintf(cblas_rout, sizeof cblas_rout, "%s", rout);
  cblas_info = info;
  ++cblas_calls;
}

/* ---- Fortran error exits ---- */
typedef void (*Dgemm)(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                      const int*, const double*, const int*, const double*, double*, const int*);
typedef void (*Sgemm)(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                      const int*, const float*, const int*, const float*, float*, const int*);

struct FortranCase {
  char ta, tb;
  int m, n, k, lda, ldb, ldc, info;
};
/* Reference dgemm.f: 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda >= max(1, nrowa), 10 ldb >= max(1, nrowb),
 * 13 ldc >= max(1, m); the first failing one is reported. */
static const struct FortranCase kFortranCases[] = {
    {'X', 'N', 0, 0, 0, 1, 1, 1, 1},  {'N', 'x', 0, 0, 0, 1, 1, 1, 2},   {'N', 'N', -1, 0, 0, 1, 1, 1, 3},
    {'N', 'N', 0, -1, 0, 1, 1, 1, 4}, {'N', 'N', 0, 0, -1, 1, 1, 1, 5},  {'N', 'N', 2, 0, 0, 1, 1, 2, 8},
    {'t', 'N', 0, 0, 2, 1, 2, 1, 8},  {'N', 'N', 0, 0, 2, 1, 1, 1, 10},  {'N', 'c', 0, 2, 0, 1, 1, 1, 10},
    {'N', 'N', 2, 0, 0, 2, 1, 1, 13}, {'N', 'N', -1, -1, 0, 0, 0, 0, 3}, {'X', 'X', -1, 0, 0, 1, 1, 1, 1},
    {'N', 'N', 2, 2, 2, 1, 1, 1, 8},
};

static void fortran_errors(const char* label, Dgemm d, Sgemm s) {
  double dc[4] = {1, 2, 3, 4}, dz[4] = {0}, one = 1;
  float sc[4] = {1, 2, 3, 4}, sz[4] = {0}, sone = 1;
  for (size_t i = 0; i < sizeof kFortranCases / sizeof *kFortranCases; ++i) {
    const struct FortranCase* t = &kFortranCases[i];
    xerbla_calls = 0;
    if (d)
      d(&t->ta, &t->tb, &t->m, &t->n, &t->k, &one, dz, &t->lda, dz, &t->ldb, &one, dc, &t->ldc);
    else
      s(&t->ta, &t->tb, &t->m, &t->n, &t->k, &sone, sz, &t->lda, sz, &t->ldb, &sone, sc, &t->ldc);
    const char* want = d ? "DGEMM " : "SGEMM ";
    CHECK(xerbla_calls == 1 && xerbla_info == t->info && strcmp(xerbla_name, want) == 0,
          "%s case %zu: xerbla calls %d name '%s' info %d, want '%s' %d", label, i, xerbla_calls, xerbla_name,
          xerbla_info, want, t->info);
    CHECK(dc[0] == 1 && dc[3] == 4 && sc[0] == 1 && sc[3] == 4, "%s case %zu: C changed on error", label, i);
  }
}

/* ---- CBLAS error exits ---- */
struct CblasCase {
  int layout, ta, tb, m, n, k, lda, ldb, ldc, info;
};
/* Reference cblas_dgemm.c: 1 layout, 2 TransA, 3 TransB, then the Fortran checks of the column-major call
 * reported as 4 m, 5 n, 6 k, 9 lda, 11 ldb, 14 ldc. Row-major checks the swapped call (n before m, ldb before
 * lda), so a call with both m and n invalid reports n. */
static const struct CblasCase kCblasCases[] = {
    {99, NOTR, NOTR, 0, 0, 0, 1, 1, 1, 1},    {COL, 99, NOTR, 0, 0, 0, 1, 1, 1, 2},
    {ROW, 99, NOTR, 0, 0, 0, 1, 1, 1, 2},     {COL, NOTR, 99, 0, 0, 0, 1, 1, 1, 3},
    {ROW, TR, 99, 0, 0, 0, 1, 1, 1, 3},       {COL, NOTR, NOTR, -1, 0, 0, 1, 1, 1, 4},
    {ROW, NOTR, NOTR, -1, 0, 0, 1, 1, 1, 4},  {COL, NOTR, NOTR, 0, -1, 0, 1, 1, 1, 5},
    {ROW, NOTR, NOTR, 0, -1, 0, 1, 1, 1, 5},  {COL, NOTR, NOTR, 0, 0, -1, 1, 1, 1, 6},
    {ROW, NOTR, NOTR, 0, 0, -1, 1, 1, 1, 6},  {COL, NOTR, NOTR, 2, 0, 0, 1, 1, 2, 9},
    {ROW, NOTR, NOTR, 0, 0, 2, 1, 1, 1, 9},   {ROW, TR, NOTR, 2, 0, 0, 1, 1, 1, 9},
    {COL, NOTR, NOTR, 0, 0, 2, 1, 1, 1, 11},  {ROW, NOTR, NOTR, 0, 2, 0, 1, 1, 2, 11},
    {ROW, NOTR, CTR, 0, 0, 2, 2, 1, 1, 11},   {COL, NOTR, NOTR, 2, 0, 0, 2, 1, 1, 14},
    {ROW, NOTR, NOTR, 0, 2, 0, 1, 2, 1, 14},  {ROW, NOTR, NOTR, -1, -1, 0, 1, 1, 1, 5},
    {COL, NOTR, NOTR, -1, -1, 0, 1, 1, 1, 4}, {ROW, NOTR, NOTR, 0, 2, 2, 1, 1, 2, 11},
    {COL, NOTR, NOTR, 2, 0, 2, 1, 1, 2, 9},
};

static void cblas_errors(int dbl) {
  double dc[4] = {1, 2, 3, 4}, dz[4] = {0};
  float sc[4] = {1, 2, 3, 4}, sz[4] = {0};
  for (size_t i = 0; i < sizeof kCblasCases / sizeof *kCblasCases; ++i) {
    const struct CblasCase* t = &kCblasCases[i];
    cblas_calls = 0;
    if (dbl)
      cblas_dgemm(t->layout, t->ta, t->tb, t->m, t->n, t->k, 1, dz, t->lda, dz, t->ldb, 1, dc, t->ldc);
    else
      cblas_sgemm(t->layout, t->ta, t->tb, t->m, t->n, t->k, 1, sz, t->lda, sz, t->ldb, 1, sc, t->ldc);
    const char* want = dbl ? "cblas_dgemm" : "cblas_sgemm";
    CHECK(cblas_calls == 1 && cblas_info == t->info && strcmp(cblas_rout, want) == 0,
          "%s case %zu: cblas_xerbla calls %d rout '%s' info %d, want %d", want, i, cblas_calls, cblas_rout, cblas_info,
          t->info);
    CHECK(dc[0] == 1 && dc[3] == 4 && sc[0] == 1 && sc[3] == 4, "%s case %zu: C changed on error", want, i);
  }
}

/* ---- results ---- */
static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(void) { /* [-1, 1) */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) * 0x1p-52 - 1.0;
}

static int mode_is(const char* var, const char* name) {
  const char* v = getenv(var);
  return v && strcmp(v, name) == 0;
}

/* Smallest power of two above every |x| of row i (rows) or column j of op(X), as the library's scale. */
static double pow2_above(double mx) {
  int e = 0;
  if (mx <= 0) return 0;
  frexp(mx, &e);
  return ldexp(1.0, e);
}

/* |C - R|_ij bound for the mode that runs (u = unit roundoff of the type):
 *   native: gamma_{k+2} (|alpha| (|A||B|)_ij + |beta c0_ij|), the classical dot-product bound;
 *   fp64x(d): |alpha| k sa_i sb_j (T_d + gamma_adds + 2u) + 2u |beta c0| + u |R|, T_d the fixed-point truncation
 *     of six slices on a grid stepping 2^9 (2^-53 residual per operand plus the dropped products i+j >= d, at most
 *     min(s+1, 11-s) pairs of size 2^-9s on anti-diagonal s) and adds = d(d+1)/2 FP64 group sums per 256-k block;
 *   fp32x6: |alpha| k sa_i sb_j (gamma_n + 3.1 u) + ..., the three dropped products below 3 * 2^-24 of the scale
 *     and n = 2*6*64 + ceil(k/64) FP32 additions.
 * sa_i, sb_j: power-of-two scales of row i of op(A) and column j of op(B). */
static double gamma_n(double n, double u) { return n * u / (1 - n * u); }
static double tolerance(int dbl, int k, double alpha, double beta, double c0, double r, double absab, double sa,
                        double sb) {
  const double u = dbl ? 0x1p-53 : 0x1p-24;
  const char* var = dbl ? "BF16X_DGEMM_MODE" : "BF16X_SGEMM_MODE";
  double rel = -1;
  if (dbl) {
    static const char* names[] = {"fp64x6", "fp64x10", "fp64x15", "fp64x21"};
    for (int i = 0; i < 4; ++i)
      if (mode_is(var, names[i])) {
        const int d = 3 + i;
        double t = 2 * 0x1p-54;
        for (int s = d; s <= 10; ++s) t += (s + 1 < 11 - s ? s + 1 : 11 - s) * ldexp(1.0, -9 * s);
        rel = t + gamma_n(d * (d + 1) / 2.0 * ((k + 255) / 256) + 2, u) * 1.01 + 2 * u;
      }
  } else if (mode_is(var, "fp32x6")) {
    rel = gamma_n(2.0 * 6 * 64 + (k + 63) / 64, u) * 1.02 + 3.1 * u;
  }
  const double native = gamma_n(k + 2, u) * (fabs(alpha) * absab + fabs(beta * c0)) + u * fabs(r);
  if (rel < 0) return native;
  return fabs(alpha) * k * sa * sb * rel + 2 * u * fabs(beta * c0) + u * fabs(r) + native;
}

/* Element (i, j) of op(X) where X is stored column-major (or row-major) with leading dimension ld. */
static double at(const double* x, int ld, int row_major, int trans, int i, int j) {
  if (trans) {
    const int t = i;
    i = j;
    j = t;
  }
  return row_major ? x[(size_t)i * ld + j] : x[i + (size_t)j * ld];
}

/* One call through the Fortran or the CBLAS interface, in the precision dbl, checked element by element. */
static void run_case(int dbl, int cblas, int layout, char ta, char tb, int m, int n, int k, double alpha, double beta) {
  const int row = cblas && layout == ROW;
  const int tra = ta != 'N' && ta != 'n', trb = tb != 'N' && tb != 'n';
  /* A is ar x ac (op(A) = A or A^T is m x k), B is br x bc; the leading dimension runs along rows in column-major
   * storage and along columns in row-major storage, with some padding */
  const int ar = tra ? k : m, ac = tra ? m : k;
  const int br = trb ? n : k, bc = trb ? k : n;
  const int lda = (row ? ac : ar) + 3, ldb = (row ? bc : br) + 2, ldc = (row ? n : m) + 4;
  const size_t na = (size_t)lda * (row ? ar : ac), nb = (size_t)ldb * (row ? br : bc), nc = (size_t)ldc * (row ? m : n);
  double* a = malloc(na * sizeof *a);
  double* b = malloc(nb * sizeof *b);
  double* c0 = malloc(nc * sizeof *c0);
  double* c = malloc(nc * sizeof *c);
  double *a0 = malloc(na * sizeof *a0), *b0 = malloc(nb * sizeof *b0);
  float *af = malloc(na * sizeof *af), *bf = malloc(nb * sizeof *bf), *cf = malloc(nc * sizeof *cf);
  /* values representable in the precision under test, so both interfaces see the same inputs */
  for (size_t i = 0; i < na; ++i) a[i] = dbl ? uniform() : (double)(float)uniform();
  for (size_t i = 0; i < nb; ++i) b[i] = dbl ? uniform() : (double)(float)uniform();
  for (size_t i = 0; i < nc; ++i) c0[i] = dbl ? uniform() : (double)(float)uniform();
  memcpy(c, c0, nc * sizeof *c);
  memcpy(a0, a, na * sizeof *a);
  memcpy(b0, b, nb * sizeof *b);
  for (size_t i = 0; i < na; ++i) af[i] = (float)a[i];
  for (size_t i = 0; i < nb; ++i) bf[i] = (float)b[i];
  for (size_t i = 0; i < nc; ++i) cf[i] = (float)c0[i];
  const float alphaf = (float)alpha, betaf = (float)beta;
  if (dbl && cblas)
    cblas_dgemm(layout, tra ? (ta == 'C' ? CTR : TR) : NOTR, trb ? (tb == 'C' ? CTR : TR) : NOTR, m, n, k, alpha, a,
                lda, b, ldb, beta, c, ldc);
  else if (dbl)
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  else if (cblas)
    cblas_sgemm(layout, tra ? (ta == 'C' ? CTR : TR) : NOTR, trb ? (tb == 'C' ? CTR : TR) : NOTR, m, n, k, alphaf, af,
                lda, bf, ldb, betaf, cf, ldc);
  else
    sgemm_(&ta, &tb, &m, &n, &k, &alphaf, af, &lda, bf, &ldb, &betaf, cf, &ldc);
  if (!dbl)
    for (size_t i = 0; i < nc; ++i) c[i] = cf[i];
  int bad = 0;
  double worst = 0;
  for (int i = 0; i < m; ++i) {
    double sa = 0;
    for (int p = 0; p < k; ++p) sa = fmax(sa, fabs(at(a, lda, row, tra, i, p)));
    for (int j = 0; j < n; ++j) {
      double sb = 0;
      long double r = 0, absab = 0;
      for (int p = 0; p < k; ++p) {
        const double x = at(a, lda, row, tra, i, p), y = at(b, ldb, row, trb, p, j);
        sb = fmax(sb, fabs(y));
        r += (long double)x * y;
        absab += fabsl((long double)x * y);
      }
      const size_t ic = row ? (size_t)i * ldc + j : i + (size_t)j * ldc;
      const double want = (double)((long double)alpha * r + (long double)beta * c0[ic]);
      const double tol = tolerance(dbl, k, alpha, beta, c0[ic], want, (double)absab, pow2_above(sa), pow2_above(sb));
      const double err = fabs(c[ic] - want);
      if (!(err <= tol)) ++bad;
      if (tol > 0) worst = fmax(worst, err / tol);
    }
  }
  /* the padding of C (rows m..ldc-1 in column-major) and all of A, B stay as they were */
  int touched = 0;
  for (size_t idx = 0; idx < nc; ++idx) {
    const size_t lead = idx % (size_t)ldc, other = idx / (size_t)ldc;
    const int inside = row ? (lead < (size_t)n && other < (size_t)m) : (lead < (size_t)m && other < (size_t)n);
    if (!inside && c[idx] != c0[idx]) ++touched;
  }
  for (size_t i = 0; i < na; ++i) touched += a[i] != a0[i] || af[i] != (float)a0[i];
  for (size_t i = 0; i < nb; ++i) touched += b[i] != b0[i] || bf[i] != (float)b0[i];
  CHECK(bad == 0 && touched == 0,
        "%s %s layout %d %c%c m,n,k=%d,%d,%d alpha %g beta %g: %d elements beyond tolerance (worst err/tol %.3g), "
        "%d elements outside the result changed",
        dbl ? "double" : "float", cblas ? "cblas" : "fortran", layout, ta, tb, m, n, k, alpha, beta, bad, worst,
        touched);
  free(a), free(b), free(c0), free(c), free(a0), free(b0), free(af), free(bf), free(cf);
}

static void results(void) {
  static const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 48, 40}};
  static const char trans[] = {'N', 'T', 'C', 'n', 't', 'c'};
  static const double ab[][2] = {{1, 0}, {-0.7, 1}, {1.5, 1.3}, {1, -1}};
  for (int dbl = 0; dbl <= 1; ++dbl)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
      for (size_t v = 0; v < sizeof ab / sizeof *ab; ++v) {
        const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        for (size_t x = 0; x < sizeof trans; ++x)
          run_case(dbl, 0, COL, trans[x], trans[(x + s + v) % sizeof trans], m, n, k, ab[v][0], ab[v][1]);
        for (int layout = ROW; layout <= COL; ++layout)
          for (int x = 0; x < 3; ++x)
            run_case(dbl, 1, layout, "NTC"[x], "NTC"[(x + v) % 3], m, n, k, ab[v][0], ab[v][1]);
      }
}

/* ---- reproducibility: the same product through both CBLAS layouts gives the same bits in an emulated mode ---- */
static void layouts_same_bits(int dbl) {
  if (mode_is(dbl ? "BF16X_DGEMM_MODE" : "BF16X_SGEMM_MODE", "native")) return; /* the host's own rounding */
  enum { M = 37, N = 29, K = 300, LD = K + 2 }; /* odd sizes, k over two k-blocks, ld > rows */
  static double a[2][LD * LD], b[2][LD * LD], c[2][LD * LD];
  static float af[2][LD * LD], bf[2][LD * LD], cf[2][LD * LD];
  for (int i = 0; i < M; ++i)
    for (int l = 0; l < K; ++l)
      a[0][i + l * LD] = a[1][l + i * LD] = af[0][i + l * LD] = af[1][l + i * LD] = (float)uniform();
  for (int l = 0; l < K; ++l)
    for (int j = 0; j < N; ++j)
      b[0][l + j * LD] = b[1][j + l * LD] = bf[0][l + j * LD] = bf[1][j + l * LD] = (float)uniform();
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      c[0][i + j * LD] = c[1][j + i * LD] = cf[0][i + j * LD] = cf[1][j + i * LD] = (float)uniform();
  for (int r = 0; r < 2; ++r) { /* r = 0: column-major, 1: row-major copies of the same matrices */
    if (dbl)
      cblas_dgemm(r ? ROW : COL, NOTR, NOTR, M, N, K, -0.75, a[r], LD, b[r], LD, 0.5, c[r], LD);
    else
      cblas_sgemm(r ? ROW : COL, NOTR, NOTR, M, N, K, -0.75f, af[r], LD, bf[r], LD, 0.5f, cf[r], LD);
  }
  int differ = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      differ += dbl ? memcmp(&c[0][i + j * LD], &c[1][j + i * LD], sizeof(double)) != 0
                    : memcmp(&cf[0][i + j * LD], &cf[1][j + i * LD], sizeof(float)) != 0;
  CHECK(differ == 0, "%s: row- and column-major calls of one product differ in %d of %d elements",
        dbl ? "cblas_dgemm" : "cblas_sgemm", differ, M * N);
}

/* ---- special values and quick returns (double through both interfaces, float through Fortran) ---- */
static void special(void) {
  enum { M = 20, N = 12, K = 16 };
  static double a[M * K], b[K * N], c[M * N], want[M * N];
  static float af[M * K], bf[K * N], cf[M * N];
  const int m = M, n = N, k = K, zero = 0;
  const double nan = NAN, one = 1, two = 2, zerod = 0, beta13 = 1.3;
  for (int i = 0; i < M * K; ++i) a[i] = uniform(), af[i] = (float)a[i];
  for (int i = 0; i < K * N; ++i) b[i] = uniform(), bf[i] = (float)b[i];

  /* beta = 0: C holds NaN and is not read */
  for (int i = 0; i < M * N; ++i) c[i] = nan, cf[i] = NAN;
  dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zerod, c, &m);
  const float onef = 1, zerof = 0;
  sgemm_("N", "N", &m, &n, &k, &onef, af, &m, bf, &k, &zerof, cf, &m);
  int nans = 0;
  for (int i = 0; i < M * N; ++i) nans += isnan(c[i]) + isnan(cf[i]);
  CHECK(nans == 0, "beta = 0 with NaN in C: %d NaN in the result", nans);
  for (int i = 0; i < M * N; ++i) c[i] = nan;
  cblas_dgemm(ROW, NOTR, NOTR, m, n, k, 1, a, k, b, n, 0, c, n);
  nans = 0;
  for (int i = 0; i < M * N; ++i) nans += isnan(c[i]);
  CHECK(nans == 0, "cblas beta = 0 with NaN in C: %d NaN", nans);

  /* alpha = 0: neither A nor B is read (both NaN here); C = beta C */
  static double an[M * K], bn[K * N];
  for (int i = 0; i < M * K; ++i) an[i] = nan;
  for (int i = 0; i < K * N; ++i) bn[i] = nan;
  for (int i = 0; i < M * N; ++i) c[i] = uniform(), want[i] = 1.3 * c[i];
  dgemm_("N", "N", &m, &n, &k, &zerod, an, &m, bn, &k, &beta13, c, &m);
  CHECK(memcmp(c, want, sizeof c) == 0, "alpha = 0, beta = 1.3: C != 1.3 C");
  for (int i = 0; i < M * N; ++i) c[i] = nan;
  cblas_dgemm(COL, TR, TR, m, n, k, 0, an, k, bn, n, 0, c, m);
  int nonzero = 0;
  for (int i = 0; i < M * N; ++i) nonzero += c[i] != 0 || signbit(c[i]);
  CHECK(nonzero == 0, "alpha = 0, beta = 0: %d elements not +0", nonzero);

  /* quick returns: C untouched bit for bit, NaN included */
  for (int i = 0; i < M * N; ++i) c[i] = (i % 3) ? uniform() : nan;
  memcpy(want, c, sizeof c);
  dgemm_("N", "N", &m, &n, &k, &zerod, an, &m, bn, &k, &one, c, &m);  /* alpha = 0, beta = 1 */
  dgemm_("N", "N", &m, &n, &zero, &two, an, &m, bn, &k, &one, c, &m); /* k = 0, beta = 1 */
  dgemm_("N", "N", &zero, &n, &k, &two, an, &m, bn, &k, &two, c, &m); /* m = 0 */
  cblas_dgemm(ROW, NOTR, NOTR, m, 0, k, 2, an, k, bn, 1, 2, c, 1);    /* n = 0 */
  CHECK(memcmp(c, want, sizeof c) == 0, "a quick return changed C");

  /* k = 0, beta = 1.3: C = beta C, A and B not read */
  for (int i = 0; i < M * N; ++i) c[i] = uniform(), want[i] = 1.3 * c[i];
  dgemm_("N", "N", &m, &n, &zero, &two, an, &m, bn, &k, &beta13, c, &m);
  CHECK(memcmp(c, want, sizeof c) == 0, "k = 0, beta = 1.3: C != 1.3 C");

  /* non-finite inputs: row 3 of A holds Inf, column 5 of B a NaN; every other element stays finite and right */
  memcpy(an, a, sizeof a);
  memcpy(bn, b, sizeof b);
  an[3 + 7 * M] = INFINITY;
  bn[2 + 5 * K] = nan;
  for (int i = 0; i < M * N; ++i) c[i] = 0;
  dgemm_("N", "N", &m, &n, &k, &one, an, &m, bn, &k, &zerod, c, &m);
  int wrong = 0;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i) {
      long double r = 0;
      for (int p = 0; p < K; ++p) r += (long double)an[i + p * M] * bn[p + j * K];
      const int expect_nonfinite = i == 3 || j == 5;
      if (expect_nonfinite)
        wrong += isfinite(c[i + j * M]);
      else
        wrong += !(fabs(c[i + j * M] - (double)r) <= 1e-6);
    }
  CHECK(wrong == 0, "non-finite inputs: %d elements wrong", wrong);
}

int main(void) {
  /* Fortran names, through the interposed symbols and the aliases some C programs call */
  fortran_errors("dgemm_", dgemm_, NULL);
  fortran_errors("sgemm_", NULL, sgemm_);
  const char* aliases[] = {"dgemm", "DGEMM", "sgemm", "SGEMM"};
  for (int i = 0; i < 4; ++i) {
    void* f = dlsym(RTLD_DEFAULT, aliases[i]);
    CHECK(f != NULL, "%s not defined", aliases[i]);
    if (!f) continue;
    if (aliases[i][0] == 'd' || aliases[i][0] == 'D')
      fortran_errors(aliases[i], (Dgemm)f, NULL);
    else
      fortran_errors(aliases[i], NULL, (Sgemm)f);
  }
  cblas_errors(1);
  cblas_errors(0);
  results();
  layouts_same_bits(1);
  layouts_same_bits(0);
  special();
  printf("gemm_semantics: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
