// The emulation driver (BLIS-style; the loops around the micro-kernel are in driver/block_loop.hpp), one OpenMP
// parallel region per call with two barriers, so that a call costs one fork/join however many phases it has:
//
//   scan:    per-row/column power-of-two scales, NaN/Inf detection (one read of A and B, along memory order)
//   --- barrier; one thread reserves the workspace
//   pack:    split A and B into the BF16 slices the scheme's products use, once, into block-contiguous panels
//            (B in VNNI pairs), shared over (k-block, run of micro-panels)
//   --- barrier
//   blocks:  loops 1-4 over output blocks sized for the thread count, FP32 or FP64 accumulation, write of C
//
// Nothing is written to C before the scan has passed and the workspace is reserved: every failure returns first.
#include "driver/gemm_driver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <type_traits>

#include "driver/block_loop.hpp"
#include "driver/workspace.hpp"
#include "pack/panels.hpp"

namespace bf16x::driver {
namespace {

using pack::kTileM;
using pack::kTileN;

constexpr std::size_t align64(std::size_t x) { return (x + 63) / 64 * 64; }

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

int default_block_k(bool fp64) { return fp64 ? pack::kBlockK : pack::kBlockKFp32; }

// Slices of A and B that the products read: fp64x6 uses 3 of the 6, so only 3 are split and packed.
struct SlicesUsed {
  int a = 0, b = 0;
};
SlicesUsed slices_used(const std::vector<engine::Product>& products) {
  SlicesUsed u;
  for (const engine::Product& p : products) {
    u.a = std::max(u.a, p.a + 1);
    u.b = std::max(u.b, p.b + 1);
  }
  return u;
}

struct Layout {
  std::size_t a_off = 0, b_off = 0, thread_off = 0, total = 0;
};

Layout layout_for(std::int64_t m, std::int64_t n, std::int64_t k, SlicesUsed used, const BlockPlan& plan,
                  Accumulation acc, int ngroups) {
  const std::size_t kp = std::size_t(pack::round_up(k, pack::kKChunk));
  Layout l;
  l.b_off = align64(std::size_t(pack::round_up(m, kTileM)) * kp * std::size_t(used.a) * sizeof(bf16_t));
  l.thread_off = l.b_off + align64(std::size_t(pack::round_up(n, kTileN)) * kp * std::size_t(used.b) * sizeof(bf16_t));
  l.total = l.thread_off + thread_scratch_bytes(plan, acc, ngroups) * std::size_t(plan.threads);
  return l;
}

// The group plan of the last (scheme, fusion, block_k) this thread used: no allocation on repeated calls.
const split::GroupPlan& cached_plan(const split::Scheme& s, bool fuse, int bk) {
  thread_local const split::Scheme* key_scheme = nullptr;
  thread_local bool key_fuse = false;
  thread_local int key_bk = 0;
  thread_local split::GroupPlan plan;
  if (key_scheme != &s || key_fuse != fuse || key_bk != bk) {
    plan = split::plan_groups(s, fuse, bk);
    key_scheme = &s;
    key_fuse = fuse;
    key_bk = bk;
  }
  return plan;
}

// Threads for a call: all of them unless the work is too small to repay a parallel region.
int call_threads(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t products) {
  const double work = double(m) * double(n) * double(k) * double(products);
  return work < double(1 << 22) ? 1 : std::max(1, omp_get_max_threads());
}

}  // namespace

std::size_t workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, const split::Scheme& s, int bk, int threads,
                            bool fp64, bool fuse) {
  if (bk <= 0) bk = default_block_k(fp64);
  const split::GroupPlan plan = split::plan_groups(s, fuse, bk);
  BlockPlan blocks = plan_blocks(m, n, threads);
  blocks.threads = std::max(1, threads);  // as gemm_emulated: scratch for every thread of the region
  return layout_for(m, n, k, slices_used(plan.products), blocks, fp64 ? Accumulation::fp64 : Accumulation::restart_fp32,
                    int(plan.groups.size()))
      .total;
}

template <typename T>
DriverStatus gemm_emulated(const GemmArgs<T>& args, DriverConfig& cfg) {
  const split::Scheme& scheme = *cfg.scheme;
  const bool fp64 = scheme.reconstruction == split::Reconstruction::fp64;
  // An FP32 scheme on FP64 data (or the reverse) would size panels and scratch for the wrong element type.
  if (fp64 != std::is_same_v<T, double>) return DriverStatus::wrong_precision;
  const int bk = cfg.block_k > 0 ? cfg.block_k : default_block_k(fp64);
  const split::GroupPlan& plan = cached_plan(scheme, cfg.fuse_diagonals, bk);
  const int ngroups = int(plan.groups.size());
  const SlicesUsed used = slices_used(plan.products);
  const Accumulation acc = fp64 ? Accumulation::fp64 : Accumulation::restart_fp32;
  // Blocks and scratch for all threads (workspace_bytes predicts the reservation exactly); small calls run on fewer.
  const int max_threads = std::max(1, omp_get_max_threads());
  BlockPlan blocks = plan_blocks(args.m, args.n, max_threads);
  blocks.threads = max_threads;
  const int threads = call_threads(args.m, args.n, args.k, plan.products.size());

  const double t0 = now();
  // Kept per calling thread so that the scale vectors keep their capacity between calls. The references are what
  // the parallel region uses: inside it, the names of thread_local objects would denote each thread's own.
  thread_local pack::PackedPanels tl_a, tl_b;
  pack::PackedPanels& pa = tl_a;
  pack::PackedPanels& pb = tl_b;
  pack::init_panels(pa, args.m, args.k, bk, used.a);
  pack::init_panels(pb, args.n, args.k, bk, used.b);
  pa.scale_exp.assign(std::size_t(args.m), 0);
  pb.scale_exp.assign(std::size_t(args.n), 0);
  const Layout lay = layout_for(args.m, args.n, args.k, used, blocks, acc, ngroups);
  Workspace& ws = thread_workspace();
  bool nonfinite = false;
  unsigned char* base = nullptr;
  double t1 = t0;
  const BlockCompute comp{&pa, &pb, plan.groups.data(), ngroups, acc, cfg.engine, cfg.counters};
  // The split always needs the row/column exponents; the paper's unscaled slices already carry them, so its
  // write applies none (null: no scaling).
  const BlockOutput<T> out{args.m,
                           args.n,
                           double(args.alpha),
                           double(args.beta),
                           args.c,
                           args.ldc,
                           cfg.scaled ? pa.scale_exp.data() : nullptr,
                           cfg.scaled ? pb.scale_exp.data() : nullptr};

#pragma omp parallel num_threads(threads)
  {
    pack::scan_scales_a_team(args.a, args.m, args.k, true, pa.scale_exp.data(), nonfinite);
    pack::scan_scales_b_team(args.b, args.k, args.n, true, pb.scale_exp.data(), nonfinite);
#pragma omp barrier
#pragma omp single
    if (!nonfinite) {
      base = static_cast<unsigned char*>(ws.reserve(lay.total));
      if (base) {
        pa.data = reinterpret_cast<bf16_t*>(base + lay.a_off);
        pb.data = reinterpret_cast<bf16_t*>(base + lay.b_off);
      }
    }
    // (the single's barrier publishes nonfinite, base and the panel pointers)
    if (!nonfinite && base) {
      pack::pack_a_team(args.a, {used.a, cfg.scaled}, pa);
      pack::pack_b_vnni_team(args.b, {used.b, cfg.scaled}, pb);
#pragma omp barrier
#pragma omp master
      t1 = now();
      run_blocks_team(out, comp, blocks, base + lay.thread_off);
    }
  }
  if (nonfinite) return DriverStatus::nonfinite_input;
  if (!base) return DriverStatus::no_memory;

  cfg.seconds_split = t1 - t0;
  cfg.seconds_compute = now() - t1;
  ws.release_if_large();
  return DriverStatus::ok;
}

template DriverStatus gemm_emulated(const GemmArgs<float>&, DriverConfig&);
template DriverStatus gemm_emulated(const GemmArgs<double>&, DriverConfig&);

}  // namespace bf16x::driver
