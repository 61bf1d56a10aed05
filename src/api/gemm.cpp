// bf16x_sgemm / bf16x_dgemm: checks, layout normalisation (a row-major operand is the column-major transpose; a
// row-major C is written in place, so both layouts compute the same product in the same order), BLAS quick returns,
// mode and engine resolution, then the host BLAS or the emulation driver; stats and the verbose line for every call,
// rejected ones included.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "api/call_plan.hpp"
#include "api/caller_structs.hpp"
#include "api/checks.hpp"
#include "api/engine_choice.hpp"
#include "api/env.hpp"
#include "api/guard_step.hpp"
#include "api/mode_policy.hpp"
#include "api/real_gemm.hpp"
#include "api/runtime.hpp"
#include "api/verbose.hpp"
#include "bf16x/bf16x.h"
#include "cr/cr_driver.hpp"
#include "cr/cr_mode.hpp"
#include "cr/tile_sums.hpp"
#include "crt/crt_driver.hpp"
#include "crt/crt_mode.hpp"
#include "crt/crt_model.hpp"
#include "driver/gemm_driver.hpp"
#include "engine/records.hpp"
#include "env/env_vars.hpp"
#include "host/host_blas.hpp"
#include "util/clock.hpp"

namespace bf16x::api {
namespace {

int flip(int t) { return t == BF16X_NO_TRANS ? BF16X_TRANS : BF16X_NO_TRANS; }

// The normalised call C = alpha op(A) op(B) + beta C on column-major operand views; C is column-major, or row-major
// (c_rows: C(i, j) at c[i * ldc + j]).
template <typename T>
bool host_gemm(int ta, int tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
               const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, bool c_rows) {
  // The column-major host GEMM computes a row-major C as C^T = op(B)^T op(A)^T.
  if (c_rows) return host_gemm<T>(flip(tb), flip(ta), n, m, k, alpha, b, ldb, a, lda, beta, c, ldc, false);
  if constexpr (std::is_same_v<T, float>)
    return host::sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    return host::dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// C = beta * C, with beta == 0 setting C to zero without reading it (BLAS semantics for alpha == 0 or k == 0);
// beta == 1 leaves C untouched, as the reference BLAS does (a signalling NaN stays signalling).
template <typename T>
void scale_c(std::int64_t m, std::int64_t n, T beta, T* c, std::int64_t ldc, bool c_rows) {
  if (beta == T(1)) return;
  if (c_rows) std::swap(m, n);  // C^T, column-major
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) c[i + j * ldc] = beta == T(0) ? T(0) : beta * c[i + j * ldc];
}

// An emulation mode the caller asked for by name that lands on the scalar reference engine (no vector BF16 engine
// here, and none requested): said once per process, since it runs 40-1000x slower than the host BLAS.
void warn_if_reference(int requested, int mode, int engine_id, int engine_option, const Settings& s) {
  if (requested == BF16X_MODE_AUTO || mode == BF16X_MODE_NATIVE || engine_id != BF16X_ENGINE_REFERENCE) return;
  if (engine_option == BF16X_ENGINE_REFERENCE || s.env_engine == BF16X_ENGINE_REFERENCE ||
      s.engine == BF16X_ENGINE_REFERENCE)
    return;
  static std::once_flag once;
  std::call_once(once, [mode] {
    envvar::warn(std::string("mode ") + bf16x_mode_name(mode) +
                 " runs on the scalar reference engine: this CPU has no vector BF16 engine, expect it to be 40-1000x "
                 "slower than the host BLAS");
  });
}

// Why the host GEMM could not run a call: no host BLAS at all, or one whose 32-bit interface cannot take the sizes.
int host_missing() { return *host::library_name() ? BF16X_ERR_ENGINE : BF16X_ERR_NO_HOST; }

// One normalised call: C = alpha op(A) op(B) + beta C on column-major operand views, C in either layout.
template <typename T>
struct Call {
  int transa, transb;
  std::int64_t m, n, k;
  T alpha;
  const T* a;
  std::int64_t lda;
  const T* b;
  std::int64_t ldb;
  T beta;
  T* c;
  std::int64_t ldc;
  bool c_rows;
  pack::MatrixView<T> opa() const { return {a, lda, transa != BF16X_NO_TRANS}; }
  pack::MatrixView<T> opb() const { return {b, ldb, transb != BF16X_NO_TRANS}; }
  driver::RepairArgs<T> repair() const { return {k, alpha, opa(), opb(), beta, c, ldc, c_rows}; }
  // The host GEMM for the whole call: BF16X_OK, or why it could not run.
  int host() const {
    return host_gemm<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, c_rows) ? int(BF16X_OK)
                                                                                              : host_missing();
  }
  // The host GEMM of a guarded call (guard=native, auto's native choice): in range where the unscaled call is not.
  // A row-major C runs column-major on a copy: the column-major host GEMM would compute it as C^T = op(B)^T op(A)^T,
  // whose bits differ, and the modes under the guard keep the emulation's promise of the same bits in both layouts.
  int host_guarded() const {
    if (!c_rows) return host_in_range<T>(repair(), m, n, [this] { return host(); });
    std::vector<T> w(std::size_t(m * n));
    if (beta != T(0))
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) w[std::size_t(i + j * m)] = c[i * ldc + j];
    Call col = *this;
    col.c = w.data();
    col.ldc = std::max<std::int64_t>(m, 1);
    col.c_rows = false;
    const int st = col.host_guarded();
    if (st == BF16X_OK)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) c[i * ldc + j] = w[std::size_t(i + j * m)];
    return st;
  }
};

// A driver's status as the call's: nonfinite_input is none (the host GEMM then runs the call), the others are.
int call_status(util::DriverStatus s) {
  switch (s) {
    case util::DriverStatus::no_memory:
      return BF16X_ERR_NOMEM;
    case util::DriverStatus::wrong_precision:
      return BF16X_ERR_MODE;
    case util::DriverStatus::engine_unavailable:
      return BF16X_ERR_ENGINE;
    default:
      return BF16X_OK;
  }
}

// A CRT mode (fp64c<N>, fp32c<N>): the INT8 engine, the CRT driver (under the guard where `guard`), the host GEMM
// for NaN/Inf inputs.
template <typename T>
int gemm_crt_mode(int mode, int engine_id, bool fast_scaling, GuardRequest* guard, const Call<T>& x, Outcome& out) {
  crt::CrtConfig cfg;
  cfg.moduli = crt::crt_moduli(mode);
  cfg.engine = engine::int8_engine(engine_id);
  cfg.fast_scaling = fast_scaling;
  const pack::GemmArgs<T> args{x.m, x.n, x.k, x.alpha, x.opa(), x.opb(), x.beta, x.c, x.ldc, x.c_rows};
  const ThreadScope threads;  // bf16x_set_num_threads, for this call's parallel region only
  const auto emulate = [&](bool& ran) {
    const util::DriverStatus s = crt::gemm_crt(args, cfg);
    ran = s == util::DriverStatus::ok;  // nonfinite_input: the host GEMM classifies NaN/Inf exactly
    return call_status(s);
  };
  const auto host = [&] { return x.host_guarded(); };
  bool done = false;
  int st;
  if (guard) {
    guard->mode = mode;
    guard->int8_engine = engine_id;
    const auto emulate_noting = [&](bool& ran) {
      const int r = emulate(ran);
      done = ran;
      return r;
    };
    st = run_guarded<T>(*guard, x.repair(), x.m, x.n, out, emulate_noting, host);
    if (out.guard == BF16X_GUARD_NATIVE) return st;
  } else {
    st = emulate(done);
  }
  if (st != BF16X_OK) return st;
  out.seconds_split = cfg.seconds_scale;
  out.seconds_compute = cfg.seconds_products;
  out.phases = cfg.phases;
  out.counters.micro_tiles += cfg.micro_tiles;
  out.counters.dot_products += cfg.dot_products;
  // the INT8 kernel's tiles: per 64-deep chunk four operand tiles for four TDPBSSD, four accumulators per call
  out.counters.tile_loads += cfg.dot_products;
  out.counters.tile_stores += 4 * cfg.micro_tiles;
  out.workspace_bytes = cfg.workspace_bytes;
  if (done) {
    out.mode = mode;
    out.engine = engine_id;
    return BF16X_OK;
  }
  out.why = ",fallback=nonfinite";
  return x.host();
}

// A slice mode (fp32x6, fp64x<d>): the BF16 engine and driver (under the guard where `guard`). done: it ran (false:
// NaN/Inf, for the host GEMM to classify).
template <typename T>
int gemm_slice_mode(int mode, int engine_id, GuardRequest* guard, const bf16x_options& opt, bool scaled,
                    const Call<T>& x, Outcome& out, bool& done) {
  driver::DriverConfig cfg{};
  cfg.scheme = split::scheme_for_mode(mode);
  cfg.engine = engine::engine_info(engine_id);
  cfg.scaled = scaled;
  cfg.fuse_diagonals = opt.fuse_diagonals != 0;
  cfg.block_k = opt.block_k;
  cfg.counters = opt.stats ? &out.counters : nullptr;
  const pack::GemmArgs<T> args{x.m, x.n, x.k, x.alpha, x.opa(), x.opb(), x.beta, x.c, x.ldc, x.c_rows};
  const ThreadScope threads;  // bf16x_set_num_threads, for this call's parallel region only
  const auto emulate = [&](bool& ran) {
    const util::DriverStatus s = driver::gemm_emulated(args, cfg);
    done = ran = s == util::DriverStatus::ok;  // nonfinite_input: the host GEMM classifies NaN/Inf exactly
    return call_status(s);
  };
  int st;
  if (guard) {
    guard->mode = mode;
    guard->int8_engine = crt_engine_for(engine_id);
    st = run_guarded<T>(*guard, x.repair(), x.m, x.n, out, emulate, [&] { return x.host_guarded(); });
    if (out.guard == BF16X_GUARD_NATIVE) return st;
  } else {
    bool ran;
    st = emulate(ran);
  }
  if (st != BF16X_OK) return st;
  out.seconds_split = cfg.seconds_split;
  out.seconds_compute = cfg.seconds_compute;
  out.phases = cfg.phases;
  out.workspace_bytes = cfg.workspace_bytes;
  return BF16X_OK;
}

// A correctly rounded mode (fp64cr, fp32cr): the tile sums on the engine's ISA (the scalar ones on the reference
// engine), the exact sum for the entries they cannot decide; the host GEMM where alpha or beta is NaN or Inf.
template <typename T>
int gemm_cr_mode(int mode, int engine_id, const Call<T>& x, Outcome& out) {
  cr::CrConfig cfg;
  cfg.level = cr_tile_level(engine_id);
  const pack::GemmArgs<T> args{x.m, x.n, x.k, x.alpha, x.opa(), x.opb(), x.beta, x.c, x.ldc, x.c_rows};
  const ThreadScope threads;  // bf16x_set_num_threads, for this call's parallel region only
  if (cr::gemm_cr(args, cfg) != util::DriverStatus::ok) {
    out.why = ",fallback=nonfinite";
    return x.host();
  }
  cr_outcome(mode, engine_id, cfg, out);
  return BF16X_OK;
}

// The workspace gemm_crt_mode reserves for this shape: the CRT driver's blocking on the call's thread count.
std::size_t crt_workspace(int mode, std::int64_t m, std::int64_t n, std::int64_t k) {
  const ThreadScope threads;  // bf16x_set_num_threads, as in the call
  crt::CrtConfig cfg;
  cfg.moduli = crt::crt_moduli(mode);
  return crt::crt_workspace_bytes(cfg.moduli, m, n, k, crt::crt_blocking(m, n, k, cfg));
}

}  // namespace

void merge_outcome(Outcome& total, const Outcome& one) {
  total.mode = one.mode;
  total.engine = one.engine;
  if (total.why.empty()) total.why = one.why;
  total.counters.add(one.counters);
  total.seconds_split += one.seconds_split;
  total.seconds_compute += one.seconds_compute;
  total.workspace_bytes = std::max(total.workspace_bytes, one.workspace_bytes);
  total.guard = std::max(total.guard, one.guard);  // the strongest step any product needed
  total.repaired += one.repaired;
  total.seconds_guard += one.seconds_guard;
  total.phases.add(one.phases);
}

void cr_outcome(int mode, int engine_id, const cr::CrConfig& cfg, Outcome& out) {
  out.mode = mode;
  out.engine = engine_id;
  out.repaired = cfg.exact_entries;
  out.phases = cfg.phases;
  out.seconds_split = cfg.phases.scan + cfg.phases.pack;
  out.seconds_compute = cfg.phases.products + cfg.phases.write;
  out.counters.micro_tiles += cfg.micro_tiles;
  out.workspace_bytes = cfg.workspace_bytes;
  if (!verbose_wanted()) return;  // the verbose fields only where a line is written (a tenth of a tiny call)
  char why[64];
  std::snprintf(why, sizeof why, ",kernels=%s,exact=%llu", cr::tile_kernels(cfg.level).isa,
                static_cast<unsigned long long>(cfg.exact_entries));
  out.why = why;
}

int check_options(const bf16x_options& o, bool is_double) {
  if (!bf16x_mode_name(o.mode)) return BF16X_ERR_MODE;
  if (!mode_fits(o.mode, is_double)) return BF16X_ERR_MODE;
  if (!bf16x_engine_name(o.engine)) return BF16X_ERR_OPTIONS;
  if (o.split != BF16X_SPLIT_SCALED && o.split != BF16X_SPLIT_PAPER) return BF16X_ERR_OPTIONS;
  if (o.block_k < 0 || o.block_k > 256 || o.block_k % 32 != 0) return BF16X_ERR_OPTIONS;
  if (!(o.auto_target >= 0.0)) return BF16X_ERR_OPTIONS;
  if (o.guard < BF16X_GUARD_DEFAULT || o.guard > BF16X_GUARD_OFF) return BF16X_ERR_OPTIONS;
  return BF16X_OK;
}

// The verbose fields of a measured auto decision: the fill ratio, the predicted e_scaled and the target.
static std::string auto_why(const AutoChoice& c) {
  char why[128] = "";
  if (c.measured)
    std::snprintf(why, sizeof why, ",auto_fill=%.3g,auto_predicted=%.3g,auto_target=%.3g", c.fill_ratio, c.predicted,
                  c.target);
  return why;
}

char trans_char(int t) { return t == BF16X_NO_TRANS ? 'N' : (t == BF16X_TRANS ? 'T' : 'C'); }

VerboseCall call_as_made(bool is_double, int layout, int transa, int transb, std::int64_t m, std::int64_t n,
                         std::int64_t k, std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  VerboseCall v;
  v.is_double = is_double;
  v.row_major = layout == BF16X_ROW_MAJOR;
  v.ta = trans_char(transa);
  v.tb = trans_char(transb);
  v.m = m, v.n = n, v.k = k, v.lda = lda, v.ldb = ldb, v.ldc = ldc;
  return v;
}

bf16x_options options_for_mode(int mode) {
  bf16x_options opt;
  bf16x_options_init(&opt);
  opt.mode = mode;
  return opt;
}

bf16x_options call_options(const bf16x_options* user, int& status) {
  // Every BF16X_* variable is read (and a refused value said) at the first call, whatever that call needs.
  (void)env();
  bf16x_options opt;
  status = read_options(user, opt);
  if (opt.stats) {
    bf16x_stats cleared{};
    cleared.engine = -1;
    write_stats(opt.stats, cleared);
  }
  return opt;
}

void report_call(const bf16x_options& opt, const Outcome& out, int st, double secs, VerboseCall v) {
  // fp64cr / fp32cr run TwoProd and FastTwoSum on the FMA units, no BF16 or INT8 engine (out.engine only chose the
  // tile sums' vector level, cr_tile_level): no BF16X_ENGINE_* in the stats, "fma" on the verbose line (whose
  // kernels= names the ISA).
  const bool fma_units = is_cr_mode(out.mode) && out.engine >= 0;
  if (opt.stats && st == BF16X_OK) {
    bf16x_stats s{};
    s.mode = out.mode;
    s.engine = fma_units ? -1 : out.engine;
    s.tile_loads = out.counters.tile_loads;
    s.tile_stores = out.counters.tile_stores;
    s.dot_products = out.counters.dot_products;
    s.micro_tiles = out.counters.micro_tiles;
    s.seconds_split = out.seconds_split;
    s.seconds_compute = out.engine >= 0 ? out.seconds_compute : secs;
    s.workspace_bytes = out.workspace_bytes;
    s.entries_repaired = out.repaired;
    s.seconds_guard = out.seconds_guard;
    s.guard = out.guard;
    s.seconds_scan = out.phases.scan;
    s.seconds_pack = out.phases.pack;
    s.seconds_products = out.phases.products;
    s.seconds_write = out.phases.write;
    s.bytes_scan = out.phases.bytes_scan;
    s.bytes_pack = out.phases.bytes_pack;
    s.bytes_write = out.phases.bytes_write;
    s.seconds_sums = out.phases.sums;
    write_stats(opt.stats, s);
  }
  if (!verbose_wanted()) return;
  v.mode = st == BF16X_OK ? bf16x_mode_name(out.mode) : "-";
  v.engine = st != BF16X_OK    ? "-"
             : fma_units       ? "fma"
             : out.engine >= 0 ? bf16x_engine_name(out.engine)
                               : host::library_name();
  v.why = out.why + (out.guard ? guard_why(out.guard, out.repaired) : std::string());
  v.repaired = out.repaired;
  v.threads = out.engine >= 0 ? bf16x_get_num_threads() : -1;
  v.status = st;
  v.seconds = secs;
  verbose_line(v);
}

// A checked call on column-major operand views (row-major operands already read as transposed) and a C in either
// layout: quick return, engine and mode, then the driver or the host GEMM. Returns the status; C is written only
// when it returns BF16X_OK.
template <typename T>
int run_gemm(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
             std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, bool c_rows,
             const bf16x_options& opt, Outcome& out) {
  constexpr bool is_double = std::is_same_v<T, double>;
  if (alpha == T(0) || k == 0) {
    scale_c(m, n, beta, c, ldc, c_rows);
    out.why = ",quick_return";
    return BF16X_OK;
  }
  const CallPlan plan = plan_call(opt, is_double, m, n, k);
  if (plan.status != BF16X_OK) return plan.status;
  const Call<T> x{transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, c_rows};
  const bool scaled = plan.request.scaled;
  const double user_target = plan.user_target;
  const bool fast_scaling = plan.settings.crt_fast_scaling;
  // The guard of a mode (api/guard_step.hpp): the call's request, completed by the path that runs it.
  auto guard_for = [&](int mode, bool by_auto, double fill) {
    GuardRequest g;
    g.is_double = is_double;
    g.block_k = opt.block_k;
    g.fill = fill;
    g.tau = by_auto ? user_target : 0;                // auto: a target the caller set (0: the guard's own, 4 k u)
    g.host = host::can_take(m, n, k, lda, ldb, ldc);  // else the guard repairs every unproved entry itself
    return guard_applies(plan.guard, mode, by_auto, scaled) ? std::optional<GuardRequest>(g) : std::nullopt;
  };
  if (is_cr_mode(plan.mode)) {
    const int st = gemm_cr_mode<T>(plan.mode, plan.engine, x, out);
    if (plan.requested == BF16X_MODE_AUTO) out.why += ",auto=target";  // a target tighter than native's bound
    return st;
  }
  if (crt::is_crt_mode(plan.mode)) {
    auto g = guard_for(plan.mode, false, -1);
    return gemm_crt_mode<T>(plan.mode, plan.engine, fast_scaling, g ? &*g : nullptr, x, out);
  }
  const int engine_id = plan.engine, requested = plan.requested;
  int mode = plan.mode;
  AutoChoice autoc;
  if (mode == BF16X_MODE_AUTO) {
    // Only where the cost model lets emulation win: one pass over A and B decides the number of products.
    autoc = choose_auto<T>(plan.request, plan.settings, x.opa(), x.opb());
    mode = autoc.mode;
    if (crt::is_crt_mode(mode)) {  // auto chose a CRT mode: its INT8 engine for the resolved one
      int crt_engine;
      if (const int st = crt_engine_for_call(plan.crt_engine_option, crt_engine, plan.settings); st != BF16X_OK)
        return st;
      auto g = guard_for(mode, true, autoc.fill_ratio);
      const int st = gemm_crt_mode<T>(mode, crt_engine, fast_scaling, g ? &*g : nullptr, x, out);
      if (out.why.empty()) out.why = auto_why(autoc);  // what auto measured, as for the BF16 modes
      return st;
    }
  }
  // Without a host BLAS auto cannot go native: it runs the most accurate slice mode instead.
  if (mode == BF16X_MODE_NATIVE && requested == BF16X_MODE_AUTO && !*host::library_name())
    mode = is_double ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32X6;
  // Every source of a mode (argument, environment, runtime setting, auto) is checked against the routine here.
  if (!mode_fits(mode, is_double) || mode == BF16X_MODE_AUTO || mode == BF16X_MODE_DEFAULT) return BF16X_ERR_MODE;
  warn_if_reference(requested, mode, engine_id, opt.engine, plan.settings);

  bool done = false;
  if (mode != BF16X_MODE_NATIVE) {
    auto g = guard_for(mode, requested == BF16X_MODE_AUTO, autoc.measured ? autoc.fill_ratio : -1);
    const int st = gemm_slice_mode<T>(mode, engine_id, g ? &*g : nullptr, opt, scaled, x, out, done);
    if (st != BF16X_OK || out.guard == BF16X_GUARD_NATIVE) return st;
  }
  char why[128] = "";
  if (!done && (mode != BF16X_MODE_NATIVE || autoc.nonfinite))
    std::snprintf(why, sizeof why, ",fallback=nonfinite");
  else if (autoc.measured)
    std::snprintf(why, sizeof why, "%s", auto_why(autoc).c_str());
  else if (requested == BF16X_MODE_AUTO)
    std::snprintf(why, sizeof why, ",auto=cost_model");
  out.why = why;
  if (done) {
    out.mode = mode;
    out.engine = engine_id;
    return BF16X_OK;
  }
  // Auto's native choice keeps the range of the modes it stands for (NaN/Inf: the plain host GEMM).
  const bool guarded = requested == BF16X_MODE_AUTO && mode == BF16X_MODE_NATIVE && plan.guard != BF16X_GUARD_OFF;
  return guarded ? x.host_guarded() : x.host();
}

template int run_gemm(int, int, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                      const float*, std::int64_t, float, float*, std::int64_t, bool, const bf16x_options&, Outcome&);
template int run_gemm(int, int, std::int64_t, std::int64_t, std::int64_t, double, const double*, std::int64_t,
                      const double*, std::int64_t, double, double*, std::int64_t, bool, const bf16x_options&, Outcome&);

namespace {

template <typename T>
int gemm(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
         std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, const bf16x_options* user) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const double t0 = util::now();
  int st_options;
  const bf16x_options opt = call_options(user, st_options);
  Outcome out;
  int st = check_gemm_args({layout, transa, transb, m, n, k, lda, ldb, ldc}, a, b, c, alpha == T(0));
  if (st == BF16X_OK) st = st_options;
  if (st == BF16X_OK) st = check_options(opt, is_double);
  if (st == BF16X_OK && m != 0 && n != 0) {
    // A row-major A or B is its column-major transpose; C keeps its layout (the driver writes it in place), so
    // that both layouts compute the same product in the same order: the same bits.
    // No exception leaves the C API: the allocations that can throw (scale vectors, group plans) come before any
    // write to C, and none is made inside a parallel region.
    try {
      if (layout == BF16X_ROW_MAJOR)
        st = run_gemm<T>(flip(transa), flip(transb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, true, opt, out);
      else
        st = run_gemm<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, false, opt, out);
    } catch (const std::bad_alloc&) {
      st = BF16X_ERR_NOMEM;
    } catch (const std::length_error&) {
      st = BF16X_ERR_NOMEM;
    }
  }
  VerboseCall v = call_as_made(is_double, layout, transa, transb, m, n, k, lda, ldb, ldc);
  v.alpha = double(alpha);
  v.beta = double(beta);
  report_call(opt, out, st, util::now() - t0, v);
  return st;
}

// The C entry points: no exception leaves them. Workspace and scale vectors are allocated before C is written, so
// an allocation failure leaves C untouched.
template <typename T>
int c_entry(int layout, int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
            std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, const bf16x_options* opt) {
  try {
    return gemm<T>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
  } catch (const std::bad_alloc&) {
    return BF16X_ERR_NOMEM;
  }
}

int workspace_bytes(int is_double, int layout, std::int64_t m, std::int64_t n, std::int64_t k,
                    const bf16x_options* user, std::uint64_t* bytes) {
  if (!bytes) return BF16X_ERR_NULL;
  *bytes = 0;
  bf16x_options opt;
  const int st_options = read_options(user, opt);
  if (layout != BF16X_ROW_MAJOR && layout != BF16X_COL_MAJOR) return BF16X_ERR_LAYOUT;
  if (m < 0) return BF16X_ERR_M;
  if (n < 0) return BF16X_ERR_N;
  if (k < 0) return BF16X_ERR_K;
  if (st_options != BF16X_OK) return st_options;
  if (const int so = check_options(opt, is_double != 0); so != BF16X_OK) return so;
  if (m == 0 || n == 0 || k == 0) return BF16X_OK;
  // The call's own plan: its refusals, its mode.
  const CallPlan plan = plan_call(opt, is_double != 0, m, n, k);
  if (plan.status != BF16X_OK) return plan.status;
  int mode = plan.mode;
  if (mode == BF16X_MODE_NATIVE) return BF16X_OK;
  if (crt::is_crt_mode(mode)) {
    *bytes = crt_workspace(mode, m, n, k);
    return BF16X_OK;
  }
  if (is_cr_mode(mode)) {
    const ThreadScope threads;  // bf16x_set_num_threads, as in the call
    *bytes = cr::cr_workspace_bytes(m, n, k, omp_get_max_threads());
    return BF16X_OK;
  }
  const bool data_decides = mode == BF16X_MODE_AUTO;
  if (data_decides) mode = is_double ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32X6;
  *bytes = driver::workspace_bytes(m, n, k, *split::scheme_for_mode(mode), opt.block_k, omp_get_max_threads(),
                                   is_double != 0, opt.fuse_diagonals != 0);
  // Auto may choose a CRT mode too: its largest (the most moduli) where that reserves more.
  if (data_decides)
    *bytes = std::max<std::uint64_t>(
        *bytes,
        crt_workspace(is_double ? BF16X_MODE_FP64C(BF16X_FP64C_MAX) : BF16X_MODE_FP32C(BF16X_FP32C_MAX), m, n, k));
  return BF16X_OK;
}

}  // namespace
}  // namespace bf16x::api

extern "C" {

int bf16x_sgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                   float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                   int64_t ldc, const bf16x_options* opt) {
  return bf16x::api::c_entry<float>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
}

int bf16x_dgemm_ex(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                   double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                   int64_t ldc, const bf16x_options* opt) {
  return bf16x::api::c_entry<double>(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opt);
}

int bf16x_workspace_bytes(int is_double, bf16x_layout layout, int64_t m, int64_t n, int64_t k, const bf16x_options* opt,
                          uint64_t* bytes) {
  return bf16x::api::workspace_bytes(is_double, layout, m, n, k, opt, bytes);
}

int bf16x_sgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc, bf16x_mode mode) {
  const bf16x_options opt = bf16x::api::options_for_mode(mode);
  return bf16x_sgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

int bf16x_dgemm(bf16x_layout layout, bf16x_transpose transa, bf16x_transpose transb, int64_t m, int64_t n, int64_t k,
                double alpha, const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                int64_t ldc, bf16x_mode mode) {
  const bf16x_options opt = bf16x::api::options_for_mode(mode);
  return bf16x_dgemm_ex(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &opt);
}

}  // extern "C"
