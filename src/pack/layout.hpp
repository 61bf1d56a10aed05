// The packed panel layout every engine consumes. Packers are derived from these constants, and the engines
// static_assert against them, so A and B formats cannot drift apart.
//
//   A slice micro-panel (kTileM x kb, row-major, row stride kb):     B slice micro-panel (VNNI pairs):
//     row r: a[r][0] a[r][1] ... a[r][kb-1]                           row p (k pair): b[2p][0] b[2p+1][0]
//                                                                                      b[2p][1] b[2p+1][1] ...
//                                                                                      ... (kTileN pairs)
//   An AMX A tile is 16 rows x 32 BF16 at stride 2*kb bytes; an AMX B tile is 16 pair-rows x 16 pairs (64 bytes)
//   at stride 4*kTileN bytes: the two B tiles of a micro-panel are its left and right column halves.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bf16x::pack {

inline constexpr int kTileM = 32;     // micro-tile rows (two 16-row AMX A tiles)
inline constexpr int kTileN = 32;     // micro-tile columns (two 16-column AMX B tiles)
inline constexpr int kKChunk = 32;    // k per engine step: one 16x32 BF16 A tile, one 16-pair B tile
inline constexpr int kPair = 2;       // VNNI: two consecutive k adjacent per B column
inline constexpr int kBlockM = 256;   // BM
inline constexpr int kBlockN = 256;   // BN
inline constexpr int kBlockK = 256;   // BK: the largest k for which a slice-product panel sum is exact in FP32
// fp32x6 restarts its FP32 accumulators every kBlockKFp32: 6 products x 2 roundings per k into one running sum
// would otherwise give about 3x the error of a native FMA SGEMM (docs/numerics.md).
inline constexpr int kBlockKFp32 = 64;
inline constexpr int kMaxSlices = 6;

static_assert(kBlockM % kTileM == 0 && kBlockN % kTileN == 0 && kBlockK % kKChunk == 0);
static_assert(kKChunk % kPair == 0);

inline constexpr std::int64_t round_up(std::int64_t x, std::int64_t q) { return (x + q - 1) / q * q; }

// Elements of one packed A micro-panel / B micro-panel for a k-block of padded depth kb.
inline constexpr std::int64_t a_panel_elems(int kb) { return std::int64_t(kTileM) * kb; }
inline constexpr std::int64_t b_panel_elems(int kb) { return std::int64_t(kTileN) * kb; }
// Row stride of a B micro-panel in elements (one k pair for all kTileN columns).
inline constexpr int kBPairStride = kTileN * kPair;

}  // namespace bf16x::pack
