#include "api/guard_step.hpp"

#include <algorithm>
#include <cstdio>

#include "api/env.hpp"
#include "bf16x/bf16x.h"
#include "crt/crt_mode.hpp"
#include "engine/records.hpp"
#include "policy/error_model.hpp"

namespace bf16x::api {

bool guard_applies(int option, int mode, bool chosen_by_auto, bool scaled) {
  const bool fixed_point = (mode >= BF16X_MODE_FP64X6 && mode <= BF16X_MODE_FP64X21) || crt::is_crt_mode(mode);
  if (!fixed_point || !scaled) return false;
  if (option == BF16X_GUARD_ON) return true;
  if (option == BF16X_GUARD_OFF) return false;
  if (chosen_by_auto || mode == BF16X_MODE_FP64X21) return true;
  if (crt::is_crt_mode(mode)) return crt::crt_moduli(mode) >= (crt::is_fp64c(mode) ? 15 : 8);
  return false;
}

template <typename T>
GuardPlan plan_guard(const GuardRequest& g, const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t m,
                     std::int64_t n, std::int64_t k) {
  GuardPlan p;
  policy::GuardLines lines(m, n);  // before any read of A or B (throws std::bad_alloc)
  const policy::EntryBound bound = policy::entry_bound(g.mode, k, g.block_k);
  const double tau = g.tau > 0 ? g.tau : policy::guard_target(g.is_double, k);
  double fill = g.fill;
  if (fill < 0) {
    const policy::FillEnvelope ea = policy::measure_fill(a, m, k, true);
    const policy::FillEnvelope eb = ea.nonfinite ? policy::FillEnvelope{} : policy::measure_fill(b, k, n, false);
    if (ea.nonfinite || eb.nonfinite) {
      p.nonfinite = true;
      return p;
    }
    fill = policy::fill_ratio(ea, eb);
  }
  if (policy::envelope_proves(bound, k, fill, tau)) {
    p.result = BF16X_GUARD_ENVELOPE;
    return p;
  }
  // Repairing more than 1/8 of the entries by dot products costs about what the host GEMM costs for all of them.
  const std::uint64_t entries = std::uint64_t(m) * std::uint64_t(n);
  const std::uint64_t limit = g.host ? entries / 8 : entries;
  const engine::int8::Engine* engine = engine::int8_engine(g.int8_engine);
  if (!engine || !engine->available()) engine = engine::int8_engine(BF16X_ENGINE_REFERENCE);
  policy::GuardCheck c = policy::check_entries(a, b, m, n, k, bound, tau, *engine, limit, lines);
  p.nonfinite = c.nonfinite;
  p.micro_tiles = c.micro_tiles;
  if (!c.complete) {
    p.native = true;
    p.result = BF16X_GUARD_NATIVE;
    return p;
  }
  p.result = BF16X_GUARD_ENTRIES;
  p.failing = std::move(c.failing);
  return p;
}

template GuardPlan plan_guard(const GuardRequest&, const pack::MatrixView<float>&, const pack::MatrixView<float>&,
                              std::int64_t, std::int64_t, std::int64_t);
template GuardPlan plan_guard(const GuardRequest&, const pack::MatrixView<double>&, const pack::MatrixView<double>&,
                              std::int64_t, std::int64_t, std::int64_t);

std::string guard_why(int result, std::uint64_t repaired) {
  static const char* const names[] = {"none", "envelope", "entries", "native"};
  char why[64];
  if (result == BF16X_GUARD_ENTRIES)
    std::snprintf(why, sizeof why, ",guard=entries,repaired=%llu", static_cast<unsigned long long>(repaired));
  else
    std::snprintf(why, sizeof why, ",guard=%s", names[std::clamp(result, 0, 3)]);
  return why;
}

}  // namespace bf16x::api
