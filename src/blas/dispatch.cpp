#include "blas/dispatch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/call_plan.hpp"
#include "api/env.hpp"
#include "api/runtime.hpp"
#include "api/verbose.hpp"
#include "api/verbose_hub.hpp"
#include "bf16x/bf16x.h"
#include "blas/next_blas.hpp"
#include "engine/records.hpp"

namespace bf16x::blas {
namespace {

// ",key=value" of a forwarded call's verbose line: why it ran native (empty if it was asked to), in the library's
// words: the library declined it, BF16X_MIN_SIZE, or auto's cost model.
std::string forwarded_why(const GemmShape& s, bool is_double, int declined_status) {
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

}  // namespace

int emulation_mode(const GemmShape& s, bool is_double) {
  bf16x_options o;
  bf16x_options_init(&o);
  return api::plan_call(o, is_double, s.m, s.n, s.k).mode;  // the library's own plan of the call
}

bool verbose() { return api::verbose_wanted(); }

void verbose_forwarded(api::VerboseCall v, const GemmShape& s, bool row_major, const void* fn, int declined_status,
                       double seconds) {
  // The call as the caller made it: a row-major one with A, B, m, n back in place (as the library's own lines).
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
  v.why = forwarded_why(s, v.is_double, declined_status);
  v.seconds = seconds;
  api::verbose_line(v);
}

void verbose_rejected(api::VerboseCall v, bool row_major, char ta, char tb, std::int64_t m, std::int64_t n,
                      std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc, int fortran_info,
                      const ReportedArgument& reported) {
  v.row_major = row_major;
  v.ta = ta;
  v.tb = tb;
  v.m = m, v.n = n, v.k = k, v.lda = lda, v.ldb = ldb, v.ldc = ldc;
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
  // "lda too small (argument 9)" numbers the C API's arguments: keep what is wrong, number it as the report does.
  std::string what = bf16x_status_string(v.status);
  if (const auto paren = what.rfind(" (argument "); paren != std::string::npos) what.resize(paren);
  v.status_text = what + " (" + reported.routine + " argument " + std::to_string(reported.number) + ")";
  api::verbose_line(v);
}

void no_next_definition(const char* name) {
  std::fprintf(stderr, "bf16x_blas: no host %s to run this call natively; aborting rather than leaving C unset\n",
               name);
  std::abort();
}

}  // namespace bf16x::blas

// The shim's verbose hub, for libbf16x.so in the same process to find (api/verbose_hub.hpp): one header and one
// summary per process. Exported by the shims only (exports.map), not by libbf16x.so.
extern "C" __attribute__((visibility("default"))) int bf16x_verbose_hub_v1(int op,
                                                                           const bf16x::api::SummaryRecord* record) {
  return bf16x::api::own_verbose_hub(op, record);
}
