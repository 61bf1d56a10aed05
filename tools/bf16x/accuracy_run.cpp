#include "accuracy_run.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>

#include "bf16x/bf16x.h"
#include "cli_checks.hpp"
#include "crt/crt_mode.hpp"
#include "host/host_blas.hpp"

namespace bf16x::cli {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One untimed call first (library loading, thread start-up, first-touch of the workspace), then the median.
template <typename F>
double timed(int reps, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < std::max(1, reps); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

}  // namespace

bf16x_options mode_options(const AccuracyConfig& cfg, const std::string& name) {
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = name == "native32" ? BF16X_MODE_NATIVE : bf16x_mode_from_name(name.c_str());
  // Each engine option goes to the modes of its kind: the INT8 engine to the CRT modes, the BF16 one to the others.
  opt.engine = crt::is_crt_mode(opt.mode) ? cfg.crt_engine : cfg.engine;
  opt.split = cfg.split;
  opt.block_k = cfg.block_k;
  return opt;
}

std::string ran_other_mode(int asked, const bf16x_stats& st) {
  if (asked == BF16X_MODE_AUTO || asked == BF16X_MODE_NATIVE || st.mode == asked || st.guard == BF16X_GUARD_NATIVE)
    return {};
  const char* ran = bf16x_mode_name(st.mode);
  const char* min_size = std::getenv("BF16X_MIN_SIZE");
  return fmt::format("the call ran {}, not {}{}", ran ? ran : "?", bf16x_mode_name(asked),
                     min_size ? fmt::format(" (BF16X_MIN_SIZE={})", min_size) : std::string());
}

std::string mode_error(const ModeResult& m) { return m.error.empty() ? bf16x_status_string(m.status) : m.error; }

bool single_precision_mode(const std::string& name) {
  // The library's own rule (fp32x6, fp32c<N>, fp32cr), so that a mode added there runs in its precision here.
  const int mode = bf16x_mode_from_name(name.c_str());
  return name == "native32" || (mode >= 0 && !settings::mode_fits(mode, true));
}

double accuracy_memory(const AccuracyConfig& cfg) {
  const double n = double(cfg.n), k = double(cfg.k > 0 ? cfg.k : cfg.n), nk = n * k, nn = n * n;
  double ws = 0;  // the largest workspace of a mode's call
  for (const std::string& name : cfg.modes) {
    const bf16x_options o = mode_options(cfg, name);
    const bool single = cfg.routine == "cgemm" || (cfg.routine == "gemm" && single_precision_mode(name));
    ws = std::max(ws, gemm_workspace(!single, cfg.n, cfg.n, cfg.k > 0 ? cfg.k : cfg.n, o));
  }
  if (cfg.routine != "gemm") {
    // complex_accuracy_run.cpp, parts of s bytes: A and B as parts and interleaved (8 s nk); the exact product's
    // operands side by side and stacked (4 s nk) with exact_gemm's row-major copy (16 nk) while one half of the
    // result (8 nn) is kept; then the exact result and |A||B| (24 nn), the host result three ways ((4 s + 16) nn)
    // and one mode's C two ways with its errors ((4 s + 16) nn).
    const double s = cfg.routine == "cgemm" ? 4 : 8;
    return 8 * s * nk + std::max(4 * s * nk + 16 * nk + 8 * nn, (24 + 4 * s + 16 + 4 * s + 16) * nn + ws);
  }
  // run_accuracy: A and B in both precisions (24 nk); the exact product and |A||B| per precision that runs (16 nn
  // each) after exact_gemm's row-major copy of A (8 nk); the host results (20 nn); one mode's C and the relative
  // errors metrics collects (16 nn).
  const bool any32 = std::any_of(cfg.modes.begin(), cfg.modes.end(), single_precision_mode);
  const bool any64 = !std::all_of(cfg.modes.begin(), cfg.modes.end(), single_precision_mode);
  const double refs = 16 * nn * (int(any32) + int(any64));
  return 24 * nk + refs + std::max(8 * nk, (20 + 16) * nn + ws);
}

AccuracyReport run_accuracy(const AccuracyConfig& cfg) {
  AccuracyReport rep;
  rep.cfg = cfg;
  const std::int64_t n = cfg.n, kk = cfg.k > 0 ? cfg.k : cfg.n;  // m = n, inner dimension kk
  const auto a64 = check::make_input<double>(cfg.dist, n, kk, cfg.seed, 0, cfg.emax, cfg.phi);
  const auto b64 = check::make_input<double>(cfg.dist, kk, n, cfg.seed, 1, cfg.emax, cfg.phi);
  const auto a32 = check::make_input<float>(cfg.dist, n, kk, cfg.seed, 0, cfg.emax, cfg.phi);
  const auto b32 = check::make_input<float>(cfg.dist, kk, n, cfg.seed, 1, cfg.emax, cfg.phi);
  const auto is_single = single_precision_mode;
  auto is_double = [&](const std::string& name) { return !is_single(name); };
  // The references of a precision only where a mode of that precision runs (n = 1024 and up: seconds each).
  const bool need32 = std::any_of(cfg.modes.begin(), cfg.modes.end(), is_single);
  const bool need64 = std::any_of(cfg.modes.begin(), cfg.modes.end(), is_double);
  rep.ran32 = need32;
  rep.ran64 = need64;
  check::Mat<double> ex64, ab64, ex32, ab32;
  if (need64) ex64 = check::exact_gemm(a64, b64), ab64 = check::abs_gemm(a64, b64);
  if (need32) ex32 = check::exact_gemm(a32, b32), ab32 = check::abs_gemm(a32, b32);

  check::Mat<double> nat64(n, n);
  check::Mat<float> nat32(n, n);
  const double t_d = timed(
      cfg.reps, [&] { host::dgemm(111, 111, n, n, kk, 1.0, a64.data(), n, b64.data(), kk, 0.0, nat64.data(), n); });
  const double t_s = timed(
      cfg.reps, [&] { host::sgemm(111, 111, n, n, kk, 1.0f, a32.data(), n, b32.data(), kk, 0.0f, nat32.data(), n); });
  if (need64) rep.native_dgemm_vs_exact = check::errors(nat64, ex64, ab64);
  if (need32) rep.native_sgemm_vs_exact = check::errors(nat32, ex32, ab32);
  // Host results widened to double serve as the "native" reference.
  check::Mat<double> nat32d(n, n);
  for (std::size_t i = 0; i < nat32.v.size(); ++i) nat32d.v[i] = nat32.v[i];

  for (const std::string& name : cfg.modes) {
    ModeResult mr;
    mr.mode = name;
    bf16x_options opt = mode_options(cfg, name);
    bf16x_stats st{};
    opt.stats = &st;
    const bool single = is_single(name);
    // A C buffer (or the errors' scratch) that cannot be allocated fails this mode only: the others still run
    // and the table still prints.
    try {
      if (single) {
        check::Mat<float> c(n, n);
        mr.seconds = timed(cfg.reps, [&] {
          mr.status = bf16x_sgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, kk, 1.0f, a32.data(), n,
                                     b32.data(), kk, 0.0f, c.data(), n, &opt);
        });
        mr.vs_native = check::errors(c, nat32d, ab32);
        mr.vs_exact = check::errors(c, ex32, ab32);
        mr.native_seconds = t_s;
      } else {
        check::Mat<double> c(n, n);
        mr.seconds = timed(cfg.reps, [&] {
          mr.status = bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, kk, 1.0, a64.data(), n,
                                     b64.data(), kk, 0.0, c.data(), n, &opt);
        });
        mr.vs_native = check::errors(c, nat64, ab64);
        mr.vs_exact = check::errors(c, ex64, ab64);
        mr.native_seconds = t_d;
      }
    } catch (const std::bad_alloc&) {
      mr.status = BF16X_ERR_NOMEM;
      mr.error = "out of memory (the CLI's result buffer)";
    }
    if (mr.status == BF16X_OK) mr.error = ran_other_mode(opt.mode, st);
    mr.engine = st.engine;
    mr.host = host_ran(st);
    rep.modes.push_back(mr);
  }
  return rep;
}

std::string report_json(const AccuracyReport& r) {
  nlohmann::ordered_json j;
  j["routine"] = r.cfg.routine;
  j["n"] = r.cfg.n;
  j["k"] = r.cfg.k > 0 ? r.cfg.k : r.cfg.n;
  j["dist"] = check::dist_name(r.cfg.dist);
  if (r.cfg.dist == check::Dist::phi) j["phi"] = r.cfg.phi;
  j["seed"] = r.cfg.seed;
  j["split"] = r.cfg.split == BF16X_SPLIT_PAPER ? "paper" : "scaled";
  j["host_blas"] = host::library_name();
  j["host_core"] = host::core_name();
  // A host routine whose precision no mode ran was not measured: null, not 0.
  const auto measured = [](bool ran, double x) { return ran ? nlohmann::ordered_json(x) : nlohmann::ordered_json(); };
  const bool s = r.ran32, d = r.ran64;
  j["native"] = {{"sgemm_eF_exact", measured(s, r.native_sgemm_vs_exact.eF)},
                 {"sgemm_eS_exact", measured(s, r.native_sgemm_vs_exact.e_scaled)},
                 {"sgemm_maxrel_exact", measured(s, r.native_sgemm_vs_exact.max_rel)},
                 {"sgemm_medrel_exact", measured(s, r.native_sgemm_vs_exact.median_rel)},
                 {"dgemm_eF_exact", measured(d, r.native_dgemm_vs_exact.eF)},
                 {"dgemm_eS_exact", measured(d, r.native_dgemm_vs_exact.e_scaled)},
                 {"dgemm_maxrel_exact", measured(d, r.native_dgemm_vs_exact.max_rel)},
                 {"dgemm_medrel_exact", measured(d, r.native_dgemm_vs_exact.median_rel)}};
  nlohmann::ordered_json modes = nlohmann::ordered_json::object();
  for (const auto& m : r.modes) {
    if (m.failed()) {  // no result: the errors of an unwritten C (or the host's) would read as measurements
      modes[m.mode] = {{"status", m.status}, {"error", mode_error(m)}};
      continue;
    }
    modes[m.mode] = {{"eF_native", m.vs_native.eF},
                     {"eS_native", m.vs_native.e_scaled},
                     {"eF_exact", m.vs_exact.eF},
                     {"eS_exact", m.vs_exact.e_scaled},
                     {"maxrel_exact", m.vs_exact.max_rel},
                     {"medrel_exact", m.vs_exact.median_rel},
                     {"zero_denominators", m.vs_exact.zero_den},
                     {"nonfinite", m.vs_exact.nonfinite},
                     {"engine", engine_label(m.mode, m.engine)},
                     {"seconds", m.seconds},
                     {"native_seconds", m.native_seconds},
                     {"status", m.status}};
  }
  j["modes"] = modes;
  return j.dump();
}

void print_report_table(const AccuracyReport& r) {
  fmt::print("{}n={} k={} dist={}{} seed={} split={}  host={} ({})\n",
             r.cfg.routine == "gemm" ? "" : r.cfg.routine + " ", r.cfg.n, r.cfg.k > 0 ? r.cfg.k : r.cfg.n,
             check::dist_name(r.cfg.dist), r.cfg.dist == check::Dist::phi ? fmt::format(" phi={}", r.cfg.phi) : "",
             r.cfg.seed, r.cfg.split == BF16X_SPLIT_PAPER ? "paper" : "scaled", host::library_name(),
             host::core_name());
  fmt::print("{:<12} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}  {:<10} {:>10} {:>10} {:>7}\n", "mode", "eF/native",
             "eS/native", "eF/exact", "eS/exact", "maxrel/ex", "medrel/ex", "engine", "t [ms]", "host [ms]", "speedup");
  // The host routines' own errors: sgemm and dgemm, or the one complex routine.
  const bool complex = r.cfg.routine != "gemm";
  if (r.ran32)
    fmt::print("{:<12} {:>11} {:>11} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e}\n", complex ? "cgemm" : "sgemm", "-", "-",
               r.native_sgemm_vs_exact.eF, r.native_sgemm_vs_exact.e_scaled, r.native_sgemm_vs_exact.max_rel,
               r.native_sgemm_vs_exact.median_rel);
  if (r.ran64)
    fmt::print("{:<12} {:>11} {:>11} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e}\n", complex ? "zgemm" : "dgemm", "-", "-",
               r.native_dgemm_vs_exact.eF, r.native_dgemm_vs_exact.e_scaled, r.native_dgemm_vs_exact.max_rel,
               r.native_dgemm_vs_exact.median_rel);
  for (const auto& m : r.modes) {
    if (m.failed()) {
      fmt::print("{:<12} error: {}\n", m.mode, mode_error(m));
      continue;
    }
    // A call the host BLAS ran has no speedup: it would be the host against itself. fp64cr and fp32cr run on the
    // FMA units (no engine id) and have one.
    const bool ratio = !m.host && m.seconds > 0;
    fmt::print("{:<12} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e} {:>11.3e}  {:<10} {:>10.2f} {:>10.2f} {:>7}\n",
               m.mode, m.vs_native.eF, m.vs_native.e_scaled, m.vs_exact.eF, m.vs_exact.e_scaled, m.vs_exact.max_rel,
               m.vs_exact.median_rel, engine_label(m.mode, m.engine), m.seconds * 1e3, m.native_seconds * 1e3,
               ratio ? fmt::format("{:.3f}", m.native_seconds / m.seconds) : "-");
  }
}

}  // namespace bf16x::cli
