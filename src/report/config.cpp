// bf16x_version and bf16x_get_config: what a user pastes into a bug report, and what the verbose header prints.
#include "report/config.hpp"

#include <omp.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "host/host_blas.hpp"
#include "settings/env.hpp"
#include "settings/names.hpp"
#include "settings/runtime.hpp"

namespace bf16x::report {

using settings::current_settings;
using settings::effective_auto_target;
using settings::engine_name_list;
using settings::env;
using settings::runtime_threads;
using settings::Settings;

std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string config_text() {
  std::string s;
  auto line = [&s](const std::string& k, const std::string& v) { s += k + ": " + v + "\n"; };
  line("version", bf16x_version());
  line("cpu", cpu_model_name());
  std::string isa;
  for (const auto& [has, name] :
       {std::pair{cpu::has_avx2_fma(), "avx2+fma"}, std::pair{cpu::has_avx512bf16(), "avx512bf16"},
        std::pair{cpu::amx_available(), "amx-bf16"}})
    if (has) {
      if (!isa.empty()) isa += ' ';
      isa += name;
    }
  line("isa", isa.empty() ? "x86-64 baseline" : isa);
  if (!cpu::amx_available())
    line("amx", std::string("unavailable (") + cpu::amx_unavailable_reason() + " check failed)");
  std::string engines;
  for (const std::string& e : engine_name_list())
    if (bf16x_engine_available(bf16x_engine_from_name(e.c_str()))) engines += (engines.empty() ? "" : " ") + e;
  line("engines available", engines);
  line("engine selected", bf16x_engine_name(bf16x_engine_selected()));
  line("host blas", *host::library_name() ? host::library_name() : "(none found)");
  line("host kernel", *host::core_name() ? host::core_name() : "(not OpenBLAS)");
  const char* threads_from = runtime_threads() > 0   ? " (bf16x_set_num_threads)"
                             : env().num_threads > 0 ? " (BF16X_NUM_THREADS)"
                                                     : "";
  line("threads", std::to_string(bf16x_get_num_threads()) + threads_from);
  line("sgemm mode", bf16x_mode_name(bf16x_get_sgemm_mode()));
  line("dgemm mode", bf16x_mode_name(bf16x_get_dgemm_mode()));
  // What else decides how a call runs (README "Environment"): a bug report needs these as much as the engine.
  const Settings set = current_settings();
  const int crt = bf16x_get_crt_engine();
  line("crt engine selected", crt >= 0 && bf16x_engine_name(crt) ? bf16x_engine_name(crt) : "none");
  const auto from = [](const char* var, bool set_here) { return set_here ? std::string(" (") + var + ")" : ""; };
  line("guard", std::string(set.guard == BF16X_GUARD_ON    ? "on"
                            : set.guard == BF16X_GUARD_OFF ? "off"
                                                           : "default") +
                    from("BF16X_GUARD", env().guard != BF16X_GUARD_DEFAULT) +
                    (set.guard == BF16X_GUARD_ON    ? ": every fixed-point mode"
                     : set.guard == BF16X_GUARD_OFF ? ": none, the raw modes' normwise bounds"
                                                    : ": fp64x21, fp64c15..20, fp32c8..10, auto"));
  line("min size", set.min_size > 0 ? std::to_string(set.min_size) + " (BF16X_MIN_SIZE: smaller calls run native)"
                                    : "0 (no call runs native for its size)");
  char target[64];
  std::snprintf(target, sizeof target, "%g", set.auto_target);
  line("auto target", set.auto_target > 0 ? std::string(target) + (effective_auto_target() == env().auto_target
                                                                       ? " (BF16X_AUTO_TARGET)"
                                                                       : " (bf16x_set_auto_target)")
                                          : "the native GEMM's bound k u");
  line("auto cost model", set.auto_cost ? "on" : "off (BF16X_AUTO_COST)");
  line("complex method", std::string(set.complex_method == BF16X_COMPLEX_3M ? "3m" : "4m") +
                             from("BF16X_COMPLEX_METHOD", set.complex_method == BF16X_COMPLEX_3M));
  line("split", set.split == BF16X_SPLIT_PAPER ? "paper (BF16X_SPLIT)" : "scaled");
  line("crt scaling", set.crt_fast_scaling ? "fast (BF16X_CRT_SCALING)" : "accurate");
  const engine::amx::Schedule amx = engine::amx::schedule();
  line("amx kernel schedule",
       std::string(engine::amx::schedule_name(amx)) + from("BF16X_AMX_KERNEL", amx != engine::amx::Schedule::plain));
  return s;
}

}  // namespace bf16x::report

extern "C" {

const char* bf16x_version(void) { return BF16X_VERSION_STRING; }

const char* bf16x_get_config(void) {
  thread_local std::string text;
  text = bf16x::report::config_text();
  return text.c_str();
}

}  // extern "C"
