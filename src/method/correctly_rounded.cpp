// The correctly rounded modes (fp64cr, fp32cr): TwoProd and FastTwoSum on the FMA units in tile sums at the vector
// level of the plan's engine record, the exact sum for the entries they cannot decide (cr/); real and complex.
#include <omp.h>

#include <cstdio>

#include "cr/cr_driver.hpp"
#include "cr/tile_sums.hpp"
#include "engine/records.hpp"
#include "method/guarded_run.hpp"
#include "method/table.hpp"
#include "util/thread_scope.hpp"

namespace bf16x::method {
namespace {

cr::CrConfig config(const Plan& p) {
  cr::CrConfig cfg;
  cfg.level = engine::sums_level(p.engine);
  cfg.timed = p.timed();
  return cfg;
}

void outcome(const Plan& p, const cr::CrConfig& cfg, Outcome& out) {
  out.repaired = cfg.exact_entries;
  out.phases = cfg.phases;
  out.seconds_split = cfg.phases.scan + cfg.phases.pack;
  out.seconds_compute = cfg.phases.products + cfg.phases.write;
  out.counters.micro_tiles += cfg.micro_tiles;
  out.workspace_bytes = cfg.workspace_bytes;
  if (p.verbose) {  // the verbose fields only where a line is written (a tenth of a tiny call)
    char why[64];
    std::snprintf(why, sizeof why, ",kernels=%s,exact=%llu", cr::tile_kernels(cfg.level).isa,
                  static_cast<unsigned long long>(cfg.exact_entries));
    out.why = why;
  }
  ran_as_planned(p, out);
}

// The host GEMM where alpha or beta is NaN or Inf.
template <typename T>
int gemm(const Plan& p, const Call<T>& x, Outcome& out) {
  cr::CrConfig cfg = config(p);
  const util::ThreadScope threads(p.threads);
  if (cr::gemm_cr(x.args(), cfg) != util::DriverStatus::ok)
    return x.part == pack::OutputPart::all ? nonfinite_to_host(x, out) : kPartDeclined;
  outcome(p, cfg, out);
  return BF16X_OK;
}

// Each part correctly rounded: the two real dot products of length 2k together.
template <typename T>
int gemm_complex(const Plan& p, const ComplexCall<T>& x, Outcome& out, bool& done) {
  cr::CrConfig cfg = config(p);
  const util::ThreadScope threads(p.threads);
  done = cr::gemm_cr_complex(x, cfg) == util::DriverStatus::ok;
  if (done)
    outcome(p, cfg, out);
  else
    out.why = ",fallback=nonfinite";
  return BF16X_OK;
}

std::uint64_t workspace(const Plan& p, std::int64_t m, std::int64_t n, std::int64_t k) {
  const util::ThreadScope threads(p.threads);
  return cr::cr_workspace_bytes(m, n, k, omp_get_max_threads(), engine::sums_level(p.engine));
}

}  // namespace

const Row& correctly_rounded_row() {
  static const Row r{mode::Method::correctly_rounded, &gemm<float>, &gemm<double>, &gemm_complex<float>,
                     &gemm_complex<double>,           &workspace,   true};
  return r;
}

}  // namespace bf16x::method
