#include "blas/complex_dispatch.hpp"

#include "api/verbose.hpp"
#include "blas/next_blas.hpp"

namespace bf16x::blas {
namespace {

bf16x_transpose to_api(char t) { return t == 'N' ? BF16X_NO_TRANS : t == 'T' ? BF16X_TRANS : BF16X_CONJ_TRANS; }

int run(const ComplexGemmCall<bf16x_complex_float>& g, const bf16x_options& o) {
  const GemmShape& s = g.s;
  return bf16x_cgemm_ex(BF16X_COL_MAJOR, to_api(s.transa), to_api(s.transb), s.m, s.n, s.k, g.alpha, g.a, s.lda, g.b,
                        s.ldb, g.beta, g.c, s.ldc, &o);
}

int run(const ComplexGemmCall<bf16x_complex_double>& g, const bf16x_options& o) {
  const GemmShape& s = g.s;
  return bf16x_zgemm_ex(BF16X_COL_MAJOR, to_api(s.transa), to_api(s.transb), s.m, s.n, s.k, g.alpha, g.a, s.lda, g.b,
                        s.ldb, g.beta, g.c, s.ldc, &o);
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

void verbose_forwarded_complex(const GemmShape& s, bool is_double, const double alpha[2], const double beta[2],
                               const void* fn, int declined_status, double seconds) {
  api::VerboseCall v{is_double, false, s.transa, s.transb, s.m, s.n, s.k, s.lda, s.ldb, s.ldc, alpha[0], beta[0]};
  v.is_complex = true;
  v.alpha_im = alpha[1];
  v.beta_im = beta[1];
  v.mode = "native";
  v.engine = library_of(fn);
  v.why = forwarded_why(s, is_double, declined_status);
  v.seconds = seconds;
  api::verbose_line(v);
}

}  // namespace bf16x::blas
