// The CRT modes (fp64c<N>, fp32c<N>): Ozaki scheme II on the plan's INT8 engine (crt/), under the guard where it
// applies.
#include <algorithm>
#include <type_traits>

#include "crt/crt_driver.hpp"
#include "crt/crt_mode.hpp"
#include "engine/records.hpp"
#include "method/guarded_run.hpp"
#include "method/second_level.hpp"
#include "method/table.hpp"
#include "util/thread_scope.hpp"

namespace bf16x::method {
namespace {

template <typename T>
int gemm(const Plan& p, const Call<T>& x, Outcome& out) {
  crt::CrtConfig cfg;
  cfg.moduli = crt::crt_moduli(p.mode);
  cfg.engine = engine::int8_engine(p.engine);
  cfg.fast_scaling = p.fast_scaling;
  cfg.timed = p.timed();
  const util::ThreadScope threads(p.threads);
  bool done;
  // The second level's products on the call's engine and threads with the exact reconstruction and the scales from
  // the 2-norms (no bound pass: every line keeps at least sigma bits under either scaling), their counts and times
  // added to the call's.
  const auto level = [&](const GuardRequest& g, std::uint64_t limit, const GuardLines& scan, Outcome& o) {
    if constexpr (std::is_same_v<T, double>) {
      const auto product = [&](const pack::GemmArgs<double>& y) {
        crt::CrtConfig one = cfg;
        one.known = {};  // its operands are not the ones the guard measured
        one.exact_reconstruction = true;
        one.fast_scaling = true;
        const util::DriverStatus s = crt::gemm_crt(y, one);
        cfg.micro_tiles += one.micro_tiles;
        cfg.dot_products += one.dot_products;
        cfg.seconds_scale += one.seconds_scale;
        cfg.seconds_products += one.seconds_products;
        cfg.phases.add(one.phases);
        cfg.workspace_bytes = std::max(cfg.workspace_bytes, one.workspace_bytes);
        return s;
      };
      return second_level(g, x.repair(), x.m, x.n, limit, scan, o, product);
    } else {
      return no_second_level(g, limit, scan, o);
    }
  };
  const int st = guarded_run<T>(
      p, x, out, done,
      [&](const GuardLines* scales) {
        cfg.known = known_scales(scales);
        return crt::gemm_crt(x.args(), cfg);
      },
      level);
  if (st != BF16X_OK || out.guard == BF16X_GUARD_NATIVE) return st;
  out.seconds_split = cfg.seconds_scale;
  out.seconds_compute = cfg.seconds_products;
  out.phases = cfg.phases;
  out.counters.micro_tiles += cfg.micro_tiles;
  out.counters.dot_products += cfg.dot_products;
  // the INT8 kernel's tiles: per 64-deep chunk four operand tiles for four TDPBSSD, four accumulators per call
  out.counters.tile_loads += cfg.dot_products;
  out.counters.tile_stores += 4 * cfg.micro_tiles;
  out.workspace_bytes = cfg.workspace_bytes;
  if (!done) return x.part == pack::OutputPart::all ? nonfinite_to_host(x, out) : kPartDeclined;
  ran_as_planned(p, out);
  return BF16X_OK;
}

// The CRT driver's blocking on the plan's threads, as in the call.
std::uint64_t workspace(const Plan& p, std::int64_t m, std::int64_t n, std::int64_t k) {
  const util::ThreadScope threads(p.threads);
  const int moduli = crt::crt_moduli(p.mode);
  crt::CrtConfig cfg;
  cfg.moduli = moduli;
  return crt::crt_workspace_bytes(moduli, m, n, k, crt::crt_blocking(m, n, k, cfg));
}

}  // namespace

const Row& crt_row() {
  static const Row r{mode::Method::crt, &gemm<float>, &gemm<double>, nullptr, nullptr, &workspace, true, true};
  return r;
}

}  // namespace bf16x::method
