// The AVX512-BF16 engine: VDPBF16PS on zmm registers, available where CPUID and XCR0 say AVX512-BF16 runs.
#include "cpu/features.hpp"
#include "engine/avx512bf16/kernel_avx512bf16.hpp"
#include "engine/engine.hpp"

namespace bf16x::engine {

const EngineInfo& avx512bf16_engine() {
  static const EngineInfo info{"avx512bf16", avx512bf16::kernel_avx512bf16_32x32, cpu::has_avx512bf16};
  return info;
}

}  // namespace bf16x::engine
