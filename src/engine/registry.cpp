#include "engine/registry.hpp"

#include <string>

#include "api/env.hpp"
#include "api/runtime.hpp"
#include "bf16x/bf16x.h"
#include "env/env_vars.hpp"

namespace bf16x::engine {
namespace {

// Each engine's next step down when it cannot run.
int fallback_of(int id) {
  switch (id) {
    case BF16X_ENGINE_AMX: return BF16X_ENGINE_AVX512BF16;
    case BF16X_ENGINE_AMX_MODEL: return BF16X_ENGINE_REFERENCE;
    case BF16X_ENGINE_AVX512BF16: return BF16X_ENGINE_AVX2;
    case BF16X_ENGINE_AVX2: return BF16X_ENGINE_REFERENCE;
    default: return -1;
  }
}

int auto_engine() {
  static const int chosen = [] {
    const api::Env& e = api::env();
    const int want = e.engine_set ? e.engine : int(BF16X_ENGINE_AMX);
    int id = want;
    while (id > 0 && !engine_usable(id)) id = fallback_of(id);
    if (id <= 0) id = BF16X_ENGINE_REFERENCE;
    // An engine the user named but this CPU cannot run: said once per process, whatever the verbosity.
    if (e.engine_set && id != want)
      envvar::warn(std::string("BF16X_ENGINE=") + bf16x_engine_name(want) + " is not available on this CPU; using " +
                   bf16x_engine_name(id));
    return id;
  }();
  return chosen;
}

}  // namespace

const EngineInfo* engine_info(int id) {
  switch (id) {
    case BF16X_ENGINE_REFERENCE: return &reference_engine();
    case BF16X_ENGINE_AVX512BF16: return &avx512bf16_engine();
    case BF16X_ENGINE_AVX2: return &avx2_engine();
    case BF16X_ENGINE_AMX: return &amx_engine();
    case BF16X_ENGINE_AMX_MODEL: return &amx_model_engine();
    default: return nullptr;
  }
}

bool engine_usable(int id) {
  const EngineInfo* e = engine_info(id);
  return e && e->kernel && e->available();
}

int resolve_engine(int requested) {
  if (requested == BF16X_ENGINE_AUTO) {
    // bf16x_set_engine (checked usable when set) before BF16X_ENGINE and the best available.
    const int rt = api::runtime_engine();
    return rt != BF16X_ENGINE_AUTO && engine_usable(rt) ? rt : auto_engine();
  }
  return engine_usable(requested) ? requested : -1;
}

}  // namespace bf16x::engine
