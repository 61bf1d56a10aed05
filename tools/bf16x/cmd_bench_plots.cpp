// The bench figures: gnuplot PNGs of speedup over the host BLAS (paper Figs. 6/7, with the break-even line y = 1),
// time against n, the overhead ratio (Fig. 9) and the split/compute breakdown (Fig. 10). Axes go logarithmic where
// the data span a decade or more; every title carries a caption saying where and with what the numbers were measured.
//
// Strings from the report (CPU names, modes, file names of a --load) reach the script only inside single quotes,
// where gnuplot expands neither backquotes nor escapes, and file names only after reduction to [A-Za-z0-9._+-].
#include <fcntl.h>
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <tuple>

#include "bf16x/bf16x.h"
#include "cmd_bench_report.hpp"

namespace bf16x::cli::bench {
namespace {

using json = nlohmann::ordered_json;

// A value of a data file; "-" is gnuplot's missing value (set datafile missing).
std::string num(double x) { return std::isfinite(x) ? fmt::format("{:.6g}", x) : "-"; }

// A gnuplot single-quoted string: '' stands for ', and a control character would end the command.
std::string gp_str(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "''";
    else
      q += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  }
  return q + "'";
}

std::string file_part(const std::string& s) {
  std::string f = s;
  for (char& c : f)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '+' && c != '-') c = '_';
  return f;
}

// Positive finite values spanning a factor of 10 or more are drawn on a log axis.
bool spans_decade(const std::vector<double>& v) {
  double lo = INFINITY, hi = 0;
  for (double x : v)
    if (std::isfinite(x) && x > 0) lo = std::min(lo, x), hi = std::max(hi, x);
  return hi > 0 && hi / lo >= 10;
}

// The values of one field across the headers of a report (this run's and the merged files'), distinct, in order.
// Schema 1 names ("host blas") and merged schema 1 keys ("<file>: cpu") are matched too.
std::string field(const Report& r, const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  auto scan = [&](const json& h) {
    if (!h.is_object()) return;
    for (const auto& [k, v] : h.items()) {
      const auto colon = k.rfind(": ");
      const std::string key = colon == std::string::npos ? k : k.substr(colon + 2);
      if (std::find(names.begin(), names.end(), key) == names.end() || !v.is_string()) continue;
      const std::string s = v.get<std::string>();
      if (!s.empty() && std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(s);
    }
  };
  scan(r.header);
  for (const Source& s : r.merged) scan(s.header);
  std::string out;
  for (const auto& s : seen) out += (out.empty() ? "" : " / ") + s;
  return out;
}

// Two caption lines: machine, engine and threads; library versions.
std::pair<std::string, std::string> caption(const Report& r, const std::set<int>& threads) {
  std::string t;
  for (int x : threads) t += (t.empty() ? "" : ",") + std::to_string(x);
  const std::string cpu = field(r, {"cpu"}), engine = field(r, {"engine"}), version = field(r, {"bf16x_version"});
  const std::string blas = field(r, {"host_blas", "host blas"}), kernel = field(r, {"host_kernel", "host kernel"});
  std::string line1 = fmt::format("CPU: {}; engine {}; threads {}", cpu.empty() ? "not recorded" : cpu,
                                  engine.empty() ? "not recorded" : engine, t);
  std::string line2 = version.empty() ? fmt::format("bf16x version not recorded (plotted by bf16x {})", bf16x_version())
                                      : "bf16x " + version;
  if (!blas.empty()) line2 += "; host BLAS " + blas + (kernel.empty() ? "" : " (kernel " + kernel + ")");
  return {line1, line2};
}

// One line of a figure: the rows of one kind (mode, or baseline and routine) at one thread count, in size order.
struct Series {
  std::string label, file;
  int threads = 1, color = 1, dash = 1;
  std::vector<const Row*> rows;
};

bool run_gnuplot(const std::string& dir) {
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

}  // namespace

bool write_plots(const Report& r, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::set<int> threads;
  std::vector<std::string> modes;  // emulation modes in first-seen order
  for (const Row& x : r.rows) {
    threads.insert(x.threads);
    if (x.products > 0 && std::find(modes.begin(), modes.end(), x.what) == modes.end()) modes.push_back(x.what);
  }
  // Series: the emulation modes (colour per mode, dash per thread count), then the baselines of the time figure.
  auto make = [&](const std::string& what, const std::string& routine, const std::string& label, int color) {
    std::vector<Series> out;
    int dash = 1;
    for (int t : threads) {
      Series s{label + " t=" + std::to_string(t),
               file_part(label) + "_t" + std::to_string(t) + ".dat",
               t,
               color,
               dash++,
               {}};
      for (const Row& x : r.rows)
        if (x.what == what && x.threads == t && (routine.empty() || x.routine == routine)) s.rows.push_back(&x);
      std::sort(s.rows.begin(), s.rows.end(), [](const Row* a, const Row* b) { return a->n < b->n; });
      if (!s.rows.empty()) out.push_back(std::move(s));
    }
    return out;
  };
  std::vector<Series> fp32, fp64, base;
  int color = 1;
  for (const auto& m : modes) {
    auto s = make(m, "", m, color++);
    auto& to = m.rfind("fp32", 0) == 0 ? fp32 : fp64;
    to.insert(to.end(), s.begin(), s.end());
  }
  for (const auto& [what, routine, label] :
       {std::tuple{"native", "sgemm", "host SGEMM"}, std::tuple{"native", "dgemm", "host DGEMM"},
        std::tuple{"raw", "bf16", "raw BF16 GEMM"}}) {
    auto s = make(what, routine, label, color++);
    base.insert(base.end(), s.begin(), s.end());
  }
  std::vector<Series> all_modes = fp32;
  all_modes.insert(all_modes.end(), fp64.begin(), fp64.end());

  // Data: one file per series: n speedup_host overhead split_fraction compute_fraction time_ms
  // amx_projected_speedup. gnuplot runs in `dir` and the script names its files relative to it.
  auto write_data = [&](const Series& s) {
    std::ofstream f(dir + "/" + s.file);
    f << "# n speedup_host overhead split_fraction compute_fraction time_ms amx_projected_speedup\n";
    for (const Row* x : s.rows) {
      const double tot = x->split + x->compute;
      // Overhead 0 marks a row without a BF16 raw GEMM to compare with (CRT modes): missing, not zero.
      f << x->n << ' ' << num(x->speedup_host) << ' ' << num(x->overhead > 0 ? x->overhead : kNone) << ' '
        << num(tot > 0 ? x->split / tot : kNone) << ' ' << num(tot > 0 ? x->compute / tot : kNone) << ' '
        << num(x->seconds * 1e3) << ' ' << num(x->amx_native / x->amx_seconds) << '\n';
    }
  };
  for (const auto& s : all_modes) write_data(s);
  for (const auto& s : base) write_data(s);
  // Breakdown table for Fig. 10: rows "mode n= t=" with split and compute fractions.
  {
    std::ofstream f(dir + "/breakdown.dat");
    f << "# label split_fraction compute_fraction\n";
    for (int t : threads)
      for (const auto& s : all_modes)
        if (s.threads == t)
          for (const Row* x : s.rows) {
            const double tot = x->split + x->compute;
            if (!(tot > 0)) continue;
            f << '"' << file_part(x->what) << " n=" << x->n << " t=" << t << "\" " << x->split / tot << ' '
              << x->compute / tot << '\n';
          }
  }

  const int points[] = {7, 5, 9, 11, 13, 3};
  auto lines = [&](const std::vector<Series>& which, int column) {
    std::string cmd;
    for (const auto& s : which) {
      if (!cmd.empty()) cmd += ", \\\n     ";
      cmd += fmt::format("'{}' using 1:{} with linespoints lw 2 pt {} dt {} lc {} title {}", s.file, column,
                         points[(s.color - 1) % 6], s.dash, s.color, gp_str(s.label));
    }
    return cmd;
  };
  // Log axes from the data of each figure: x when the sizes span 10x, y when the plotted values do.
  auto axes = [&](const std::vector<Series>& which, const std::function<double(const Row&)>& y,
                  std::vector<double> ys) {
    std::vector<double> xs;
    for (const auto& s : which)
      for (const Row* x : s.rows) xs.push_back(double(x->n)), ys.push_back(y(*x));
    return std::string(spans_decade(xs) ? "set logscale x 2\n" : "unset logscale x\n") +
           (spans_decade(ys) ? "set logscale y\n" : "unset logscale y\n");
  };
  auto speedup = [](const Row& x) { return x.speedup_host; };
  auto overhead = [](const Row& x) { return x.overhead; };
  auto time_ms = [](const Row& x) { return x.seconds * 1e3; };
  auto amx_speedup = [](const Row& x) { return x.amx_native / x.amx_seconds; };
  const std::string break_even = "1 with lines lc 'black' dt 2 lw 2 title 'host BLAS = 1 (break-even)'";

  const auto [cap1, cap2] = caption(r, threads);
  // yfix + offsets: a 5% margin around the data instead of a log axis stretched to the next whole decade.
  std::string gp = fmt::format(
      "# bf16x bench figures (bf16x {}); the data files beside this script hold the plotted columns.\n"
      "set terminal pngcairo size 1000,650 font 'Sans,11'\nset grid\nset key outside right\n"
      "set datafile missing '-'\nset autoscale yfix\nset offsets graph 0, graph 0, graph 0.05, graph 0.05\n"
      "set xlabel 'n (m = n = k)'\ncaption = {}.\"\\n\".{}\n",
      bf16x_version(), gp_str(cap1), gp_str(cap2));
  auto title = [](const std::string& t) { return fmt::format("set title {}.\"\\n\".caption noenhanced\n", gp_str(t)); };
  if (!fp32.empty())
    gp += "set output 'fig6_speedup_fp32.png'\n" + title("fp32 modes: speedup over host SGEMM (Fig. 6)") +
          axes(fp32, speedup, {1.0}) + "set ylabel 'speedup (host SGEMM time / bf16x time)'\nplot " + lines(fp32, 2) +
          ", \\\n     " + break_even + "\n";
  if (!fp64.empty())
    gp += "set output 'fig7_speedup_fp64.png'\n" + title("fp64 modes: speedup over host DGEMM (Fig. 7)") +
          axes(fp64, speedup, {1.0}) + "set ylabel 'speedup (host DGEMM time / bf16x time)'\nplot " + lines(fp64, 2) +
          ", \\\n     " + break_even + "\n";
  std::vector<Series> timed = all_modes;
  timed.insert(timed.end(), base.begin(), base.end());
  if (!timed.empty())
    gp += "set output 'time.png'\n" + title("Time per GEMM (median of the timed runs)") + axes(timed, time_ms, {}) +
          "set ylabel 'time (ms)'\nplot " + lines(timed, 6) + "\n";
  if (!all_modes.empty()) {
    gp += "set output 'fig9_overhead.png'\n" +
          title("Overhead ratio T(mode) / (products x T(raw BF16 GEMM)) (Fig. 9)") + axes(all_modes, overhead, {1.0}) +
          "set ylabel 'overhead ratio'\nplot " + lines(all_modes, 3) +
          ", \\\n     1 with lines lc 'black' dt 3 lw 2 title 'ideal = 1'\n";
    gp += "set output 'amx_projection.png'\n" +
          title("AMX projection (a MODEL, not a measurement): native GEMM at the AVX-512 FMA rate / T_proj") +
          axes(all_modes, amx_speedup, {1.0}) + "set ylabel 'projected speedup over native (model)'\nplot " +
          lines(all_modes, 7) + ", \\\n     1 with lines lc 'black' dt 2 lw 2 title 'native GEMM, AVX-512 model = 1'\n";
    gp += "set output 'fig10_breakdown.png'\nset terminal pngcairo size 1200,650 font 'Sans,10'\n" +
          title("Split+pack vs compute share of bf16x time (Fig. 10)") +
          "unset logscale x\nunset logscale y\nset offsets 0, 0, 0, 0\nset ylabel 'fraction of time'\n"
          "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
          "set boxwidth 0.75\nset yrange [0:1]\nset xtics rotate by -60 font ',8'\nunset xlabel\n"
          "plot 'breakdown.dat' using 2:xtic(1) title 'split + pack', '' using 3 title 'compute'\n";
  }
  {
    std::ofstream f(dir + "/figures.gp");
    f << gp;
  }
  return run_gnuplot(dir);
}

}  // namespace bf16x::cli::bench
