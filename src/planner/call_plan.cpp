#include "planner/call_plan.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "crt/crt_mode.hpp"
#include "env/env_vars.hpp"
#include "host/host_blas.hpp"
#include "planner/engine_choice.hpp"
#include "report/verbose.hpp"
#include "settings/env.hpp"
#include "settings/runtime.hpp"

namespace bf16x::planner {

using report::verbose_wanted;
using settings::current_settings;
using settings::effective_threads;

namespace {

// An emulation mode the caller asked for by name that lands on the scalar reference engine (no vector BF16 engine
// here, and none requested): said once per process, since it runs 40-1000x slower than the host BLAS.
void warn_if_reference(const CallPlan& p) {
  const Settings& s = p.settings;
  if (p.requested == BF16X_MODE_AUTO || p.method != mode::Method::slices || p.engine != BF16X_ENGINE_REFERENCE) return;
  if (p.engine_option == BF16X_ENGINE_REFERENCE || s.env_engine == BF16X_ENGINE_REFERENCE ||
      s.engine == BF16X_ENGINE_REFERENCE)
    return;
  static std::once_flag once;
  std::call_once(once, [mode = p.mode] {
    envvar::warn(std::string("mode ") + bf16x_mode_name(mode) +
                 " runs on the scalar reference engine: this CPU has no vector BF16 engine, expect it to be 40-1000x "
                 "slower than the host BLAS");
  });
}

// The plan of a concrete mode: its method, its guard, the native choice's range. `by_auto`: auto chose it (fill:
// what its fill pass measured, else -1). BF16X_ERR_MODE where no source of a mode fits the routine.
int finish(CallPlan& p, int mode, bool by_auto, double fill) {
  // Without a host BLAS auto cannot go native: it runs the most accurate slice mode instead.
  if (mode == BF16X_MODE_NATIVE && p.requested == BF16X_MODE_AUTO && !*host::library_name())
    mode = p.is_double ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32X6;
  // Every source of a mode (argument, environment, runtime setting, auto) is checked against the routine here.
  const mode::Record* r = mode::record(mode);
  if (!r || !mode::fits(mode, p.is_double) || r->method == mode::Method::automatic ||
      r->method == mode::Method::process_default)
    return BF16X_ERR_MODE;
  p.mode = mode;
  p.method = r->method;
  p.host_guarded = by_auto && mode == BF16X_MODE_NATIVE && p.guard_option != BF16X_GUARD_OFF;
  // The paper's unscaled split is a slice modes' matter: the CRT modes take the guard whatever BF16X_SPLIT says.
  const bool scaled = p.method != mode::Method::slices || p.scaled;
  if (method::guard_applies(p.guard_option, mode, by_auto, scaled)) {
    method::GuardRequest g;
    g.mode = mode;
    g.is_double = p.is_double;
    g.int8_engine = p.method == mode::Method::crt ? p.engine : crt_engine_for(p.engine);
    g.block_k = p.block_k;
    g.fill = fill;
    g.tau = by_auto ? p.user_target : 0;  // auto: a target the caller set (0: the guard's own, 4 k u)
    g.second_level_from = !by_auto                ? method::kSecondLevelNamed
                          : !p.settings.auto_cost ? method::kSecondLevelAccuracyOnly
                                                  : 0.0;
    g.host_depth = by_auto && !p.settings.auto_cost ? 0 : method::kHostDepth;
    g.timed = p.timed();
    p.guard = g;
  }
  warn_if_reference(p);
  return BF16X_OK;
}

// The verbose fields of a measured auto decision: the fill ratio, the predicted e_scaled and the target.
void auto_reason(const AutoChoice& c, char (&why)[96]) {
  if (c.nonfinite)
    std::snprintf(why, sizeof why, ",fallback=nonfinite");
  else if (c.measured)
    std::snprintf(why, sizeof why, ",auto_fill=%.3g,auto_predicted=%.3g,auto_target=%.3g", c.fill_ratio, c.predicted,
                  c.target);
  else
    std::snprintf(why, sizeof why, ",auto=cost_model");
}

}  // namespace

namespace {

// What a plan reads besides the shape and the settings (their generation): the call's options, the precision, the
// threads and whether counters or a verbose line are wanted, as whole words (a mode or engine out of range included).
struct PlanKey {
  std::uint64_t w[6];
  bool operator==(const PlanKey& o) const {
    return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2] && w[3] == o.w[3] && w[4] == o.w[4] && w[5] == o.w[5];
  }
};
std::uint64_t pair(int lo, int hi) { return std::uint32_t(lo) | std::uint64_t(std::uint32_t(hi)) << 32; }

}  // namespace

// A mode asked for by name (DEFAULT resolved) plans the same for every shape but the request's where auto's cost
// model and targets do not run and BF16X_MIN_SIZE does not apply: the thread's plans of the last four such option
// sets are reused while the settings stay as they were (LAPACK's millions of small calls, three plans each through
// the shim and the level-3 layer).
CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k) {
  const unsigned generation = settings::generation();  // before the settings it stands for are read
  const int requested = opt.mode == BF16X_MODE_DEFAULT ? settings::effective_mode(is_double) : opt.mode;
  const std::int64_t min_size = settings::env().min_size;
  if (requested == BF16X_MODE_AUTO || (min_size != 0 && mode::min_size_applies(requested)))
    return plan_call(opt, is_double, m, n, k, current_settings());
  std::uint64_t target;
  std::memcpy(&target, &opt.auto_target, sizeof target);
  const int flags =
      (opt.stats != nullptr) | (is_double << 1) | (verbose_wanted() << 2) | (opt.fuse_diagonals != 0) << 3;
  const PlanKey key{{generation, pair(opt.mode, opt.engine), pair(opt.split, opt.guard),
                     pair(opt.block_k, effective_threads()), std::uint64_t(flags), target}};
  struct Memo {
    PlanKey keys[4] = {};
    std::optional<CallPlan> plans[4];  // the shim's own and the library's, per precision
    int next = 0;
  };
  thread_local Memo memo;
  int hit = -1;
  for (int e = 0; e < 4; ++e)
    if (memo.plans[e] && memo.keys[e] == key) hit = e;
  if (hit < 0) {
    hit = memo.next;
    memo.next = (memo.next + 1) % 4;
    memo.keys[hit] = key;
    memo.plans[hit] = plan_call(opt, is_double, m, n, k, current_settings());
  }
  return *memo.plans[hit];  // (its request's shape the first call's: only auto's data step reads it)
}

CallPlan plan_call(const bf16x_options& opt, bool is_double, std::int64_t m, std::int64_t n, std::int64_t k,
                   const Settings& s) {
  CallPlan p;
  p.settings = s;
  p.is_double = is_double;
  p.engine_option = opt.engine;
  p.guard_option = opt.guard != BF16X_GUARD_DEFAULT ? opt.guard : s.guard;
  p.user_target = opt.auto_target > 0 ? opt.auto_target : s.auto_target;
  p.scaled = opt.split == BF16X_SPLIT_SCALED && s.split == BF16X_SPLIT_SCALED;
  p.fuse_diagonals = opt.fuse_diagonals != 0;
  p.block_k = opt.block_k;
  p.fast_scaling = s.crt_fast_scaling;
  p.count = opt.stats != nullptr;
  p.verbose = verbose_wanted();
  p.threads = effective_threads();
  p.requested = opt.mode == BF16X_MODE_DEFAULT ? s.mode(is_double) : opt.mode;
  // The mode before the engine is known: DEFAULT and BF16X_MIN_SIZE applied.
  // (Without an engine, AUTO reads as NATIVE here: only a concrete emulation mode can be refused.)
  const int asked = resolve_mode({opt.mode, is_double, m, n, k, -1, opt.auto_target}, s);
  p.mode = asked;                 // what a refusal reports (the shim hands it to the library, which says why)
  if (crt::is_crt_mode(asked)) {  // CRT modes run on their own INT8 engines
    p.status = crt_engine_for_call(opt.engine, p.engine, s);
    if (p.status == BF16X_OK) p.status = finish(p, asked, false, -1);
    return p;
  }
  // An INT8-only engine runs no slice mode: an error for a slice mode asked for by name; auto's slice modes take
  // the BF16 engine AUTO would, its CRT modes that INT8 engine. An explicitly requested engine that cannot run here
  // is an error only if an emulation mode is asked for.
  const bool int8_named = int8_only(opt.engine);
  p.engine = resolve_engine(int8_named ? int(BF16X_ENGINE_AUTO) : opt.engine, s);
  const bool emulation_named = asked != BF16X_MODE_NATIVE && asked != BF16X_MODE_AUTO;
  if (emulation_named && int8_named) p.status = BF16X_ERR_ENGINE_KIND;
  if (emulation_named && !int8_named && p.engine < 0 && opt.engine != BF16X_ENGINE_AUTO) p.status = BF16X_ERR_ENGINE;
  if (p.status != BF16X_OK) return p;
  p.crt_engine_option = int8_named ? opt.engine : crt_engine_for(p.engine);
  p.request = ModeRequest{opt.mode, is_double, m, n, k, p.engine, opt.auto_target, opt.block_k, p.scaled};
  p.request.guarded = method::guard_applies(
      p.guard_option, is_double ? BF16X_MODE_FP64X21 : BF16X_MODE_FP32C(BF16X_FP32C_MAX), true, p.scaled);
  const int mode = resolve_mode(p.request, s);
  if (mode == BF16X_MODE_AUTO) {  // the operands decide: settle_auto
    p.mode = mode;
    p.method = mode::Method::automatic;
    return p;
  }
  const bool by_auto = p.requested == BF16X_MODE_AUTO;
  if (by_auto && p.verbose)  // a target tighter than native's bound, or the cost model
    std::snprintf(p.reason, sizeof p.reason, "%s",
                  mode::is(mode, mode::Method::correctly_rounded) ? ",auto=target" : ",auto=cost_model");
  p.status = finish(p, mode, by_auto, -1);
  return p;
}

template <typename T>
int settle_auto(CallPlan& p, const pack::MatrixView<T>& a, const pack::MatrixView<T>& b) {
  // Only where the cost model lets emulation win: one pass over A and B decides the number of products.
  AutoChoice c = choose_auto<T>(p.request, p.settings, a, b);
  if (p.verbose) auto_reason(c, p.reason);  // the verbose fields only where a line is written
  if (crt::is_crt_mode(c.mode))             // auto chose a CRT mode: its INT8 engine for the resolved one
    if (const int st = crt_engine_for_call(p.crt_engine_option, p.engine, p.settings); st != BF16X_OK) return st;
  const int st = finish(p, c.mode, true, c.measured ? c.fill_ratio : -1);
  if (st == BF16X_OK && p.guard && c.measured && !c.ea.empty()) {  // the fill pass's exponents, for the driver
    p.guard->ea = std::move(c.ea);
    p.guard->eb = std::move(c.eb);
  }
  return st;
}

template int settle_auto(CallPlan&, const pack::MatrixView<float>&, const pack::MatrixView<float>&);
template int settle_auto(CallPlan&, const pack::MatrixView<double>&, const pack::MatrixView<double>&);

}  // namespace bf16x::planner
