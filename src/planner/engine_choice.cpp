#include "planner/engine_choice.hpp"

#include <string>

#include "bf16x/bf16x.h"
#include "engine/records.hpp"
#include "env/env_vars.hpp"
#include "settings/env.hpp"
#include "settings/runtime.hpp"

namespace bf16x::planner {

using settings::Env;
using settings::env;

namespace {

int auto_engine() {
  static const int chosen = [] {
    const Env& e = env();
    // BF16X_ENGINE=avx2-int8 (an INT8 engine) names the CRT modes' engine: the slice modes keep the best BF16 one.
    const bool bf16_named = e.engine_set && !int8_only(e.engine);
    const int want = bf16_named ? e.engine : int(BF16X_ENGINE_AMX);
    const int id = engine::best_usable(want);
    // An engine the user named but this CPU cannot run: said once per process, whatever the verbosity.
    if (bf16_named && id != want)
      envvar::warn(std::string("BF16X_ENGINE=") + bf16x_engine_name(want) + " is not available on this CPU; using " +
                   bf16x_engine_name(id));
    return id;
  }();
  return chosen;
}

// The process's INT8 engine beside a BF16 engine: BF16X_CRT_ENGINE if this CPU runs it (else said once), else the
// best available.
int process_crt_engine() {
  static const int chosen = [] {
    const Env& e = env();
    if (e.crt_engine != BF16X_ENGINE_AUTO) {
      if (engine::int8_usable(e.crt_engine)) return e.crt_engine;
      envvar::warn(std::string("BF16X_CRT_ENGINE=") + bf16x_engine_name(e.crt_engine) +
                   " is not available on this CPU; using the best available");
    }
    return engine::best_int8();
  }();
  return chosen;
}

// The process's INT8 engine for a CRT call that names none: an INT8-only BF16X_ENGINE where BF16X_CRT_ENGINE is
// unset and this CPU runs it, else process_crt_engine().
int process_crt_engine_named() {
  static const int chosen = [] {
    const Env& e = env();
    if (e.engine_set && int8_only(e.engine) && !e.crt_engine_set && engine::int8_usable(e.engine)) return e.engine;
    return process_crt_engine();
  }();
  return chosen;
}

}  // namespace

int resolve_engine(int requested, const Settings& s) {
  if (requested == BF16X_ENGINE_AUTO) {
    // bf16x_set_engine (checked usable when set) before BF16X_ENGINE and the best available.
    const int rt = s.engine;
    return rt != BF16X_ENGINE_AUTO && engine::engine_usable(rt) ? rt : auto_engine();
  }
  return engine::engine_usable(requested) ? requested : -1;
}

bool int8_only(int engine) { return !engine::engine_info(engine) && engine::int8_engine(engine); }

int crt_engine_for(int bf16_engine) {
  const engine::Record* r = engine::record(bf16_engine);
  return r && r->carries_crt && engine::int8_usable(bf16_engine) ? bf16_engine : process_crt_engine();
}

int resolve_crt_engine(int requested, const Settings& s) {
  if (requested == BF16X_ENGINE_AUTO) {
    const int rt = s.crt_engine;
    return rt != BF16X_ENGINE_AUTO && engine::int8_usable(rt) ? rt : process_crt_engine_named();
  }
  return engine::int8_usable(requested) ? requested : -1;
}

int crt_engine_for_call(int requested, int& id, const Settings& s) {
  id = -1;
  // A BF16-only engine named for a CRT mode is the wrong kind, not an unavailable one.
  if (requested != BF16X_ENGINE_AUTO && !engine::int8_engine(requested)) return BF16X_ERR_ENGINE_KIND;
  id = resolve_crt_engine(requested, s);
  return id < 0 ? BF16X_ERR_ENGINE : BF16X_OK;
}

}  // namespace bf16x::planner

// The engine settings of the C API (bf16x/bf16x_runtime.h): here, with the checks they need.
extern "C" {

int bf16x_set_engine(int engine) {
  if (!bf16x_engine_name(engine)) return BF16X_ERR_OPTIONS;
  // An INT8-only engine (avx2-int8, avx512vnni) is the CRT modes' setting; AUTO clears both.
  if (bf16x::planner::int8_only(engine)) {
    if (!bf16x::engine::int8_usable(engine)) return BF16X_ERR_ENGINE;
    bf16x::settings::set_runtime_crt_engine(engine);
    return BF16X_OK;
  }
  if (engine != BF16X_ENGINE_AUTO && !bf16x::engine::engine_usable(engine)) return BF16X_ERR_ENGINE;
  bf16x::settings::set_runtime_engine(engine);
  if (engine == BF16X_ENGINE_AUTO) bf16x::settings::set_runtime_crt_engine(engine);
  return BF16X_OK;
}

int bf16x_get_crt_engine(void) {
  return bf16x::planner::resolve_crt_engine(BF16X_ENGINE_AUTO, bf16x::settings::current_settings());
}

int bf16x_get_engine(void) { return bf16x_engine_selected(); }

int bf16x_engine_selected(void) {
  return bf16x::planner::resolve_engine(BF16X_ENGINE_AUTO, bf16x::settings::current_settings());
}

}  // extern "C"
