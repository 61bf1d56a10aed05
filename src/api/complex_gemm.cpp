// bf16x_cgemm / bf16x_zgemm: the checks, layout normalisation and quick returns of the real routines, native on the
// host cgemm/zgemm, else C in bounded blocks (complex_blocking.hpp): per block, P = op(A) op(B) from real products
// of the parts (complex_products.hpp), scaled by powers of two per row and column so that it stays in range
// (complex_operands.hpp), into FP64 workspace, then C = alpha P + beta C with the scales joining alpha; whatever
// can fail is done before the first block is written, so that an error leaves C untouched.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "api/call_plan.hpp"
#include "api/checks.hpp"
#include "api/complex_blocking.hpp"
#include "api/complex_products.hpp"
#include "api/env.hpp"
#include "api/real_gemm.hpp"
#include "api/runtime.hpp"
#include "api/verbose.hpp"
#include "bf16x/bf16x.h"
#include "host/host_blas.hpp"
#include "util/pow2.hpp"

namespace bf16x::api {
namespace {

template <typename T>
using Complex = std::conditional_t<std::is_same_v<T, float>, bf16x_complex_float, bf16x_complex_double>;

template <typename T>
bool host_complex_gemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, const Complex<T>& alpha,
                       const Complex<T>* a, std::int64_t lda, const Complex<T>* b, std::int64_t ldb,
                       const Complex<T>& beta, Complex<T>* c, std::int64_t ldc) {
  const T* pa = &a->re;
  const T* pb = &b->re;
  if constexpr (std::is_same_v<T, float>)
    return host::cgemm(ta, tb, m, n, k, &alpha.re, pa, lda, pb, ldb, &beta.re, &c->re, ldc);
  else
    return host::zgemm(ta, tb, m, n, k, &alpha.re, pa, lda, pb, ldb, &beta.re, &c->re, ldc);
}

// The call as the column-major host CGEMM/ZGEMM takes it (a row-major one swapped into C^T = op(B)^T op(A)^T).
template <typename T>
struct HostCall {
  int ta, tb;
  std::int64_t m, n;
  const Complex<T>* a;
  std::int64_t lda;
  const Complex<T>* b;
  std::int64_t ldb;
};

// C(i, j) of a column-major C, or of a row-major one (c_rows: at c[i * ldc + j]).
template <typename T>
Complex<T>& c_at(Complex<T>* c, std::int64_t ldc, bool c_rows, std::int64_t i, std::int64_t j) {
  return c_rows ? c[i * ldc + j] : c[i + j * ldc];
}

// C = beta C; beta = 0 sets zero without reading C (NaN there included), beta = 1 leaves C as it is.
template <typename T>
void scale_c(std::int64_t m, std::int64_t n, const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, bool c_rows) {
  if (beta.re == T(1) && beta.im == T(0)) return;
  const bool zero = beta.re == T(0) && beta.im == T(0);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      Complex<T>& x = c_at<T>(c, ldc, c_rows, i, j);
      x = zero ? Complex<T>{0, 0} : Complex<T>{beta.re * x.re - beta.im * x.im, beta.re * x.im + beta.im * x.re};
    }
}

// x = m 2^e with m in [0.5, 1); 0, Inf and NaN as themselves with e = 0.
struct Pow2Split {
  double m;
  int e;
};
Pow2Split split_pow2(double x) {
  int e = 0;
  const double m = std::isfinite(x) && x != 0 ? std::frexp(x, &e) : x;
  return {m, e};
}

// y 2^e: exact where the result is normal, else one rounding (as ldexp).
double times_pow2(double y, int e) {
  if (e < -1022 || e > 1023) return std::ldexp(y, e);
  return y * util::pow2(e);
}

// The r x c block of C at (i0, j0) = alpha 2^(ea_i + eb_j) P' + beta C in FP64 with one rounding to T per part
// (beta = 0: C not read); P' is the FP64 block of ComplexProducts::p(), op(A) op(B) on operands scaled by 2^-ea_i
// per row and 2^-eb_j per column (complex_operands.hpp). Each part of alpha is m 2^e and its exponent joins
// ea_i + eb_j, as the real drivers fold alpha into their scales: fl(m P') 2^(e + ea_i + eb_j) is fl(alpha P) where
// that is normal, and no alpha P' or 2^(...) P' leaves the range before the result does. The same arithmetic per
// entry in both layouts.
template <typename T>
void combine(std::int64_t i0, std::int64_t r, std::int64_t j0, std::int64_t c, const Complex<T>& alpha, const double* p,
             const int* ea, const int* eb, const Complex<T>& beta, Complex<T>* cm, std::int64_t ldc, bool c_rows) {
  const Pow2Split ar = split_pow2(alpha.re), ai = split_pow2(alpha.im);
  const double br = beta.re, bi = beta.im;
  const bool read_c = br != 0 || bi != 0;
  const double* pim = p + r * c;
  const auto entry = [&](std::int64_t i, std::int64_t j) {
    const double pr = p[i + j * r], pi = pim[i + j * r];
    const int s = ea[i0 + i] + eb[j0 + j];
    double re = times_pow2(ar.m * pr, ar.e + s) - times_pow2(ai.m * pi, ai.e + s);
    double im = times_pow2(ar.m * pi, ar.e + s) + times_pow2(ai.m * pr, ai.e + s);
    Complex<T>& x = c_at<T>(cm, ldc, c_rows, i0 + i, j0 + j);
    if (read_c) {
      const double xr = x.re, xi = x.im;
      re += br * xr - bi * xi;
      im += br * xi + bi * xr;
    }
    x = Complex<T>{T(re), T(im)};
  };
  if (c_rows) {  // along C's rows, where it is contiguous
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j) entry(i, j);
  } else {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < c; ++j)
      for (std::int64_t i = 0; i < r; ++i) entry(i, j);
  }
}

// C = alpha op(A) op(B) + beta C in blocks of C (complex_blocking.hpp). Everything that can fail comes before C
// is written: the scan for NaN/Inf (returns false: nothing done, the caller goes to the host), the workspace, and
// the real GEMM's own workspace, reserved by the first block, the largest in every dimension, and kept for the
// later ones (driver/workspace.hpp).
template <typename T>
int emulate(int method, const ComplexOperand<T>& oa, const ComplexOperand<T>& ob, const Complex<T>& alpha,
            const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, bool c_rows, const bf16x_options& opt,
            Outcome& out, bool& done) {
  const ThreadScope threads;  // bf16x_set_num_threads for the scan, the deinterleave and the write too
  const OperandScan sa = scan_operand(oa, true), sb = scan_operand(ob, false);
  done = sa.finite && sb.finite;
  if (!done) return BF16X_OK;
  // The real GEMMs run on op(A) and op(B) scaled by powers of two per row and column (every part below 1, so P'
  // and 3M's sums stay in range); the write puts the scales back with alpha.
  ComplexOperand<T> pa = oa, pb = ob;
  pa.row_exp = sa.exps.data();
  pb.col_exp = sb.exps.data();
  const std::int64_t m = oa.rows, n = ob.cols;
  const ComplexBlocking bl = complex_blocking();
  const std::int64_t mb = std::min(bl.mb, m), nb = std::min(bl.nb, n), kb = std::min(bl.kb, oa.cols);
  ComplexProducts<T> prod(method, mb, nb, kb);
  for (std::int64_t j0 = 0; j0 < n; j0 += nb)
    for (std::int64_t i0 = 0; i0 < m; i0 += mb) {
      const std::int64_t r = std::min(mb, m - i0), cc = std::min(nb, n - j0);
      if (const int st = prod.block(pa, pb, i0, r, j0, cc, opt, out); st != BF16X_OK) return st;
      combine<T>(i0, r, j0, cc, alpha, prod.p(), sa.exps.data(), sb.exps.data(), beta, c, ldc, c_rows);
    }
  out.workspace_bytes += prod.bytes();
  out.why += method == BF16X_COMPLEX_3M ? ",complex=3m" : ",complex=4m";
  return BF16X_OK;
}

// A checked call on column-major operand views (a row-major operand read as its transpose) and a C in either
// layout (c_rows); C is written only when it returns BF16X_OK. The host path computes a row-major C as C^T.
template <typename T>
int run_complex(const ComplexOperand<T>& oa, const ComplexOperand<T>& ob, const Complex<T>& alpha,
                const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, bool c_rows, const HostCall<T>& host,
                const bf16x_options& opt, Outcome& out) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const std::int64_t m = oa.rows, n = ob.cols, k = oa.cols;
  if ((alpha.re == T(0) && alpha.im == T(0)) || k == 0) {
    scale_c<T>(m, n, beta, c, ldc, c_rows);
    out.why = ",quick_return";
    return BF16X_OK;
  }
  const CallPlan plan = plan_call(opt, is_double, m, n, k);  // the real GEMMs' plan, refusals included
  if (plan.status != BF16X_OK) return plan.status;
  if (plan.mode != BF16X_MODE_NATIVE) {
    const int method = opt.complex_method != BF16X_COMPLEX_DEFAULT ? opt.complex_method : env().complex_method;
    bool done = false;
    if (const int st = emulate<T>(method, oa, ob, alpha, beta, c, ldc, c_rows, opt, out, done); st != BF16X_OK || done)
      return st;
    out = Outcome{};
    out.why = ",fallback=nonfinite";
  }
  if (!host_complex_gemm<T>(host.ta, host.tb, host.m, host.n, k, alpha, host.a, host.lda, host.b, host.ldb, beta, c,
                            ldc))
    return BF16X_ERR_ENGINE;
  return BF16X_OK;
}

template <typename T>
int complex_gemm(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k,
                 const Complex<T>& alpha, const Complex<T>* a, std::int64_t lda, const Complex<T>* b, std::int64_t ldb,
                 const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, const bf16x_options* user) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const auto t0 = std::chrono::steady_clock::now();
  int st_options;
  const bf16x_options opt = call_options(user, st_options);
  Outcome out;
  const bool alpha_zero = alpha.re == T(0) && alpha.im == T(0);
  int st = check_gemm_args({layout, transa, transb, m, n, k, lda, ldb, ldc}, a, b, c, alpha_zero);
  if (st == BF16X_OK) st = st_options;
  if (st == BF16X_OK) st = check_options(opt, is_double);
  if (st == BF16X_OK && (opt.complex_method < BF16X_COMPLEX_DEFAULT || opt.complex_method > BF16X_COMPLEX_3M))
    st = BF16X_ERR_OPTIONS;
  if (st == BF16X_OK && m != 0 && n != 0) {
    // A row-major A or B is its column-major transpose (N and T swap; ConjTrans becomes conjugated, not
    // transposed); C keeps its layout and is written in place, so that both layouts compute the same product in
    // the same order: the same bits. Only the host path swaps into C^T = op(B)^T op(A)^T.
    const bool rows = layout == BF16X_ROW_MAJOR;
    const ComplexOperand<T> oa{&a->re, lda, (transa != BF16X_NO_TRANS) != rows, transa == BF16X_CONJ_TRANS, m, k};
    const ComplexOperand<T> ob{&b->re, ldb, (transb != BF16X_NO_TRANS) != rows, transb == BF16X_CONJ_TRANS, k, n};
    const HostCall<T> host =
        rows ? HostCall<T>{transb, transa, n, m, b, ldb, a, lda} : HostCall<T>{transa, transb, m, n, a, lda, b, ldb};
    st = run_complex<T>(oa, ob, alpha, beta, c, ldc, rows, host, opt, out);
  }
  VerboseCall v = call_as_made(is_double, layout, transa, transb, m, n, k, lda, ldb, ldc);
  v.alpha = double(alpha.re);
  v.beta = double(beta.re);
  v.is_complex = true;
  v.alpha_im = double(alpha.im);
  v.beta_im = double(beta.im);
  report_call(opt, out, st, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), v);
  return st;
}

// Workspace is allocated before C is written: an allocation failure leaves C untouched.
template <typename T>
int guarded(int layout, int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, const Complex<T>& alpha,
            const Complex<T>* a, std::int64_t lda, const Complex<T>* b, std::int64_t ldb, const Complex<T>& beta,
            Complex<T>* c, std::int64_t ldc, const bf16x_options* opt) {
  try {
    return complex_gemm<T>(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
  } catch (const std::bad_alloc&) {
    return BF16X_ERR_NOMEM;
  } catch (const std::length_error&) {
    return BF16X_ERR_SIZE;
  }
}

}  // namespace
}  // namespace bf16x::api

extern "C" {

int bf16x_cgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                   bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda, const bf16x_complex_float* b,
                   int64_t ldb, bf16x_complex_float beta, bf16x_complex_float* c, int64_t ldc,
                   const bf16x_options* opt) {
  return bf16x::api::guarded<float>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
}

int bf16x_zgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                   bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda,
                   const bf16x_complex_double* b, int64_t ldb, bf16x_complex_double beta, bf16x_complex_double* c,
                   int64_t ldc, const bf16x_options* opt) {
  return bf16x::api::guarded<double>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
}

int bf16x_cgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                bf16x_complex_float alpha, const bf16x_complex_float* a, int64_t lda, const bf16x_complex_float* b,
                int64_t ldb, bf16x_complex_float beta, bf16x_complex_float* c, int64_t ldc, bf16x_mode mode) {
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = mode;
  return bf16x_cgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

int bf16x_zgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda, const bf16x_complex_double* b,
                int64_t ldb, bf16x_complex_double beta, bf16x_complex_double* c, int64_t ldc, bf16x_mode mode) {
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = mode;
  return bf16x_zgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

}  // extern "C"
