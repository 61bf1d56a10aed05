#include "engine/registry.hpp"

#include <cstdio>
#include <cstdlib>

#include "api/env.hpp"
#include "bf16x/bf16x.h"

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
    int want = BF16X_ENGINE_AMX;
    const char* env = api::env().engine;
    if (env && *env) {
      const int e = bf16x_engine_from_name(env);
      if (e > 0) want = e;
      else if (api::env().verbose) std::fprintf(stderr, "bf16x: BF16X_ENGINE=%s not recognised, using auto\n", env);
    }
    int id = want;
    while (id > 0 && !engine_usable(id)) {
      const int next = fallback_of(id);
      if (api::env().verbose && env && *env)
        std::fprintf(stderr, "bf16x: engine %s unavailable here, falling back to %s\n", bf16x_engine_name(id),
                     bf16x_engine_name(next));
      id = next;
    }
    return id > 0 ? id : int(BF16X_ENGINE_REFERENCE);
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
  if (requested == BF16X_ENGINE_AUTO) return auto_engine();
  return engine_usable(requested) ? requested : -1;
}

}  // namespace bf16x::engine
