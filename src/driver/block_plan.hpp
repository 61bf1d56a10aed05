// Output blocking of one call: the block shape (a multiple of the micro-tile, at most BM x BN) that keeps every
// thread busy, and the per-thread scratch a block needs.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bf16x::driver {

// How a block accumulates over the k-blocks.
enum class Accumulation {
  running_fp32,  // the engine accumulates across k-blocks (the raw single-product BF16 GEMM)
  restart_fp32,  // a fresh engine sum per k-block, added into an FP32 block accumulator (fp32x6)
  fp64           // every group's exact sum widened and added into an FP64 block accumulator (fp64x*)
};

struct BlockPlan {
  int bm = 0, bn = 0;  // block rows / columns, multiples of the micro-tile
  std::int64_t mblocks = 0, nblocks = 0;
  int threads = 1;  // threads of the compute region
  std::int64_t units() const { return mblocks * nblocks; }
  // Row stride of the block accumulator: bn plus one cache line, so that the 32 rows of a micro-tile (which the
  // kernel loads and stores on the FP32 paths) spread over the L1 sets instead of piling onto a few of them.
  int acc_ld() const { return bn + 16; }
};

// The largest blocks whose estimated makespan (blocks per thread x micro-tiles per block) is the smallest: at
// N = 256 and 2 threads, two 128 x 256 blocks instead of one 256 x 256 block that would leave a thread idle.
// Blocks are at most max_bm x max_bn (multiples of the micro-tile; the driver's are cache-derived, driver/blocking).
BlockPlan plan_blocks(std::int64_t m, std::int64_t n, int max_threads, int max_bm = 256, int max_bn = 256);

// Bytes of per-thread scratch (64-byte multiples): the block accumulator and the engine's group outputs.
std::size_t thread_scratch_bytes(const BlockPlan& plan, Accumulation acc, int ngroups);

// The part of it that is not the block accumulator (the engine's group outputs, fp32x6's k-block partial sum), for
// callers whose block accumulators live elsewhere (the emulation driver's accumulator panel).
std::size_t tile_scratch_bytes(Accumulation acc, int ngroups);

// Bytes of one block accumulator (bm x acc_ld, FP32 or FP64), a 64-byte multiple.
std::size_t block_acc_bytes(const BlockPlan& plan, Accumulation acc);

}  // namespace bf16x::driver
