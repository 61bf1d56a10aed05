#include "engine/records.hpp"

#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "engine/avx2/kernel_avx2.hpp"
#include "engine/avx512bf16/kernel_avx512bf16.hpp"

namespace bf16x::engine {
namespace {

bool always() { return true; }

// Rates: measured where the engine runs (docs/performance.md; AMX by scripts/device-amx on an AMX Xeon).
constexpr Record kRecords[] = {
    // TDPBF16PS peaks at 2048 flop/cycle (16x16x32 in 16 cycles), TDPBSSD at 2048 op/cycle (16x16x64). Measured
    // on an AMX Xeon, one core, n = 1024-4096 (bf16x bench: products x 2n^3 / the products phase, in units of the
    // host's cycle = native GEMM time x 32 FP64 or 64 FP32 flop): FP64 path 181-194 flop/cycle (fp64x6, fp64x21;
    // 6x the host FP64 rate), FP32 path 474-556 (fp32x6), INT8 500-660 op/cycle (fp64c15). docs/performance.md,
    // "Measured on AMX hardware".
    {.id = BF16X_ENGINE_AMX,
     .name = "amx",
     .bf16 = {amx::kernel_amx_hw, cpu::amx_available, amx::hw_thread_begin, amx::hw_thread_end},
     .int8 = {int8::kernel_amx_hw, cpu::has_amx_int8, amx::hw_thread_begin, amx::hw_thread_end, int8::part_amx_hw},
     .rates = {.fp64_path = 190, .fp32_path = 500, .int8 = 512},
     .isa = true,
     .carries_crt = true},
    // VDPBF16PS peaks at 64 flop per instruction; measured with reconstruction (fp64x6 and fp32x6 compute time,
    // N = 1024, one core) about 21 flop/cycle.
    {.id = BF16X_ENGINE_AVX512BF16,
     .name = "avx512bf16",
     .bf16 = {avx512bf16::kernel_avx512bf16_32x32, cpu::has_avx512bf16},
     .rates = {.fp64_path = 24, .fp32_path = 24},
     .isa = true},
    // VPDPBUSD: 64 multiply-adds per instruction. Measured: fp64c15 compute time at N = 1024 on two Zen 4 cores, 16
    // INT8 GEMMs (bound included) in 99 ms, about 56 op/cycle per core with packing and CRT included.
    {.id = BF16X_ENGINE_AVX512VNNI,
     .name = "avx512vnni",
     .int8 = {int8::kernel_avx512vnni, cpu::has_avx512vnni, nullptr, nullptr, int8::part_avx512vnni},
     .rates = {.int8 = 56},
     .isa = true},
    // One FP32 FMA per BF16 product: 32 flop/cycle on two 256-bit FMA pipes; measured in the raw GEMM and with
    // reconstruction (docs/performance.md) about 24.
    {.id = BF16X_ENGINE_AVX2,
     .name = "avx2",
     .bf16 = {avx2::kernel_avx2_32x32, cpu::has_avx2_fma, avx2::thread_begin, avx2::thread_end},
     .rates = {.fp64_path = 24, .fp32_path = 24},
     .isa = true,
     .sums = cpu::Level::avx2},
    // VPMADDWD on sign-extended bytes: the kernel alone reaches a quarter of the VNNI kernel's rate.
    {.id = BF16X_ENGINE_AVX2_INT8,
     .name = "avx2-int8",
     .int8 = {int8::kernel_avx2, cpu::has_avx2_fma, nullptr, nullptr, int8::part_avx2},
     .rates = {.int8 = 14},
     .isa = true},
    // Scalar loops: about one FMA per cycle.
    {.id = BF16X_ENGINE_REFERENCE,
     .name = "reference",
     .bf16 = {kernel_reference, always},
     .int8 = {int8::kernel_reference, always, nullptr, nullptr, int8::part_reference},
     .rates = {.fp64_path = 2, .fp32_path = 2, .int8 = 2},
     .carries_crt = true,
     .sums = cpu::Level::generic},
    // The AMX kernels on the software tile model.
    {.id = BF16X_ENGINE_AMX_MODEL,
     .name = "amx-model",
     .bf16 = {amx::kernel_amx_model, always, amx::model_thread_begin, amx::model_thread_end},
     .int8 = {int8::kernel_amx_model, always, nullptr, int8::amx_model_thread_end, int8::part_amx_model},
     .rates = {.fp64_path = 0.1, .fp32_path = 0.1, .int8 = 0.1},
     .carries_crt = true},
};

const Record* index_of(int id, std::size_t& at) {
  for (at = 0; at < records().size; ++at)
    if (kRecords[at].id == id) return &kRecords[at];
  return nullptr;
}

}  // namespace

const Table& records() {
  static const Table t{kRecords, sizeof kRecords / sizeof kRecords[0]};
  return t;
}

const Record* record(int id) {
  std::size_t at;
  return index_of(id, at);
}

const EngineInfo* engine_info(int id) {
  const Record* r = record(id);
  return r && r->bf16.kernel ? &r->bf16 : nullptr;
}

const int8::Engine* int8_engine(int id) {
  const Record* r = record(id);
  return r && r->int8.kernel ? &r->int8 : nullptr;
}

cpu::Level sums_level(int id) {
  const Record* r = record(id);
  return r ? r->sums : cpu::Level::avx512;
}

bool engine_usable(int id) {
  const Record* r = record(id);
  return r && r->bf16.kernel && r->bf16_tile == kBf16Packed && r->bf16.available();
}

bool int8_usable(int id) {
  const Record* r = record(id);
  return r && r->int8.kernel && r->int8_tile == kInt8Packed && r->int8.available();
}

int best_usable(int want) {
  if (engine_usable(want)) return want;
  std::size_t at;
  if (engine_info(want) && index_of(want, at))
    for (++at; at < records().size; ++at)
      if (kRecords[at].isa && engine_usable(kRecords[at].id)) return kRecords[at].id;
  return BF16X_ENGINE_REFERENCE;
}

int best_int8() {
  for (const Record& r : records())
    if (r.isa && int8_usable(r.id)) return r.id;
  return BF16X_ENGINE_REFERENCE;
}

}  // namespace bf16x::engine
