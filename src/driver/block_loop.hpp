// The loops over output blocks on packed panels: run_blocks (the raw BF16 GEMM, on panels of all of A and B) and
// run_block_window (one block over one packed window of k, the emulation driver's innermost loops):
//
//   loop 1:  output blocks (plan_blocks: bm x bn)       (OpenMP, dynamic; engine thread_begin/end around them)
//   loop 2:    k-blocks of the panels                   (the exactness unit of the FP64 path)
//   loop 3:      32-row micro-panels of the block        (one A micro-panel, reused across loop 4)
//   loop 4:        32-column micro-panels of the block
//   (within one window of kBlockK, loop 2 runs innermost: fp32x6's block sums then find the tile in L1)
//                    micro-kernel: every product group on one 32x32 tile, then the accumulation of `acc`
//   write:   C = alpha * 2^(ea_i + eb_j) * acc + beta * C   (beta == 0: C is not read)
#pragma once
#include <cstddef>
#include <cstdint>

#include "driver/block_plan.hpp"
#include "engine/engine.hpp"
#include "pack/operand.hpp"
#include "pack/panels.hpp"

namespace bf16x::driver {

template <typename T>
struct BlockOutput {
  std::int64_t m, n;
  double alpha, beta;
  T* c;  // column-major, ldc
  std::int64_t ldc;
  const int* ea;  // scale exponents of the rows of op(A) / columns of op(B); null: no scaling
  const int* eb;
  bool c_row_major = false;  // C(i, j) at c[i * ldc + j]
  // Only this part of C is computed and written (a triangle: the blocks and micro-tiles without an entry of it are
  // skipped, a block its edge cuts is written entry by entry of the part).
  pack::OutputPart part = pack::OutputPart::all;
};

struct BlockCompute {
  const pack::PackedPanels* a;
  const pack::PackedPanels* b;
  const engine::ProductGroup* groups;  // one group unless acc == fp64
  int ngroups;
  Accumulation acc;
  const engine::EngineInfo* engine;
  engine::EngineCounters* counters;  // may be null
  pack::LowerOperand a_lower{};      // op(A) lower triangular: a tile's k-blocks past its rows' reach are skipped
};

// T = float takes comp.acc running_fp32 or restart_fp32, T = double takes fp64. `scratch` holds plan.threads areas of
// thread_scratch_bytes(plan, acc, ngroups) bytes, 64-byte aligned.
// The plan's block shape is used as is; the threads are those of the region run_blocks opens (plan.threads), or,
// for run_blocks_team, those of the enclosing region, which all call it (scratch for each of them; no barrier at
// the end, the region's end joins).
// The clock of a window's sums outside the engine, on the thread that reports the phases.
struct SumsClock {
  // A clock read (about 30 ns) costs a fifth of one tile's sums in fp32x6, so only every kEvery-th tile's sums are
  // timed, and the time scaled by the count: all tiles' sums do the same work (edge tiles no more). kEvery is prime,
  // so the timed tiles move across the rows and columns of tiles (blocks of 2^j tiles) instead of taking one column.
  static constexpr std::uint64_t kEvery = 7;
  double timed = 0;
  std::uint64_t runs = 0, timed_runs = 0;
  double seconds() const { return timed_runs ? timed * double(runs) / double(timed_runs) : 0.0; }
};

// Where the packed panels sit in the call: the window's first row / column of C (row0 / col0, added to the block's
// offset for the write and the exponents), the index of its first k-block in the whole k range (a block
// accumulator starts at k-block 0 and continues after it, so the per-element order over k-blocks is that of one
// pass), whether this is the last window of k (write: C is written from the accumulator), and the clock of the
// block's sums outside the engine (add_tile_fp32, add_groups_fp64; null: not timed).
struct Window {
  std::int64_t row0, col0, kb_first;
  bool write;
  SumsClock* sums = nullptr;
};

// Block `unit` of `plan` (over comp.a->extent x comp.b->extent) on the windows comp.a / comp.b: accumulates into
// acc_block (bm x plan.acc_ld(), FP32 for T = float, FP64 for T = double; the caller keeps it across windows) and
// uses tscratch (tile_scratch_bytes) for the engine's outputs. Returns the seconds its write of C took (0 when
// win.write is false), for the call's phase times.
template <typename T>
double run_block_window(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan, std::int64_t unit,
                        const Window& win, void* acc_block, unsigned char* tscratch, engine::EngineCounters* cnt);

template <typename T>
void run_blocks(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan, unsigned char* scratch);
template <typename T>
void run_blocks_team(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan,
                     unsigned char* scratch);

}  // namespace bf16x::driver
