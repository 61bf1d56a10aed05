#include "planner/mode_policy.hpp"

#include <algorithm>
#include <cmath>

#include "bf16x/bf16x.h"
#include "crt/crt_mode.hpp"
#include "crt/crt_model.hpp"
#include "mode/records.hpp"
#include "planner/engine_choice.hpp"
#include "policy/cost_model.hpp"
#include "policy/error_model.hpp"
#include "settings/runtime.hpp"

namespace bf16x::planner {

using settings::current_settings;

namespace {

// The cost model comes first: where even the cheapest scheme is slower, auto is native at no extra cost.
// BF16X_AUTO_COST=off skips it: auto then chooses on accuracy alone (used to exercise the error model on CPUs
// where emulation never wins, and by users who want the accuracy decision whatever the speed).
// CRT modes: the INT8 engine for the request's engine, and whether N moduli beat native on cost.
bool crt_wins(const ModeRequest& r, int moduli) {
  const int e = crt_engine_for(r.engine);
  return e >= 0 && policy::crt_cycles(e, moduli, r.m, r.n, r.k) < policy::native_cycles(r.is_double, r.m, r.n, r.k);
}
int crt_min_moduli(bool is_double) { return is_double ? BF16X_FP64C_MIN : BF16X_FP32C_MIN; }

bool may_emulate(const ModeRequest& r, const Settings& s) {
  return r.engine >= 0 && r.scaled &&
         (!s.auto_cost || policy::emulation_wins(r.engine, policy::cheapest_mode(r.is_double), r.m, r.n, r.k) ||
          crt_wins(r, crt_min_moduli(r.is_double)));
}

// A target the caller set below the native GEMM's own bound gamma_k: neither native nor a guarded emulation (whose
// repairs are FP64 dot products) can promise it. The correctly rounded mode can, to u: its error is at most
// u |C_ij| <= u (|A||B|)_ij, as small as any result in T can be (docs/auto.md, "Targets tighter than native").
bool tighter_than_native(const ModeRequest& r, const Settings& s) {
  const double set = r.target > 0 ? r.target : s.auto_target;
  return set > 0 && set < policy::native_escaled(r.is_double, r.k);
}

}  // namespace

int resolve_mode(const ModeRequest& r, const Settings& s) {
  int mode = r.mode;
  if (mode == BF16X_MODE_DEFAULT) mode = s.mode(r.is_double);
  // (with a BF16 engine: the mode's kernels run on its ISA)
  if (mode == BF16X_MODE_AUTO && r.engine >= 0 && tighter_than_native(r, s))
    return r.is_double ? BF16X_MODE_FP64CR : BF16X_MODE_FP32CR;
  // BF16X_MIN_SIZE trades accuracy for speed: never where every entry is promised correctly rounded.
  if (mode::min_size_applies(mode) && std::min({r.m, r.n, r.k}) < s.min_size) return BF16X_MODE_NATIVE;
  if (mode != BF16X_MODE_AUTO) return mode;
  return may_emulate(r, s) ? BF16X_MODE_AUTO : BF16X_MODE_NATIVE;
}

int resolve_mode(const ModeRequest& r) { return resolve_mode(r, current_settings()); }

double auto_target(const ModeRequest& r, const Settings& s) {
  if (r.target > 0) return r.target;
  if (s.auto_target > 0) return s.auto_target;
  return policy::native_escaled(r.is_double, r.k);
}

template <typename T>
AutoChoice choose_auto(const ModeRequest& r, const Settings& s, const pack::MatrixView<T>& a,
                       const pack::MatrixView<T>& b) {
  AutoChoice c;
  c.mode = BF16X_MODE_NATIVE;
  c.target = auto_target(r, s);
  if (!may_emulate(r, s)) return c;
  c.measured = true;
  c.ea.resize(std::size_t(r.m));
  c.eb.resize(std::size_t(r.n));
  const policy::FillEnvelope ea = policy::measure_fill(a, r.m, r.k, true, c.ea.data());
  const policy::FillEnvelope eb =
      ea.nonfinite ? policy::FillEnvelope{} : policy::measure_fill(b, r.k, r.n, false, c.eb.data());
  c.nonfinite = ea.nonfinite || eb.nonfinite;
  if (c.nonfinite) {
    c.ea.clear(), c.eb.clear();
    return c;
  }
  c.fill_ratio = policy::fill_ratio(ea, eb);
  int mode = policy::fewest_products(r.is_double, r.k, r.block_k, c.fill_ratio, c.target);
  // The CRT candidate: the fewest moduli whose bound meets the target (docs/auto.md, "CRT modes").
  int cmode = crt::fewest_moduli(r.is_double, r.k, c.fill_ratio, c.target);
  if (r.guarded && mode == BF16X_MODE_NATIVE && cmode == BF16X_MODE_NATIVE) {
    // The envelope proves no scheme: the guard proves entry by entry. The most moduli leave the fewest entries
    // unproved (the CRT bound shrinks by 2^-4 per modulus, the fixed-point slices stop at fp64x21), so the CRT
    // scheme with the most moduli, or fp64x21 where no INT8 engine runs.
    cmode = r.is_double ? BF16X_MODE_FP64C(BF16X_FP64C_MAX) : BF16X_MODE_FP32C(BF16X_FP32C_MAX);
    if (crt_engine_for(r.engine) < 0 && r.is_double) mode = BF16X_MODE_FP64X21;
  }
  const double bf_cost = mode == BF16X_MODE_NATIVE ? HUGE_VAL : policy::emulation_cycles(r.engine, mode, r.m, r.n, r.k);
  const int ce = crt_engine_for(r.engine);
  const double crt_cost =
      cmode == BF16X_MODE_NATIVE || ce < 0 ? HUGE_VAL : policy::crt_cycles(ce, crt::crt_moduli(cmode), r.m, r.n, r.k);
  const bool use_crt = crt_cost < bf_cost;
  const int best = use_crt ? cmode : mode;
  if (best == BF16X_MODE_NATIVE || !(std::min(bf_cost, crt_cost) < HUGE_VAL)) return c;
  c.predicted = use_crt ? crt::predicted_escaled(crt::crt_moduli(cmode), r.is_double, r.k, c.fill_ratio)
                        : policy::predicted_escaled(mode, r.k, r.block_k, c.fill_ratio);
  // More products than the cheapest scheme: the cost model decides again.
  if (!s.auto_cost || std::min(bf_cost, crt_cost) < policy::native_cycles(r.is_double, r.m, r.n, r.k)) c.mode = best;
  return c;
}

template AutoChoice choose_auto(const ModeRequest&, const Settings&, const pack::MatrixView<float>&,
                                const pack::MatrixView<float>&);
template AutoChoice choose_auto(const ModeRequest&, const Settings&, const pack::MatrixView<double>&,
                                const pack::MatrixView<double>&);

}  // namespace bf16x::planner
