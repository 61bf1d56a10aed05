#include "blas/dispatch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "api/env.hpp"
#include "api/mode_policy.hpp"
#include "api/runtime.hpp"
#include "api/verbose.hpp"
#include "bf16x/bf16x.h"
#include "blas/next_blas.hpp"
#include "engine/registry.hpp"

namespace bf16x::blas {
namespace {

bf16x_transpose to_api(char t) { return t == 'N' ? BF16X_NO_TRANS : t == 'T' ? BF16X_TRANS : BF16X_CONJ_TRANS; }

int run(const GemmCall<float>& g, const bf16x_options& o) {
  const GemmShape& s = g.s;
  return bf16x_sgemm_ex(BF16X_COL_MAJOR, to_api(s.transa), to_api(s.transb), s.m, s.n, s.k, g.alpha, g.a, s.lda, g.b,
                        s.ldb, g.beta, g.c, s.ldc, &o);
}

int run(const GemmCall<double>& g, const bf16x_options& o) {
  const GemmShape& s = g.s;
  return bf16x_dgemm_ex(BF16X_COL_MAJOR, to_api(s.transa), to_api(s.transb), s.m, s.n, s.k, g.alpha, g.a, s.lda, g.b,
                        s.ldb, g.beta, g.c, s.ldc, &o);
}

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
  const int engine = engine::resolve_engine(BF16X_ENGINE_AUTO);
  return api::resolve_mode({BF16X_MODE_DEFAULT, is_double, s.m, s.n, s.k, engine, 0.0});
}

bool emulate(const GemmCall<float>& g, int mode, int* status) { return emulate_with(g, mode, status); }
bool emulate(const GemmCall<double>& g, int mode, int* status) { return emulate_with(g, mode, status); }
void native_via_library(const GemmCall<float>& g) { native_with(g, "sgemm"); }
void native_via_library(const GemmCall<double>& g) { native_with(g, "dgemm"); }

bool verbose() { return api::effective_verbose(); }

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

void verbose_forwarded(const GemmShape& s, bool is_double, double alpha, double beta, const void* fn,
                       int declined_status, double seconds) {
  api::VerboseCall v{is_double, false, s.transa, s.transb, s.m, s.n, s.k, s.lda, s.ldb, s.ldc, alpha, beta};
  v.mode = "native";
  v.engine = library_of(fn);
  v.why = forwarded_why(s, is_double, declined_status);
  v.seconds = seconds;
  api::verbose_line(v);
}

void no_next_definition(const char* name) {
  std::fprintf(stderr, "bf16x_blas: no host %s to run this call natively; aborting rather than leaving C unset\n",
               name);
  std::abort();
}

}  // namespace bf16x::blas
