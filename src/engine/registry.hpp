// Engine selection: explicit request, else BF16X_ENGINE, else the best available, falling back one step at a
// time (amx -> avx512bf16 -> avx2 -> reference).
#pragma once
#include "engine/engine.hpp"

namespace bf16x::engine {

const EngineInfo* engine_info(int id);  // BF16X_ENGINE_* -> info, nullptr for AUTO/unknown
bool engine_usable(int id);             // available and implemented

// Resolves a requested engine id. AUTO consults BF16X_ENGINE (read once; an unavailable choice falls back and is
// reported in verbose mode). Returns -1 if an explicitly requested engine cannot run here.
int resolve_engine(int requested);

}  // namespace bf16x::engine
