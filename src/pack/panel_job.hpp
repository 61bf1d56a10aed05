// One packing job: split one 32-wide micro-panel of op(A) or op(B) over one k-block into its slices, in the
// layout of pack/layout.hpp. pack_a / pack_b_vnni cut the operands into these jobs; split_panel does one.
#pragma once
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
  const T* src;          // element (u, l) at src[u * su + l * sl]: u indexes the panel's 32 rows (A) / columns (B)
  std::int64_t su, sl;   // strides; one of them is 1
  int extent;            // valid u (1..32); u >= extent is zero padding
  int depth;             // valid l (1..kp); l >= depth is zero padding
  int kp;                // padded depth, a multiple of kKChunk
  const int* scale_exp;  // scale exponent of each valid u
  bool scaled;           // SplitOptions::scaled
  int slices;
  PanelLayout layout;
  bf16_t* dst;  // slice s at dst + s * 32 * kp; every element of every slice is written
};

// Element-by-element split (any CPU): the definition the vector path must match bit for bit.
template <typename T>
void split_panel_generic(const PanelJob<T>& job);

// AVX-512 split and layout (16 x 32 blocks, in-register transposes); only where split_panel_avx512_usable().
bool split_panel_avx512_usable();
template <typename T>
void split_panel_avx512(const PanelJob<T>& job);

// The vector path where the CPU has AVX-512 (F, BW, VL, DQ), else the element path.
template <typename T>
void split_panel(const PanelJob<T>& job);

}  // namespace bf16x::pack
