#include "blas/dispatch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

#include "bf16x/bf16x.h"
#include "blas/next_blas.hpp"
#include "engine/records.hpp"
#include "planner/call_plan.hpp"
#include "report/verbose.hpp"
#include "report/verbose_hub.hpp"
#include "settings/env.hpp"
#include "settings/runtime.hpp"

namespace bf16x::blas {
namespace {

// ",key=value" of a forwarded call's verbose line: why it ran native (empty if it was asked to), in the library's
// words: the library declined it, BF16X_MIN_SIZE, or auto's cost model.
std::string forwarded_why(const GemmShape& s, bool is_double, int declined_status) {
  char why[96] = "";
  const int requested = settings::effective_mode(is_double);
  if (declined_status != BF16X_OK)
    std::snprintf(why, sizeof why, ",fallback=%s", bf16x_status_string(declined_status));
  else if (requested != BF16X_MODE_NATIVE && std::min({s.m, s.n, s.k}) < settings::env().min_size)
    std::snprintf(why, sizeof why, ",min_size=%lld", (long long)settings::env().min_size);
  else if (requested == BF16X_MODE_AUTO)
    std::snprintf(why, sizeof why, ",auto=cost_model");
  return why;
}

// The status text of a rejected call: "lda too small (argument 9)" numbers the C API's arguments; keep what is
// wrong, number it as the error report does.
std::string reported_status(int status, const ReportedArgument& reported) {
  std::string what = bf16x_status_string(status);
  if (const auto paren = what.rfind(" (argument "); paren != std::string::npos) what.resize(paren);
  return what + " (" + reported.routine + " argument " + std::to_string(reported.number) + ")";
}

// A level-3 line's routine, character arguments, sizes and flops as the library's own lines give them
// (api/level3_entry.cpp): SYR2K/HER2K as the GEMM of inner dimension 2k, TRMM/TRSM with B as the output.
void level3_line(report::VerboseCall& v, const Level3Spec& r, const Level3Shape& s) {
  const auto flags = [](std::initializer_list<char> cs) {
    std::string f;
    for (const char c : cs) f += (f.empty() ? "" : ",") + std::string(1, c ? c : '?');
    return f;
  };
  v.routine = r.name;
  double flops = 0;
  switch (r.family) {
    case Family::Rank: {
      const bool two = two_products(r);
      v.flags = flags({s.uplo, s.trans});
      v.m = s.n, v.n = s.n, v.k = two ? 2 * s.k : s.k, v.lda = s.lda, v.ldb = two ? s.ldb : 0, v.ldc = s.ldc;
      flops = (two ? 2.0 : 1.0) * double(s.n) * double(s.n) * double(s.k);
      break;
    }
    case Family::Symmetric:
      v.flags = flags({s.side, s.uplo});
      v.m = s.m, v.n = s.n, v.k = s.side == 'L' ? s.m : s.n, v.lda = s.lda, v.ldb = s.ldb, v.ldc = s.ldc;
      flops = 2.0 * double(v.m) * double(v.n) * double(v.k);
      break;
    case Family::Triangular:
      v.flags = flags({s.side, s.uplo, s.trans, s.diag});
      v.m = s.m, v.n = s.n, v.k = s.side == 'L' ? s.m : s.n, v.lda = s.lda, v.ldb = s.ldb, v.ldc = s.ldb;
      flops = double(v.m) * double(v.n) * double(v.k);
      break;
    case Family::Gemmt:
      v.flags = flags({s.uplo, s.trans, s.transb});
      v.m = s.n, v.n = s.n, v.k = s.k, v.lda = s.lda, v.ldb = s.ldb, v.ldc = s.ldc;
      flops = double(s.n) * double(s.n) * double(s.k);
      break;
  }
  v.flops = flops * (v.is_complex ? 4 : 1);
}

// The status of a level-3 call refused for argument `bad`.
int level3_status(Arg bad) {
  constexpr std::pair<Arg, int> kStatus[] = {{Arg::Layout, BF16X_ERR_LAYOUT},
                                             {Arg::Side, BF16X_ERR_SIDE},
                                             {Arg::Uplo, BF16X_ERR_UPLO},
                                             {Arg::Trans, BF16X_ERR_TRANS_A},
                                             {Arg::TransB, BF16X_ERR_TRANS_B},
                                             {Arg::Diag, BF16X_ERR_DIAG},
                                             {Arg::M, BF16X_ERR_M},
                                             {Arg::N, BF16X_ERR_N},
                                             {Arg::K, BF16X_ERR_K},
                                             {Arg::Lda, BF16X_ERR_LDA},
                                             {Arg::Ldb, BF16X_ERR_LDB}};
  for (const auto& [a, status] : kStatus)
    if (a == bad) return status;
  return BF16X_ERR_LDC;
}

}  // namespace

int emulation_mode(const GemmShape& s, bool is_double) {
  bf16x_options o;
  bf16x_options_init(&o);
  return planner::plan_call(o, is_double, s.m, s.n, s.k).mode;  // the library's own plan of the call
}

bool verbose() { return report::verbose_wanted(); }

void verbose_forwarded(report::VerboseCall v, const GemmShape& s, bool row_major, const void* fn, int declined_status,
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
  report::verbose_line(v);
}

void verbose_rejected(report::VerboseCall v, bool row_major, char ta, char tb, std::int64_t m, std::int64_t n,
                      std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc, int fortran_info,
                      const ReportedArgument& reported) {
  v.row_major = row_major;
  v.ta = ta;
  v.tb = tb;
  v.m = m, v.n = n, v.k = k, v.lda = lda, v.ldb = ldb, v.ldc = ldc;
  v.mode = "-";
  v.engine = "-";
  // XGEMM's arguments, numbered as level3_status reads them (0: a bad CBLAS layout).
  constexpr Arg kGemmArgs[] = {Arg::Trans, Arg::TransB, Arg::M,   Arg::N,    Arg::K, Arg::Alpha, Arg::A,
                               Arg::Lda,   Arg::B,      Arg::Ldb, Arg::Beta, Arg::C, Arg::Ldc};
  v.status = level3_status(fortran_info == 0 ? Arg::Layout : kGemmArgs[fortran_info - 1]);
  v.status_text = reported_status(v.status, reported);
  report::verbose_line(v);
}

void verbose_level3_forwarded(report::VerboseCall v, const Level3Spec& r, const Level3LibraryCall& call, const void* fn,
                              int declined_status, double seconds) {
  level3_line(v, r, call.s);
  v.row_major = call.row_major;
  v.mode = "native";
  v.engine = library_of(fn);
  const GemmDims d = level3_gemm_dims(r, call.s);
  v.why = forwarded_why(GemmShape{'N', 'N', d.m, d.n, d.k, 1, 1, 1}, v.is_double, declined_status);
  v.seconds = seconds;
  report::verbose_line(v);
}

void verbose_level3_rejected(report::VerboseCall v, const Level3Spec& r, const Level3Shape& s, bool row_major, Arg bad,
                             const ReportedArgument& reported) {
  level3_line(v, r, s);
  v.row_major = row_major;
  v.mode = "-";
  v.engine = "-";
  v.status = level3_status(bad);
  v.status_text = reported_status(v.status, reported);
  report::verbose_line(v);
}

void no_next_definition(const char* name) {
  std::fprintf(stderr, "bf16x_blas: no host %s to run this call natively; aborting rather than leaving C unset\n",
               name);
  std::abort();
}

}  // namespace bf16x::blas

// The shim's verbose hub, for libbf16x.so in the same process to find (report/verbose_hub.hpp): one header and one
// summary per process. Exported by the shims only (exports.map), not by libbf16x.so.
extern "C" __attribute__((visibility("default"))) int bf16x_verbose_hub_v1(int op,
                                                                           const bf16x::report::SummaryRecord* record) {
  return bf16x::report::own_verbose_hub(op, record);
}
