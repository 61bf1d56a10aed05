// One packing job: split a run of consecutive 32-wide micro-panels of op(A) or op(B) over one k-block into their
// slices, in the layout of pack/layout.hpp. pack_a / pack_b_vnni (pack_operand.cpp) cut the operands into these jobs;
// split_panel does one. A run of several panels lets a source that is contiguous across the panels (A not transposed, B
// transposed) be read a whole column segment at a time instead of one 32-element piece per page.
#pragma once
#include <algorithm>
#include <cstdint>

#include "pack/layout.hpp"
#include "split/bf16.hpp"

namespace bf16x::pack {

enum class PanelLayout {
  a_rows,  // A: row u holds k = 0 .. kp-1 (row stride kp)
  b_vnni   // B: pair-row l/2 holds (k even, k odd) for u = 0 .. 31 (row stride kBPairStride)
};

template <typename T>
struct PanelJob {
  const T* src;          // element (u, l) at src[u * su + l * sl]: u indexes the run's rows (A) / columns (B)
  std::int64_t su, sl;   // strides; one of them is 1
  int panels;            // micro-panels in the run (u = 0 .. 32 * panels - 1)
  int extent;            // valid u (1 .. 32 * panels); u >= extent is zero padding
  int depth;             // valid l (1 .. kp); l >= depth is zero padding
  int kp;                // padded depth, a multiple of kKChunk
  const int* scale_exp;  // scale exponent of each valid u; scaled: |x| < 2^E over its row/column (scan_scales_*)
  bool scaled;           // SplitOptions::scaled
  int slices;
  PanelLayout layout;
  bf16_t* dst;          // panel q, slice s at dst + (q * slices + s) * 32 * kp; every element is written
  bool stream = false;  // SplitOptions::stream (taken by the AVX-512 packer where dst is 64-byte aligned)
  // Several consecutive k-blocks in one job (a k-contiguous source: each line is then read as one longer piece):
  // l = b * kp + l' is column l' of k-block b, whose panels start block_stride elements after block b - 1's. The
  // source runs on over the blocks, so every block but the job's last is a whole one (kp = the k-block).
  int kblocks = 1;
  std::int64_t block_stride = 0;
  int span() const { return kp * kblocks; }  // padded depth of the whole job
  // Offset of packed element (u, l) of slice 0 from dst, in either layout.
  std::int64_t at(int u, int l) const {
    const int q = u / kTileM, w = u % kTileM, b = l / kp, c = l % kp;
    return b * block_stride + std::int64_t(q) * slices * kTileM * kp +
           (layout == PanelLayout::a_rows ? std::int64_t(w) * kp + c
                                          : std::int64_t(c / kPair) * kBPairStride + w * kPair + c % kPair);
  }
};

// Micro-panels per job: one where the source runs along k (nothing to gain), else as many as leave at least 4 jobs
// per thread: each column is then read front to back over the run (32 of them at once), and the longer the piece,
// the closer the reads come to sequential ones (a 2048 x 256 FP32 window from memory: 4.7-5.1 ms in runs of 8
// panels, 3.8-4.0 in runs of 16, 3.1-3.3 in one run of 64; bf16x_microbench --benchmark_filter=Pack).
inline int panels_per_job(std::int64_t panels, std::int64_t kblocks, bool k_contiguous, int threads) {
  if (k_contiguous) return 1;
  const std::int64_t want = panels * kblocks / (4 * std::int64_t(threads > 0 ? threads : 1));
  return int(std::max<std::int64_t>(1, std::min<std::int64_t>(panels, want)));
}

// Element-by-element split (any CPU): the definition the vector path must match bit for bit.
template <typename T>
void split_panel_generic(const PanelJob<T>& job);

// AVX-512 split and layout (16 x 32 blocks, in-register transposes); only where split_panel_avx512_usable().
bool split_panel_avx512_usable();
template <typename T>
void split_panel_avx512(const PanelJob<T>& job);

// AVX2 split of the scaled FP64 path, four elements at a time (the rest by the element path); only where
// split_panel_avx2_usable().
bool split_panel_avx2_usable();
template <typename T>
void split_panel_avx2(const PanelJob<T>& job);

// The vector path where the CPU has AVX-512 (F, BW, VL, DQ), else the AVX2 one, else the element path.
template <typename T>
void split_panel(const PanelJob<T>& job);

}  // namespace bf16x::pack
