// The BF16 engines and their fallback chain (amx -> avx512bf16 -> avx2 -> reference). Which one a call uses, with
// BF16X_ENGINE and bf16x_set_engine, is decided above this layer (api/engine_choice.hpp).
#pragma once
#include "engine/engine.hpp"

namespace bf16x::engine {

const EngineInfo* engine_info(int id);  // BF16X_ENGINE_* -> info, nullptr for AUTO/unknown
bool engine_usable(int id);             // available and implemented

// `want` if usable here, else the first usable engine down its fallback chain (the reference engine at the end).
int best_usable(int want);

}  // namespace bf16x::engine
