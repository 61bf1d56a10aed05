/* The suffixed ILP64 CBLAS names of libbf16x_blas.so (linked directly): cblas_?gemm64_ (OpenBLAS SYMBOLSUFFIX=64_)
 * and cblas_?gemm_64 (Reference-LAPACK index-64), with 64-bit CBLAS_INT, for s, d, c and z. Both layouts against a
 * long double reference (products of doubles carry 64 of their 106 bits, k = 20 sums: about k 2^-64 |A||B|,
 * negligible against the bounds), a lda that only a 64-bit reading accepts, and an m that only a 64-bit reading
 * rejects, reported with a 64-bit INFO to the handler of the same convention (defined here, exported).
 * Bounds (docs/numerics.md, tests/python/conftest.py): fp64x<d>: k 2^(Ea_i+Eb_j) (T_d + gamma_n + 2 u53) + u53 |R|,
 * n = products (one k-block); fp32x6: (|A||B|)_ij (1.02 gamma_770 + 3.1 u24) + u24 |R|.
 * Complex (4M, docs/accuracy.md "Complex GEMM"): each part of each entry is one real dot product of length 2k over
 * both parts, so the real bounds hold per part with k -> 2k, the scales 2^Ea_i, 2^Eb_j over both parts and |A||B|
 * the part's own sum of |products|; n counts 3 more FP64 additions (the two of tests/test_modes.cpp and the chunk's,
 * tests/test_complex.cpp), and CGEMM rounds P to FP32 before the write (one more u24 |A||B|). */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf16x/bf16x.h"

#undef I /* complex.h's imaginary unit; here I is the 64-bit CBLAS_INT (complex values are made with CMPLX) */

typedef int64_t I;
void cblas_dgemm64_(int, int, int, I, I, I, double, const double*, I, const double*, I, double, double*, I);
void cblas_dgemm_64(int, int, int, I, I, I, double, const double*, I, const double*, I, double, double*, I);
void cblas_sgemm64_(int, int, int, I, I, I, float, const float*, I, const float*, I, float, float*, I);
void cblas_sgemm_64(int, int, int, I, I, I, float, const float*, I, const float*, I, float, float*, I);
/* Complex: alpha and beta by address, as reference CBLAS declares them. */
void cblas_zgemm64_(int, int, int, I, I, I, const void*, const void*, I, const void*, I, const void*, void*, I);
void cblas_zgemm_64(int, int, int, I, I, I, const void*, const void*, I, const void*, I, const void*, void*, I);
void cblas_cgemm64_(int, int, int, I, I, I, const void*, const void*, I, const void*, I, const void*, void*, I);
void cblas_cgemm_64(int, int, int, I, I, I, const void*, const void*, I, const void*, I, const void*, void*, I);

enum { ROW = 101, COL = 102, NOTR = 111, CONJTR = 113 };
enum { M = 40, N = 30, K = 20 };

static I last_info;
static char last_rout[32];
static void record(I info, const char* rout) {
  last_info = info;
  snprintf(last_rout, sizeof last_rout, "%s", rout);
}
void cblas_xerbla64_(I info, const char* rout, const char* form, ...) { (void)form, record(info, rout); }
void cblas_xerbla_64(I info, const char* rout, const char* form, ...) { (void)form, record(info, rout); }

static int fails;
static void check(int ok, const char* what, double ratio) {
  printf("%s %s: max |C - R| / bound = %.2e\n", ok ? "ok  " : "FAIL", what, ratio);
  fails += !ok;
}

/* A (M x K) and B (K x N) column-major; the row-major calls pass their transposes' storage. */
static double a[M * K], b[K * N], at[K * M], bt[N * K];

static double ref(int i, int j, double* absab) {
  long double s = 0, t = 0;
  for (int l = 0; l < K; ++l) {
    s += (long double)a[i + l * M] * b[l + j * K];
    t += fabsl((long double)a[i + l * M] * b[l + j * K]);
  }
  *absab = (double)t;
  return (double)s;
}

static double scale(const double* x, int count, int stride) {
  double mx = 0;
  for (int l = 0; l < count; ++l) mx = fmax(mx, fabs(x[l * stride]));
  int e;
  frexp(mx, &e);
  return ldexp(1.0, e); /* 2^E with max |x| < 2^E */
}

/* max over entries of |C - R| / bound; c(i, j) = c[i * si + j * sj]. */
static double dratio(const double* c, I si, I sj, double t_d, int products) {
  const double u = 0x1p-53, g = products * u / (1 - products * u);
  double worst = 0, absab;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const double r = ref(i, j, &absab);
      const double bound = K * scale(a + i, K, M) * scale(b + j * K, K, 1) * (t_d + g + 2 * u) + u * fabs(r);
      worst = fmax(worst, fabs(c[i * si + j * sj] - r) / bound);
    }
  return worst;
}

static double sratio(const float* c, I si, I sj) {
  const double u = 0x1p-24, g = 770 * u / (1 - 770 * u);
  double worst = 0, absab;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const double r = ref(i, j, &absab); /* the float data are exact doubles */
      worst = fmax(worst, fabs(c[i * si + j * sj] - r) / (absab * (1.02 * g + 3.1 * u) + u * fabs(r)));
    }
  return worst;
}

/* The DGEMM (and ZGEMM) modes run, with their truncation bounds T_d and product counts. */
static const struct {
  const char* mode;
  int value;
  double t_d;
  int products;
} modes[] = {{"fp64x6", BF16X_MODE_FP64X6, 3.0e-8, 6}, {"fp64x21", BF16X_MODE_FP64X21, 3.9e-16, 21}};

typedef void (*Dgemm)(int, int, int, I, I, I, double, const double*, I, const double*, I, double, double*, I);
typedef void (*Sgemm)(int, int, int, I, I, I, float, const float*, I, const float*, I, float, float*, I);

static void one_convention(const char* dname, Dgemm dgemm, const char* sname, Sgemm sgemm) {
  static double c[M * N], c1[N];
  static float as[M * K], bs[K * N], cs[M * N];
  char what[128];
  for (int l = 0; l < M * K; ++l) as[l] = (float)a[l];
  for (int l = 0; l < K * N; ++l) bs[l] = (float)b[l];

  for (int t = 0; t < 2; ++t) {
    bf16x_set_dgemm_mode(modes[t].value);
    dgemm(COL, NOTR, NOTR, M, N, K, 1.0, a, M, b, K, 0.0, c, M);
    const double rc = dratio(c, 1, M, modes[t].t_d, modes[t].products);
    snprintf(what, sizeof what, "%s col-major %s", dname, modes[t].mode);
    check(rc <= 1, what, rc);
    dgemm(ROW, NOTR, NOTR, M, N, K, 1.0, at, K, bt, N, 0.0, c, N);
    const double rr = dratio(c, N, 1, modes[t].t_d, modes[t].products);
    snprintf(what, sizeof what, "%s row-major %s", dname, modes[t].mode);
    check(rr <= 1, what, rr);
    if (t == 0) {
      /* fp64x6 drops products near 2^-27 of the scales: far above DGEMM's rounding, so the emulation ran. */
      const double r6 = dratio(c, N, 1, 0, 6);
      snprintf(what, sizeof what, "%s fp64x6 error above the fp64x21-level bound (the emulation ran)", dname);
      check(r6 > 1e3, what, r6);
    }
    /* Row-major, m = 1: lda = 2^32 + 1 is valid (one row of A), its low 32 bits (1 < k) are not. */
    last_info = 0;
    dgemm(ROW, NOTR, NOTR, 1, N, K, 1.0, at, (I)1 << 32 | 1, bt, N, 0.0, c1, N);
    double worst = 0;
    for (int j = 0; j < N; ++j) {
      double absab;
      const double r = ref(0, j, &absab), u = 0x1p-53;
      const double bound = K * scale(a, K, M) * scale(b + j * K, K, 1) *
                               (modes[t].t_d + modes[t].products * u / (1 - modes[t].products * u) + 2 * u) +
                           u * fabs(r);
      worst = fmax(worst, fabs(c1[j] - r) / bound);
    }
    snprintf(what, sizeof what, "%s row-major m = 1, lda = 2^32 + 1, %s (INFO %lld)", dname, modes[t].mode,
             (long long)last_info);
    check(worst <= 1 && last_info == 0, what, worst);
  }
  bf16x_set_dgemm_mode(BF16X_MODE_AUTO);

  bf16x_set_sgemm_mode(BF16X_MODE_FP32X6);
  sgemm(COL, NOTR, NOTR, M, N, K, 1.0f, as, M, bs, K, 0.0f, cs, M);
  const double rs = sratio(cs, 1, M);
  snprintf(what, sizeof what, "%s col-major fp32x6", sname);
  check(rs <= 1, what, rs);
  bf16x_set_sgemm_mode(BF16X_MODE_AUTO);

  /* m = -2^32 + 40: negative, though its low 32 bits are 40. Reference CBLAS: argument 4, C untouched. */
  for (int l = 0; l < M * N; ++l) c[l] = 7;
  last_info = 0;
  dgemm(COL, NOTR, NOTR, -((I)1 << 32) + M, N, K, 1.0, a, M, b, K, 0.0, c, M);
  int untouched = 1;
  for (int l = 0; l < M * N; ++l) untouched &= c[l] == 7;
  const int ok = last_info == 4 && strcmp(last_rout, dname) == 0 && untouched;
  printf("%s %s m = -2^32 + 40: handler got (%lld, %s), C %s\n", ok ? "ok  " : "FAIL", dname, (long long)last_info,
         last_rout, untouched ? "untouched" : "WRITTEN");
  fails += !ok;
}

/* The complex data: ZA (M x K) and ZB (K x N) column-major, ZBH = ZB^H stored row-major (N x K), so that a row-major
 * call with ConjTrans on B computes ZA ZB too; CA, CB their single-precision roundings. */
static double complex za[M * K], zb[K * N], zat[K * M], zbh[N * K];
static float complex ca[M * K], cb[K * N];

/* Entry (i, j) of ZA ZB (single: CA CB) with each part's sum of |products|. */
static void zref(int single, int i, int j, double r[2], double absab[2]) {
  long double re = 0, im = 0, are = 0, aim = 0;
  for (int l = 0; l < K; ++l) {
    const double complex x = single ? (double complex)ca[i + l * M] : za[i + l * M];
    const double complex y = single ? (double complex)cb[l + j * K] : zb[l + j * K];
    const long double xr = creal(x), xi = cimag(x), yr = creal(y), yi = cimag(y);
    re += xr * yr - xi * yi, im += xr * yi + xi * yr;
    are += fabsl(xr * yr) + fabsl(xi * yi), aim += fabsl(xr * yi) + fabsl(xi * yr);
  }
  r[0] = (double)re, r[1] = (double)im, absab[0] = (double)are, absab[1] = (double)aim;
}

/* 2^E with max over both parts |x| < 2^E. */
static double zscale(const double complex* x, int count, int stride) {
  double mx = 0;
  for (int l = 0; l < count; ++l) mx = fmax(mx, fmax(fabs(creal(x[l * stride])), fabs(cimag(x[l * stride]))));
  int e;
  frexp(mx, &e);
  return ldexp(1.0, e);
}

/* max over entries and parts of |C - R| / bound; c(i, j) = c[i * si + j * sj]. */
static double zratio(const double complex* c, I si, I sj, double t_d, int products) {
  const double u = 0x1p-53, g = (products + 3) * u / (1 - (products + 3) * u);
  double worst = 0, r[2], absab[2];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      zref(0, i, j, r, absab);
      const double fixed = 2 * K * zscale(za + i, K, M) * zscale(zb + j * K, K, 1) * (t_d + g + 2 * u);
      const double complex v = c[i * si + j * sj];
      const double part[2] = {creal(v), cimag(v)};
      for (int p = 0; p < 2; ++p) worst = fmax(worst, fabs(part[p] - r[p]) / (fixed + u * fabs(r[p])));
    }
  return worst;
}

static double cratio(const float complex* c) {
  const double u = 0x1p-24, g = 770 * u / (1 - 770 * u);
  double worst = 0, r[2], absab[2];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      zref(1, i, j, r, absab);
      const double part[2] = {crealf(c[i + j * M]), cimagf(c[i + j * M])};
      for (int p = 0; p < 2; ++p)
        worst = fmax(worst, fabs(part[p] - r[p]) / (absab[p] * (1.02 * g + 4.1 * u) + u * fabs(r[p])));
    }
  return worst;
}

typedef void (*Cxgemm)(int, int, int, I, I, I, const void*, const void*, I, const void*, I, const void*, void*, I);

/* m = -2^32 + 40 (low 32 bits: 40): argument 4 to the handler of the convention, C untouched. */
static void expect_bad_m(const char* name, Cxgemm gemm, void* c, size_t bytes, const void* one, const void* zero) {
  memset(c, 0x5a, bytes);
  last_info = 0;
  gemm(COL, NOTR, NOTR, -((I)1 << 32) + M, N, K, one, za, M, zb, K, zero, c, M);
  int untouched = 1;
  for (size_t l = 0; l < bytes; ++l) untouched &= ((unsigned char*)c)[l] == 0x5a;
  const int ok = last_info == 4 && strcmp(last_rout, name) == 0 && untouched;
  printf("%s %s m = -2^32 + 40: handler got (%lld, %s), C %s\n", ok ? "ok  " : "FAIL", name, (long long)last_info,
         last_rout, untouched ? "untouched" : "WRITTEN");
  fails += !ok;
}

static void complex_convention(const char* zname, Cxgemm zgemm, const char* cname, Cxgemm cgemm) {
  static double complex zc[M * N];
  static float complex cc[M * N];
  const double complex zone = 1, zzero = 0;
  const float complex cone = 1, czero = 0;
  char what[128];
  for (int t = 0; t < 2; ++t) {
    bf16x_set_dgemm_mode(modes[t].value); /* ZGEMM runs on DGEMM's mode */
    zgemm(COL, NOTR, NOTR, M, N, K, &zone, za, M, zb, K, &zzero, zc, M);
    const double rc = zratio(zc, 1, M, modes[t].t_d, modes[t].products);
    snprintf(what, sizeof what, "%s col-major %s", zname, modes[t].mode);
    check(rc <= 1, what, rc);
    zgemm(ROW, NOTR, CONJTR, M, N, K, &zone, zat, K, zbh, K, &zzero, zc, N);
    const double rr = zratio(zc, N, 1, modes[t].t_d, modes[t].products);
    snprintf(what, sizeof what, "%s row-major, B conjugate-transposed, %s", zname, modes[t].mode);
    check(rr <= 1, what, rr);
    if (t == 0) {
      const double r6 = zratio(zc, N, 1, 0, 6);
      snprintf(what, sizeof what, "%s fp64x6 error above the fp64x21-level bound (the emulation ran)", zname);
      check(r6 > 1e3, what, r6);
    }
  }
  bf16x_set_dgemm_mode(BF16X_MODE_AUTO);

  bf16x_set_sgemm_mode(BF16X_MODE_FP32X6); /* CGEMM on SGEMM's */
  cgemm(COL, NOTR, NOTR, M, N, K, &cone, ca, M, cb, K, &czero, cc, M);
  const double rs = cratio(cc);
  snprintf(what, sizeof what, "%s col-major fp32x6", cname);
  check(rs <= 1, what, rs);
  bf16x_set_sgemm_mode(BF16X_MODE_AUTO);

  expect_bad_m(zname, zgemm, zc, sizeof zc, &zone, &zzero);
  expect_bad_m(cname, cgemm, cc, sizeof cc, &cone, &czero);
}

int main(void) {
  srand(20261203);
  for (int l = 0; l < M * K; ++l) a[l] = 2.0 * rand() / RAND_MAX - 1;
  for (int l = 0; l < K * N; ++l) b[l] = 2.0 * rand() / RAND_MAX - 1;
  for (int i = 0; i < M; ++i)
    for (int l = 0; l < K; ++l) at[i * K + l] = a[i + l * M];
  for (int l = 0; l < K; ++l)
    for (int j = 0; j < N; ++j) bt[l * N + j] = b[l + j * K];
  one_convention("cblas_dgemm64_", cblas_dgemm64_, "cblas_sgemm64_", cblas_sgemm64_);
  one_convention("cblas_dgemm_64", cblas_dgemm_64, "cblas_sgemm_64", cblas_sgemm_64);

  for (int l = 0; l < M * K; ++l) za[l] = CMPLX(2.0 * rand() / RAND_MAX - 1, 2.0 * rand() / RAND_MAX - 1);
  for (int l = 0; l < K * N; ++l) zb[l] = CMPLX(2.0 * rand() / RAND_MAX - 1, 2.0 * rand() / RAND_MAX - 1);
  for (int i = 0; i < M; ++i)
    for (int l = 0; l < K; ++l) zat[i * K + l] = za[i + l * M];
  for (int l = 0; l < K; ++l)
    for (int j = 0; j < N; ++j) zbh[j * K + l] = conj(zb[l + j * K]);
  for (int l = 0; l < M * K; ++l) ca[l] = (float complex)za[l];
  for (int l = 0; l < K * N; ++l) cb[l] = (float complex)zb[l];
  complex_convention("cblas_zgemm64_", cblas_zgemm64_, "cblas_cgemm64_", cblas_cgemm64_);
  complex_convention("cblas_zgemm_64", cblas_zgemm_64, "cblas_cgemm_64", cblas_cgemm_64);
  printf("ilp64_cblas: %s\n", fails ? "FAILED" : "all checks passed");
  return fails ? 1 : 0;
}
