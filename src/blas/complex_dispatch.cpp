#include "blas/complex_dispatch.hpp"

#include "api/verbose.hpp"
#include "blas/next_blas.hpp"

namespace bf16x::blas {
namespace {

bf16x_transpose to_api(char t) { return t == 'N' ? BF16X_NO_TRANS : t == 'T' ? BF16X_TRANS : BF16X_CONJ_TRANS; }

// A row-major call goes to the library as the caller made it (A, B, m, n back in place), so that its emulated
// result has the bits of bf16x_cgemm/bf16x_zgemm on the same arguments and of the column-major call of the same
// product (docs/numerics.md, Reproducibility); C^T = B^T A^T would swap the real products' row and column scales.
template <typename C, typename Gemm>
int run_with(Gemm gemm, const ComplexGemmCall<C>& g, const bf16x_options& o) {
  const GemmShape& s = g.s;
  if (g.row_major)
    return gemm(BF16X_ROW_MAJOR, to_api(s.transb), to_api(s.transa), s.n, s.m, s.k, g.alpha, g.b, s.ldb, g.a, s.lda,
                g.beta, g.c, s.ldc, &o);
  return gemm(BF16X_COL_MAJOR, to_api(s.transa), to_api(s.transb), s.m, s.n, s.k, g.alpha, g.a, s.lda, g.b, s.ldb,
              g.beta, g.c, s.ldc, &o);
}

int run(const ComplexGemmCall<bf16x_complex_float>& g, const bf16x_options& o) {
  return run_with(bf16x_cgemm_ex, g, o);
}
int run(const ComplexGemmCall<bf16x_complex_double>& g, const bf16x_options& o) {
  return run_with(bf16x_zgemm_ex, g, o);
}

template <typename C>
bool emulate_with(const ComplexGemmCall<C>& g, int mode, int* status) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  *status = run(g, o);
  return *status == BF16X_OK;
}

template <typename C>
void native_with(const ComplexGemmCall<C>& g, const char* name) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_NATIVE;
  if (run(g, o) != BF16X_OK) no_next_definition(name);
}

}  // namespace

bool emulate(const ComplexGemmCall<bf16x_complex_float>& g, int mode, int* status) {
  return emulate_with(g, mode, status);
}
bool emulate(const ComplexGemmCall<bf16x_complex_double>& g, int mode, int* status) {
  return emulate_with(g, mode, status);
}
void native_via_library(const ComplexGemmCall<bf16x_complex_float>& g) { native_with(g, "cgemm"); }
void native_via_library(const ComplexGemmCall<bf16x_complex_double>& g) { native_with(g, "zgemm"); }

void verbose_forwarded_complex(const GemmShape& s, bool row_major, bool is_double, const double alpha[2],
                               const double beta[2], const void* fn, int declined_status, double seconds) {
  api::VerboseCall v = forwarded_call(s, row_major, is_double, fn, declined_status, seconds);
  v.alpha = alpha[0];
  v.beta = beta[0];
  v.is_complex = true;
  v.alpha_im = alpha[1];
  v.beta_im = beta[1];
  api::verbose_line(v);
}

}  // namespace bf16x::blas
