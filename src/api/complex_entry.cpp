// bf16x_cgemm / bf16x_zgemm: the checks, layout normalisation and quick returns of the real routines, native on the
// host cgemm/zgemm, else the complex layer (complex/complex_gemm.hpp) on the checked real GEMM of the call's options:
// C in bounded blocks, P = op(A) op(B) per block from real products of the parts, scaled by powers of two per row
// and column so that it stays in range, then C = alpha P + beta C; whatever can fail is done before the first block
// is written, so that an error leaves C untouched.
#include <algorithm>
#include <cmath>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "api/checks.hpp"
#include "api/real_gemm.hpp"
#include "bf16x/bf16x.h"
#include "complex/complex_gemm.hpp"
#include "host/host_blas.hpp"
#include "method/guard.hpp"
#include "method/table.hpp"
#include "planner/call_plan.hpp"
#include "report/verbose.hpp"
#include "settings/env.hpp"
#include "settings/runtime.hpp"
#include "util/clock.hpp"

namespace bf16x::api {
namespace {

using complex::c_at;
using complex::Complex;
using complex::ComplexOperand;

// The complex layer on the checked real GEMM of the call's options. The mode the first real GEMM ran is pinned for
// every later block and chunk, so that auto decides once per call (on the first block's data) and one call never
// mixes modes; the real GEMMs' outcomes are merged into out.
template <typename T>
int emulate(int method, const ComplexOperand<T>& oa, const ComplexOperand<T>& ob, const Complex<T>& alpha,
            const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, bool c_rows, const bf16x_options& opt,
            Outcome& out, bool& done) {
  const ThreadScope threads;  // bf16x_set_num_threads for the scan, the deinterleave and the write too
  bf16x_options pinned = opt;
  bool first = true;
  const complex::RealGemm<T> real = [&](std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b,
                                        T beta_r, T* cr) {
    Outcome one;
    const int st =
        run_gemm<T>(BF16X_NO_TRANS, BF16X_NO_TRANS, m, n, k, T(1), a, m, b, k, beta_r, cr, m, false, pinned, one);
    if (st == BF16X_OK && first) {
      pinned.mode = one.mode;
      first = false;
    }
    merge_outcome(out, one);
    return st;
  };
  std::size_t bytes = 0;
  const int st = complex::gemm<T>(method, oa, ob, alpha, beta, c, ldc, c_rows, real, done, bytes);
  if (st == BF16X_OK && done) {
    out.workspace_bytes += bytes;
    out.why += method == BF16X_COMPLEX_3M ? ",complex=3m" : ",complex=4m";
  }
  return st;
}

template <typename T>
bool host_complex_gemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, const Complex<T>& alpha,
                       const Complex<T>* a, std::int64_t lda, const Complex<T>* b, std::int64_t ldb,
                       const Complex<T>& beta, Complex<T>* c, std::int64_t ldc) {
  const T* pa = reinterpret_cast<const T*>(a);
  const T* pb = reinterpret_cast<const T*>(b);
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

// Auto's native choice under the guard (the modes auto stands for keep their range, method/guard.hpp
// host_scaled) where the host CGEMM/ZGEMM's products may leave the range that the result stays in: the complex
// layer then runs on the host's real GEMM, its operands scaled by powers of two per row and column.
template <typename T>
bool native_out_of_range(const CallPlan& plan, const ComplexOperand<T>& oa, const ComplexOperand<T>& ob,
                         const Complex<T>& alpha) {
  if (!plan.host_guarded) return false;
  // One read of the stored parts first (method/guard.hpp), the per-line scan only where it does not clear the call.
  const double abs_alpha = std::hypot(double(alpha.re), double(alpha.im));
  const auto stored = [](const ComplexOperand<T>& o) {  // (inner, outer) in values: parts interleaved
    return std::pair{2 * (o.trans ? o.cols : o.rows), o.trans ? o.rows : o.cols};
  };
  const auto [ai, ao] = stored(oa);
  const auto [bi, bo] = stored(ob);
  if (method::host_range_clear(oa.x, 2 * oa.ld, ai, ao, ob.x, 2 * ob.ld, bi, bo, 2 * oa.cols, abs_alpha)) return false;
  const complex::OperandScan sa = complex::scan_operand(oa, true), sb = complex::scan_operand(ob, false);
  if (!sa.finite || !sb.finite) return false;  // NaN and Inf: the host's IEEE classes
  // Each part of an entry sums 2k real products.
  return method::host_out_of_range(sa.exps, sb.exps, 2 * oa.cols, abs_alpha, std::is_same_v<T, double>);
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
  if (method::has_complex<T>(plan)) {  // the method's own complex path (the correctly rounded one)
    const method::ComplexCall<T> args{m,
                                      n,
                                      k,
                                      oa.x,
                                      oa.ld,
                                      oa.trans,
                                      oa.conj,
                                      ob.x,
                                      ob.ld,
                                      ob.trans,
                                      ob.conj,
                                      {double(alpha.re), double(alpha.im)},
                                      {double(beta.re), double(beta.im)},
                                      &c->re,
                                      ldc,
                                      c_rows};
    bool done = false;
    if (const int st = method::run_complex<T>(plan, args, out, done); st != BF16X_OK || done) return st;
  } else if (plan.mode != BF16X_MODE_NATIVE || native_out_of_range<T>(plan, oa, ob, alpha)) {
    const int how = opt.complex_method != BF16X_COMPLEX_DEFAULT ? opt.complex_method : plan.settings.complex_method;
    bool done = false;
    bf16x_options run = opt;
    if (plan.mode == BF16X_MODE_NATIVE) run.mode = BF16X_MODE_NATIVE;  // auto's native choice, on scaled parts
    if (const int st = emulate<T>(how, oa, ob, alpha, beta, c, ldc, c_rows, run, out, done); st != BF16X_OK || done)
      return st;
    out = Outcome{};
    out.why = ",fallback=nonfinite";
  }
  if (!host_complex_gemm<T>(host.ta, host.tb, host.m, host.n, k, alpha, host.a, host.lda, host.b, host.ldb, beta, c,
                            ldc))
    return BF16X_ERR_ENGINE;
  return BF16X_OK;
}

}  // namespace

template <typename T>
int run_complex_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const Complex<T>& alpha, const Complex<T>* a,
                     std::int64_t lda, OperandFlags fa, const Complex<T>* b, std::int64_t ldb, OperandFlags fb,
                     const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, bool c_rows, const bf16x_options& opt,
                     Outcome& out) {
  // A and B may be NULL where alpha is 0 or k is 0 (not read): their parts by cast, not by member access.
  const ComplexOperand<T> oa{reinterpret_cast<const T*>(a), lda, fa.transposed, fa.conj, m, k};
  const ComplexOperand<T> ob{reinterpret_cast<const T*>(b), ldb, fb.transposed, fb.conj, k, n};
  // The host's column-major flags of an operand, or -1 where a conjugate without a transpose has none (the host
  // path is then not taken: such an operand comes only with a row-major C, computed as C^T).
  const auto flag = [](bool transposed, bool conj) {
    return !transposed ? (conj ? -1 : int(BF16X_NO_TRANS)) : conj ? int(BF16X_CONJ_TRANS) : int(BF16X_TRANS);
  };
  const HostCall<T> host =
      c_rows ? HostCall<T>{flag(!fb.transposed, fb.conj), flag(!fa.transposed, fa.conj), n, m, b, ldb, a, lda}
             : HostCall<T>{flag(fa.transposed, fa.conj), flag(fb.transposed, fb.conj), m, n, a, lda, b, ldb};
  if (host.ta < 0 || host.tb < 0) return BF16X_ERR_TRANS_A;
  return run_complex<T>(oa, ob, alpha, beta, c, ldc, c_rows, host, opt, out);
}
#define BF16X_RUN_COMPLEX_GEMM(T)                                                                                  \
  template int run_complex_gemm<T>(std::int64_t, std::int64_t, std::int64_t, const Complex<T>&, const Complex<T>*, \
                                   std::int64_t, OperandFlags, const Complex<T>*, std::int64_t, OperandFlags,      \
                                   const Complex<T>&, Complex<T>*, std::int64_t, bool, const bf16x_options&,       \
                                   Outcome&);
BF16X_RUN_COMPLEX_GEMM(float)
BF16X_RUN_COMPLEX_GEMM(double)

namespace {

template <typename T>
int complex_gemm(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k,
                 const Complex<T>& alpha, const Complex<T>* a, std::int64_t lda, const Complex<T>* b, std::int64_t ldb,
                 const Complex<T>& beta, Complex<T>* c, std::int64_t ldc, const bf16x_options* user) {
  constexpr bool is_double = std::is_same_v<T, double>;
  int st_options;
  const bf16x_options opt = call_options(user, st_options);
  const bool timed = call_timed(opt);
  const double t0 = util::now_if(timed);
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
    const ComplexOperand<T> oa{reinterpret_cast<const T*>(a), lda, (transa != BF16X_NO_TRANS) != rows,
                               transa == BF16X_CONJ_TRANS,    m,   k};
    const ComplexOperand<T> ob{reinterpret_cast<const T*>(b), ldb, (transb != BF16X_NO_TRANS) != rows,
                               transb == BF16X_CONJ_TRANS,    k,   n};
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
  report_call(opt, out, st, util::now_if(timed) - t0, v);
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
  const bf16x_options opt = bf16x::api::options_for_mode(mode);
  return bf16x_cgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

int bf16x_zgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                bf16x_complex_double alpha, const bf16x_complex_double* a, int64_t lda, const bf16x_complex_double* b,
                int64_t ldb, bf16x_complex_double beta, bf16x_complex_double* c, int64_t ldc, bf16x_mode mode) {
  const bf16x_options opt = bf16x::api::options_for_mode(mode);
  return bf16x_zgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

}  // extern "C"
