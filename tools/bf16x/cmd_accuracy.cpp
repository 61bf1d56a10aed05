// bf16x accuracy: the paper's Table 4 experiment for one size and input class.
#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "accuracy_run.hpp"
#include "bf16x/bf16x.h"
#include "cli_checks.hpp"
#include "command.hpp"
#include "complex_accuracy_run.hpp"
#include "settings/names.hpp"

namespace bf16x::cli {
namespace {

// Input ranges that keep every entry and every product a_il b_lj finite in the precision that runs (FP32 when an
// FP32 mode or cgemm runs, else FP64), so that the host GEMM and the references stay finite too. loguniform:
// products reach 2^(2 emax), below 2^128 (FP32) or 2^1024 (FP64) for emax <= 63 or 511. phi: entries
// |U - 0.5| exp(phi |z|) <= exp(8 phi) / 2 while |z| <= 8 (all 2^33 draws of --n 65536 but with probability 1e-5),
// products below exp(16 phi) / 4 < 2^128 for phi <= 5 (FP64 would allow 44; 20 is the range documented).
constexpr int kEmaxFp32 = 63, kEmaxFp64 = 511;
constexpr double kPhiFp32 = 5, kPhiFp64 = 20;

struct AccuracyArgs {
  std::int64_t n = 256;
  std::int64_t k = 0;
  std::string dist = "uniform", engine = "auto", crt_engine = "auto", split = "scaled";
  std::uint64_t seed = 1;
  int emax = 60;
  double phi = 0.5;
  int block_k = 0;
  std::string json;  // --json: the file, or stdout when given without one
  std::string routine = "gemm";
  std::vector<std::string> complex_methods = {"4m"};
  std::vector<std::string> modes = settings::bf16_mode_names();
};

const RegisterCommand reg(
    "accuracy", "eF and e_scaled of every mode vs the host GEMM and a double-double reference", [](CLI::App& app) {
      auto args = std::make_shared<AccuracyArgs>();
      app.add_option("--n", args->n, "matrix size (square)")->check(CLI::Range(1, 1 << 16));
      app.add_option("--dist", args->dist, "input class")
          ->check(CLI::IsMember({"uniform", "loguniform", "cancel", "phi"}));
      app.add_option("--phi", args->phi,
                     "phi class: entries (U - 0.5) exp(phi N(0,1)); at most 5 with an FP32 mode or cgemm (products "
                     "exp(16 phi)/4 for |N| <= 8 below 2^128), else 20")
          ->check(finite_check())
          ->check(CLI::Range(0.0, kPhiFp64));
      app.add_option("--k", args->k, "inner dimension (0: k = n; m = n)")->check(CLI::Range(0, 1 << 20));
      app.add_option("--seed", args->seed, "random seed (0 .. 2^64 - 1)")->check(seed_check());
      app.add_option(
             "--emax", args->emax,
             "loguniform: magnitudes 2^-emax..2^emax; at most 63 with an FP32 mode or cgemm, else 511 (products "
             "reach 2^(2 emax); FP32 overflows at 2^128, FP64 at 2^1024)")
          ->check(CLI::Range(0, kEmaxFp64));
      app.add_option("--engine", args->engine, "BF16 engine of the slice modes (one this CPU runs)")
          ->check(bf16_engine_check());
      app.add_option("--crt-engine", args->crt_engine, "INT8 engine of the fp64c/fp32c modes (one this CPU runs)")
          ->check(int8_engine_check());
      app.add_option("--split", args->split, "slice extraction")->check(CLI::IsMember({"scaled", "paper"}));
      app.add_option("--modes", args->modes,
                     "modes to run (fp32x6, fp32x3, fp32c5..10, fp32cr run as sgemm; fp64x6..21, fp64c8..20, fp64cr, auto, "
                     "native as dgemm)")
          ->delimiter(',');
      app.add_option("--block-k", args->block_k, "k-block depth (0: mode default; multiple of 32, <= 256)")
          ->check(block_k_check());
      app.add_option("--routine", args->routine, "gemm (sgemm/dgemm by mode), cgemm or zgemm")
          ->check(CLI::IsMember({"gemm", "cgemm", "zgemm"}));
      app.add_option("--complex-method", args->complex_methods, "cgemm/zgemm: 4m, 3m or both (4m,3m)")
          ->delimiter(',')
          ->check(CLI::IsMember({"4m", "3m"}));
      auto* json = app.add_option("--json", args->json,
                                  "write one JSON object to this file, or to stdout without one (default: the table)")
                       ->expected(0, 1);
      app.callback([args, json] {
        AccuracyConfig cfg;
        cfg.n = args->n;
        cfg.k = args->k;
        check::parse_dist(args->dist, cfg.dist);
        cfg.seed = args->seed;
        cfg.emax = args->emax;
        cfg.phi = args->phi;
        cfg.block_k = args->block_k;
        cfg.engine = bf16x_engine_from_name(args->engine.c_str());
        cfg.crt_engine = bf16x_engine_from_name(args->crt_engine.c_str());
        cfg.split = args->split == "paper" ? BF16X_SPLIT_PAPER : BF16X_SPLIT_SCALED;
        for (const auto& m : args->modes)
          if (bf16x_mode_from_name(m.c_str()) < 0) throw CLI::ValidationError("--modes", "unknown mode " + m);
        cfg.modes = args->modes;
        cfg.routine = args->routine;
        cfg.complex_methods = args->complex_methods;
        // cgemm takes the SGEMM modes, zgemm the DGEMM ones (native and auto both: the library's mode_fits).
        if (cfg.routine != "gemm")
          for (const auto& m : args->modes)
            if (!settings::mode_fits(bf16x_mode_from_name(m.c_str()), cfg.routine == "zgemm"))
              throw CLI::ValidationError("--modes", m + " is not a " + cfg.routine + " mode: it runs with " +
                                                        (cfg.routine == "zgemm" ? "cgemm" : "zgemm"));
        // The bounds of the precision that runs (FP32 inputs only feed FP32 modes and the host SGEMM).
        const bool fp32 =
            cfg.routine == "cgemm" ||
            (cfg.routine == "gemm" && std::any_of(cfg.modes.begin(), cfg.modes.end(), single_precision_mode));
        const char* precision = fp32 ? "an FP32 mode (or cgemm)" : "FP64 modes";
        if (cfg.dist == check::Dist::loguniform && cfg.emax > (fp32 ? kEmaxFp32 : kEmaxFp64))
          throw CLI::ValidationError("--emax", fmt::format("{} is above {}, the largest with {}: products 2^(2 emax) "
                                                           "would overflow",
                                                           cfg.emax, fp32 ? kEmaxFp32 : kEmaxFp64, precision));
        if (cfg.dist == check::Dist::phi && cfg.phi > (fp32 ? kPhiFp32 : kPhiFp64))
          throw CLI::ValidationError(
              "--phi", fmt::format("{} is above {}, the largest with {}: products would overflow", cfg.phi,
                                   fp32 ? kPhiFp32 : kPhiFp64, precision));
        // Refuse a size that cannot be held before allocating any of it.
        if (const std::string why = memory_shortfall(accuracy_memory(cfg) + threads_reserve(omp_get_max_threads()));
            !why.empty()) {
          std::fprintf(stderr, "bf16x accuracy: n=%lld k=%lld does not fit: %s\n", (long long)cfg.n,
                       (long long)(cfg.k > 0 ? cfg.k : cfg.n), why.c_str());
          exit_code() = kExitRunFailure;
          return;
        }
        // A --json file that cannot be written is a usage error before the run, as in bench.
        std::ofstream file;
        if (!args->json.empty()) file.open(args->json);
        if (!args->json.empty() && !file) {
          std::fprintf(stderr, "bf16x accuracy: --json %s is not writable\n", args->json.c_str());
          exit_code() = kExitUsage;
          return;
        }
        const AccuracyReport r = cfg.routine == "gemm" ? run_accuracy(cfg) : run_complex_accuracy(cfg);
        if (json->count() == 0)
          print_report_table(r);
        else
          (args->json.empty() ? std::cout : file) << report_json(r) << "\n";
        if (file.is_open()) file.close();
        if (!args->json.empty() && !file) {
          std::fprintf(stderr, "bf16x accuracy: cannot write %s\n", args->json.c_str());
          exit_code() = kExitRunFailure;
        }
        for (const ModeResult& m : r.modes)
          if (m.failed()) exit_code() = kExitRunFailure;
      });
    });

}  // namespace
}  // namespace bf16x::cli
