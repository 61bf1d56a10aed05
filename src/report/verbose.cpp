#include "report/verbose.hpp"

#include <cstdio>
#include <mutex>
#include <string>

#include "bf16x/bf16x.h"
#include "engine/records.hpp"
#include "env/env_vars.hpp"
#include "host/host_blas.hpp"
#include "report/config.hpp"
#include "report/verbose_hub.hpp"
#include "settings/env.hpp"
#include "settings/names.hpp"
#include "settings/runtime.hpp"

namespace bf16x::report {

using settings::effective_verbose;
using settings::engine_name_list;
using settings::env;

namespace {

std::string header() {
  std::string isa;
  for (const std::string& e : engine_name_list()) {
    const int id = bf16x_engine_from_name(e.c_str());
    if (engine::record(id)->isa && bf16x_engine_available(id)) isa += (isa.empty() ? "" : "+") + e;
  }
  const char* kernel = host::core_name();
  return std::string("BF16X_VERBOSE,header,version=") + bf16x_version() +
         ",engine=" + bf16x_engine_name(bf16x_engine_selected()) + ",isa=" + (isa.empty() ? "scalar" : isa) +
         ",host=" + host::library_name() + ",kernel=" + (*kernel ? kernel : "-") +
         ",threads=" + std::to_string(bf16x_get_num_threads()) + ",cpu=\"" + cpu_model_name() + "\"\n";
}

// The call as the summary counts it: 2mnk flops (8mnk for cgemm/zgemm, four real products), none if rejected.
void summary_record(const VerboseCall& c) {
  const double gemm_flops = 2.0 * double(c.m) * double(c.n) * double(c.k) * (c.is_complex ? 4 : 1);
  const double flops = c.status != 0 ? 0.0 : c.flops >= 0 ? c.flops : gemm_flops;
  const std::string routine = std::string(1, routine_letter(c)) + c.routine;
  verbose_hub_record({routine.c_str(), c.mode.c_str(), c.engine.c_str(), flops, c.seconds, double(c.repaired),
                      2.0 * double(c.repaired) * double(c.k)});
}

}  // namespace

bool verbose_wanted() { return effective_verbose() || env().summary; }

void verbose_line(const VerboseCall& c) {
  if (env().summary) summary_record(c);
  if (!effective_verbose()) return;
  static std::once_flag once;
  std::FILE* out = verbose_sink();
  // One header per process, also where two bf16x instances write lines (the shim and libbf16x.so).
  std::call_once(once, [out] {
    if (verbose_hub_claim_header()) std::fputs(header().c_str(), out);
  });
  char line[768], alpha_im[40] = "", beta_im[40] = "";
  if (c.is_complex) {
    std::snprintf(alpha_im, sizeof alpha_im, ",alpha_im=%.17g", c.alpha_im);
    std::snprintf(beta_im, sizeof beta_im, ",beta_im=%.17g", c.beta_im);
  }
  const char prefix = routine_letter(c);
  const std::string flags = c.flags.empty() ? std::string{c.ta, ',', c.tb} : c.flags;
  std::snprintf(line, sizeof line,
                "BF16X_VERBOSE,%c%s,%s,%lld,%lld,%lld,mode=%s,engine=%s%s,layout=%s,alpha=%.17g%s,lda=%lld,"
                "ldb=%lld,beta=%.17g%s,ldc=%lld,threads=%s,status=%s,time_ms=%.3f\n",
                prefix, c.routine, flags.c_str(), (long long)c.m, (long long)c.n, (long long)c.k, c.mode.c_str(),
                c.engine.c_str(), c.why.c_str(), c.row_major ? "row" : "col", c.alpha, alpha_im, (long long)c.lda,
                (long long)c.ldb, c.beta, beta_im, (long long)c.ldc,
                c.threads >= 0 ? std::to_string(c.threads).c_str() : "host",
                c.status == 0           ? "ok"
                : c.status_text.empty() ? bf16x_status_string(c.status)
                                        : c.status_text.c_str(),
                c.seconds * 1e3);
  std::fputs(line, out);
}

}  // namespace bf16x::report
