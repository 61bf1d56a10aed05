// The AMX engines: the 32x32 tile kernel on hardware tiles (available when CPUID, XCR0 and the Linux permission
// allow) and on the software tile model (always available; BF16X_ENGINE=amx-model selects it).
#include "cpu/features.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "engine/engine.hpp"

namespace bf16x::engine {
namespace {
bool always() { return true; }
}  // namespace

const EngineInfo& amx_engine() {
  static const EngineInfo info{"amx", amx::kernel_amx_hw, cpu::amx_available, amx::hw_thread_begin, amx::hw_thread_end};
  return info;
}

const EngineInfo& amx_model_engine() {
  static const EngineInfo info{"amx-model", amx::kernel_amx_model, always, amx::model_thread_begin,
                               amx::model_thread_end};
  return info;
}

}  // namespace bf16x::engine
