// Engine microbenchmarks (Google Benchmark). Counters: GFLOPS = 2 m n k per second, BF16 products counted as two
// flops each (VDPBF16PS: 64 per instruction).
//   bf16x_microbench --benchmark_filter=Peak            VDPBF16PS issue rate vs independent chains
//   bf16x_microbench --benchmark_filter=MicroKernel     the 32x32 micro-kernel on one L1-resident k-block
//   bf16x_microbench --benchmark_filter=RawGemm         the raw BF16 GEMM on packed operands, 1 thread
//   bf16x_microbench --benchmark_filter=Amx             TDPBF16PS and TDPBSSD issue rates, then the AMX kernels (BF16,
//                                                       INT8) and the raw BF16 GEMM; MicroKernelVnni: the INT8
//                                                       kernel of the avx512vnni engine beside them
//   bf16x_microbench --benchmark_filter=Pack            the slice packer on a 2048 x 2048 operand in the driver's
//                                                       windows, 1 thread; GB_s = bytes read and written per
//                                                       second, to hold against the bench's stream copy
// MicroKernel and RawGemm run on the avx512bf16 engine, MicroKernelAvx2 and RawGemmAvx2 on the avx2 engine,
// MicroKernelAmx and RawGemmAmx on the amx engine (AMX hardware only). TDP_per_s counts TDPBF16PS (16x16x32).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "bf16x/bf16x.h"
#include "cpu/features.hpp"
#include "driver/raw_gemm.hpp"
#include "engine/amx/amx_kernels.hpp"
#include "engine/avx512bf16/kernel_avx512bf16.hpp"
#include "engine/engine.hpp"
#include "engine/int8_kernel.hpp"
#include "engine/records.hpp"
#include "pack/panels.hpp"

namespace {

using namespace bf16x;

bool skip(benchmark::State& st, int engine = BF16X_ENGINE_AVX512BF16) {
  if (engine::engine_usable(engine)) return false;
  st.SkipWithError((std::string(bf16x_engine_name(engine)) + " does not run on this CPU").c_str());
  return true;
}

void Peak(benchmark::State& st) {
  if (skip(st)) return;
  const int chains = int(st.range(0));
  std::uint64_t ins = 0;
  for (auto _ : st) ins += engine::avx512bf16::dpbf16_peak_loop(1 << 16, chains);
  st.counters["GFLOPS"] = benchmark::Counter(double(ins) * 64e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(Peak)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(12)->Arg(16)->Arg(24);

// TDPBF16PS: 16 x 16 x 32 multiply-adds each.
constexpr double kTdpFlops = 2.0 * 16 * 16 * 32;

// A tile instruction's issue loop on register tiles: `ops` (2 x its multiply-adds) per instruction, as `unit`.
void tile_peak(benchmark::State& st, std::uint64_t (*loop)(std::uint64_t), double ops, const char* unit) {
  std::uint64_t ins = 0;
  for (auto _ : st) ins += loop(1 << 14);
  st.counters[unit] = benchmark::Counter(double(ins) * ops * 1e-9, benchmark::Counter::kIsRate);
  st.counters["TDP_per_s"] = benchmark::Counter(double(ins), benchmark::Counter::kIsRate);
}

void AmxPeak(benchmark::State& st) {
  if (!skip(st, BF16X_ENGINE_AMX)) tile_peak(st, engine::amx::tdpbf16ps_peak_loop, kTdpFlops, "GFLOPS");
}
BENCHMARK(AmxPeak);

// TDPBSSD: 16 x 16 x 64 multiply-adds each (the CRT modes' product), on register tiles: the INT8 peak.
constexpr double kTdpInt8Ops = 2.0 * 16 * 16 * 64;

bool skip_int8(benchmark::State& st, int engine) {
  const engine::int8::Engine* e = engine::int8_engine(engine);
  if (e && e->available()) return false;
  st.SkipWithError((std::string(bf16x_engine_name(engine)) + " (INT8) does not run on this CPU").c_str());
  return true;
}

// The tile instructions' issue rate on this machine (per second, register operands), measured once per process:
// each AMX kernel row reports the share of it that it reaches (peak_share), the device script's question.
template <typename Loop>
double issue_rate(Loop loop) {
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t ins = loop(std::uint64_t(1) << 15);
    best = std::max(best, double(ins) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}
double amx_peak_rate(bool int8) {
  static const double bf16 = issue_rate(engine::amx::tdpbf16ps_peak_loop);
  static const double i8 = issue_rate(engine::int8::tdpbssd_peak_loop);
  return int8 ? i8 : bf16;
}

// A kernel's rate from its operations (2 x multiply-adds) over all iterations: GFLOPS (BF16) or GOPS (INT8), the
// tile instructions they make (TDP_per_s), and on the tiles, the share of the peak they reach (peak_share).
void kernel_counters(benchmark::State& st, double ops, bool int8, bool tiles) {
  const double per_tdp = int8 ? kTdpInt8Ops : kTdpFlops;
  st.counters[int8 ? "GOPS" : "GFLOPS"] = benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsRate);
  st.counters["TDP_per_s"] = benchmark::Counter(ops / per_tdp, benchmark::Counter::kIsRate);
  if (tiles)
    st.counters["peak_share"] = benchmark::Counter(ops / per_tdp / amx_peak_rate(int8), benchmark::Counter::kIsRate);
}

void AmxInt8Peak(benchmark::State& st) {
  if (!skip_int8(st, BF16X_ENGINE_AMX)) tile_peak(st, engine::int8::tdpbssd_peak_loop, kTdpInt8Ops, "GOPS");
}
BENCHMARK(AmxInt8Peak);

// The INT8 micro-kernel (the CRT modes' 32 x 32 tile, kc deep) on L1/L2-resident panels, under the kernel schedule
// of BF16X_AMX_KERNEL for the amx engine; GOPS = 2 x 32 x 32 x kc per call, TDP_per_s its TDPBSSD equivalents.
template <int Engine>
void MicroKernelInt8Of(benchmark::State& st) {
  if (skip_int8(st, Engine)) return;
  const engine::int8::Engine& e = *engine::int8_engine(Engine);
  const int kc = int(st.range(0));
  std::vector<std::int8_t> a(std::size_t(32 * kc)), b(a.size());
  std::mt19937 rng(4);
  for (auto& x : a) x = std::int8_t(int(rng() % 255) - 127);
  for (auto& x : b) x = std::int8_t(int(rng() % 255) - 127);
  alignas(64) std::int32_t c[32 * 32] = {};
  if (e.thread_begin) e.thread_begin();
  for (auto _ : st) {
    e.kernel(a.data(), b.data(), kc, c, 32);
    benchmark::ClobberMemory();
  }
  if (e.thread_end) e.thread_end();
  kernel_counters(st, 2.0 * 32 * 32 * kc * double(st.iterations()), true, Engine == BF16X_ENGINE_AMX);
}
void MicroKernelAmxInt8(benchmark::State& st) { MicroKernelInt8Of<BF16X_ENGINE_AMX>(st); }
void MicroKernelVnni(benchmark::State& st) { MicroKernelInt8Of<BF16X_ENGINE_AVX512VNNI>(st); }
BENCHMARK(MicroKernelAmxInt8)->Arg(256)->Arg(1024)->Arg(2048);
// The same kernels on the tile model (any CPU): the device script's practice run (scripts/device-amx --practice).
void MicroKernelAmxInt8Model(benchmark::State& st) { MicroKernelInt8Of<BF16X_ENGINE_AMX_MODEL>(st); }
BENCHMARK(MicroKernelAmxInt8Model)->Arg(256);
BENCHMARK(MicroKernelVnni)->Arg(256)->Arg(1024)->Arg(2048);

template <int Engine>
void MicroKernelOf(benchmark::State& st) {
  if (skip(st, Engine)) return;
  const engine::EngineInfo& e = *engine::engine_info(Engine);
  const int kb = int(st.range(0)), nprod = int(st.range(1));
  std::vector<bf16_t> a(std::size_t(32 * kb * 3)), b(a.size());
  std::mt19937 rng(1);
  for (auto& x : a) x = float_to_bf16(float(rng() % 1000) / 1000.f);
  for (auto& x : b) x = float_to_bf16(float(rng() % 1000) / 1000.f);
  const bf16_t* ap[3] = {a.data(), a.data() + 32 * kb, a.data() + 64 * kb};
  const bf16_t* bp[3] = {b.data(), b.data() + 32 * kb, b.data() + 64 * kb};
  const engine::Product prods[6] = {{1, 1}, {1, 0}, {2, 0}, {0, 0}, {0, 1}, {0, 2}};
  const engine::ProductGroup g{prods, nprod};
  std::vector<float> out(32 * 32);
  float* o = out.data();
  const engine::MicroTileArgs args{ap, bp, kb, &g, 1, &o, 32, true, nullptr};
  if (e.thread_begin) e.thread_begin();
  for (auto _ : st) {
    e.kernel(args);
    benchmark::ClobberMemory();
  }
  if (e.thread_end) e.thread_end();
  kernel_counters(st, 2.0 * 32 * 32 * kb * nprod * double(st.iterations()), false, Engine == BF16X_ENGINE_AMX);
}
void MicroKernel(benchmark::State& st) { MicroKernelOf<BF16X_ENGINE_AVX512BF16>(st); }
void MicroKernelAvx2(benchmark::State& st) { MicroKernelOf<BF16X_ENGINE_AVX2>(st); }
void MicroKernelAmx(benchmark::State& st) { MicroKernelOf<BF16X_ENGINE_AMX>(st); }
void MicroKernelAmxModel(benchmark::State& st) { MicroKernelOf<BF16X_ENGINE_AMX_MODEL>(st); }
BENCHMARK(MicroKernelAmxModel)->Args({64, 6});
BENCHMARK(MicroKernelAmx)->Args({256, 1})->Args({256, 6})->Args({64, 1})->Args({64, 6})->Args({1024, 1});
BENCHMARK(MicroKernelAvx2)->Args({256, 1})->Args({256, 6})->Args({64, 1})->Args({64, 6})->Args({32, 6});
BENCHMARK(MicroKernel)->Args({256, 1})->Args({256, 6})->Args({64, 1})->Args({64, 6})->Args({32, 6});

template <int Engine>
void RawGemmOf(benchmark::State& st) {
  if (skip(st, Engine)) return;
  omp_set_num_threads(1);
  const std::int64_t n = st.range(0);
  std::vector<bf16_t> a(std::size_t(n * n)), b(a.size());
  std::mt19937 rng(2);
  for (auto& x : a) x = float_to_bf16(float(rng() % 2001) / 1000.f - 1.f);
  for (auto& x : b) x = float_to_bf16(float(rng() % 2001) / 1000.f - 1.f);
  driver::RawPacked p;
  driver::raw_pack({a.data(), n, false}, {b.data(), n, false}, n, n, n, p);
  std::vector<float> c(std::size_t(n * n));
  for (auto _ : st) driver::raw_gemm_packed(*engine::engine_info(Engine), p, c.data(), n);
  kernel_counters(st, 2.0 * double(n) * double(n) * double(n) * double(st.iterations()), false,
                  Engine == BF16X_ENGINE_AMX);
}
void RawGemm(benchmark::State& st) { RawGemmOf<BF16X_ENGINE_AVX512BF16>(st); }
void RawGemmAvx2(benchmark::State& st) { RawGemmOf<BF16X_ENGINE_AVX2>(st); }
void RawGemmAmx(benchmark::State& st) { RawGemmOf<BF16X_ENGINE_AMX>(st); }
BENCHMARK(RawGemmAmx)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(RawGemmAvx2)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(RawGemm)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// The slice packer as the driver runs it at n = 2048: one operand of 2048 x 2048 (column-major) packed as the
// driver's eight 2048 x 256 windows along k. Each iteration packs another of 8 copies of the operand (256 MiB of
// FP64 in all), so that the source comes from memory, as in a call, and not from the last-level cache. Args:
// element bytes (4: FP32, 3 slices as fp32x6; 8: FP64, 6 slices as fp64x21), operand (0: A, 1: B), streaming
// stores (0/1), source (1: from memory; 0: the first window eight times, from the caches: the arithmetic alone).
void Pack(benchmark::State& st) {
  omp_set_num_threads(1);
  const bool fp64 = st.range(0) == 8, is_b = st.range(1) == 1, from_memory = st.range(3) == 1;
  constexpr std::int64_t n = 2048, kc = 256, copies = 8;
  const int slices = fp64 ? 6 : 3, bk = fp64 ? pack::kBlockK : pack::kBlockKFp32;
  const pack::SplitOptions opt{slices, true, st.range(2) == 1};
  pack::PackedPanels out;
  pack::init_panels(out, n, kc, bk, slices);
  out.scale_exp.assign(std::size_t(n), 1);
  // 64-byte aligned, as the workspace is (streaming stores need it)
  std::vector<bf16_t> dst(std::size_t(out.elems()) + 32);
  out.data = reinterpret_cast<bf16_t*>((reinterpret_cast<std::uintptr_t>(dst.data()) + 63) / 64 * 64);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> d(fp64 ? std::size_t(n * n * copies) : 0);
  std::vector<float> f(fp64 ? 0 : std::size_t(n * n * copies));
  for (auto& x : d) x = u(rng);
  for (auto& x : f) x = float(u(rng));
  std::int64_t copy = 0;
  for (auto _ : st) {
    const std::int64_t base = n * n * (copy++ % copies);
    for (std::int64_t pc = 0; pc < n; pc += kc) {
      // window (:, pc..) of A, (pc.., :) of B
      const std::int64_t off = from_memory ? base + (is_b ? pc : pc * n) : 0;
      if (fp64) {
        const pack::MatrixView<double> v{d.data() + off, n, false};
        is_b ? pack::pack_b_vnni(v, opt, out) : pack::pack_a(v, opt, out);
      } else {
        const pack::MatrixView<float> v{f.data() + off, n, false};
        is_b ? pack::pack_b_vnni(v, opt, out) : pack::pack_a(v, opt, out);
      }
      benchmark::DoNotOptimize(out.data);
    }
  }
  const double bytes = double(n * n) * (double(fp64 ? 8 : 4) + 2.0 * slices);
  st.counters["GB_s"] = benchmark::Counter(bytes * double(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}
BENCHMARK(Pack)
    ->ArgNames({"bytes", "b", "stream", "memory"})
    // the least time of the repetitions too: on a shared machine the median moves with the neighbours' traffic
    ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
    ->ArgsProduct({{4, 8}, {0, 1}, {0, 1}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
