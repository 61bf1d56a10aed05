// bf16x bench: speed of every mode against the host BLAS, oneDNN's BF16 matmul and our own raw BF16 GEMM, with the
// overhead ratio T(mode) / (products x T(raw)) and the split/compute breakdown (paper Figs. 6/7, 9, 10), then each
// mode's phases against the stream-copy bandwidth and the AMX projection (cmd_bench_phases.hpp).
//
//   bf16x bench --sizes 256,512,1024 --threads 1,2 --modes fp32x6,fp64x6,fp64x10,fp64x15,fp64x21,native
//               --engine auto --reps 5 [--csv F] [--json F] [--plots DIR] [--peak]
//
// Per (size, threads): the baselines once (host SGEMM and DGEMM, oneDNN BF16 matmul, raw BF16 GEMM on packed
// and on unpacked operands), then each mode; every time is the median of --reps runs after --warmup untimed ones.
// The host BLAS kernel is printed in the header: Debian's OpenBLAS needs OPENBLAS_CORETYPE set on this CPU.
#include <fmt/core.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <new>
#include <random>
#include <tuple>

#include "accuracy_run.hpp"  // single_precision_mode
#include "bf16x/bf16x.h"
#include "cli_checks.hpp"
#include "cmd_bench_baselines.hpp"
#include "cmd_bench_complex.hpp"
#include "cmd_bench_header.hpp"
#include "cmd_bench_level3.hpp"
#include "cmd_bench_phases.hpp"
#include "cmd_bench_report.hpp"
#include "command.hpp"
#include "cpu/features.hpp"
#include "cr/cr_driver.hpp"
#include "cr/cr_mode.hpp"
#include "crt/crt_mode.hpp"
#include "driver/raw_gemm.hpp"
#include "engine/records.hpp"
#include "host/host_blas.hpp"
#include "settings/names.hpp"
#include "split/scheme.hpp"
#include "util/clock.hpp"

namespace bf16x::cli {
namespace {

using bench::kNone;
using bench::Row;

struct BenchArgs {
  std::vector<std::int64_t> sizes = {256, 512, 1024};
  std::vector<int> threads = {1, 2};
  std::vector<std::string> modes = [] {
    auto v = settings::bf16_mode_names();
    v.emplace_back("native");
    return v;
  }();
  std::string engine = "auto";
  std::string crt_engine = "auto";  // INT8 engine of the CRT modes
  int reps = 5;
  int warmup = 1;
  std::string csv, json, plots;
  bool peak = false;
  int wait_idle = 0;              // seconds to wait at most, before each (size, threads) group, for the CPUs to be idle
  std::vector<std::string> load;  // earlier --json outputs to merge (no measurement unless --sizes is given)
  bool measure = true;
  std::string routine = "gemm";  // gemm, cgemm/zgemm (cmd_bench_complex.hpp), or level 3 (cmd_bench_level3.hpp)
  std::vector<std::string> complex_methods = {"4m", "3m"};
};

using util::now;

double median(std::vector<double> v) {
  if (v.empty()) return kNone;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// What a timed run reports of its own time, in seconds: bf16x_stats' split and compute and its phases, or the raw
// GEMM's packing and compute; kNone where the run has no such part.
struct Parts {
  double split = kNone, compute = kNone, scan = kNone, pack = kNone, products = kNone, write = kNone, sums = kNone;
};

// Times f (which fills its parts and returns its own seconds, or a negative value on failure) --warmup + --reps
// times. With `pair`, each timed run is preceded by pair() (a reference measurement) and the samples of both are
// kept, so that ratios can be formed run by run.
struct Timing {
  double seconds = kNone;
  Parts parts;  // each part's median over the timed runs
  std::vector<double> samples, paired;
};
Timing time_it(const BenchArgs& a, const std::function<double(Parts&)>& f, const std::function<double()>& pair = {}) {
  Timing r;
  std::vector<Parts> runs;
  Parts p;
  for (int i = 0; i < a.warmup; ++i)
    if (f(p) < 0) return {};
  for (int i = 0; i < a.reps; ++i) {
    if (pair) r.paired.push_back(pair());
    const double x = f(p);
    if (x < 0) return {};
    r.samples.push_back(x);
    runs.push_back(p);
  }
  r.seconds = median(r.samples);
  const auto part = [&](double Parts::*m) {
    std::vector<double> v;
    for (const Parts& q : runs) v.push_back(q.*m);
    return median(v);
  };
  r.parts = {part(&Parts::split),    part(&Parts::compute), part(&Parts::scan), part(&Parts::pack),
             part(&Parts::products), part(&Parts::write),   part(&Parts::sums)};
  return r;
}

// Median over runs of samples[i] / (scale * paired[i]).
double paired_ratio(const Timing& t, double scale) {
  std::vector<double> q;
  for (std::size_t i = 0; i < t.samples.size() && i < t.paired.size(); ++i)
    q.push_back(t.samples[i] / (scale * t.paired[i]));
  return median(q);
}

// Progress on stderr: one line per measurement, rewritten in place on a terminal.
struct Progress {
  int done = 0, total = 0;
  bool tty = isatty(2);
  double start = now();
  void step(const std::string& what) {
    ++done;
    std::fprintf(stderr, "%s[bench %d/%d, %.0f s] %s%s", tty ? "\r\033[K" : "", done, total, now() - start,
                 what.c_str(), tty ? "" : "\n");
    std::fflush(stderr);
  }
  void finish() {
    if (tty) std::fprintf(stderr, "\n");
  }
};

double rel_err(const std::vector<double>& ref, const float* c) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = double(c[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : kNone;
}
double rel_err(const std::vector<double>& ref, const double* c) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = c[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : kNone;
}

// Busy and total jiffies of all CPUs (/proc/stat).
std::pair<double, double> cpu_jiffies() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  double v[10] = {};
  f >> cpu;
  for (double& x : v) f >> x;
  const double idle = v[3] + v[4], total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  return {total - idle, total};
}

// Waits up to `limit` seconds until the CPUs were at least 90% idle over 3 seconds (other processes share them).
void wait_for_idle(int limit) {
  const double start = now();
  for (bool told = false;;) {
    const auto [b0, t0] = cpu_jiffies();
    usleep(3000000);
    const auto [b1, t1] = cpu_jiffies();
    const double busy = (t1 > t0) ? (b1 - b0) / (t1 - t0) : 0;
    if (busy <= 0.10) return;
    if (now() - start > limit) {
      std::fprintf(stderr, "bf16x bench: CPUs still %.0f%% busy after %d s, measuring anyway\n", busy * 100, limit);
      return;
    }
    if (!told) std::fprintf(stderr, "bf16x bench: waiting for idle CPUs (%.0f%% busy)\n", busy * 100);
    told = true;
  }
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

int products_of(const std::string& mode) {
  const int id = bf16x_mode_from_name(mode.c_str());
  if (crt::is_crt_mode(id)) return crt::crt_moduli(id);  // INT8 products, one per modulus
  if (is_cr_mode(id)) return 1;                          // one FP64 double-double (or FMA) product on the FMA units
  const split::Scheme* s = split::scheme_for_mode(id);
  return s ? int(s->products.size()) : 0;
}

int finish_outputs(const BenchArgs& a, const bench::Report& rep);

// Whether `path` can be written (an existing writable file, or a new name in a writable directory), so that a bad
// --csv/--json/--plots is a usage error before minutes of measuring, not a failure after them.
bool writable(const std::string& path, bool directory) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::exists(p, ec)) return fs::is_directory(p, ec) == directory && access(path.c_str(), W_OK) == 0;
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (directory) return fs::create_directories(p, ec) && access(path.c_str(), W_OK) == 0;
  return fs::is_directory(parent, ec) && access(parent.c_str(), W_OK | X_OK) == 0;
}

// Usage errors found before anything is measured: outputs that cannot be written, an engine or a mode that cannot
// run. Returns kExitUsage (after saying why) or 0, with the engine that will run.
int check_bench_args(const BenchArgs& a, int& engine_id) {
  for (const auto& [path, dir, flag] :
       {std::tuple{a.csv, false, "--csv"}, std::tuple{a.json, false, "--json"}, std::tuple{a.plots, true, "--plots"}})
    if (!path.empty() && !writable(path, dir)) {
      std::fprintf(stderr, "bf16x bench: %s %s is not writable\n", flag, path.c_str());
      return kExitUsage;
    }
  engine_id = bf16x_engine_from_name(a.engine.c_str());
  if (engine_id == BF16X_ENGINE_AUTO) engine_id = bf16x_engine_selected();
  if (engine_id <= 0 || !bf16x_engine_available(engine_id)) {
    std::fprintf(stderr, "bf16x bench: engine %s is not available on this CPU\n", a.engine.c_str());
    return kExitUsage;
  }
  for (const auto& m : a.modes)
    if (m != "native" && m != "auto" && products_of(m) == 0) {
      std::fprintf(stderr, "bf16x bench: unknown mode %s\n", m.c_str());
      return kExitUsage;
    }
  return 0;
}

bool single_precision(const std::string& m) { return single_precision_mode(m); }

// The inputs of one size: FP32 values, the same values in FP64 (exact), and their BF16 roundings for the raw
// baselines; C buffers for each precision.
struct Operands {
  std::int64_t n;
  std::vector<float> af, bf, cf;
  std::vector<double> ad, bd, cd;
  std::vector<bf16_t> ah, bh;

  explicit Operands(std::int64_t n_) : n(n_) {
    const std::size_t nn = std::size_t(n * n);
    af.resize(nn), bf.resize(nn), cf.resize(nn), ad.resize(nn), bd.resize(nn), cd.resize(nn), ah.resize(nn),
        bh.resize(nn);
    std::mt19937_64 rng{std::uint64_t(n)};
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < nn; ++i) {
      af[i] = float(u(rng));
      bf[i] = float(u(rng));
      ad[i] = af[i];
      bd[i] = bf[i];
      ah[i] = float_to_bf16(af[i]);
      bh[i] = float_to_bf16(bf[i]);
    }
  }
};

// One (size, threads) group: what it runs on and what it has measured so far.
struct Group {
  const BenchArgs& a;
  const engine::EngineInfo& eng;
  int engine_id;
  int threads;
  Operands& x;
  double flops;
  Timing hs{}, hd{}, dn{}, raw{}, rawp{};  // host SGEMM/DGEMM, oneDNN, raw BF16 (plain, pre-packed)
  Timing dd{};                             // the textbook double-double GEMM (with fp64cr only)
  std::vector<double> cref{};              // the host DGEMM's C: the accuracy reference of every row
  std::vector<float> craw{};
  std::unique_ptr<bench::PeakProbe> probe{};   // --peak: a short VDPBF16PS probe before every BF16 run
  double bandwidth = kNone, clock_hz = kNone;  // of the phase table and the AMX projection

  double raw_once() {
    const std::int64_t n = x.n;
    const pack::MatrixView<bf16_t> av{x.ah.data(), n, false}, bv{x.bh.data(), n, false};
    const double t0 = now();
    return driver::raw_gemm(eng, n, n, n, av, bv, craw.data(), n) ? now() - t0 : -1.0;
  }
  std::function<double()> peak_pair() {
    return probe ? std::function<double()>([this] { return probe->gflops(); }) : std::function<double()>();
  }
  Row row(const std::string& what, const std::string& routine, const Timing& tm) const {
    Row r;
    r.n = x.n;
    r.threads = threads;
    r.what = what;
    r.routine = routine;
    r.seconds = tm.seconds;
    r.split = tm.parts.split;
    r.compute = tm.parts.compute;
    r.gflops = flops / tm.seconds * 1e-9;
    r.speedup_onednn = dn.seconds / tm.seconds;
    r.speedup_raw = raw.seconds / tm.seconds;
    return r;
  }
};

// The baselines of a group: host SGEMM (if an SGEMM-like mode runs) and DGEMM, oneDNN's BF16 matmul, the raw BF16
// GEMM of the engine (packing included, and on pre-packed operands). The raw GEMM also runs before every timed run
// of a mode, and the peak probe before every BF16 run, for per-run ratios.
void measure_baselines(Group& g, bool want_s, Progress& prog, const std::function<std::string(const char*)>& label) {
  const BenchArgs& a = g.a;
  Operands& x = g.x;
  const std::int64_t n = x.n;
  if (want_s) {
    g.hs = time_it(a, [&](Parts&) {
      const double t0 = now();
      if (!host::sgemm(BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.f, x.af.data(), n, x.bf.data(), n, 0.f, x.cf.data(),
                       n))
        return -1.0;
      return now() - t0;
    });
  }
  prog.step(label("host sgemm"));
  g.hd = time_it(a, [&](Parts&) {
    const double t0 = now();
    if (!host::dgemm(BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, x.ad.data(), n, x.bd.data(), n, 0.0, x.cd.data(), n))
      return -1.0;
    return now() - t0;
  });
  g.cref = x.cd;
  prog.step(label("host dgemm"));
  const auto pair = g.peak_pair();
  {
    bench::OnednnMatmul mm(n, n, n);
    if (mm.ok())
      g.dn = time_it(
          a, [&](Parts&) { return mm.run(x.ah.data(), x.bh.data(), x.cf.data()); }, pair);
  }
  prog.step(label("onednn bf16"));
  const pack::MatrixView<bf16_t> av{x.ah.data(), n, false}, bv{x.bh.data(), n, false};
  g.raw = time_it(
      a,
      [&](Parts& p) {
        driver::RawTimes rt;
        const double t0 = now();
        if (!driver::raw_gemm(g.eng, n, n, n, av, bv, x.cf.data(), n, &rt)) return -1.0;
        const double el = now() - t0;
        p.split = rt.pack;
        p.compute = rt.compute;
        return el;
      },
      pair);
  driver::RawPacked packed;
  driver::raw_pack(av, bv, n, n, n, packed);
  g.rawp = time_it(
      a,
      [&](Parts&) {
        const double t0 = now();
        if (!driver::raw_gemm_packed(g.eng, packed, x.cf.data(), n)) return -1.0;
        return now() - t0;
      },
      pair);
  prog.step(label("raw bf16"));
  // Beside fp64cr: the textbook vectorised double-double GEMM (Dot2) in the same blocking, what correct rounding
  // is measured against.
  if (std::count(a.modes.begin(), a.modes.end(), "fp64cr")) {
    std::vector<double> c(x.cd.size());
    const pack::GemmArgs<double> args{n, n, n, 1.0, {x.ad.data(), n, false}, {x.bd.data(), n, false}, 0.0, c.data(), n};
    g.dd = time_it(a, [&](Parts&) {
      cr::CrConfig cfg;
      cfg.level = engine::sums_level(g.engine_id);
      const double t0 = now();
      cr::dd_gemm(args, cfg);
      return now() - t0;
    });
  }
}

// The row of one emulation mode: time (each run preceded by a raw BF16 run), overheads, error against the host
// DGEMM.
Row measure_mode(Group& g, const std::string& m) {
  const BenchArgs& a = g.a;
  Operands& x = g.x;
  const std::int64_t n = x.n;
  const int mode = bf16x_mode_from_name(m.c_str());
  const bool fp32 = single_precision(m);
  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = mode;
  o.engine = g.engine_id;
  if (crt::is_crt_mode(mode)) o.engine = bf16x_engine_from_name(a.crt_engine.c_str());  // INT8 engines
  bf16x_stats st;
  o.stats = &st;
  int status = BF16X_OK, ran = mode;  // of the call that failed, if one did
  const Timing tm = time_it(
      a,
      [&](Parts& p) {
        const double t0 = now();
        const int s = fp32 ? bf16x_sgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.f, x.af.data(),
                                            n, x.bf.data(), n, 0.f, x.cf.data(), n, &o)
                           : bf16x_dgemm_ex(BF16X_COL_MAJOR, BF16X_NO_TRANS, BF16X_NO_TRANS, n, n, n, 1.0, x.ad.data(),
                                            n, x.bd.data(), n, 0.0, x.cd.data(), n, &o);
        const double el = now() - t0;
        status = s;
        ran = st.mode;
        if (s != BF16X_OK || (st.mode != mode && mode != BF16X_MODE_AUTO)) return -1.0;
        p = {st.seconds_split,    st.seconds_compute, st.seconds_scan, st.seconds_pack,
             st.seconds_products, st.seconds_write,   st.seconds_sums};
        return el;
      },
      [&] { return g.raw_once(); });
  // auto's row names the mode it chose ("auto>fp64x21", "auto>native"): its products and phases are that mode's.
  const bool chose = mode == BF16X_MODE_AUTO && status == BF16X_OK;
  Row r = g.row(chose ? fmt::format("auto>{}", bf16x_mode_name(ran)) : m, fp32 ? "sgemm" : "dgemm", tm);
  const int ran_mode = chose ? ran : mode;
  r.products = chose ? (ran == BF16X_MODE_NATIVE ? 0 : products_of(bf16x_mode_name(ran))) : products_of(m);
  // No time and no error for a call that failed or ran another mode: C holds the host DGEMM's result, an error of 0.
  if (status != BF16X_OK) {
    r.error = fmt::format("{} (status {})", bf16x_status_string(status), status);
    return r;
  }
  if (ran != mode && !chose) {
    const char* min_size = std::getenv("BF16X_MIN_SIZE");
    r.error = fmt::format("the call ran {}, not {}{}", bf16x_mode_name(ran) ? bf16x_mode_name(ran) : "?", m,
                          min_size ? fmt::format(" (BF16X_MIN_SIZE={})", min_size) : std::string());
    return r;
  }
  r.speedup_host = (fp32 ? g.hs.seconds : g.hd.seconds) / tm.seconds;
  // Per run against the raw GEMM run just before it: T(mode) / (products x T(raw)).
  r.speedup_raw = 1.0 / paired_ratio(tm, 1.0);
  r.overhead = paired_ratio(tm, r.products);
  r.overhead_packed = tm.seconds / (r.products * g.rawp.seconds);
  // Not applicable (a '-' in the table, null in JSON): the raw BF16 GEMM is not the engine of a CRT or correctly
  // rounded mode, and the host BLAS has no products to count.
  if (crt::is_crt_mode(ran_mode) || is_cr_mode(ran_mode) || ran_mode == BF16X_MODE_NATIVE)
    r.speedup_raw = r.overhead = r.overhead_packed = kNone;
  r.rel_err = fp32 ? rel_err(g.cref, x.cf.data()) : rel_err(g.cref, x.cd.data());
  r.scan = tm.parts.scan, r.pack = tm.parts.pack, r.prod = tm.parts.products, r.write = tm.parts.write;
  r.sums = tm.parts.sums;
  r.bytes_scan = double(st.bytes_scan), r.bytes_pack = double(st.bytes_pack), r.bytes_write = double(st.bytes_write);
  r.dot_products = double(st.dot_products);
  // The correctly rounded modes run on the FMA units: no tile operations to project onto AMX.
  if (!is_cr_mode(ran_mode) && ran_mode != BF16X_MODE_NATIVE)
    bench::project_amx(r, g.bandwidth, g.clock_hz, !fp32, st.engine == BF16X_ENGINE_AMX);
  return r;
}

// The rows of one (size, threads) group: the baselines, then every mode ("native" is the host rows), each handed
// to `emit` as soon as it is measured.
void measure_group(Group& g, bool want_s, bool want_d, Progress& prog, const std::function<void(const Row&)>& emit) {
  const auto label = [&](const char* w) { return fmt::format("n={} t={} {}", g.x.n, g.threads, w); };
  measure_baselines(g, want_s, prog, label);
  std::vector<Row> rows;
  if (want_s) rows.push_back(g.row("native", "sgemm", g.hs));
  if (want_d) rows.push_back(g.row("native", "dgemm", g.hd));
  if (!std::isnan(g.dn.seconds)) rows.push_back(g.row("onednn-bf16", "bf16", g.dn));
  rows.push_back(g.row("raw", "bf16", g.raw));
  rows.push_back(g.row("raw-packed", "bf16", g.rawp));
  if (g.dd.seconds > 0) rows.push_back(g.row("dd-gemm", "dgemm", g.dd));
  for (Row& r : rows) {
    if (r.what == "native") r.speedup_host = 1.0;
    // BF16 rows against the peak probe run just before each of their runs.
    const Timing* tm = r.what == "raw"           ? &g.raw
                       : r.what == "raw-packed"  ? &g.rawp
                       : r.what == "onednn-bf16" ? &g.dn
                                                 : nullptr;
    if (tm && g.probe) {
      std::vector<double> q;
      for (std::size_t i = 0; i < tm->samples.size() && i < tm->paired.size(); ++i)
        q.push_back(g.flops * 1e-9 / tm->samples[i] / tm->paired[i]);
      r.peak_fraction = median(q);
    }
    emit(r);
  }
  for (const std::string& m : g.a.modes) {
    if (m == "native") continue;  // the host rows above
    const Row r = measure_mode(g, m);
    prog.step(label(m.c_str()));
    emit(r);
  }
}

// Bytes one size holds at its peak: Operands (40 n^2), the DGEMM reference and the raw C (12 n^2), the raw GEMM's
// packed operands twice (raw_pack's, and raw_gemm's buffer kept between calls: 2 n x n BF16 matrices each, padded),
// the largest library workspace of a mode at any of the thread counts, and the threads' reserve (cli_checks.hpp).
double bench_memory(const BenchArgs& a, std::int64_t n, int engine_id) {
  const double nn = double(n) * double(n), padded = double((n + 255) / 256 * 256);
  double ws = 0;
  for (int t : a.threads) {
    omp_set_num_threads(t);
    for (const std::string& m : a.modes) {
      if (m == "native") continue;
      bf16x_options o;
      bf16x_options_init(&o);
      o.mode = bf16x_mode_from_name(m.c_str());
      o.engine = crt::is_crt_mode(o.mode) ? bf16x_engine_from_name(a.crt_engine.c_str()) : engine_id;
      ws = std::max(ws, gemm_workspace(!single_precision(m), n, n, n, o));
    }
  }
  return 52 * nn + 2 * 4 * padded * padded + ws +
         threads_reserve(*std::max_element(a.threads.begin(), a.threads.end()));
}

int run_bench(const BenchArgs& a) {
  int engine_id = 0;
  if (const int rc = check_bench_args(a, engine_id); rc != 0) return rc;
  const engine::EngineInfo& eng = *engine::engine_info(engine_id);
  const bool want_s = std::any_of(a.modes.begin(), a.modes.end(), single_precision) ||
                      std::count(a.modes.begin(), a.modes.end(), "native");
  const bool want_d =
      std::any_of(a.modes.begin(), a.modes.end(), [](const std::string& m) { return !single_precision(m); });

  // Sizes that cannot be held are refused before anything is allocated; the others still run.
  std::vector<std::string> skipped(a.sizes.size());
  if (a.measure) {
    for (std::size_t i = 0; i < a.sizes.size(); ++i)
      if (!(skipped[i] = memory_shortfall(bench_memory(a, a.sizes[i], engine_id))).empty())
        std::fprintf(stderr, "bf16x bench: n=%lld does not fit: %s\n", (long long)a.sizes[i], skipped[i].c_str());
    if (a.load.empty() && std::none_of(skipped.begin(), skipped.end(), [](const std::string& s) { return s.empty(); }))
      return kExitRunFailure;
  }
  bool failed = std::any_of(skipped.begin(), skipped.end(), [](const std::string& s) { return !s.empty(); });

  bench::Report rep;
  if (a.measure)
    rep.header = bench::run_header({engine_id, a.sizes, a.threads, a.modes, a.reps, a.warmup, a.wait_idle});
  for (const auto& f : a.load)
    if (!bench::read_json(rep, f)) {
      std::fprintf(stderr, "bf16x bench: cannot read %s\n", f.c_str());
      return kExitUsage;
    }
  std::stable_sort(rep.rows.begin(), rep.rows.end(),
                   [](const Row& x, const Row& y) { return x.n != y.n ? x.n < y.n : x.threads < y.threads; });
  bench::print_header(rep);
  if (!a.measure) {
    bench::print_peaks(rep);
    bench::print_table_head();
    for (const Row& r : rep.rows) bench::print_row(r);
    bench::print_phase_head();
    for (const Row& r : rep.rows)
      if (r.products > 0) bench::print_phase_row(r);
    return finish_outputs(a, rep);
  }
  // The peak probe times VDPBF16PS: without AVX512-BF16 there is nothing to measure (and no peak% column).
  const bool peak = a.peak && cpu::has_avx512bf16();
  if (a.peak && !peak) fmt::print("  VDPBF16PS peak: not measured (this CPU has no AVX512-BF16)\n\n");
  if (peak) {
    if (a.wait_idle > 0) wait_for_idle(a.wait_idle);
    for (int t : a.threads) rep.peaks.push_back(bench::measure_peak(t, 0.3));
    bench::print_peaks(rep);
  }

  // The phase table's bound and the AMX projection's clock: measured once per thread count, before the sizes.
  std::vector<double> bandwidth;
  for (int t : a.threads) bandwidth.push_back(bench::stream_bandwidth(t));
  const double clock_hz = bench::core_clock_hz();
  for (std::size_t i = 0; i < a.threads.size(); ++i)
    fmt::print("  stream copy, {} thread(s): {:.1f} GB/s (read + written)\n", a.threads[i], bandwidth[i] * 1e-9);
  fmt::print("  core clock (dependent imul): {:.2f} GHz\n\n", clock_hz * 1e-9);
  rep.header["core_clock_ghz"] = clock_hz * 1e-9;

  Progress prog;
  // Per (size, threads): host SGEMM, host DGEMM, oneDNN, raw BF16, then each emulation mode.
  const auto emulated =
      std::count_if(a.modes.begin(), a.modes.end(), [](const std::string& m) { return m != "native"; });
  const auto runs = std::count(skipped.begin(), skipped.end(), std::string());
  prog.total = int(std::size_t(runs) * a.threads.size() * (std::size_t(emulated) + 4));
  bench::print_table_head();
  const auto emit = [&](const Row& r) {
    if (prog.tty) std::fprintf(stderr, "\r\033[K");
    bench::print_row(r);
    if (r.error.empty())
      rep.rows.push_back(r);
    else
      failed = true;
  };
  for (std::size_t i = 0; i < a.sizes.size(); ++i) {
    const std::int64_t n = a.sizes[i];
    if (!skipped[i].empty()) {
      fmt::print("{:>5} {:>2} skipped: {}\n", n, "-", skipped[i]);
      std::fflush(stdout);
      continue;
    }
    // An allocation the check did not foresee ends this size only: its rows so far are printed, the next size runs.
    try {
      Operands x(n);
      for (std::size_t ti = 0; ti < a.threads.size(); ++ti) {
        const int t = a.threads[ti];
        if (a.wait_idle > 0) wait_for_idle(a.wait_idle);
        omp_set_num_threads(t);
        bench::set_host_threads(t);
        Group g{a, eng, engine_id, t, x, 2.0 * double(n) * double(n) * double(n)};
        g.craw.resize(std::size_t(n * n));
        if (peak) g.probe = std::make_unique<bench::PeakProbe>(t, 0.03);
        g.bandwidth = bandwidth[ti];
        g.clock_hz = clock_hz;
        measure_group(g, want_s, want_d, prog, emit);
      }
    } catch (const std::bad_alloc&) {
      if (prog.tty) std::fprintf(stderr, "\r\033[K");
      fmt::print("{:>5} {:>2} stopped: out of memory\n", n, "-");
      std::fflush(stdout);
      std::fprintf(stderr, "bf16x bench: n=%lld stopped: out of memory (an allocation failed)\n", (long long)n);
      failed = true;
    }
  }
  prog.finish();
  bench::print_phase_head();
  for (const Row& r : rep.rows)
    if (r.products > 0) bench::print_phase_row(r);
  rep.header["load_average_end"] = bench::load_average();
  fmt::print("\n  load average at the end: {}\n", loadavg());
  const int rc = finish_outputs(a, rep);
  return rc != 0 ? rc : failed ? kExitRunFailure : 0;
}

int finish_outputs(const BenchArgs& a, const bench::Report& rep) {
  int rc = 0;
  if (!a.csv.empty() && !bench::write_csv(rep, a.csv)) {
    std::fprintf(stderr, "bf16x bench: cannot write %s\n", a.csv.c_str());
    rc = kExitRunFailure;
  }
  if (!a.json.empty() && !bench::write_json(rep, a.json)) {
    std::fprintf(stderr, "bf16x bench: cannot write %s\n", a.json.c_str());
    rc = kExitRunFailure;
  }
  if (!a.plots.empty() && !bench::write_plots(rep, a.plots)) rc = kExitRunFailure;
  return rc;
}

const RegisterCommand reg(
    "bench",
    "speed of every mode vs host BLAS, oneDNN BF16 and the raw BF16 GEMM; overhead ratio; phases vs memory bandwidth "
    "and "
    "the AMX projection (a model)",
    [](CLI::App& app) {
      auto args = std::make_shared<BenchArgs>();
      app.add_option("--sizes", args->sizes, "square sizes n (m = n = k), 1..65536")
          ->delimiter(',')
          ->check(CLI::Range(1, 1 << 16));
      app.add_option("--threads", args->threads, "thread counts, 1..4096")->delimiter(',')->check(CLI::Range(1, 4096));
      app.add_option("--modes", args->modes,
                     "modes (fp32x6, fp32x3, fp32c5..10, fp32cr as sgemm; fp64x6..21, fp64c8..20, fp64cr, auto as dgemm; "
                     "native: both host rows)")
          ->delimiter(',');
      app.add_option("--crt-engine", args->crt_engine, "INT8 engine of fp64c/fp32c modes (one this CPU runs)")
          ->check(int8_engine_check());
      app.add_option("--engine", args->engine, "engine (one this CPU runs)")->check(bf16_engine_check());
      app.add_option("--reps", args->reps, "timed repetitions (median)")->check(CLI::Range(1, 1000));
      app.add_option("--warmup", args->warmup, "untimed runs before the timed ones")->check(CLI::Range(0, 100));
      app.add_option("--csv", args->csv, "write the rows as CSV to this file (default: none)")->check(nonempty_check());
      app.add_option("--json", args->json, "write header, peaks and rows as JSON to this file (default: none)")
          ->check(nonempty_check());
      app.add_option("--plots", args->plots, "write PNG figures (gnuplot) into this directory (default: none)")
          ->check(nonempty_check());
      app.add_flag("--peak", args->peak, "measure the VDPBF16PS peak per thread count");
      auto* sizes_opt = app.get_option("--sizes");
      app.add_option("--load", args->load,
                     "merge the rows of an earlier --json output (repeatable); measures only if --sizes is given too")
          ->check(nonempty_check());
      app.add_option("--wait-idle", args->wait_idle,
                     "before each (size, threads) group, wait up to this many seconds for idle CPUs (shared machines)")
          ->check(CLI::Range(0, 3600));
      const auto routine_check = CLI::Validator(
          [](std::string& r) {
            return r == "gemm" || r == "cgemm" || r == "zgemm" || is_level3_routine(r)
                       ? std::string()
                       : "not a routine of bench: gemm, cgemm, zgemm, or syrk, syr2k, symm, trmm, trsm, gemmt (bare or "
                         "with s, d, c, z), herk, her2k, hemm (bare or with c, z)";
          },
          "ROUTINE");
      app.add_option("--routine", args->routine,
                     "gemm (the real modes), cgemm/zgemm (host vs modes, 4M and 3M), or a level-3 routine: syrk, "
                     "syr2k, symm, trmm, trsm, gemmt, herk, her2k, hemm (its rate and the same mode's GEMM rate at "
                     "the same n, and their ratio), in the precision of each mode or of its letter (dsyrk, zherk, ...)")
          ->check(routine_check);
      app.add_option("--complex-method", args->complex_methods,
                     "cgemm/zgemm: 4m, 3m (default both); complex level-3 routines: the library's default unless given")
          ->delimiter(',')
          ->check(CLI::IsMember({"4m", "3m"}));
      auto* modes_opt = app.get_option("--modes");
      auto* methods_opt = app.get_option("--complex-method");
      app.callback([args, sizes_opt, modes_opt, methods_opt] {
        if (is_level3_routine(args->routine)) {
          if (!args->json.empty() || !args->plots.empty() || !args->load.empty() || args->peak) {
            std::fprintf(stderr,
                         "bf16x bench: --routine %s writes the table and --csv only (no --json, --plots, "
                         "--load, --peak)\n",
                         args->routine.c_str());
            exit_code() = kExitUsage;
            return;
          }
          Level3BenchArgs l{args->routine, args->sizes,  args->threads, args->modes, {}, 0, 0,
                            args->reps,    args->warmup, args->csv};
          if (modes_opt->count() == 0) l.modes = level3_default_modes(args->routine);
          if (methods_opt->count() > 0) l.methods = args->complex_methods;
          l.engine = bf16x_engine_from_name(args->engine.c_str());
          l.crt_engine = bf16x_engine_from_name(args->crt_engine.c_str());
          exit_code() = run_level3_bench(l);
          return;
        }
        if (args->routine != "gemm") {
          ComplexBenchArgs c{args->routine, args->sizes,           args->threads,
                             args->modes,   args->complex_methods, bf16x_engine_from_name(args->engine.c_str()),
                             args->reps,    args->warmup,          args->csv};
          if (modes_opt->count() == 0)
            c.modes = args->routine == "zgemm" ? std::vector<std::string>{"native", "fp64x21", "fp64c15"}
                                               : std::vector<std::string>{"native", "fp32x6", "fp32c8"};
          exit_code() = run_complex_bench(c);
          return;
        }
        args->measure = args->load.empty() || sizes_opt->count() > 0;
        exit_code() = run_bench(*args);
      });
    });

}  // namespace
}  // namespace bf16x::cli
