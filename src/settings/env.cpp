#include "settings/env.hpp"

#include <unistd.h>

#include <optional>
#include <string>

#include "bf16x/bf16x.h"
#include "env/variables.hpp"
#include "settings/names.hpp"

namespace bf16x::settings {
namespace {

// A mode of this routine's precision, native or auto; a mode of the other precision is refused here, so that no
// later step can hand an FP32 scheme FP64 data or the reverse.
int mode_from_env(const envvar::Source& src, const char* var, bool is_double) {
  const int fallback = BF16X_MODE_AUTO;
  const auto v = envvar::text(src, var);
  if (!v) return fallback;
  const int m = bf16x_mode_from_name(v->c_str());
  if (m >= 0 && m != BF16X_MODE_DEFAULT && mode_fits(m, is_double)) return m;
  src.warn(std::string(var) + "=" + *v + " is not " + (is_double ? "a DGEMM" : "an SGEMM") +
           " mode (see README, Environment); using " + bf16x_mode_name(fallback));
  return fallback;
}

// BF16X_GUARD's value as a bf16x_guard (unset or refused: the default).
int guard_from(const std::optional<std::string>& v) {
  if (!v) return BF16X_GUARD_DEFAULT;
  if (v->compare("on") == 0) return BF16X_GUARD_ON;
  return v->compare("off") == 0 ? BF16X_GUARD_OFF : BF16X_GUARD_DEFAULT;
}

}  // namespace

Env parse_env(const envvar::Source& src) {
  Env r;
  r.sgemm_mode = mode_from_env(src, "BF16X_SGEMM_MODE", false);
  r.dgemm_mode = mode_from_env(src, "BF16X_DGEMM_MODE", true);
  r.min_size = envvar::integer(src, "BF16X_MIN_SIZE", INT64_MAX, "0").value_or(0);
  r.engine = BF16X_ENGINE_AUTO;
  if (const auto e = envvar::text(src, "BF16X_ENGINE")) {
    const int id = bf16x_engine_from_name(e->c_str());
    if (id >= 0) {
      r.engine = id;
      r.engine_set = id != BF16X_ENGINE_AUTO;
    } else {
      src.warn("BF16X_ENGINE=" + *e + " is not an engine name (auto, " + engine_names() + "); using auto");
    }
  }
  r.crt_engine_set = envvar::text(src, "BF16X_CRT_ENGINE").has_value();
  r.crt_engine = BF16X_ENGINE_AUTO;
  if (const auto e = envvar::choice(src, "BF16X_CRT_ENGINE", int8_engine_choices(), "the best available"))
    r.crt_engine = bf16x_engine_from_name(e->c_str());
  // A boolean for the per-call lines, or summary (the summary at exit alone) or all (both).
  if (const auto v = envvar::choice(src, "BF16X_VERBOSE",
                                    {"1", "on", "true", "yes", "0", "off", "false", "no", "summary", "all"}, "0")) {
    r.verbose = *v == "all" || envvar::parse_boolean(v->c_str()).value_or(false);
    r.summary = *v == "summary" || *v == "all";
  }
  r.split = envvar::choice(src, "BF16X_SPLIT", {"scaled", "paper"}, "scaled").value_or("scaled") == "paper"
                ? BF16X_SPLIT_PAPER
                : BF16X_SPLIT_SCALED;
  r.auto_target = envvar::positive(src, "BF16X_AUTO_TARGET", "the native GEMM's bound").value_or(0);
  r.auto_cost = envvar::boolean(src, "BF16X_AUTO_COST", "on").value_or(true);
  r.complex_method = envvar::choice(src, "BF16X_COMPLEX_METHOD", {"4m", "3m"}, "4m").value_or("4m") == "3m"
                         ? BF16X_COMPLEX_3M
                         : BF16X_COMPLEX_4M;
  r.crt_fast_scaling =
      envvar::choice(src, "BF16X_CRT_SCALING", {"accurate", "fast"}, "accurate").value_or("accurate") == "fast";
  r.guard = guard_from(envvar::choice(src, "BF16X_GUARD", {"default", "on", "off"}, "default"));
  r.num_threads = int(envvar::integer(src, "BF16X_NUM_THREADS", BF16X_MAX_THREADS, "OpenMP's default").value_or(0));
  return r;
}

void warn_unknown_variables() {
  if (envvar::secure_execution()) return;  // nothing of the environment is read there
  for (const envvar::Unknown& u : envvar::unknown_variables(environ))
    envvar::warn(u.name + " is not a bf16x variable" + (u.nearest.empty() ? "" : "; did you mean " + u.nearest + "?") +
                 " (ignored; README, Environment)");
}

Env process_env() {
  const Env r = parse_env(envvar::process_source());
  warn_unknown_variables();  // a misspelt name would otherwise pass silently, as a refused value does not
  return r;
}

}  // namespace bf16x::settings
