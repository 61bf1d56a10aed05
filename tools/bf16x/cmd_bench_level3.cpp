#include "cmd_bench_level3.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <random>
#include <type_traits>
#include <utility>

#include "bf16x/bf16x.h"
#include "bf16x/bf16x.hpp"
#include "cli_checks.hpp"
#include "cmd_bench_baselines.hpp"
#include "cmd_bench_phases.hpp"
#include "command.hpp"
#include "host/host_blas.hpp"
#include "settings/names.hpp"

namespace bf16x::cli {
namespace {

// The routines, each with its flop count at m = n = k in units of n^3 (real; complex: 4 times that), and whether
// it exists for the real types (herk, her2k, hemm: complex only).
struct Routine {
  const char* name;
  double flops;  // syrk n^2 k, syr2k 2 n^2 k, symm 2 m^2 n (left), trmm m^2 n (left), trsm m^2 n, gemmt n^2 k
  bool real;
};
constexpr Routine kRoutines[] = {{"syrk", 1, true},  {"syr2k", 2, true},  {"symm", 2, true},
                                 {"trmm", 1, true},  {"trsm", 1, true},   {"gemmt", 1, true},
                                 {"herk", 1, false}, {"her2k", 2, false}, {"hemm", 2, false}};

const Routine* find_routine(const std::string& base) {
  for (const Routine& r : kRoutines)
    if (base == r.name) return &r;
  return nullptr;
}

// "dsyrk" -> ('d', syrk); "syrk" -> (0, syrk); nullptr if not a level-3 routine of this bench.
const Routine* parse(const std::string& routine, char& letter) {
  letter = 0;
  if (const Routine* r = find_routine(routine)) return r;
  if (routine.size() < 2 || std::string("sdcz").find(routine[0]) == std::string::npos) return nullptr;
  const Routine* r = find_routine(routine.substr(1));
  if (!r || (!r->real && (routine[0] == 's' || routine[0] == 'd'))) return nullptr;
  letter = routine[0];
  return r;
}

// The precision letter a mode runs `routine` in: the routine's own, else by the mode (fp32 modes: s or c; fp64 modes,
// native and auto: d or z); 0 if the mode does not fit the routine's letter.
char letter_for(const Routine& r, char given, const std::string& mode) {
  const int id = bf16x_mode_from_name(mode.c_str());
  if (given) {
    const bool is_double = given == 'd' || given == 'z';
    return id >= 0 && settings::mode_fits(id, is_double) ? given : 0;
  }
  const bool single = id >= 0 && !settings::mode_fits(id, true);  // fp32x6, fp32c<N>, fp32cr (the library's rule)
  return r.real ? (single ? 's' : 'd') : (single ? 'c' : 'z');
}

template <typename T>
constexpr bool kComplex = !std::is_floating_point_v<T>;
template <typename T>
using Real = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>, float, double>;

// One call of the routine through the C++ API (bf16x.hpp) on n x n operands, column-major: lower triangle (of C,
// or of A), side left, no transpose, non-unit diagonal, alpha 1, beta 0 (trmm, trsm: in place on c, where the
// caller puts B before each run). The status.
template <typename T>
int call_routine(const std::string& name, std::int64_t n, const T* a, const T* b, T* c, const bf16x_options& o) {
  constexpr auto L = Layout::col_major;
  constexpr auto U = Uplo::lower;
  constexpr auto N = Op::none;
  const T one(1), zero(0);
  try {
    if (name == "syrk") syrk(L, U, N, n, n, one, a, n, zero, c, n, o);
    if (name == "syr2k") syr2k(L, U, N, n, n, one, a, n, b, n, zero, c, n, o);
    if (name == "symm") symm(L, Side::left, U, n, n, one, a, n, b, n, zero, c, n, o);
    if (name == "trmm") trmm(L, Side::left, U, N, Diag::non_unit, n, n, one, a, n, c, n, o);
    if (name == "trsm") trsm(L, Side::left, U, N, Diag::non_unit, n, n, one, a, n, c, n, o);
    if (name == "gemmt") gemmt(L, U, N, N, n, n, one, a, n, b, n, zero, c, n, o);
    if constexpr (kComplex<T>) {
      if (name == "herk") herk(L, U, N, n, n, Real<T>(1), a, n, Real<T>(0), c, n, o);
      if (name == "her2k") her2k(L, U, N, n, n, one, a, n, b, n, Real<T>(0), c, n, o);
      if (name == "hemm") hemm(L, Side::left, U, n, n, one, a, n, b, n, zero, c, n, o);
    }
  } catch (const Error& e) {
    return e.status();
  }
  return BF16X_OK;
}

template <typename T>
int call_gemm(std::int64_t n, const T* a, const T* b, T* c, const bf16x_options* o) {
  constexpr auto L = BF16X_COL_MAJOR;
  constexpr auto N = BF16X_NO_TRANS;
  if constexpr (std::is_same_v<T, float>) {
    return bf16x_sgemm_ex(L, N, N, n, n, n, 1.f, a, n, b, n, 0.f, c, n, o);
  } else if constexpr (std::is_same_v<T, double>) {
    return bf16x_dgemm_ex(L, N, N, n, n, n, 1.0, a, n, b, n, 0.0, c, n, o);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    using C = bf16x_complex_float;
    return bf16x_cgemm_ex(L, N, N, n, n, n, C{1, 0}, reinterpret_cast<const C*>(a), n, reinterpret_cast<const C*>(b), n,
                          C{0, 0}, reinterpret_cast<C*>(c), n, o);
  } else {
    using C = bf16x_complex_double;
    return bf16x_zgemm_ex(L, N, N, n, n, n, C{1, 0}, reinterpret_cast<const C*>(a), n, reinterpret_cast<const C*>(b), n,
                          C{0, 0}, reinterpret_cast<C*>(c), n, o);
  }
}

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

struct Row {
  std::string routine;  // with its letter: dsyrk
  std::int64_t n = 0;
  int threads = 0;
  std::string mode, method, engine = "-";
  double seconds = 0, gemm_seconds = 0, flops = 0, gemm_flops = 0, ratio = 0;  // ratio: median of per-run ratios
  double amx_ratio =
      bench::kNone;  // the same ratio in the AMX projection (a model; kNone: the mode has no tile operations)
  std::string error;
};

// A call's time in the AMX projection (cmd_bench_phases.hpp), from its stats.
double projected(double seconds, const bf16x_stats& st, double clock_hz, int threads) {
  return bench::amx_projected_seconds(seconds, st.seconds_products, st.seconds_sums, double(st.dot_products), clock_hz,
                                      threads, st.engine == BF16X_ENGINE_AMX);
}

// One (routine, n, threads, mode, method) row: --warmup untimed pairs, then --reps pairs (GEMM, then the routine,
// on the same operands), the rates' ratio formed pair by pair, measured and in the AMX projection.
template <typename T>
Row bench_row(const Level3BenchArgs& a, const Routine& r, char letter, std::int64_t n, int threads,
              const std::string& mode, const std::string& method, double clock_hz) {
  Row row;
  row.routine = std::string(1, letter) + r.name;
  row.n = n, row.threads = threads, row.mode = mode, row.method = method.empty() ? "-" : method;
  const std::size_t nn = std::size_t(n * n);
  // A and B uniform: the GEMM's operands and the routine's (trmm: A's lower triangle); trsm solves with T.
  std::vector<T> A(nn), B(nn), C(nn), G(nn), tri;
  std::mt19937_64 rng{std::uint64_t(n)};
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t i = 0; i < nn; ++i) {
    if constexpr (kComplex<T>)
      A[i] = T(Real<T>(u(rng)), Real<T>(u(rng))), B[i] = T(Real<T>(u(rng)), Real<T>(u(rng)));
    else
      A[i] = T(u(rng)), B[i] = T(u(rng));
  }
  const bool in_place = r.name == std::string("trmm") || r.name == std::string("trsm");
  if (r.name == std::string("trsm")) {
    // A well-conditioned lower triangle: off-diagonal entries of A over sqrt(n), a diagonal of 1..2 in magnitude
    // (the solution stays of the size of B; not so graded that the guard sends its updates to the host).
    tri = A;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = j; i < n; ++i) {
        T& x = tri[std::size_t(i + j * n)];
        x = i == j ? T(Real<T>(u(rng) < 0 ? -1.5 + 0.5 * u(rng) : 1.5 + 0.5 * u(rng)))
                   : x * Real<T>(1.0 / std::sqrt(double(n)));
      }
  }
  const T* a_routine = tri.empty() ? A.data() : tri.data();

  bf16x_options o;
  bf16x_options_init(&o);
  o.mode = bf16x_mode_from_name(mode.c_str());
  o.engine = mode.rfind("fp64c", 0) == 0 && mode != "fp64cr"   ? a.crt_engine
             : mode.rfind("fp32c", 0) == 0 && mode != "fp32cr" ? a.crt_engine
                                                               : a.engine;
  if (!method.empty()) o.complex_method = method == "3m" ? BF16X_COMPLEX_3M : BF16X_COMPLEX_4M;
  bf16x_stats st;
  bf16x_stats_init(&st);
  o.stats = &st;

  int status = BF16X_OK, ran = o.mode, gemm_ran = o.mode;
  bf16x_stats gemm_st, routine_st;
  const auto gemm = [&] {
    const int s = call_gemm<T>(n, A.data(), B.data(), G.data(), &o);
    if (s != BF16X_OK) status = s;
    gemm_ran = st.mode;
    gemm_st = st;
  };
  const auto routine = [&] {
    const int s = call_routine<T>(r.name, n, a_routine, B.data(), C.data(), o);
    if (s != BF16X_OK) status = s;
    ran = st.mode;
    routine_st = st;
  };
  // The correctly rounded modes run on the FMA units, native on the host: no tile operations to project.
  const bool project = o.mode != BF16X_MODE_NATIVE && mode.find("cr") == std::string::npos && clock_hz > 0;
  const double unit = double(n) * double(n) * double(n) * (kComplex<T> ? 4.0 : 1.0);
  row.flops = r.flops * unit;
  row.gemm_flops = 2.0 * unit;
  std::vector<double> tr, tg, q, qa;
  for (int i = 0; i < a.warmup + a.reps && status == BF16X_OK; ++i) {
    if (in_place) C = B;  // B again (trmm, trsm work in place), outside the timed part
    const double g = seconds_of(gemm);
    const double t = seconds_of(routine);
    if (i < a.warmup) continue;
    tg.push_back(g), tr.push_back(t);
    q.push_back((row.flops / t) / (row.gemm_flops / g));
    if (project)
      qa.push_back((row.flops / projected(t, routine_st, clock_hz, threads)) /
                   (row.gemm_flops / projected(g, gemm_st, clock_hz, threads)));
  }
  if (status != BF16X_OK) {
    row.error = fmt::format("{} (status {})", bf16x_status_string(status), status);
    return row;
  }
  row.engine = engine_label(mode, st.engine);
  // A row compares the mode with itself: a call that ran another (BF16X_MIN_SIZE, the guard's host GEMM) is an
  // error; auto names what each chose.
  const auto name = [](int id) { return std::string(bf16x_mode_name(id) ? bf16x_mode_name(id) : "?"); };
  for (const auto& [got, what] : {std::pair{ran, r.name}, std::pair{gemm_ran, "gemm"}})
    if (got != o.mode && o.mode != BF16X_MODE_AUTO) {
      row.error = fmt::format("the {} call ran {}, not {}", what, name(got), mode);
      return row;
    }
  if (o.mode == BF16X_MODE_AUTO)
    row.mode = fmt::format("auto>{}", name(ran)) + (gemm_ran != ran ? fmt::format(",gemm>{}", name(gemm_ran)) : "");
  row.seconds = median(tr);
  row.gemm_seconds = median(tg);
  row.ratio = median(q);
  if (!qa.empty()) row.amx_ratio = median(qa);
  return row;
}

void print_row(const Row& r) {
  if (!r.error.empty()) {
    fmt::print("{:<7} {:>6} {:>4}  {:<13} {:<3}  error: {}\n", r.routine, r.n, r.threads, r.mode, r.method, r.error);
    return;
  }
  fmt::print("{:<7} {:>6} {:>4}  {:<13} {:<3} {:<11} {:>10.3f} {:>9.2f} {:>10.3f} {:>9.2f} {:>7.3f} {:>7}\n", r.routine,
             r.n, r.threads, r.mode, r.method, r.engine, r.seconds * 1e3, r.flops / r.seconds * 1e-9,
             r.gemm_seconds * 1e3, r.gemm_flops / r.gemm_seconds * 1e-9, r.ratio,
             std::isfinite(r.amx_ratio) ? fmt::format("{:.3f}", r.amx_ratio) : "-");
}

}  // namespace

std::vector<std::string> level3_routine_names() {
  std::vector<std::string> v;
  for (const Routine& r : kRoutines) {
    v.emplace_back(r.name);
    for (const char* p : {"s", "d", "c", "z"})
      if (r.real || *p == 'c' || *p == 'z') v.push_back(p + std::string(r.name));
  }
  return v;
}

bool is_level3_routine(const std::string& routine) {
  char letter = 0;
  return parse(routine, letter) != nullptr;
}

std::vector<std::string> level3_default_modes(const std::string& routine) {
  char letter = 0;
  parse(routine, letter);
  if (letter == 's' || letter == 'c') return {"native", "fp32x6", "fp32c8"};
  return {"native", "fp64x21", "fp64c15"};
}

int run_level3_bench(const Level3BenchArgs& a) {
  char given = 0;
  const Routine* r = parse(a.routine, given);
  if (!r) {
    std::fprintf(stderr, "bf16x bench: %s is not a level-3 routine\n", a.routine.c_str());
    return kExitUsage;
  }
  std::vector<char> letters;
  for (const std::string& m : a.modes) {
    const char l = bf16x_mode_from_name(m.c_str()) < 0 ? 0 : letter_for(*r, given, m);
    if (!l) {
      std::fprintf(stderr, "bf16x bench: %s is not a mode of %s\n", m.c_str(), a.routine.c_str());
      return kExitUsage;
    }
    letters.push_back(l);
  }
  std::FILE* csv = a.csv.empty() ? nullptr : std::fopen(a.csv.c_str(), "w");
  if (!a.csv.empty() && !csv) {
    std::fprintf(stderr, "bf16x bench: --csv %s is not writable\n", a.csv.c_str());
    return kExitUsage;
  }
  if (csv) std::fprintf(csv, "routine,n,threads,mode,method,engine,ms,gflops,gemm_ms,gemm_gflops,ratio,amx_ratio\n");
  fmt::print(
      "host {} ({}); uniform [-1, 1], m = n = k, column-major, lower, side left, no transpose, alpha 1, beta 0 "
      "(trsm: a well-conditioned triangle); median of {} after {}\n",
      host::library_name(), host::core_name(), a.reps, a.warmup);
  fmt::print(
      "flops: syrk/herk n^2 k, syr2k/her2k 2 n^2 k, symm/hemm 2 m^2 n, trmm/trsm m^2 n, gemmt n^2 k, gemm 2 m n k; "
      "complex 4x. ratio: the routine's rate over the same mode's GEMM rate, run by run (median); amx: that ratio in "
      "the AMX projection (a MODEL, not a measurement: each call's time less its products, plus their sums and its "
      "tile operations at 16 cycles; docs/performance.md \"AMX projection\")\n");
  fmt::print("{:<7} {:>6} {:>4}  {:<13} {:<3} {:<11} {:>10} {:>9} {:>10} {:>9} {:>7} {:>7}\n", "", "n", "thr", "mode",
             "alg", "engine", "t [ms]", "GFLOP/s", "gemm [ms]", "gemm GF/s", "ratio", "amx");
  const double clock_hz = bench::core_clock_hz();
  int rc = 0;
  for (std::int64_t n : a.sizes)
    for (int t : a.threads) {
      bf16x_set_num_threads(t);
      bench::set_host_threads(t);
      for (std::size_t mi = 0; mi < a.modes.size(); ++mi) {
        const std::string& m = a.modes[mi];
        const char l = letters[mi];
        const bool cplx = l == 'c' || l == 'z', is_double = l == 'd' || l == 'z';
        // A, B, C and the GEMM's C (and B's copy for trmm/trsm) and twice the largest real workspace (a complex
        // call adds block buffers of its own): a size that cannot be held is skipped with the reason.
        bf16x_options o;
        bf16x_options_init(&o);
        o.mode = bf16x_mode_from_name(m.c_str());
        const double s = (is_double ? 8.0 : 4.0) * (cplx ? 2 : 1), nn = double(n) * double(n);
        const double ws = gemm_workspace(is_double, n, n, n, o);
        if (const std::string why = memory_shortfall(5 * s * nn + 2 * ws + threads_reserve(t)); !why.empty()) {
          fmt::print("{:<7} {:>6} {:>4}  {:<13} skipped: {}\n", std::string(1, l) + r->name, n, t, m, why);
          std::fflush(stdout);
          rc = kExitRunFailure;
          continue;
        }
        const std::vector<std::string> methods = cplx && !a.methods.empty() ? a.methods : std::vector<std::string>{""};
        for (const std::string& method : methods) {
          const Row row = l == 's'   ? bench_row<float>(a, *r, l, n, t, m, method, clock_hz)
                          : l == 'd' ? bench_row<double>(a, *r, l, n, t, m, method, clock_hz)
                          : l == 'c' ? bench_row<std::complex<float>>(a, *r, l, n, t, m, method, clock_hz)
                                     : bench_row<std::complex<double>>(a, *r, l, n, t, m, method, clock_hz);
          print_row(row);
          std::fflush(stdout);
          if (!row.error.empty()) {
            rc = kExitRunFailure;
            continue;
          }
          if (csv)
            std::fprintf(csv, "%s,%lld,%d,%s,%s,%s,%.6f,%.3f,%.6f,%.3f,%.4f,%s\n", row.routine.c_str(),
                         (long long)row.n, row.threads, row.mode.c_str(), row.method.c_str(), row.engine.c_str(),
                         row.seconds * 1e3, row.flops / row.seconds * 1e-9, row.gemm_seconds * 1e3,
                         row.gemm_flops / row.gemm_seconds * 1e-9, row.ratio,
                         std::isfinite(row.amx_ratio) ? fmt::format("{:.4f}", row.amx_ratio).c_str() : "");
        }
      }
    }
  if (csv) std::fclose(csv);
  return rc;
}

}  // namespace bf16x::cli
