#include "driver/block_loop.hpp"

#include <omp.h>

#include <type_traits>

#include "driver/block_ops.hpp"

namespace bf16x::driver {
namespace {

using pack::kTileM;
using pack::kTileN;

constexpr std::size_t align64(std::size_t x) { return (x + 63) / 64 * 64; }

template <typename T>
void run_block(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan, std::int64_t unit,
               unsigned char* tscratch, engine::EngineCounters* cnt) {
  const pack::PackedPanels& pa = *comp.a;
  const pack::PackedPanels& pb = *comp.b;
  const std::int64_t mb = unit / plan.nblocks, nb = unit % plan.nblocks;
  const std::int64_t i0 = mb * plan.bm, j0 = nb * plan.bn;
  const int rows = int(std::min<std::int64_t>(plan.bm, out.m - i0));
  const int cols = int(std::min<std::int64_t>(plan.bn, out.n - j0));
  const int mtiles = (rows + kTileM - 1) / kTileM, ntiles = (cols + kTileN - 1) / kTileN;
  const std::int64_t p0 = i0 / kTileM, q0 = j0 / kTileN;
  const int ld = plan.acc_ld();
  const engine::MicroKernel kernel = comp.engine->kernel;
  const bf16_t* ap[pack::kMaxSlices];
  const bf16_t* bp[pack::kMaxSlices];
  float* outs[pack::kMaxSlices * pack::kMaxSlices];  // group outputs (FP64 path): at most one per slice product

  auto tile_operands = [&](std::int64_t kb, int mt, int nt) {
    for (int s = 0; s < pa.slices; ++s) ap[s] = pa.panel(kb, p0 + mt, s);
    for (int s = 0; s < pb.slices; ++s) bp[s] = pb.panel(kb, q0 + nt, s);
  };

  // FP32 accumulation serves sgemm (and the raw GEMM), FP64 accumulation dgemm.
  if constexpr (std::is_same_v<T, float>) {
    auto* acc = reinterpret_cast<float*>(tscratch);
    float* part = reinterpret_cast<float*>(tscratch + align64(std::size_t(plan.bm) * std::size_t(ld) * sizeof(float)));
    const bool running = comp.acc == Accumulation::running_fp32;
    for (std::int64_t kb = 0; kb < pa.kblk.blocks(); ++kb)  // loop 2
      for (int mt = 0; mt < mtiles; ++mt)                   // loop 3
        for (int nt = 0; nt < ntiles; ++nt) {               // loop 4
          tile_operands(kb, mt, nt);
          float* dst = acc + std::int64_t(mt) * kTileM * ld + nt * kTileN;
          if (running || kb == 0) {
            // The first k-block (or the raw GEMM's running sum) goes straight into the block accumulator.
            kernel({ap, bp, pa.kblk.padded(kb), comp.groups, 1, &dst, ld, running && kb > 0, cnt});
          } else {
            kernel({ap, bp, pa.kblk.padded(kb), comp.groups, 1, &part, kTileN, false, cnt});
            add_tile_fp32(dst, ld, part);
          }
        }
    write_block(out.c + j0 * out.ldc + i0, out.ldc, acc, ld, rows, cols, out.alpha, out.beta,
                out.ea ? out.ea + i0 : nullptr, out.eb ? out.eb + j0 : nullptr);
  } else {
    auto* acc = reinterpret_cast<double*>(tscratch);
    auto* groups =
        reinterpret_cast<float*>(tscratch + align64(std::size_t(plan.bm) * std::size_t(ld) * sizeof(double)));
    for (int g = 0; g < comp.ngroups; ++g) outs[g] = groups + std::int64_t(g) * kTileM * kTileN;
    for (std::int64_t kb = 0; kb < pa.kblk.blocks(); ++kb)  // loop 2
      for (int mt = 0; mt < mtiles; ++mt)                   // loop 3
        for (int nt = 0; nt < ntiles; ++nt) {               // loop 4
          tile_operands(kb, mt, nt);
          kernel({ap, bp, pa.kblk.padded(kb), comp.groups, comp.ngroups, outs, kTileN, false, cnt});
          add_groups_fp64(acc + std::int64_t(mt) * kTileM * ld + nt * kTileN, ld, outs, comp.ngroups, kb == 0);
        }
    write_block(out.c + j0 * out.ldc + i0, out.ldc, acc, ld, rows, cols, out.alpha, out.beta,
                out.ea ? out.ea + i0 : nullptr, out.eb ? out.eb + j0 : nullptr);
  }
}

}  // namespace

template <typename T>
void run_blocks_team(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan,
                     unsigned char* scratch) {
  const std::size_t per_thread = thread_scratch_bytes(plan, comp.acc, comp.ngroups);
  const engine::EngineInfo& e = *comp.engine;
  const std::int64_t units = plan.units();
  // Each thread brackets its micro-tiles with the engine's set-up (AMX: the tile palette).
  if (e.thread_begin) e.thread_begin();
  engine::EngineCounters local;
  unsigned char* mine = scratch + per_thread * std::size_t(omp_get_thread_num());
#pragma omp for schedule(dynamic) nowait
  for (std::int64_t u = 0; u < units; ++u)  // loop 1
    run_block(out, comp, plan, u, mine, comp.counters ? &local : nullptr);
  if (e.thread_end) e.thread_end();
  if (comp.counters) {
#pragma omp critical(bf16x_counters)
    comp.counters->add(local);
  }
}

template <typename T>
void run_blocks(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan, unsigned char* scratch) {
#pragma omp parallel num_threads(plan.threads)
  run_blocks_team(out, comp, plan, scratch);
}

template void run_blocks(const BlockOutput<float>&, const BlockCompute&, const BlockPlan&, unsigned char*);
template void run_blocks_team(const BlockOutput<float>&, const BlockCompute&, const BlockPlan&, unsigned char*);
template void run_blocks_team(const BlockOutput<double>&, const BlockCompute&, const BlockPlan&, unsigned char*);
template void run_blocks(const BlockOutput<double>&, const BlockCompute&, const BlockPlan&, unsigned char*);

}  // namespace bf16x::driver
