// kernel_avx512bf16_32x32: the micro-kernel contract of engine/engine.hpp with VDPBF16PS (_mm512_dpbf16_ps).
//
//   for each group g:  out[g] (+)= sum over products (i,j) of g:  A_i (32 x kb) * B_j (kb x 32)      [FP32]
//
// Register blocking: the 32x32 tile is computed in 4 passes of kRows = 8 rows. A pass holds 8 x 2 zmm
// accumulators (rows x 16-column halves); one k pair costs 2 B loads and 8 A broadcasts for 16 VDPBF16PS:
//
//                         B pair-row p:  [ (b[2p][c], b[2p+1][c]) c = 0..15 | c = 16..31 ]   -> zmm b0, b1
//   A row r, pair p: dword (a[r][2p], a[r][2p+1]) -> broadcast zmm  -> x b0 into acc[r][0], x b1 into acc[r][1]
//
//     acc[0][0] acc[0][1]      16 independent chains: VDPBF16PS has a latency of about 7 cycles and issues one
//       ...       ...          per 2 cycles here (bench --peak), so 4 chains would already cover it; the rest
//     acc[7][0] acc[7][1]      keeps loads per instruction low (10 per 16).
//
// Order: group by group; per group the 4 passes (a product's B panel, 16 KiB at kb = 256, stays in L1 across
// them); per pass k-chunks of 32 outer, the group's products inner, 16 pair steps in order: the reference
// engine's order. On the FP64 path every sum is exact, so the result equals the reference bit for bit whatever
// the order; on the FP32 path the instruction's internal rounding is the only freedom (tests state the bound).
#include <immintrin.h>

#include <cstring>

#include "engine/avx512bf16/kernel_avx512bf16.hpp"

namespace bf16x::engine::avx512bf16 {
namespace {

using pack::kBPairStride;
using pack::kKChunk;
using pack::kPair;
using pack::kTileM;
using pack::kTileN;

constexpr int kRows = 8;   // rows per pass
constexpr int kHalf = 16;  // FP32 lanes per zmm = columns per accumulator
constexpr int kPairsPerChunk = kKChunk / kPair;
static_assert(kTileM % kRows == 0 && kTileN == 2 * kHalf, "two zmm accumulators span a micro-tile row");
static_assert(kBPairStride == kTileN * kPair, "a B pair-row is two 64-byte VNNI rows");

inline __m512bh as_bh(__m512i v) { return reinterpret_cast<__m512bh>(v); }

inline __m512bh broadcast_pair(const bf16_t* p) {
  std::int32_t d;
  std::memcpy(&d, p, sizeof d);
  return as_bh(_mm512_set1_epi32(d));
}

// One pass: rows r0 .. r0+kRows-1 of the tile, all products of one group. KB > 0 fixes the depth at compile time
// (full k-blocks), so the 8 A row addresses are immediate offsets of one base register. H: the 16-column halves
// computed; with H = 1 columns 16..31 are B's zero padding (not accumulating), written as the +0 they would sum to.
template <int KB, int H>
inline void pass(const MicroTileArgs& args, const ProductGroup& grp, int r0, float* out) {
  const int kb = KB > 0 ? KB : args.kb, ldo = args.ldo;
  __m512 acc[kRows][2];
  for (int r = 0; r < kRows; ++r) {
    const float* o = out + std::int64_t(r0 + r) * ldo;
    acc[r][0] = args.accumulate ? _mm512_loadu_ps(o) : _mm512_setzero_ps();
    acc[r][1] = args.accumulate && H == 2 ? _mm512_loadu_ps(o + kHalf) : _mm512_setzero_ps();
  }
  // One flat loop over (chunk, product) steps keeps the 16 accumulators in fixed registers.
  const int steps = (kb / kKChunk) * grp.count;
  for (int st = 0, kc = 0, p = 0; st < steps; ++st) {
    const bf16_t* a = args.a[grp.products[p].a] + std::int64_t(r0) * kb + kc;
    const bf16_t* b = args.b[grp.products[p].b] + std::int64_t(kc / kPair) * kBPairStride;
    if (++p == grp.count) {
      p = 0;
      kc += kKChunk;
    }
#pragma GCC unroll 16
    for (int q = 0; q < kPairsPerChunk; ++q) {
      const __m512bh b0 = as_bh(_mm512_loadu_si512(b + q * kBPairStride));
      const __m512bh b1 = H == 2 ? as_bh(_mm512_loadu_si512(b + q * kBPairStride + kHalf * kPair)) : b0;
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const __m512bh av = broadcast_pair(a + std::int64_t(r) * kb + q * kPair);
        acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
        if (H == 2) acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    float* o = out + std::int64_t(r0 + r) * ldo;
    _mm512_storeu_ps(o, acc[r][0]);
    _mm512_storeu_ps(o + kHalf, acc[r][1]);
  }
}

// Rows r0 .. r0+kRows-1 of out as +0: what a pass gives on A's zero padding rows.
inline void zero_rows(float* out, int ldo, int r0) {
  for (int r = 0; r < kRows; ++r) {
    float* o = out + std::int64_t(r0 + r) * ldo;
    _mm512_storeu_ps(o, _mm512_setzero_ps());
    _mm512_storeu_ps(o + kHalf, _mm512_setzero_ps());
  }
}

template <int H>
inline void run_pass(const MicroTileArgs& args, const ProductGroup& grp, int r0, float* out) {
  if (args.kb == pack::kBlockK)
    pass<pack::kBlockK, H>(args, grp, r0, out);
  else if (args.kb == pack::kBlockKFp32)
    pass<pack::kBlockKFp32, H>(args, grp, r0, out);
  else
    pass<0, H>(args, grp, r0, out);
}

}  // namespace

void kernel_avx512bf16_32x32(const MicroTileArgs& args) {
  // Passes wholly in A's zero padding (rows >= args.rows) and the half of the columns wholly in B's (cols <= 16)
  // are written as +0 without their products (engine/engine.hpp); with `accumulate` everything runs. Every other
  // element is computed by the same instructions in the same order.
  const int rows = args.accumulate ? kTileM : args.rows, cols = args.accumulate ? kTileN : args.cols;
  for (int g = 0; g < args.ngroups; ++g) {
    const ProductGroup& grp = args.groups[g];
    for (int r0 = 0; r0 < kTileM; r0 += kRows) {
      if (r0 >= rows)
        zero_rows(args.out[g], args.ldo, r0);
      else if (cols <= kHalf)
        run_pass<1>(args, grp, r0, args.out[g]);
      else
        run_pass<2>(args, grp, r0, args.out[g]);
    }
    if (args.counters) args.counters->add_group(args.kb, grp.count, kKChunk);  // in AMX units
  }
  if (args.counters) ++args.counters->micro_tiles;
}

}  // namespace bf16x::engine::avx512bf16
