// bf16x accuracy: the paper's Table 4 experiment for one size and input class.
#include <cstdio>
#include <iostream>

#include "accuracy_run.hpp"
#include "api/names.hpp"
#include "bf16x/bf16x.h"
#include "command.hpp"
#include "complex_accuracy_run.hpp"

namespace bf16x::cli {
namespace {

struct AccuracyArgs {
  std::int64_t n = 256;
  std::int64_t k = 0;
  std::string dist = "uniform", engine = "auto", split = "scaled";
  std::uint64_t seed = 1;
  int emax = 60;
  double phi = 0.5;
  int block_k = 0;
  bool json = false;
  std::string routine = "gemm";
  std::vector<std::string> complex_methods = {"4m"};
  std::vector<std::string> modes = api::bf16_mode_names();
};

const RegisterCommand reg(
    "accuracy", "eF and e_scaled of every mode vs the host GEMM and a double-double reference", [](CLI::App& app) {
      auto args = std::make_shared<AccuracyArgs>();
      app.add_option("--n", args->n, "matrix size (square)")->check(CLI::Range(1, 1 << 16));
      app.add_option("--dist", args->dist, "input class")
          ->check(CLI::IsMember({"uniform", "loguniform", "cancel", "phi"}));
      app.add_option("--phi", args->phi, "phi class: entries (U - 0.5) exp(phi N(0,1))")->check(CLI::Range(0.0, 20.0));
      app.add_option("--k", args->k, "inner dimension (0: k = n; m = n)")->check(CLI::Range(0, 1 << 20));
      app.add_option("--seed", args->seed, "random seed");
      app.add_option("--emax", args->emax, "loguniform: magnitudes 2^-emax..2^emax")->check(CLI::Range(0, 1000));
      app.add_option("--engine", args->engine, "engine")->check(CLI::IsMember(api::bf16_engine_choices()));
      app.add_option("--split", args->split, "slice extraction")->check(CLI::IsMember({"scaled", "paper"}));
      app.add_option("--modes", args->modes, "modes to run")->delimiter(',');
      app.add_option("--block-k", args->block_k, "k-block depth (0: mode default; multiple of 32, <= 256)")
          ->check(CLI::Range(0, 256));
      app.add_option("--routine", args->routine, "gemm (sgemm/dgemm by mode), cgemm or zgemm")
          ->check(CLI::IsMember({"gemm", "cgemm", "zgemm"}));
      app.add_option("--complex-method", args->complex_methods, "cgemm/zgemm: 4m, 3m or both (4m,3m)")
          ->delimiter(',')
          ->check(CLI::IsMember({"4m", "3m"}));
      app.add_flag("--json", args->json, "print one JSON object");
      app.callback([args] {
        AccuracyConfig cfg;
        cfg.n = args->n;
        cfg.k = args->k;
        check::parse_dist(args->dist, cfg.dist);
        cfg.seed = args->seed;
        cfg.emax = args->emax;
        cfg.phi = args->phi;
        cfg.block_k = args->block_k;
        cfg.engine = bf16x_engine_from_name(args->engine.c_str());
        cfg.split = args->split == "paper" ? BF16X_SPLIT_PAPER : BF16X_SPLIT_SCALED;
        for (const auto& m : args->modes)
          if (bf16x_mode_from_name(m.c_str()) < 0) throw CLI::ValidationError("--modes", "unknown mode " + m);
        cfg.modes = args->modes;
        cfg.routine = args->routine;
        cfg.complex_methods = args->complex_methods;
        // cgemm takes the SGEMM modes, zgemm the DGEMM ones (native and auto both).
        if (cfg.routine != "gemm")
          for (const auto& m : args->modes) {
            const int id = bf16x_mode_from_name(m.c_str());
            const bool single = id == BF16X_MODE_FP32X6 || m.rfind("fp32c", 0) == 0;
            if (id != BF16X_MODE_NATIVE && id != BF16X_MODE_AUTO && single != (cfg.routine == "cgemm"))
              throw CLI::ValidationError("--modes", m + " is not a " + cfg.routine + " mode");
          }
        const AccuracyReport r = cfg.routine == "gemm" ? run_accuracy(cfg) : run_complex_accuracy(cfg);
        if (args->json)
          std::cout << report_json(r) << "\n";
        else
          print_report_table(r);
        for (const ModeResult& m : r.modes)
          if (m.status != 0) exit_code() = kExitRunFailure;
      });
    });

}  // namespace
}  // namespace bf16x::cli
