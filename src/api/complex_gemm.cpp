// bf16x_cgemm / bf16x_zgemm: the checks, layout normalisation and quick returns of the real routines, native on the
// host cgemm/zgemm, else P = op(A) op(B) from real products of the parts (complex_products.hpp) into workspace
// and C = alpha P + beta C last, so that an error leaves C untouched.
#include <chrono>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "api/checks.hpp"
#include "api/complex_products.hpp"
#include "api/engine_choice.hpp"
#include "api/env.hpp"
#include "api/mode_policy.hpp"
#include "api/real_gemm.hpp"
#include "api/runtime.hpp"
#include "api/verbose.hpp"
#include "bf16x/bf16x.h"
#include "engine/registry.hpp"
#include "host/host_blas.hpp"

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

// C = beta C; beta = 0 sets zero without reading C (NaN there included), beta = 1 leaves C as it is.
template <typename T>
void scale_c(std::int64_t m, std::int64_t n, const Complex<T>& beta, Complex<T>* c, std::int64_t ldc) {
  if (beta.re == T(1) && beta.im == T(0)) return;
  const bool zero = beta.re == T(0) && beta.im == T(0);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      Complex<T>& x = c[i + j * ldc];
      x = zero ? Complex<T>{0, 0} : Complex<T>{beta.re * x.re - beta.im * x.im, beta.re * x.im + beta.im * x.re};
    }
}

// C = alpha P + beta C in FP64 with one rounding to T per part (beta = 0: C not read).
template <typename T>
void combine(std::int64_t m, std::int64_t n, const Complex<T>& alpha, const T* p, const Complex<T>& beta, Complex<T>* c,
             std::int64_t ldc) {
  const double ar = alpha.re, ai = alpha.im, br = beta.re, bi = beta.im;
  const bool read_c = br != 0 || bi != 0;
  const T* pim = p + m * n;
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      const double pr = p[i + j * m], pi = pim[i + j * m];
      double re = ar * pr - ai * pi, im = ar * pi + ai * pr;
      Complex<T>& x = c[i + j * ldc];
      if (read_c) {
        const double xr = x.re, xi = x.im;
        re += br * xr - bi * xi;
        im += br * xi + bi * xr;
      }
      x = Complex<T>{T(re), T(im)};
    }
}

// A checked, column-major call; C is written only when it returns BF16X_OK.
template <typename T>
int run_complex(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, const Complex<T>& alpha,
                const Complex<T>* a, std::int64_t lda, const Complex<T>* b, std::int64_t ldb, const Complex<T>& beta,
                Complex<T>* c, std::int64_t ldc, const bf16x_options& opt, Outcome& out) {
  constexpr bool is_double = std::is_same_v<T, double>;
  if ((alpha.re == T(0) && alpha.im == T(0)) || k == 0) {
    scale_c<T>(m, n, beta, c, ldc);
    out.why = ",quick_return";
    return BF16X_OK;
  }
  const int engine_id = api::resolve_engine(opt.engine);
  const int mode = resolve_mode({opt.mode, is_double, m, n, k, engine_id, opt.auto_target});
  if (mode != BF16X_MODE_NATIVE) {
    const int method = opt.complex_method != BF16X_COMPLEX_DEFAULT ? opt.complex_method : env().complex_method;
    std::int64_t len = 0;
    if (__builtin_mul_overflow(m, n, &len) || __builtin_mul_overflow(len, std::int64_t(2), &len)) return BF16X_ERR_SIZE;
    std::vector<T> p(static_cast<std::size_t>(len));
    const ThreadScope threads;  // bf16x_set_num_threads for the deinterleave and the write too
    const ComplexOperand<T> oa{&a->re, lda, ta, m, k}, ob{&b->re, ldb, tb, k, n};
    ComplexProduct done;
    if (const int st = complex_product<T>(method, oa, ob, p.data(), opt, out, done); st != BF16X_OK) return st;
    if (!done.nonfinite) {
      out.workspace_bytes += p.size() * sizeof(T);
      combine<T>(m, n, alpha, p.data(), beta, c, ldc);
      out.why += done.method == BF16X_COMPLEX_3M ? ",complex=3m" : ",complex=4m";
      return BF16X_OK;
    }
    out = Outcome{};
    out.why = ",fallback=nonfinite";
  }
  if (!host_complex_gemm<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return BF16X_ERR_ENGINE;
  return BF16X_OK;
}

template <typename T>
int complex_gemm(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k,
                 const Complex<T>& alpha, const Complex<T>* a, std::int64_t lda, const Complex<T>* b, std::int64_t ldb,
                 const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, const bf16x_options* user) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const auto t0 = std::chrono::steady_clock::now();
  bf16x_options opt;
  bf16x_options_init(&opt);
  if (user) opt = *user;
  if (opt.stats) *opt.stats = bf16x_stats{};
  if (opt.stats) opt.stats->engine = -1;
  Outcome out;
  const bool alpha_zero = alpha.re == T(0) && alpha.im == T(0);
  int st = check_gemm_args({layout, transa, transb, m, n, k, lda, ldb, ldc}, a, b, c, alpha_zero);
  if (st == BF16X_OK) st = check_options(opt, is_double);
  if (st == BF16X_OK && (opt.complex_method < BF16X_COMPLEX_DEFAULT || opt.complex_method > BF16X_COMPLEX_3M))
    st = BF16X_ERR_OPTIONS;
  if (st == BF16X_OK && m != 0 && n != 0) {
    if (layout == BF16X_ROW_MAJOR)  // C^T = op(B)^T op(A)^T, column-major; the flags carry over, C included
      st = run_complex<T>(transb, transa, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc, opt, out);
    else
      st = run_complex<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt, out);
  }
  VerboseCall v;
  v.is_double = is_double;
  v.row_major = layout == BF16X_ROW_MAJOR;
  v.ta = trans_char(transa);
  v.tb = trans_char(transb);
  v.m = m, v.n = n, v.k = k, v.lda = lda, v.ldb = ldb, v.ldc = ldc;
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
