#include "api/engine_choice.hpp"

#include <string>

#include "api/env.hpp"
#include "api/runtime.hpp"
#include "bf16x/bf16x.h"
#include "engine/registry.hpp"
#include "env/env_vars.hpp"

namespace bf16x::api {
namespace {

int auto_engine() {
  static const int chosen = [] {
    const Env& e = env();
    const int want = e.engine_set ? e.engine : int(BF16X_ENGINE_AMX);
    const int id = engine::best_usable(want);
    // An engine the user named but this CPU cannot run: said once per process, whatever the verbosity.
    if (e.engine_set && id != want)
      envvar::warn(std::string("BF16X_ENGINE=") + bf16x_engine_name(want) + " is not available on this CPU; using " +
                   bf16x_engine_name(id));
    return id;
  }();
  return chosen;
}

}  // namespace

int resolve_engine(int requested) {
  if (requested == BF16X_ENGINE_AUTO) {
    // bf16x_set_engine (checked usable when set) before BF16X_ENGINE and the best available.
    const int rt = runtime_engine();
    return rt != BF16X_ENGINE_AUTO && engine::engine_usable(rt) ? rt : auto_engine();
  }
  return engine::engine_usable(requested) ? requested : -1;
}

}  // namespace bf16x::api
