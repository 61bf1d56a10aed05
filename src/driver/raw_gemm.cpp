#include "driver/raw_gemm.hpp"

#include <omp.h>

#include <chrono>

#include "driver/block_loop.hpp"
#include "util/clock.hpp"
#include "util/workspace.hpp"

namespace bf16x::driver {
namespace {

using util::now;

constexpr split::Product kProduct{0, 0};
constexpr split::ProductGroup kGroup{&kProduct, 1};

void init(RawPacked& out, std::int64_t m, std::int64_t n, std::int64_t k) {
  out.m = m;
  out.n = n;
  out.k = k;
  pack::init_panels(out.a, m, k, pack::kBlockK, 1);
  pack::init_panels(out.b, n, k, pack::kBlockK, 1);
  out.a.scale_exp.assign(std::size_t(m), 0);
  out.b.scale_exp.assign(std::size_t(n), 0);
}

util::Workspace& scratch_workspace() {
  thread_local util::Workspace ws;
  return ws;
}

}  // namespace

void raw_pack(const pack::MatrixView<bf16_t>& a, const pack::MatrixView<bf16_t>& b, std::int64_t m, std::int64_t n,
              std::int64_t k, RawPacked& out) {
  init(out, m, n, k);
  out.storage.resize(std::size_t(out.a.elems() + out.b.elems()));
  out.a.data = out.storage.data();
  out.b.data = out.a.data + out.a.elems();
  pack::pack_a(a, {1, false}, out.a);
  pack::pack_b_vnni(b, {1, false}, out.b);
  out.a.generation = 1;  // packed once, read by every call on it
}

bool raw_gemm_packed(const engine::EngineInfo& e, const RawPacked& p, float* c, std::int64_t ldc,
                     engine::EngineCounters* counters) {
  const driver::BlockPlan plan = driver::plan_blocks(p.m, p.n, omp_get_max_threads());
  const std::size_t per_thread = driver::thread_scratch_bytes(plan, driver::Accumulation::running_fp32, 1);
  auto* scratch = static_cast<unsigned char*>(scratch_workspace().reserve(per_thread * std::size_t(plan.threads)));
  if (!scratch || !e.available()) return false;
  const driver::BlockOutput<float> out{p.m, p.n, 1.0, 0.0, c, ldc, nullptr, nullptr};
  const driver::BlockCompute comp{&p.a, &p.b, &kGroup, 1, driver::Accumulation::running_fp32, &e, counters};
  driver::run_blocks(out, comp, plan, scratch);
  return true;
}

bool raw_gemm(const engine::EngineInfo& e, std::int64_t m, std::int64_t n, std::int64_t k,
              const pack::MatrixView<bf16_t>& a, const pack::MatrixView<bf16_t>& b, float* c, std::int64_t ldc,
              RawTimes* times) {
  // thread_local state is reached through references inside the parallel region (see driver/gemm_driver.cpp).
  thread_local RawPacked tl_p;
  thread_local util::Workspace tl_ws;
  RawPacked& p = tl_p;
  const double t0 = now();
  init(p, m, n, k);
  const driver::BlockPlan plan = driver::plan_blocks(m, n, omp_get_max_threads());
  const std::size_t per_thread = driver::thread_scratch_bytes(plan, driver::Accumulation::running_fp32, 1);
  const std::size_t packed = std::size_t(p.a.elems() + p.b.elems()) * sizeof(bf16_t);
  auto* base =
      static_cast<unsigned char*>(tl_ws.reserve((packed + 63) / 64 * 64 + per_thread * std::size_t(plan.threads)));
  if (!base || !e.available()) return false;
  p.a.data = reinterpret_cast<bf16_t*>(base);
  p.b.data = p.a.data + p.a.elems();
  unsigned char* scratch = base + (packed + 63) / 64 * 64;
  const driver::BlockOutput<float> out{m, n, 1.0, 0.0, c, ldc, nullptr, nullptr};
  const driver::BlockCompute comp{&p.a, &p.b, &kGroup, 1, driver::Accumulation::running_fp32, &e, nullptr};
  double t1 = t0;
  // One region: pack A and B, a barrier, the blocks (as the emulation driver does).
#pragma omp parallel num_threads(plan.threads)
  {
    pack::pack_a_team(a, {1, false}, p.a);
    pack::pack_b_vnni_team(b, {1, false}, p.b);
#pragma omp barrier
#pragma omp master
    t1 = now();
    driver::run_blocks_team(out, comp, plan, scratch);
  }
  if (times) {
    times->pack = t1 - t0;
    times->compute = now() - t1;
  }
  return true;
}

}  // namespace bf16x::driver
