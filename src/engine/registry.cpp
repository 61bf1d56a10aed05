#include "engine/registry.hpp"

#include "bf16x/bf16x.h"

namespace bf16x::engine {
namespace {

// Each engine's next step down when it cannot run.
int fallback_of(int id) {
  switch (id) {
    case BF16X_ENGINE_AMX:
      return BF16X_ENGINE_AVX512BF16;
    case BF16X_ENGINE_AMX_MODEL:
      return BF16X_ENGINE_REFERENCE;
    case BF16X_ENGINE_AVX512BF16:
      return BF16X_ENGINE_AVX2;
    case BF16X_ENGINE_AVX2:
      return BF16X_ENGINE_REFERENCE;
    default:
      return -1;
  }
}

}  // namespace

const EngineInfo* engine_info(int id) {
  switch (id) {
    case BF16X_ENGINE_REFERENCE:
      return &reference_engine();
    case BF16X_ENGINE_AVX512BF16:
      return &avx512bf16_engine();
    case BF16X_ENGINE_AVX2:
      return &avx2_engine();
    case BF16X_ENGINE_AMX:
      return &amx_engine();
    case BF16X_ENGINE_AMX_MODEL:
      return &amx_model_engine();
    default:
      return nullptr;
  }
}

bool engine_usable(int id) {
  const EngineInfo* e = engine_info(id);
  return e && e->kernel && e->available();
}

int best_usable(int want) {
  int id = want;
  while (id > 0 && !engine_usable(id)) id = fallback_of(id);
  return id > 0 ? id : int(BF16X_ENGINE_REFERENCE);
}

}  // namespace bf16x::engine
