#include "driver/block_plan.hpp"

#include <algorithm>

#include "pack/layout.hpp"
#include "util/align.hpp"

namespace bf16x::driver {
namespace {

using pack::kTileM;
using pack::kTileN;

using util::align64;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

BlockPlan plan_blocks(std::int64_t m, std::int64_t n, int max_threads, int max_bm, int max_bn) {
  const std::int64_t mt = ceil_div(m, kTileM), nt = ceil_div(n, kTileN);  // micro-tiles of C
  const int threads = std::max(1, max_threads);
  BlockPlan best;
  std::int64_t best_span = -1, best_area = 0;
  for (int bm = max_bm; bm >= kTileM; bm /= 2)
    for (int bn = max_bn; bn >= kTileN; bn /= 2) {
      const std::int64_t tm = std::min<std::int64_t>(bm / kTileM, mt), tn = std::min<std::int64_t>(bn / kTileN, nt);
      const std::int64_t units = ceil_div(mt, tm) * ceil_div(nt, tn);
      const std::int64_t span = ceil_div(units, threads) * tm * tn;
      const std::int64_t area = tm * tn;
      if (best_span < 0 || span < best_span || (span == best_span && area > best_area)) {
        best_span = span;
        best_area = area;
        best.bm = int(tm * kTileM);
        best.bn = int(tn * kTileN);
        best.mblocks = ceil_div(mt, tm);
        best.nblocks = ceil_div(nt, tn);
      }
    }
  best.threads = int(std::min<std::int64_t>(threads, best.units()));
  return best;
}

std::size_t tile_scratch_bytes(Accumulation acc, int ngroups) {
  const std::size_t tile = std::size_t(kTileM) * kTileN * sizeof(float);
  switch (acc) {
    case Accumulation::running_fp32:
      return 0;
    case Accumulation::restart_fp32:
      return align64(tile);
    case Accumulation::fp64:
      return align64(tile * std::size_t(ngroups));
  }
  return 0;
}

std::size_t block_acc_bytes(const BlockPlan& plan, Accumulation acc) {
  const std::size_t block = std::size_t(plan.bm) * std::size_t(plan.acc_ld());
  return align64(block * (acc == Accumulation::fp64 ? sizeof(double) : sizeof(float)));
}

std::size_t thread_scratch_bytes(const BlockPlan& plan, Accumulation acc, int ngroups) {
  const std::size_t block = std::size_t(plan.bm) * std::size_t(plan.acc_ld());
  const std::size_t tile = std::size_t(kTileM) * kTileN * sizeof(float);
  switch (acc) {
    case Accumulation::running_fp32:
      return align64(block * sizeof(float));
    case Accumulation::restart_fp32:
      return align64(block * sizeof(float)) + align64(tile);
    case Accumulation::fp64:
      return align64(block * sizeof(double)) + align64(tile * std::size_t(ngroups));
  }
  return 0;
}

}  // namespace bf16x::driver
