// The parallel loops over output blocks on packed panels, shared by the emulation driver and the raw BF16 GEMM:
//
//   loop 1:  output blocks (plan_blocks: bm x bn)       (OpenMP, dynamic; engine thread_begin/end around them)
//   loop 2:    k-blocks                                 (the exactness unit of the FP64 path)
//   loop 3:      32-row micro-panels of the block        (one A micro-panel, reused across loop 4)
//   loop 4:        32-column micro-panels of the block
//                    micro-kernel: every product group on one 32x32 tile, then the accumulation of `acc`
//   write:   C = alpha * 2^(ea_i + eb_j) * acc + beta * C   (beta == 0: C is not read)
#pragma once
#include <cstddef>
#include <cstdint>

#include "driver/block_plan.hpp"
#include "engine/engine.hpp"
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
};

struct BlockCompute {
  const pack::PackedPanels* a;
  const pack::PackedPanels* b;
  const engine::ProductGroup* groups;  // one group unless acc == fp64
  int ngroups;
  Accumulation acc;
  const engine::EngineInfo* engine;
  engine::EngineCounters* counters;  // may be null
};

// T = float takes comp.acc running_fp32 or restart_fp32, T = double takes fp64. `scratch` holds plan.threads areas of
// thread_scratch_bytes(plan, acc, ngroups) bytes, 64-byte aligned.
// The plan's block shape is used as is; the threads are those of the region run_blocks opens (plan.threads), or,
// for run_blocks_team, those of the enclosing region, which all call it (scratch for each of them; no barrier at
// the end, the region's end joins).
template <typename T>
void run_blocks(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan, unsigned char* scratch);
template <typename T>
void run_blocks_team(const BlockOutput<T>& out, const BlockCompute& comp, const BlockPlan& plan,
                     unsigned char* scratch);

}  // namespace bf16x::driver
