#include "driver/block_loop.hpp"

#include <omp.h>

#include <algorithm>
#include <type_traits>

#include "driver/block_ops.hpp"
#include "util/align.hpp"
#include "util/clock.hpp"

namespace bf16x::driver {
namespace {

using pack::kTileM;
using pack::kTileN;

using util::align64;

// C = alpha * 2^(ea_i + eb_j) * acc + beta * C for the rows x cols block at (ci, cj). A row-major C is the
// column-major C^T: its block is written from the transposed accumulators, one 32 x 32 tile at a time, with the
// roles of ea and eb swapped. The write's rounding is symmetric in the two exponents (docs/numerics.md), so both
// layouts get the same bits.
template <typename T, typename Acc>
void write_output(const BlockOutput<T>& out, std::int64_t ci, std::int64_t cj, const Acc* acc, int ld, int rows,
                  int cols) {
  const bool cut = pack::block_cut_by_part(out.part, ci, rows, cj, cols);
  if (cut && !out.c_row_major) {  // the part's entries of each column alone
    for (int c = 0; c < cols; ++c) {
      const std::int64_t j = cj + c;
      const pack::Span in = pack::col_in_part(out.part, j, ci, rows);
      if (in.lo < in.hi)
        write_block(out.c + j * out.ldc + in.lo, out.ldc, acc + (in.lo - ci) * ld + c, ld, int(in.hi - in.lo), 1,
                    out.alpha, out.beta, out.ea ? out.ea + in.lo : nullptr, out.eb ? out.eb + j : nullptr);
    }
    return;
  }
  if (!out.c_row_major) {
    write_block(out.c + cj * out.ldc + ci, out.ldc, acc, ld, rows, cols, out.alpha, out.beta,
                out.ea ? out.ea + ci : nullptr, out.eb ? out.eb + cj : nullptr);
    return;
  }
  alignas(64) Acc t[kTileN * kTileM];  // tile^T: kTileN rows (columns of C) at stride kTileM
  for (int r0 = 0; r0 < rows; r0 += kTileM)
    for (int c0 = 0; c0 < cols; c0 += kTileN) {
      const int tr = std::min(kTileM, rows - r0), tc = std::min(kTileN, cols - c0);
      for (int i = 0; i < tr; ++i)
        for (int j = 0; j < tc; ++j) t[j * kTileM + i] = acc[std::int64_t(r0 + i) * ld + c0 + j];
      const std::int64_t i = ci + r0, j = cj + c0;
      if (!cut) {
        write_block(out.c + i * out.ldc + j, out.ldc, t, kTileM, tc, tr, out.alpha, out.beta,
                    out.eb ? out.eb + j : nullptr, out.ea ? out.ea + i : nullptr);
        continue;
      }
      for (int r = 0; r < tr; ++r) {  // the part's entries of each row of C (a column of C^T) alone
        const pack::Span in = pack::row_in_part(out.part, i + r, j, tc);
        if (in.lo < in.hi)
          write_block(out.c + (i + r) * out.ldc + in.lo, out.ldc, t + (in.lo - j) * kTileM + r, kTileM,
                      int(in.hi - in.lo), 1, out.alpha, out.beta, out.eb ? out.eb + in.lo : nullptr,
                      out.ea ? out.ea + i + r : nullptr);
      }
    }
}

// What a pair of clock reads measures around nothing: the least of a few, once per process.
double clock_pair_seconds() {
  static const double least = [] {
    double m = 1.0;
    for (int i = 0; i < 64; ++i) {
      const double t = util::now();
      m = std::min(m, util::now() - t);
    }
    return m;
  }();
  return least;
}

// f(), timed on the clock where the caller times the sums (every SumsClock::kEvery-th run), less the clock's own
// part of the interval.
template <typename F>
inline void timed_sums(SumsClock* clock, const F& f) {
  if (!clock || clock->runs++ % SumsClock::kEvery != 0) return f();
  const double t = util::now();
  f();
  clock->timed += std::max(0.0, util::now() - t - clock_pair_seconds());
  ++clock->timed_runs;
}

template <typename T>
void run_block(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan, std::int64_t unit,
               unsigned char* tscratch, engine::EngineCounters* cnt) {
  run_block_window(out, comp, plan, unit, {0, 0, 0, true}, tscratch, tscratch + block_acc_bytes(plan, comp.acc), cnt);
}

}  // namespace

namespace {

// A window after the first finds the block's accumulators out of cache (the panel holds MC x NC of them): its
// first k-block requests the rows of the tile after (mt, nt) while the engine works on this one.
template <typename Acc>
void prefetch_next_tile(const Acc* acc, int ld, int mt, int nt, int mtiles, int ntiles) {
  if (++nt == ntiles) {
    nt = 0;
    if (++mt == mtiles) return;
  }
  constexpr int kLine = 64 / int(sizeof(Acc));
  const Acc* t = acc + std::int64_t(mt) * kTileM * ld + nt * kTileN;
  for (int r = 0; r < kTileM; ++r)
    for (int c = 0; c < kTileN; c += kLine) __builtin_prefetch(t + std::int64_t(r) * ld + c, 1, 3);
}

// Loops 2-4: visit(kb, mt, nt) over the k-blocks and the block's micro-tiles. Within one window of kBlockK (fp32x6:
// four k-blocks of 64) the k-blocks are innermost (k_inner), so that each block sum into a tile's accumulators finds
// them in L1 (k-blocks outermost, every sum fetched the tile from the L2). The raw GEMM's panels span all of k: there
// the k-blocks stay outermost, and a k-block's B panels stay in the L2 across the block's rows. Either way every
// element gets its k-blocks in order: the same bits.
template <typename Visit>
void visit_tiles(bool k_inner, std::int64_t kblocks, int mtiles, int ntiles, Visit&& visit) {
  if (k_inner) {
    for (int mt = 0; mt < mtiles; ++mt)                                   // loop 3
      for (int nt = 0; nt < ntiles; ++nt)                                 // loop 4
        for (std::int64_t kb = 0; kb < kblocks; ++kb) visit(kb, mt, nt);  // loop 2, innermost here
  } else {
    for (std::int64_t kb = 0; kb < kblocks; ++kb)               // loop 2
      for (int mt = 0; mt < mtiles; ++mt)                       // loop 3
        for (int nt = 0; nt < ntiles; ++nt) visit(kb, mt, nt);  // loop 4
  }
}

}  // namespace

template <typename T>
double run_block_window(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan, std::int64_t unit,
                        const Window& win, void* acc_block, unsigned char* tscratch, engine::EngineCounters* cnt) {
  const pack::PackedPanels& pa = *comp.a;
  const pack::PackedPanels& pb = *comp.b;
  const std::int64_t mb = unit / plan.nblocks, nb = unit % plan.nblocks;
  const std::int64_t i0 = mb * plan.bm, j0 = nb * plan.bn;  // in the window
  const int rows = int(std::min<std::int64_t>(plan.bm, pa.extent - i0));
  const int cols = int(std::min<std::int64_t>(plan.bn, pb.extent - j0));
  const int mtiles = (rows + kTileM - 1) / kTileM, ntiles = (cols + kTileN - 1) / kTileN;
  const std::int64_t p0 = i0 / kTileM, q0 = j0 / kTileN;
  const int ld = plan.acc_ld();
  const engine::MicroKernel kernel = comp.engine->kernel;
  const bf16_t* ap[pack::kMaxSlices];
  const bf16_t* bp[pack::kMaxSlices];
  float* outs[pack::kMaxSlices * pack::kMaxSlices];  // group outputs (FP64 path): at most one per slice product
  const std::int64_t ci = win.row0 + i0, cj = win.col0 + j0;  // the block in C
  if (!pack::block_in_part(out.part, ci, rows, cj, cols)) return 0.0;

  // step(kb, kg, tile, tr, tc) over the window's k-blocks and the block's micro-tiles (visit_tiles), with the tile's
  // operands set and its accumulator (in the block accumulator acc) prefetched; kg is the k-block's index in the whole
  // k range, which decides whether the block accumulator starts there; tr x tc is the part of the tile inside C.
  const bool k_inner = pa.kblk.k <= pack::kBlockK;
  auto each_tile = [&](auto* acc, const auto& step) {
    auto visit = [&](std::int64_t kb, int mt, int nt) {
      const int tr = std::min(kTileM, rows - mt * kTileM), tc = std::min(kTileN, cols - nt * kTileN);
      if (!pack::block_in_part(out.part, ci + mt * kTileM, tr, cj + nt * kTileN, tc)) return;
      // A k-block of zero products only (a lower-triangular op(A)) adds exactly nothing. Never the first: every
      // accumulator still starts at k-block 0.
      const std::int64_t k0 = (win.kb_first + kb) * pa.kblk.bk;
      if (comp.a_lower.on && k0 > 0 && k0 >= comp.a_lower.reach(ci + mt * kTileM, tr, k0 + 1)) return;
      for (int s = 0; s < pa.slices; ++s) ap[s] = pa.panel(kb, p0 + mt, s);
      for (int s = 0; s < pb.slices; ++s) bp[s] = pb.panel(kb, q0 + nt, s);
      if (kb == 0 && win.kb_first != 0) prefetch_next_tile(acc, ld, mt, nt, mtiles, ntiles);
      step(kb, win.kb_first + kb, acc + std::int64_t(mt) * kTileM * ld + nt * kTileN, tr, tc);
    };
    visit_tiles(k_inner, pa.kblk.blocks(), mtiles, ntiles, visit);
    if (!win.write) return 0.0;
    const double t = util::now();
    write_output(out, ci, cj, acc, ld, rows, cols);
    return util::now() - t;
  };

  // FP32 accumulation serves sgemm (and the raw GEMM), FP64 accumulation dgemm.
  if constexpr (std::is_same_v<T, float>) {
    float* part = reinterpret_cast<float*>(tscratch);
    const bool running = comp.acc == Accumulation::running_fp32;
    return each_tile(static_cast<float*>(acc_block), [&](std::int64_t kb, std::int64_t kg, float* dst, int tr, int tc) {
      if (running || kg == 0) {
        // The first k-block (or the raw GEMM's running sum) goes straight into the block accumulator.
        kernel({ap, bp, pa.kblk.padded(kb), comp.groups, 1, &dst, ld, running && kg > 0, cnt, pa.generation, tr, tc});
      } else {
        kernel({ap, bp, pa.kblk.padded(kb), comp.groups, 1, &part, kTileN, false, cnt, pa.generation, tr, tc});
        timed_sums(win.sums, [&] { add_tile_fp32(dst, ld, part); });
      }
    });
  } else {
    auto* groups = reinterpret_cast<float*>(tscratch);
    for (int g = 0; g < comp.ngroups; ++g) outs[g] = groups + std::int64_t(g) * kTileM * kTileN;
    return each_tile(static_cast<double*>(acc_block), [&](std::int64_t kb, std::int64_t kg, double* dst, int tr,
                                                          int tc) {
      kernel({ap, bp, pa.kblk.padded(kb), comp.groups, comp.ngroups, outs, kTileN, false, cnt, pa.generation, tr, tc});
      timed_sums(win.sums, [&] { add_groups_fp64(dst, ld, outs, comp.ngroups, kg == 0); });
    });
  }
}

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
template double run_block_window(const BlockOutput<float>&, const BlockCompute&, const BlockPlan&, std::int64_t,
                                 const Window&, void*, unsigned char*, engine::EngineCounters*);
template double run_block_window(const BlockOutput<double>&, const BlockCompute&, const BlockPlan&, std::int64_t,
                                 const Window&, void*, unsigned char*, engine::EngineCounters*);

}  // namespace bf16x::driver
