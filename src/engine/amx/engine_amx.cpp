// Placeholder until the AMX micro-kernel lands: reports both AMX engines unavailable.
#include "engine/engine.hpp"

namespace bf16x::engine {
namespace {
bool never() { return false; }
}  // namespace
const EngineInfo& amx_engine() {
  static const EngineInfo info{"amx", nullptr, never};
  return info;
}
const EngineInfo& amx_model_engine() {
  static const EngineInfo info{"amx-model", nullptr, never};
  return info;
}
}  // namespace bf16x::engine
