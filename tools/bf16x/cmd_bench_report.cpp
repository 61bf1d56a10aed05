#include "cmd_bench_report.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <fmt/os.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace bf16x::cli::bench {
namespace {

std::string num(double x, int prec = 3) { return std::isnan(x) ? "-" : fmt::format("{:.{}f}", x, prec); }

nlohmann::json jnum(double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); }

bool is_mode(const Row& r) { return r.products > 0; }

// The rows of one kind in size order.
std::vector<const Row*> select(const Report& r, const std::string& what, int threads) {
  std::vector<const Row*> out;
  for (const Row& row : r.rows)
    if (row.what == what && row.threads == threads) out.push_back(&row);
  return out;
}

}  // namespace

void print_header(const Report& r) {
  fmt::print("bf16x bench\n");
  for (const auto& [k, v] : r.header) fmt::print("  {:<18}: {}\n", k, v);
  fmt::print(
      "  columns: time = median of reps; GFLOPS = 2n^3/time; xhost = host GEMM time / time (SGEMM for fp32x6, "
      "DGEMM for fp64); xdnnl, xraw = oneDNN BF16 matmul / our raw BF16 GEMM time over time; overhead = time / "
      "(products x raw); split, compute = bf16x_stats; err = ||C - C_dgemm||_F / ||C_dgemm||_F\n\n");
}

void print_peaks(const Report& r) {
  for (const Peak& p : r.peaks)
    fmt::print("  VDPBF16PS peak, {} thread(s): {:.1f} GFLOPS ({:.1f} per thread), one-chain latency {:.2f} ns\n",
               p.threads, p.gflops, p.gflops_per_thread, p.latency_ns);
  if (!r.peaks.empty()) fmt::print("\n");
}

void print_table_head() {
  fmt::print("{:>5} {:>2} {:<11} {:<5} {:>3} {:>10} {:>8} {:>7} {:>7} {:>7} {:>8} {:>9} {:>10} {:>6} {:>9}\n", "n", "t",
             "mode", "rout", "prd", "time_ms", "GFLOPS", "xhost", "xdnnl", "xraw", "overhead", "split_ms", "compute_ms",
             "peak%", "err");
}

void print_row(const Row& x) {
  fmt::print("{:>5} {:>2} {:<11} {:<5} {:>3} {:>10} {:>8} {:>7} {:>7} {:>7} {:>8} {:>9} {:>10} {:>6} {:>9}\n", x.n,
             x.threads, x.what, x.routine, x.products ? std::to_string(x.products) : "-", num(x.seconds * 1e3, 2),
             num(x.gflops, 1), num(x.speedup_host, 3), num(x.speedup_onednn, 3), num(x.speedup_raw, 3),
             num(x.overhead, 3), num(x.split * 1e3, 2), num(x.compute * 1e3, 2), num(x.peak_fraction * 100, 1),
             std::isnan(x.rel_err) ? std::string("-") : fmt::format("{:.2e}", x.rel_err));
  std::fflush(stdout);
}

bool write_csv(const Report& r, const std::string& path) {
  std::ofstream f(path);
  if (!f) return false;
  f << "n,threads,mode,routine,products,seconds,gflops,speedup_host,speedup_onednn,speedup_raw,overhead,"
       "overhead_packed,seconds_split,seconds_compute,peak_fraction,rel_err\n";
  auto c = [](double x) { return std::isnan(x) ? std::string() : fmt::format("{:.9g}", x); };
  for (const Row& x : r.rows)
    f << x.n << ',' << x.threads << ',' << x.what << ',' << x.routine << ',' << x.products << ',' << c(x.seconds) << ','
      << c(x.gflops) << ',' << c(x.speedup_host) << ',' << c(x.speedup_onednn) << ',' << c(x.speedup_raw) << ','
      << c(x.overhead) << ',' << c(x.overhead_packed) << ',' << c(x.split) << ',' << c(x.compute) << ','
      << c(x.peak_fraction) << ',' << c(x.rel_err) << '\n';
  return bool(f);
}

bool write_json(const Report& r, const std::string& path) {
  nlohmann::json j;
  for (const auto& [k, v] : r.header) j["machine"][k] = v;
  j["peaks"] = nlohmann::json::array();
  for (const Peak& p : r.peaks)
    j["peaks"].push_back({{"threads", p.threads},
                          {"gflops", p.gflops},
                          {"gflops_per_thread", p.gflops_per_thread},
                          {"latency_ns", p.latency_ns}});
  j["rows"] = nlohmann::json::array();
  for (const Row& x : r.rows)
    j["rows"].push_back({{"n", x.n},
                         {"threads", x.threads},
                         {"mode", x.what},
                         {"routine", x.routine},
                         {"products", x.products},
                         {"seconds", jnum(x.seconds)},
                         {"gflops", jnum(x.gflops)},
                         {"speedup_host", jnum(x.speedup_host)},
                         {"speedup_onednn", jnum(x.speedup_onednn)},
                         {"speedup_raw", jnum(x.speedup_raw)},
                         {"overhead", jnum(x.overhead)},
                         {"overhead_packed", jnum(x.overhead_packed)},
                         {"seconds_split", jnum(x.split)},
                         {"seconds_compute", jnum(x.compute)},
                         {"peak_fraction", jnum(x.peak_fraction)},
                         {"rel_err", jnum(x.rel_err)}});
  std::ofstream f(path);
  if (!f) return false;
  f << j.dump(2) << '\n';
  return bool(f);
}

bool read_json(Report& r, const std::string& path) {
  std::ifstream f(path);
  if (!f) return false;
  nlohmann::json j;
  try {
    f >> j;
    auto num_of = [](const nlohmann::json& v) { return v.is_null() ? kNone : v.get<double>(); };
    for (const auto& [k, v] : j["machine"].items()) r.header.push_back({path + ": " + k, v.get<std::string>()});
    for (const auto& p : j["peaks"])
      r.peaks.push_back({p["threads"].get<int>(), p["gflops"].get<double>(), p["gflops_per_thread"].get<double>(),
                         p["latency_ns"].get<double>()});
    for (const auto& x : j["rows"]) {
      Row row;
      row.n = x["n"].get<std::int64_t>();
      row.threads = x["threads"].get<int>();
      row.what = x["mode"].get<std::string>();
      row.routine = x["routine"].get<std::string>();
      row.products = x["products"].get<int>();
      row.seconds = num_of(x["seconds"]);
      row.gflops = num_of(x["gflops"]);
      row.speedup_host = num_of(x["speedup_host"]);
      row.speedup_onednn = num_of(x["speedup_onednn"]);
      row.speedup_raw = num_of(x["speedup_raw"]);
      row.overhead = num_of(x["overhead"]);
      row.overhead_packed = num_of(x["overhead_packed"]);
      row.split = num_of(x["seconds_split"]);
      row.compute = num_of(x["seconds_compute"]);
      row.peak_fraction = num_of(x["peak_fraction"]);
      row.rel_err = num_of(x["rel_err"]);
      r.rows.push_back(row);
    }
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

bool write_plots(const Report& r, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::set<int> threads;
  std::vector<std::string> modes;  // emulation modes in first-seen order
  for (const Row& x : r.rows) {
    threads.insert(x.threads);
    if (is_mode(x) && std::find(modes.begin(), modes.end(), x.what) == modes.end()) modes.push_back(x.what);
  }
  // Data: one file per (mode, threads): n speedup_host overhead split_fraction compute_fraction
  // gnuplot runs in `dir` and the script names its files relative to it: no path is ever quoted in the script.
  auto data_file = [](const std::string& mode, int t) { return fmt::format("{}_t{}.dat", mode, t); };
  for (const auto& mode : modes)
    for (int t : threads) {
      std::ofstream f(dir + "/" + data_file(mode, t));
      f << "# n speedup_host overhead split_fraction compute_fraction seconds\n";
      for (const Row* x : select(r, mode, t)) {
        const double tot = x->split + x->compute;
        f << x->n << ' ' << num(x->speedup_host, 6) << ' ' << num(x->overhead, 6) << ' '
          << num(tot > 0 ? x->split / tot : kNone, 6) << ' ' << num(tot > 0 ? x->compute / tot : kNone, 6) << ' '
          << num(x->seconds, 6) << '\n';
      }
    }
  // Breakdown table for Fig. 10: rows "mode@n(t)" with split and compute fractions.
  {
    std::ofstream f(dir + "/breakdown.dat");
    f << "# label split_fraction compute_fraction\n";
    for (int t : threads)
      for (const auto& mode : modes)
        for (const Row* x : select(r, mode, t)) {
          const double tot = x->split + x->compute;
          if (!(tot > 0)) continue;
          f << '"' << mode << " n=" << x->n << " t=" << t << "\" " << x->split / tot << ' ' << x->compute / tot << '\n';
        }
  }
  const char* styles[] = {"lw 2 pt 7", "lw 2 pt 5", "lw 2 pt 9", "lw 2 pt 11", "lw 2 pt 13", "lw 2 pt 3"};
  auto lines = [&](const std::vector<std::string>& which, int column, const std::string& title_suffix) {
    std::string cmd;
    int i = 0;
    for (const auto& mode : which) {
      int dt = 1;
      for (int t : threads) {
        if (!cmd.empty()) cmd += ", \\\n     ";
        cmd += fmt::format("'{}' using 1:{} with linespoints {} dt {} lc {} title '{} t={}{}'", data_file(mode, t),
                           column, styles[i % 6], dt, i + 1, mode, t, title_suffix);
        ++dt;
      }
      ++i;
    }
    return cmd;
  };
  std::vector<std::string> fp32, fp64;
  for (const auto& m : modes) (m.rfind("fp32", 0) == 0 ? fp32 : fp64).push_back(m);
  const std::string common =
      "set terminal pngcairo size 900,600 font 'Sans,11'\nset grid\nset logscale x 2\nset key outside right\n"
      "set xlabel 'n (m = n = k)'\n";
  std::string gp = common;
  if (!fp32.empty())
    gp += fmt::format(
        "set output 'fig6_speedup_fp32.png'\nset title 'fp32x6 speedup over host SGEMM (Fig. 6)'\n"
        "set ylabel 'speedup (host SGEMM time / bf16x time)'\nplot {}\n",
        lines(fp32, 2, ""));
  if (!fp64.empty())
    gp += fmt::format(
        "set output 'fig7_speedup_fp64.png'\nset title 'fp64 modes: speedup over host DGEMM (Fig. 7)'\n"
        "set ylabel 'speedup (host DGEMM time / bf16x time)'\nplot {}\n",
        lines(fp64, 2, ""));
  if (!modes.empty()) {
    gp += fmt::format(
        "set output 'fig9_overhead.png'\nset title 'Overhead ratio T(mode) / (products x T(raw BF16 "
        "GEMM)) (Fig. 9)'\nset ylabel 'overhead ratio'\nplot {}, 1 with lines lc 'black' dt 3 title "
        "'ideal'\n",
        lines(modes, 3, ""));
    gp += fmt::format(
        "unset logscale x\nset output 'fig10_breakdown.png'\nset terminal pngcairo size 1200,600 font 'Sans,10'\n"
        "set title 'Split+pack vs compute share of bf16x time (Fig. 10)'\nset ylabel 'fraction of time'\n"
        "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
        "set boxwidth 0.75\nset yrange [0:1]\nset xtics rotate by -60 font ',8'\nunset xlabel\n"
        "plot 'breakdown.dat' using 2:xtic(1) title 'split + pack', '' using 3 title 'compute'\n");
  }
  {
    std::ofstream f(dir + "/figures.gp");
    f << gp;
  }
  // gnuplot figures.gp in `dir`, spawned without a shell (any character in the path is safe), output to a log.
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
  posix_spawn_file_actions_addopen(&fa, 1, "gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  char prog[] = "gnuplot", arg[] = "figures.gp";
  char* argv[] = {prog, arg, nullptr};
  pid_t pid = 0;
  int status = -1;
  const int err = posix_spawnp(&pid, "gnuplot", &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err == 0) waitpid(pid, &status, 0);
  const bool ok = err == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    std::fprintf(stderr, "bf16x bench: gnuplot failed (%s); its output is in %s/gnuplot.log\n",
                 err ? std::strerror(err) : "non-zero exit", dir.c_str());
  }
  return ok;
}

}  // namespace bf16x::cli::bench
