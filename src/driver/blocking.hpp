// Block sizes of the emulation driver's loops (driver/gemm_driver.cpp), chosen per call from the cache sizes of the
// machine, read once at run time, and from a fixed byte budget for the accumulator panel:
//
//   KC  the k extent of one packed A block / B panel: the largest multiple of the k-block (bk, the exactness unit:
//       at most 256) that is at most 256 (fp64: 256; fp32x6, bk = 64: four k-blocks).
//   BM, BN  the caps of the per-thread output blocks (plan_blocks): the largest b in {256, 128, 64, 32} with one slice
//       of a b x KC A block and of a KC x b B block in half of L2 (2 b KC 2 bytes <= L2 / 2); 256 from L2 = 512 KiB.
//   MC, NC  the rows of the accumulator panel (and of the packed A block) and the columns of C per B panel: the
//       panel MC x NC x (8 bytes fp64, 4 bytes fp32) fits kAccBudget, MC = NC as far as the budget allows, both
//       multiples of 256 (so of BM / BN), and each packed operand (MC x KC or KC x NC, all used slices) fits half
//       of the last-level cache, so that it stays there while the blocks of the panel stream over it.
//
// The rule is the same for every engine: all of them consume the same packed panels and 32 x 32 micro-tile; the
// engine enters through its slice counts (products), not through cache parameters of its own.
#pragma once
#include <cstddef>
#include <cstdint>

#include "cpu/caches.hpp"

namespace bf16x::driver {

inline constexpr std::size_t kAccBudget = std::size_t(32) << 20;  // bytes of the FP32/FP64 accumulator panel

using cpu::cache_sizes;
using cpu::CacheSizes;

struct Blocking {
  int kc = 256;  // KC, a multiple of bk
  int bm = 256;  // caps of the thread blocks
  int bn = 256;
  std::int64_t mc = 2048;  // MC
  std::int64_t nc = 2048;  // NC
};

// For a call with k-block bk, `slices_a` / `slices_b` used slices and FP64 (else FP32) accumulators.
Blocking choose_blocking(int bk, int slices_a, int slices_b, bool fp64, const CacheSizes& caches);

// Tests: fixed MC, NC (multiples of 256; 0, 0: the rule above), so that small problems cross panel boundaries; the
// environment variable BF16X_DRIVER_MCNC=MC,NC does the same for a whole process. Not for use while calls run.
void set_panel_override(std::int64_t mc, std::int64_t nc);

}  // namespace bf16x::driver
