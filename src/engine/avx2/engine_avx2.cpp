// The AVX2 engine: FP32 FMA on ymm registers, available where CPUID and XCR0 say AVX2 and FMA run. Every x86-64
// CPU of the last decade has it; it computes the reference engine's bits on every path.
#include "cpu/features.hpp"
#include "engine/avx2/kernel_avx2.hpp"
#include "engine/engine.hpp"

namespace bf16x::engine {

const EngineInfo& avx2_engine() {
  static const EngineInfo info{"avx2", avx2::kernel_avx2_32x32, cpu::has_avx2_fma, avx2::thread_begin,
                               avx2::thread_end};
  return info;
}

}  // namespace bf16x::engine
