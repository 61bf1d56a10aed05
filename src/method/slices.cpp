// The slice modes (fp32x6, fp64x<d>): BF16 slices of the operands, their products on the plan's BF16 engine
// (driver/), under the guard where it applies.
#include <omp.h>

#include "driver/gemm_driver.hpp"
#include "engine/records.hpp"
#include "method/guarded_run.hpp"
#include "method/table.hpp"
#include "split/scheme.hpp"
#include "util/thread_scope.hpp"

namespace bf16x::method {
namespace {

driver::DriverConfig config(const Plan& p) {
  driver::DriverConfig cfg{};
  cfg.scheme = split::scheme_for_mode(p.mode);
  cfg.engine = engine::engine_info(p.engine);
  cfg.scaled = p.scaled;
  cfg.fuse_diagonals = p.fuse_diagonals;
  cfg.block_k = p.block_k;
  cfg.timed = p.timed();
  return cfg;
}

template <typename T>
int gemm(const Plan& p, const Call<T>& x, Outcome& out) {
  driver::DriverConfig cfg = config(p);
  cfg.counters = p.count ? &out.counters : nullptr;
  const util::ThreadScope threads(p.threads);
  bool done;
  const int st = guarded_run<T>(
      p, x, out, done,
      [&](const GuardLines* scales) {
        cfg.known = known_scales(scales);
        return driver::gemm_emulated(x.args(), cfg);
      },
      no_second_level);
  if (st != BF16X_OK || out.guard == BF16X_GUARD_NATIVE) return st;
  if (!done) return x.part == pack::OutputPart::all ? nonfinite_to_host(x, out) : kPartDeclined;
  out.seconds_split = cfg.seconds_split;
  out.seconds_compute = cfg.seconds_compute;
  out.phases = cfg.phases;
  out.workspace_bytes = cfg.workspace_bytes;
  ran_as_planned(p, out);
  return BF16X_OK;
}

std::uint64_t workspace(const Plan& p, std::int64_t m, std::int64_t n, std::int64_t k) {
  const util::ThreadScope threads(p.threads);
  return driver::workspace_bytes(m, n, k, *split::scheme_for_mode(p.mode), p.block_k, omp_get_max_threads(),
                                 p.is_double, p.fuse_diagonals);
}

}  // namespace

const Row& slices_row() {
  static const Row r{mode::Method::slices, &gemm<float>, &gemm<double>, nullptr, nullptr, &workspace, true, true};
  return r;
}

}  // namespace bf16x::method
