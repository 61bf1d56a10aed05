// Placeholder until the AVX512-BF16 micro-kernel lands: reports the engine unavailable.
#include "engine/engine.hpp"

namespace bf16x::engine {
namespace {
bool never() { return false; }
}  // namespace
const EngineInfo& avx512bf16_engine() {
  static const EngineInfo info{"avx512bf16", nullptr, never};
  return info;
}
}  // namespace bf16x::engine
