// The emulation driver: BLIS's loops around the micro-kernel, in one OpenMP parallel region per call.
//
//   scan:  per-row/column power-of-two scales and NaN/Inf detection, one read of A and B along memory order, into
//          two vectors of m and n ints (the only part of the workspace that grows with the problem)
//   --- barrier; one thread reserves the workspace (its size depends on the block sizes, the slices and the thread
//       count, not on m, n, k: see Layout); nothing is written to C before the scan and the reservation succeed
//   loop 5  jc: columns of C, NC at a time
//   loop 4    ic: rows of C, MC at a time; the MC x NC output panel's accumulators (FP64 for dgemm, FP32 for
//             sgemm) live in one shared accumulator panel across loop 3
//   loop 3      pc: k, KC at a time (KC a multiple of the k-block bk <= 256, the exactness unit)
//                 pack: split op(A)(ic.., pc..) (MC x KC) and op(B)(pc.., jc..) (KC x NC) into the slices the
//                       products use, block-contiguous (B in VNNI pairs), shared jobs over the team
//   loop 2        output blocks of the panel (plan_blocks: BM x BN, OpenMP dynamic), each thread on its own:
//                   k-blocks of the window, 32-row and 32-column micro-panels, micro-kernel (driver/block_loop),
//                   adding into the block's accumulators; at the last pc the block's C is written
//
// Loops 5, 4, 3 run as one sequence of steps (jc, ic, pc) with two buffer sets for the packed operands: while the
// blocks of step t are computed, step t + 1 is packed into the other set (its jobs are taken first, without a
// wait, so they fill the same phase), and one barrier ends each step.
//
// Per output element the k-blocks still arrive in increasing order into one accumulator that starts at k-block 0
// (Window::kb_first), so the results are those of one pass over k, bit for bit. Unlike BLIS, ic runs outside pc:
// that bounds the accumulators to MC x NC, at the price of packing the B panel once per (jc, ic) instead of once
// per jc (m / MC times in all; A is packed n / NC times, as in BLIS). Block sizes: driver/blocking.hpp.
#include "driver/gemm_driver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <type_traits>
#include <vector>

#include "driver/block_loop.hpp"
#include "driver/blocking.hpp"
#include "pack/panels.hpp"
#include "util/align.hpp"
#include "util/clock.hpp"
#include "util/phase_times.hpp"
#include "util/team.hpp"
#include "util/workspace.hpp"

namespace bf16x::driver {
namespace {

using pack::kTileM;
using pack::kTileN;

using util::align64;

using util::now;

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

// The workspace of a call, one reservation:
//   [A block: MC x KC x slices_a BF16] [B panel: KC x NC x slices_b BF16]   (x 2 when the call has several steps:
//                                                                            the next step's are packed meanwhile)
//   [accumulator panel: the blocks of one MC x NC output panel, bm x (bn + 16) FP64 or FP32 each]
//   [per thread: the engine's group outputs / fp32x6's partial tile]
// where MC, NC, KC are clipped to m, n, k: at most kAccBudget (+ 6% row padding) + 2 x 2 x slices x 2048 x 256 x 2
// bytes + threads x 84 KiB (fp64x21: about 58 MiB), whatever m, n, k are.
struct Layout {
  Blocking blk;
  std::int64_t mc = 0, nc = 0, kc = 0;  // clipped to m, n, k
  std::int64_t steps = 0;               // (jc, ic, pc) steps
  std::size_t a_off[2] = {}, b_off[2] = {}, acc_off = 0, thread_off = 0, per_thread = 0, total = 0;
};

// Whether a step's packed windows (one MC x KC block of A, one KC x NC panel of B) are larger than the L2: the
// products then read them from the L3 or memory whatever the stores do (once per block of C, against 2 x 32 x
// slices flop per byte), and streaming stores spare the read of every line before its write.
bool streams_panels(const Layout& l, SlicesUsed used) {
  const std::int64_t kp = pack::round_up(l.kc, pack::kKChunk);
  const std::int64_t packed = (pack::round_up(l.mc, kTileM) * used.a + pack::round_up(l.nc, kTileN) * used.b) * kp *
                              std::int64_t(sizeof(bf16_t));
  return std::uint64_t(packed) > cache_sizes().l2;
}

BlockPlan panel_plan(std::int64_t rows, std::int64_t cols, int max_threads, const Blocking& blk) {
  BlockPlan p = plan_blocks(rows, cols, max_threads, blk.bm, blk.bn);
  p.threads = max_threads;
  return p;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

Layout layout_for(std::int64_t m, std::int64_t n, std::int64_t k, int bk, SlicesUsed used, Accumulation acc,
                  int ngroups, int max_threads) {
  Layout l;
  l.blk = choose_blocking(bk, used.a, used.b, acc == Accumulation::fp64, cache_sizes());
  l.mc = std::min<std::int64_t>(m, l.blk.mc);
  l.nc = std::min<std::int64_t>(n, l.blk.nc);
  l.kc = std::min<std::int64_t>(k, l.blk.kc);
  // (saturated: shapes whose step count leaves int64 are accepted by the checks but would never finish)
  if (__builtin_mul_overflow(ceil_div(n, l.nc), ceil_div(m, l.mc), &l.steps) ||
      __builtin_mul_overflow(l.steps, ceil_div(k, l.kc), &l.steps))
    l.steps = std::numeric_limits<std::int64_t>::max();
  const std::size_t kp = std::size_t(pack::round_up(l.kc, pack::kKChunk));
  // The output panels have at most two row extents (MC and the remainder) and two column extents.
  std::size_t acc_bytes = 0;
  for (std::int64_t rows : {l.mc, m % l.mc})
    for (std::int64_t cols : {l.nc, n % l.nc}) {
      if (rows == 0 || cols == 0) continue;
      const BlockPlan p = panel_plan(rows, cols, max_threads, l.blk);
      acc_bytes = std::max(acc_bytes, std::size_t(p.units()) * block_acc_bytes(p, acc));
    }
  const std::size_t a_bytes =
      align64(std::size_t(pack::round_up(l.mc, kTileM)) * kp * std::size_t(used.a) * sizeof(bf16_t));
  const std::size_t b_bytes =
      align64(std::size_t(pack::round_up(l.nc, kTileN)) * kp * std::size_t(used.b) * sizeof(bf16_t));
  const int sets = l.steps > 1 ? 2 : 1;
  for (int i = 0; i < 2; ++i) {
    l.a_off[i] = std::size_t(i % sets) * (a_bytes + b_bytes);
    l.b_off[i] = l.a_off[i] + a_bytes;
  }
  l.acc_off = std::size_t(sets) * (a_bytes + b_bytes);
  l.thread_off = l.acc_off + acc_bytes;
  l.per_thread = tile_scratch_bytes(acc, ngroups);
  l.total = l.thread_off + l.per_thread * std::size_t(max_threads);
  return l;
}

// Step t of a call: pc runs fastest, then ic, then jc (loops 3, 4, 5).
struct Step {
  std::int64_t jc, ic, pc, rows, cols, depth;
};
Step step_at(const Layout& l, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t t) {
  const std::int64_t kw = ceil_div(k, l.kc), mw = ceil_div(m, l.mc);
  Step s;
  s.pc = (t % kw) * l.kc;
  s.ic = (t / kw % mw) * l.mc;
  s.jc = t / kw / mw * l.nc;
  s.rows = std::min(l.mc, m - s.ic);
  s.cols = std::min(l.nc, n - s.jc);
  s.depth = std::min(l.kc, k - s.pc);
  return s;
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

// Threads for a call: all of them unless the work is too small to repay a parallel region, and no more than C has
// micro-tiles: the products of one tile run on one thread, so a skinny call (8 x 8 x 4096) would only add the
// others' waits at every step's barrier.
int call_threads(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t products) {
  const double work = double(m) * double(n) * double(k) * double(products);
  if (work < double(1 << 22)) return 1;
  const std::int64_t tiles = ((m + pack::kTileM - 1) / pack::kTileM) * ((n + pack::kTileN - 1) / pack::kTileN);
  return int(std::max<std::int64_t>(1, std::min<std::int64_t>(omp_get_max_threads(), tiles)));
}

}  // namespace

std::size_t workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, const split::Scheme& s, int bk, int threads,
                            bool fp64, bool fuse) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  if (bk <= 0) bk = default_block_k(fp64);
  const split::GroupPlan plan = split::plan_groups(s, fuse, bk);
  return layout_for(m, n, k, bk, slices_used(plan.products), fp64 ? Accumulation::fp64 : Accumulation::restart_fp32,
                    int(plan.groups.size()), std::max(1, threads))
      .total;
}

namespace {

// One call's state, shared by the team (the steps below run inside its parallel region).
template <typename T>
struct DriverCall {
  const GemmArgs<T>& args;
  DriverConfig& cfg;
  const split::GroupPlan& plan;
  int bk, ngroups;
  SlicesUsed used;
  Accumulation acc;
  int max_threads;
  std::vector<int>& ea;  // the calling thread's scale vectors (thread_local there, shared here)
  std::vector<int>& eb;
  Layout lay;
  BlockOutput<T> out;
  pack::SplitOptions opt_a, opt_b;
  // Element (i, l) of op(A) at a.data[i * sai + l * sal], (l, j) of op(B) at b.data[l * sbl + j * sbj].
  std::int64_t sai, sal, sbl, sbj;
  double t0;
  bool nonfinite = false;
  unsigned char* base = nullptr;
  double t_compute = 0;
  util::PhaseTimes ph{};  // the master's (bf16x_stats version 3); seconds_split is its scan + pack

  // Whether step t has work: its output panel holds an entry of the call's part of C (a triangle's others are
  // skipped, their windows neither packed nor multiplied), and its window of k products that are not all zero (a
  // lower-triangular op(A): the panel's rows reach no further than `reach`; the first window always runs).
  std::int64_t reach(const Step& s) const { return args.a_lower.reach(s.ic, s.rows, args.k); }
  bool live(std::int64_t t) const {
    const Step s = step_at(lay, args.m, args.n, args.k, t);
    return pack::block_in_part(args.part, s.ic, s.rows, s.jc, s.cols) && (s.pc == 0 || s.pc < reach(s));
  }
  // The first live step from t on (lay.steps: none).
  std::int64_t next_live(std::int64_t t) const {
    while (t < lay.steps && !live(t)) ++t;
    return t;
  }
  // The windows of step t (identical in every thread), packed into buffer set q % 2 (q: the step's place among the
  // steps that run).
  void windows(std::int64_t q, std::int64_t t, pack::PackedPanels& wa, pack::PackedPanels& wb, Step& st) const {
    st = step_at(lay, args.m, args.n, args.k, t);
    pack::init_panels(wa, st.rows, st.depth, bk, used.a);
    pack::init_panels(wb, st.cols, st.depth, bk, used.b);
    wa.scale_window = ea.data() + st.ic;
    wb.scale_window = eb.data() + st.jc;
    wa.data = reinterpret_cast<bf16_t*>(base + lay.a_off[q % 2]);
    wb.data = reinterpret_cast<bf16_t*>(base + lay.b_off[q % 2]);
    // Step q + 2 repacks set q % 2 in place: the generation, not the address, tells the engine what it holds.
    wa.generation = wb.generation = std::uint64_t(q) + 1;
  }
  void pack_step(const Step& st, pack::PackedPanels& wa, pack::PackedPanels& wb) const {
    const auto& a = args.a;
    const auto& b = args.b;
    pack::pack_a_team(pack::MatrixView<T>{a.data + st.ic * sai + st.pc * sal, a.ld, a.trans}, opt_a, wa);
    pack::pack_b_vnni_team(pack::MatrixView<T>{b.data + st.pc * sbl + st.jc * sbj, b.ld, b.trans}, opt_b, wb);
  }
};

// Steps t = (jc, ic, pc), loops 5, 4, 3 flattened, run by every thread of the team: each phase packs step t + 1
// into the other buffer set (its jobs first, shared, no wait) and computes step t's blocks; one barrier per step.
// Step t + 1 of the next output panel starts its accumulators at k-block 0 after the barrier that ends step t,
// whose blocks wrote C.
template <typename T>
void run_steps(DriverCall<T>& c, bool master, engine::EngineCounters* cnt, double t) {
  unsigned char* mine = c.base + c.lay.thread_off + c.lay.per_thread * std::size_t(omp_get_thread_num());
  // Every thread describes the same windows; the packed data and the accumulators are shared.
  pack::PackedPanels wa[2], wb[2];
  Step st[2];
  std::int64_t step = c.next_live(0);  // (0 where the part is all of C)
  if (step == c.lay.steps) return;
  c.windows(0, step, wa[0], wb[0], st[0]);
  c.pack_step(st[0], wa[0], wb[0]);
  if (master) c.ph.pack += now() - t;
#pragma omp barrier
  for (std::int64_t s = 0; step < c.lay.steps; ++s) {
    const int cur = int(s % 2), nxt = 1 - cur;
    const std::int64_t after = c.next_live(step + 1);
    if (after < c.lay.steps) {
      const double tp = master ? now() : 0;
      c.windows(s + 1, after, wa[nxt], wb[nxt], st[nxt]);
      c.pack_step(st[nxt], wa[nxt], wb[nxt]);
      if (master) c.ph.pack += now() - tp;
    }
    step = after;
    const Step& w = st[cur];
    const BlockPlan bp = panel_plan(w.rows, w.cols, c.max_threads, c.lay.blk);
    const std::size_t acc_stride = block_acc_bytes(bp, c.acc);
    const BlockCompute comp{&wa[cur],     &wb[cur], c.plan.groups.data(), c.ngroups, c.acc,
                            c.cfg.engine, cnt,      c.args.a_lower};
    SumsClock sums;
    // The panel's last live window writes C.
    const Window win{w.ic, w.jc, w.pc / c.bk, w.pc + w.depth >= std::max<std::int64_t>(c.reach(w), 1),
                     master ? &sums : nullptr};
    const double tb = master ? now() : 0;
    double written = 0;
    util::share_loop(bp.units(), util::Schedule::dynamic_nowait, 1, [&](std::int64_t u) {  // loop 2
      written +=
          run_block_window(c.out, comp, bp, u, win, c.base + c.lay.acc_off + acc_stride * std::size_t(u), mine, cnt);
    });
    if (master) {
      const double products = now() - tb - written;
      // (sampled: in a step of a few tiles the estimate may exceed the time it is part of)
      c.ph.products += products, c.ph.write += written, c.ph.sums += std::min(sums.seconds(), products);
    }
#pragma omp barrier
  }
}

// The team: the scale exponents, the master's workspace, then the steps (each thread bracketed by the engine's
// set-up, e.g. the AMX tile palette).
template <typename T>
void run_team(DriverCall<T>& c, util::Workspace& ws) {
  if (!c.cfg.known) {
    pack::scan_scales_a_team(c.args.a, c.args.m, c.args.k, true, c.ea.data(), c.nonfinite);
    pack::scan_scales_b_team(c.args.b, c.args.k, c.args.n, true, c.eb.data(), c.nonfinite);
  }
#pragma omp barrier
  // The calling thread (the team's master) reserves its own workspace: the memory comes from its allocator arena,
  // not from whichever worker would run a `single` (a worker's arena can grow inside address space it reserved
  // earlier, so an allocation limit would catch the call only some of the time).
#pragma omp master
  if (!c.nonfinite) c.base = static_cast<unsigned char*>(ws.reserve(c.lay.total));
#pragma omp barrier
  // (the barrier publishes nonfinite and base)
  if (c.nonfinite || !c.base) return;
  const bool master = omp_get_thread_num() == 0 && c.cfg.timed;  // the thread that times the phases
  const double t = util::now_if(master);
  if (master) c.ph.scan = t - c.t0;
  const engine::EngineInfo& eng = *c.cfg.engine;
  if (eng.thread_begin) eng.thread_begin();
  engine::EngineCounters local;
  run_steps(c, master, c.cfg.counters ? &local : nullptr, t);
  if (master) c.t_compute = now() - t - c.ph.pack;
  if (eng.thread_end) eng.thread_end();
  if (c.cfg.counters) {
#pragma omp critical(bf16x_counters)
    c.cfg.counters->add(local);
  }
}

// The bytes of each O(n^2) phase: the scan reads A and B once (none where their exponents were known); each step's pack
// reads its windows of A and B and writes their packed slices; the write reads (beta != 0) and writes C.
template <typename T>
void phase_bytes(const DriverCall<T>& c, util::PhaseTimes& ph) {
  const std::int64_t m = c.args.m, n = c.args.n, k = c.args.k;
  const auto packed = [](std::int64_t extent, std::int64_t depth, int slices, int tile) {
    return std::uint64_t(pack::round_up(extent, tile)) * std::uint64_t(pack::round_up(depth, pack::kKChunk)) *
           std::uint64_t(slices) * sizeof(bf16_t);
  };
  ph.bytes_scan = c.cfg.known ? 0 : std::uint64_t(m * k + k * n) * sizeof(T);
  ph.bytes_pack = 0;
  for (std::int64_t t = 0; t < c.lay.steps; ++t) {
    if (!c.live(t)) continue;
    const Step s = step_at(c.lay, m, n, k, t);
    ph.bytes_pack += std::uint64_t(s.rows * s.depth + s.depth * s.cols) * sizeof(T) +
                     packed(s.rows, s.depth, c.used.a, kTileM) + packed(s.cols, s.depth, c.used.b, kTileN);
  }
  ph.bytes_write = std::uint64_t(m * n) * sizeof(T) * (c.args.beta != T(0) ? 2 : 1);
}

}  // namespace

template <typename T>
DriverStatus gemm_emulated(const GemmArgs<T>& args, DriverConfig& cfg) {
  const split::Scheme& scheme = *cfg.scheme;
  const bool fp64 = scheme.reconstruction == split::Reconstruction::fp64;
  // An FP32 scheme on FP64 data (or the reverse) would size panels and scratch for the wrong element type.
  if (fp64 != std::is_same_v<T, double>) return DriverStatus::wrong_precision;
  // Before anything runs: no engine instruction executes where its check fails (AMX: CPUID, XCR0, permission).
  if (!cfg.engine->available()) return DriverStatus::engine_unavailable;
  const int bk = cfg.block_k > 0 ? cfg.block_k : default_block_k(fp64);
  const split::GroupPlan& plan = cached_plan(scheme, cfg.fuse_diagonals, bk);
  const int ngroups = int(plan.groups.size());
  const SlicesUsed used = slices_used(plan.products);
  const Accumulation acc = fp64 ? Accumulation::fp64 : Accumulation::restart_fp32;
  // Blocks and scratch for all threads (workspace_bytes predicts the reservation exactly); small calls run on fewer.
  const int max_threads = std::max(1, omp_get_max_threads());
  const int threads = call_threads(args.m, args.n, args.k, plan.products.size());
  const std::int64_t m = args.m, n = args.n, k = args.k;

  const double t0 = util::now_if(cfg.timed);
  // The scale vectors are kept per calling thread so that they keep their capacity between calls. The references
  // are what the parallel region uses: inside it, the names of thread_local objects would denote each thread's own.
  thread_local std::vector<int> tl_ea, tl_eb;
  if (cfg.known) {  // the guard's read measured them
    tl_ea.assign(cfg.known.a, cfg.known.a + m);
    tl_eb.assign(cfg.known.b, cfg.known.b + n);
  } else {
    tl_ea.assign(std::size_t(m), 0);
    tl_eb.assign(std::size_t(n), 0);
  }
  // The split always needs the row/column exponents; the paper's unscaled slices already carry them, so its
  // write applies none (null: no scaling).
  DriverCall<T> c{
      args,
      cfg,
      plan,
      bk,
      ngroups,
      used,
      acc,
      max_threads,
      tl_ea,
      tl_eb,
      layout_for(m, n, k, bk, used, acc, ngroups, max_threads),
      BlockOutput<T>{m, n, double(args.alpha), double(args.beta), args.c, args.ldc, cfg.scaled ? tl_ea.data() : nullptr,
                     cfg.scaled ? tl_eb.data() : nullptr, args.c_row_major, args.part},
      pack::SplitOptions{used.a, cfg.scaled},
      pack::SplitOptions{used.b, cfg.scaled},
      args.a.trans ? args.a.ld : 1,
      args.a.trans ? 1 : args.a.ld,
      args.b.trans ? args.b.ld : 1,
      args.b.trans ? 1 : args.b.ld,
      t0};
  c.opt_a.stream = c.opt_b.stream = streams_panels(c.lay, used);
  util::Workspace& ws = util::thread_workspace();
  util::on_team(threads, [&] { run_team(c, ws); });  // one thread outside every region: no team (util/team.hpp)
  if (c.nonfinite) return DriverStatus::nonfinite_input;
  if (!c.base) return DriverStatus::no_memory;

  cfg.seconds_split = c.ph.scan + c.ph.pack;
  cfg.seconds_compute = c.t_compute;
  cfg.phases = c.ph;
  phase_bytes(c, cfg.phases);
  cfg.workspace_bytes = c.lay.total;
  ws.release_if_large();
  return DriverStatus::ok;
}

template DriverStatus gemm_emulated(const GemmArgs<float>&, DriverConfig&);
template DriverStatus gemm_emulated(const GemmArgs<double>&, DriverConfig&);

}  // namespace bf16x::driver
