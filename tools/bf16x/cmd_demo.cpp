// bf16x demo: what this machine offers (engines, host BLAS), then the accuracy and speed of every mode against the
// host BLAS at the default sizes.
#include <fmt/core.h>
#include <omp.h>

#include <cstdio>
#include <new>

#include "accuracy_run.hpp"
#include "bf16x/bf16x.h"
#include "cli_checks.hpp"
#include "command.hpp"
#include "cpu/features.hpp"
#include "host/host_blas.hpp"
#include "settings/names.hpp"

namespace bf16x::cli {
namespace {

struct DemoArgs {
  std::vector<std::int64_t> sizes = {256, 512};
  std::string engine = "auto", crt_engine = "auto";
  int reps = 3;
};

void print_machine() {
  fmt::print("bf16x demo\n");
  const bool amx = cpu::amx_available();
  fmt::print("  AMX tiles        : {}\n",
             amx ? "available" : fmt::format("unavailable ({} check failed)", cpu::amx_unavailable_reason()));
  fmt::print("  AVX512-BF16      : {}\n", cpu::has_avx512bf16() ? "available" : "unavailable");
  fmt::print("  AVX2 + FMA       : {}\n", cpu::has_avx2_fma() ? "available" : "unavailable");
  for (int e :
       {BF16X_ENGINE_AMX, BF16X_ENGINE_AMX_MODEL, BF16X_ENGINE_AVX512BF16, BF16X_ENGINE_AVX2, BF16X_ENGINE_REFERENCE})
    fmt::print("  engine {:<10}: {}\n", bf16x_engine_name(e),
               bf16x_engine_available(e) ? "selectable" : "not available");
  fmt::print("  auto engine      : {}\n", bf16x_engine_name(bf16x_engine_selected()));
  fmt::print("  host BLAS        : {} (kernel {})\n", host::library_name(), host::core_name());
  fmt::print(
      "  errors: eF = ||C-R||_F/||R||_F, eS = max |C-R|/(|A||B|); R = host GEMM (/native) or double-double "
      "(/exact); speedup = host time / bf16x time (median of reps), - where the host BLAS ran the call\n\n");
}

const RegisterCommand reg(
    "demo", "machine summary and every mode's accuracy and speed vs the host BLAS", [](CLI::App& app) {
      auto args = std::make_shared<DemoArgs>();
      app.add_option("--sizes", args->sizes, "square sizes")->delimiter(',')->check(CLI::Range(1, 1 << 16));
      app.add_option("--engine", args->engine, "BF16 engine of the slice modes (one this CPU runs)")
          ->check(bf16_engine_check());
      app.add_option("--crt-engine", args->crt_engine, "INT8 engine of fp64c15 (one this CPU runs)")
          ->check(int8_engine_check());
      app.add_option("--reps", args->reps, "timed repetitions (median)")->check(CLI::Range(1, 1000));
      app.callback([args] {
        print_machine();
        for (std::int64_t n : args->sizes) {
          AccuracyConfig cfg;
          cfg.n = n;
          cfg.reps = args->reps;
          cfg.engine = bf16x_engine_from_name(args->engine.c_str());
          cfg.crt_engine = bf16x_engine_from_name(args->crt_engine.c_str());
          // Every kind of mode: the slice modes, the CRT mode that matches native DGEMM's accuracy (fp64c15,
          // docs/accuracy.md), the correctly rounded one, and auto.
          cfg.modes = settings::bf16_mode_names();
          for (const char* m : {"fp64c15", "fp64cr", "auto"}) cfg.modes.emplace_back(m);
          // A size that cannot be held is skipped with the reason (before allocating it); the others still run.
          if (const std::string why = memory_shortfall(accuracy_memory(cfg) + threads_reserve(omp_get_max_threads()));
              !why.empty()) {
            fmt::print("n={} skipped: {}\n\n", n, why);
            std::fflush(stdout);
            std::fprintf(stderr, "bf16x demo: n=%lld skipped: %s\n", (long long)n, why.c_str());
            exit_code() = kExitRunFailure;
            continue;
          }
          try {
            const AccuracyReport r = run_accuracy(cfg);
            print_report_table(r);
            for (const ModeResult& m : r.modes)
              if (m.failed()) exit_code() = kExitRunFailure;
          } catch (const std::bad_alloc&) {
            fmt::print("n={} stopped: out of memory (an allocation failed)\n", n);
            exit_code() = kExitRunFailure;
          }
          fmt::print("\n");
          std::fflush(stdout);
        }
        if (!cpu::amx_available())
          fmt::print(
              "Without AMX a vector BF16 engine runs one BF16 product at about the host SGEMM's rate (measured in\n"
              "docs/performance.md), so 6-21 products cannot beat the host GEMM: 'auto' keeps the host BLAS here.\n");
      });
    });

}  // namespace
}  // namespace bf16x::cli
