#include "blas/dispatch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "api/call_plan.hpp"
#include "api/env.hpp"
#include "api/runtime.hpp"
#include "api/verbose.hpp"
#include "bf16x/bf16x.h"
#include "blas/next_blas.hpp"
#include "engine/records.hpp"

namespace bf16x::blas {
namespace {

bf16x_transpose to_api(char t) { return t == 'N' ? BF16X_NO_TRANS : t == 'T' ? BF16X_TRANS : BF16X_CONJ_TRANS; }

// A row-major call goes to the library as the caller made it (A, B, m, n back in place), so that its emulated
// result has the bits of the column-major call of the same product (docs/numerics.md, Reproducibility).
template <typename T, typename Gemm>
int run_with(Gemm gemm, const GemmCall<T>& g, const bf16x_options& o) {
  const GemmShape& s = g.s;
  if (g.row_major)
    return gemm(BF16X_ROW_MAJOR, to_api(s.transb), to_api(s.transa), s.n, s.m, s.k, g.alpha, g.b, s.ldb, g.a, s.lda,
                g.beta, g.c, s.ldc, &o);
  return gemm(BF16X_COL_MAJOR, to_api(s.transa), to_api(s.transb), s.m, s.n, s.k, g.alpha, g.a, s.lda, g.b, s.ldb,
              g.beta, g.c, s.ldc, &o);
}

int run(const GemmCall<float>& g, const bf16x_options& o) { return run_with(bf16x_sgemm_ex, g, o); }
int run(const GemmCall<double>& g, const bf16x_options& o) { return run_with(bf16x_dgemm_ex, g, o); }

template <typename T>
bool emulate_with(const GemmCall<T>& g, int mode, int* status) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  *status = run(g, o);
  return *status == BF16X_OK;
}

template <typename T>
void native_with(const GemmCall<T>& g, const char* name) {
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = BF16X_MODE_NATIVE;
  if (run(g, o) != BF16X_OK) no_next_definition(name);
}

}  // namespace

int emulation_mode(const GemmShape& s, bool is_double) {
  bf16x_options o;
  bf16x_options_init(&o);
  return api::plan_call(o, is_double, s.m, s.n, s.k).mode;  // the library's own plan of the call
}

bool emulate(const GemmCall<float>& g, int mode, int* status) { return emulate_with(g, mode, status); }
bool emulate(const GemmCall<double>& g, int mode, int* status) { return emulate_with(g, mode, status); }
void native_via_library(const GemmCall<float>& g) { native_with(g, "sgemm"); }
void native_via_library(const GemmCall<double>& g) { native_with(g, "dgemm"); }

bool verbose() { return api::verbose_wanted(); }

std::string forwarded_why(const GemmShape& s, bool is_double, int declined_status) {
  // Why the call ran native, in the library's words: the library declined it, BF16X_MIN_SIZE, or auto's cost model.
  char why[96] = "";
  const int requested = api::effective_mode(is_double);
  if (declined_status != BF16X_OK)
    std::snprintf(why, sizeof why, ",fallback=%s", bf16x_status_string(declined_status));
  else if (requested != BF16X_MODE_NATIVE && std::min({s.m, s.n, s.k}) < api::env().min_size)
    std::snprintf(why, sizeof why, ",min_size=%lld", (long long)api::env().min_size);
  else if (requested == BF16X_MODE_AUTO)
    std::snprintf(why, sizeof why, ",auto=cost_model");
  return why;
}

api::VerboseCall forwarded_call(const GemmShape& s, bool row_major, bool is_double, const void* fn, int declined_status,
                                double seconds) {
  // The call as the caller made it: a row-major one with A, B, m, n back in place (as the library's own lines).
  api::VerboseCall v;
  v.is_double = is_double;
  v.row_major = row_major;
  v.ta = row_major ? s.transb : s.transa;
  v.tb = row_major ? s.transa : s.transb;
  v.m = row_major ? s.n : s.m;
  v.n = row_major ? s.m : s.n;
  v.k = s.k;
  v.lda = row_major ? s.ldb : s.lda;
  v.ldb = row_major ? s.lda : s.ldb;
  v.ldc = s.ldc;
  v.mode = "native";
  v.engine = library_of(fn);
  v.why = forwarded_why(s, is_double, declined_status);
  v.seconds = seconds;
  return v;
}

void verbose_forwarded(const GemmShape& s, bool row_major, bool is_double, double alpha, double beta, const void* fn,
                       int declined_status, double seconds) {
  api::VerboseCall v = forwarded_call(s, row_major, is_double, fn, declined_status, seconds);
  v.alpha = alpha;
  v.beta = beta;
  api::verbose_line(v);
}

void verbose_rejected(bool is_double, bool row_major, char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k,
                      std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta,
                      int fortran_info) {
  api::VerboseCall v;
  v.is_double = is_double;
  v.row_major = row_major;
  v.ta = ta;
  v.tb = tb;
  v.m = m, v.n = n, v.k = k, v.lda = lda, v.ldb = ldb, v.ldc = ldc;
  v.alpha = alpha;
  v.beta = beta;
  v.mode = "-";
  v.engine = "-";
  switch (fortran_info) {
    case 0:
      v.status = BF16X_ERR_LAYOUT;
      break;
    case 1:
      v.status = BF16X_ERR_TRANS_A;
      break;
    case 2:
      v.status = BF16X_ERR_TRANS_B;
      break;
    case 3:
      v.status = BF16X_ERR_M;
      break;
    case 4:
      v.status = BF16X_ERR_N;
      break;
    case 5:
      v.status = BF16X_ERR_K;
      break;
    case 8:
      v.status = BF16X_ERR_LDA;
      break;
    case 10:
      v.status = BF16X_ERR_LDB;
      break;
    default:
      v.status = BF16X_ERR_LDC;
      break;
  }
  api::verbose_line(v);
}

void no_next_definition(const char* name) {
  std::fprintf(stderr, "bf16x_blas: no host %s to run this call natively; aborting rather than leaving C unset\n",
               name);
  std::abort();
}

}  // namespace bf16x::blas
