#include "policy/cost_model.hpp"

#include <cmath>

#include "bf16x/bf16x.h"
#include "crt/crt_driver.hpp"
#include "crt/direct_products.hpp"
#include "engine/int8_kernel.hpp"
#include "engine/records.hpp"
#include "mode/records.hpp"
#include "pack/layout.hpp"
#include "split/scheme.hpp"

namespace bf16x::policy {
namespace {

// Host BLAS per core: two 512-bit FMA ports, as on every CPU that has AMX.
constexpr double kHostFp64FlopsPerCycle = 32;
constexpr double kHostFp32FlopsPerCycle = 64;

// Scan, split and pack, per operand element and slice: the scan, pack and write phases of fp64x6 and fp32x6 on an
// AMX Xeon, one core, n = 1024-4096, in host cycles: 1.4-3.6 (the vectorised split; 8 before it).
constexpr double kSplitCyclesPerSlice = 3;
// The fill pass of auto (policy::measure_fill): two reads and a histogram update per element, measured at 5 to
// 10 ns per element on one 2.3 GHz core.
constexpr double kFillCyclesPerElement = 16;
// CRT modes, per modulus: the bound pass's digits and the products pass's residues, per operand element packed
// (crt::crt_packed_elements), and the CRT and scaled write per entry of C. Measured on an AMX Xeon, one core,
// fp64c15 and fp32c8 at n = 1024, 2048, 4096 (bf16x bench; docs/performance.md "Measured on AMX hardware"), in
// host-FP64 cycles (phase time x the native DGEMM rate / 32): 40-45 per packed element and 30-34 per entry at 15
// moduli, 22 and 14-16 at 8.
constexpr double kCrtPackCyclesPerModulus = 3;
constexpr double kCrtWriteCyclesPerModulus = 2, kCrtWriteCycles = 4;
// The fixed price of a call, in host cycles, measured by bench/small_calls.c (AMD Zen 4, 3.6 GHz, one thread, the
// guard off, n = 2; docs/performance.md): the host GEMM through its interface 0.27 us (about 1000 cycles); an
// emulated call's checks, plan, scans, workspace and write outside the products 0.86 us (fp64cr) to 1.1 us
// (fp64c15's direct path), about 3000-4000 cycles. A slice mode's products run on whole 32 x 32 tiles and 32-deep
// k-chunks, a CRT mode's on 64-deep ones: a small call pays for the padding (fp64x6 at n = 2: 2.4 us).
constexpr double kHostCallCycles = 1000, kEmulatedCallCycles = 3000, kCrtCallCycles = 4000;
// m x n x k on the engine's whole tiles: m and n in micro-tiles, k in the engine's chunks.
double padded_products(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t chunk) {
  return double(pack::round_up(m, pack::kTileM)) * double(pack::round_up(n, pack::kTileN)) *
         double(pack::round_up(k, chunk));
}

}  // namespace

EngineCost engine_cost(int engine) {
  const engine::Record* r = engine::record(engine);
  return r ? EngineCost{r->rates.fp64_path, r->rates.fp32_path} : EngineCost{0, 0};
}

double int8_ops_per_cycle(int int8_engine) {
  const engine::Record* r = engine::record(int8_engine);
  return r ? r->rates.int8 : 0;
}

double crt_cycles(int int8_engine, int moduli, std::int64_t m, std::int64_t n, std::int64_t k) {
  const double rate = int8_ops_per_cycle(int8_engine);
  if (!(rate > 0) || moduli <= 0) return HUGE_VAL;
  // A tiny call takes its products in integers, unpadded (crt/direct_products.hpp): its fixed price covers them.
  if (crt::direct_fits(m, n, k, moduli)) return kCrtCallCycles;
  crt::CrtConfig one_core;
  one_core.threads = 1;
  const double packed = crt::crt_packed_elements(moduli, m, n, k, crt::crt_blocking(m, n, k, one_core));
  const double tiles = padded_products(m, n, k, engine::int8::kKChunk);
  return 2.0 * tiles * (moduli + 1) / rate + packed * kCrtPackCyclesPerModulus * moduli +
         double(m) * double(n) * (kCrtWriteCyclesPerModulus * moduli + kCrtWriteCycles) + kCrtCallCycles;
}

double native_cycles(bool is_double, std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * double(m) * double(n) * double(k) / (is_double ? kHostFp64FlopsPerCycle : kHostFp32FlopsPerCycle) +
         kHostCallCycles;
}

double emulation_cycles(int engine, int mode, std::int64_t m, std::int64_t n, std::int64_t k) {
  const split::Scheme* s = split::scheme_for_mode(mode);
  const EngineCost c = engine_cost(engine);
  const bool fp64 = s && s->reconstruction == split::Reconstruction::fp64;
  const double rate = fp64 ? c.fp64_path_flops_per_cycle : c.fp32_path_flops_per_cycle;
  if (!s || !(rate > 0)) return HUGE_VAL;
  const double tiles = padded_products(m, n, k, pack::kKChunk);
  const double products = 2.0 * tiles * double(s->products.size()) / rate;
  const double prep = double(m + n) * double(k) * (s->slices * kSplitCyclesPerSlice + kFillCyclesPerElement);
  return products + prep + kEmulatedCallCycles;
}

int cheapest_mode(bool is_double) {
  for (const mode::Record& r : mode::records())  // the slice modes, fewest products first
    if (r.method == mode::Method::slices && mode::fits(r.id, is_double)) return r.id;
  return BF16X_MODE_NATIVE;
}

bool emulation_wins(int engine, int mode, std::int64_t m, std::int64_t n, std::int64_t k) {
  const bool is_double = !mode::fits(mode, false);  // (a mode without a scheme never wins: emulation_cycles)
  return emulation_cycles(engine, mode, m, n, k) < native_cycles(is_double, m, n, k);
}

}  // namespace bf16x::policy
