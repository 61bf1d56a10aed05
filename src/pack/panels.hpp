// Block-contiguous packed slice panels of op(A) and op(B), or of a window of them (the emulation driver packs one
// MC x KC block of A and one KC x NC panel of B at a time: extent and k are then the window's, and the window's
// exponents come through scale_window).
//
// Packed A: for each k-block (depth BK, the last one padded to a multiple of kKChunk), for each 32-row micro-panel
// of the (padded) m rows, the `slices` micro-panels of that row range one after another. Packed B likewise per
// 32-column micro-panel, in VNNI pair layout. Padding is zero. The per-row / per-column scale exponents
// (power-of-two scaling, 0 on the paper's unscaled path) go alongside.
#pragma once
#include <cstdint>
#include <vector>

#include "pack/layout.hpp"
#include "pack/operand.hpp"
#include "split/bf16.hpp"

namespace bf16x::pack {

struct KBlocking {
  std::int64_t k = 0;
  int bk = kBlockK;
  std::int64_t blocks() const { return (k + bk - 1) / bk; }
  std::int64_t begin(std::int64_t kb) const { return kb * bk; }
  int depth(std::int64_t kb) const { return int(std::min<std::int64_t>(bk, k - kb * bk)); }
  int padded(std::int64_t kb) const { return int(round_up(depth(kb), kKChunk)); }
};

struct PackedPanels {
  int slices = 0;
  std::int64_t extent = 0;         // m (for A) or n (for B)
  std::int64_t padded_extent = 0;  // rounded up to the micro-panel width (32)
  KBlocking kblk;
  std::vector<int> scale_exp;         // per row of A / column of B
  const int* scale_window = nullptr;  // a window's exponents (the driver's per-panel packs); null: scale_exp
  bf16_t* data = nullptr;             // owned by the caller's workspace
  // Names what `data` holds: set by whoever packs it, unique among the packings of one GEMM call (0: unnamed). The
  // engines' MicroTileArgs::a_generation.
  std::uint64_t generation = 0;
  const int* exps() const { return scale_window ? scale_window : scale_exp.data(); }
  std::int64_t elems() const { return padded_extent * round_up(kblk.k, kKChunk) * slices; }
  // Micro-panel of slice s, 32-row (or 32-column) panel index p, k-block kb.
  const bf16_t* panel(std::int64_t kb, std::int64_t p, int s) const {
    const int kp = kblk.padded(kb);
    return data + kblk.begin(kb) * padded_extent * slices + (p * slices + s) * std::int64_t(kTileM) * kp;
  }
  bf16_t* panel(std::int64_t kb, std::int64_t p, int s) {
    return const_cast<bf16_t*>(static_cast<const PackedPanels*>(this)->panel(kb, p, s));
  }
};
static_assert(kTileM == kTileN, "A and B micro-panels share one panel geometry");

enum class SplitKind { fp32, fp64 };

struct SplitOptions {
  int slices;
  bool scaled;  // false: the paper's unscaled slices
  // Streaming (non-temporal) stores of the panels, where a vector packer writes them: for packed windows larger
  // than the L2, which would not stay there for the products anyway. Their lines then cost no read before the
  // write, and the packing of the next step does not evict the panels the products are reading.
  bool stream = false;
};

// Result of the scale pass: whether a NaN or Inf was seen (the caller then takes the exact fallback).
struct ScaleScan {
  bool nonfinite = false;
};

// Per-row (A) / per-column (B) scale exponents. Parallel over rows/columns.
template <typename T>
ScaleScan scan_scales_a(const MatrixView<T>& a, std::int64_t m, std::int64_t k, bool scaled, std::vector<int>& exp);
template <typename T>
ScaleScan scan_scales_b(const MatrixView<T>& b, std::int64_t k, std::int64_t n, bool scaled, std::vector<int>& exp);

// Split and pack; `out.data` must hold out.elems() elements; geometry fields are filled by init_panels.
void init_panels(PackedPanels& out, std::int64_t extent, std::int64_t k, int bk, int slices);
template <typename T>
void pack_a(const MatrixView<T>& a, const SplitOptions& opt, PackedPanels& out);
template <typename T>
void pack_b_vnni(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out);

// Team variants, for callers that run several phases in one OpenMP parallel region: every thread of the region
// calls them (orphaned worksharing, no barrier at the end), `exp` is already sized (m or n entries) and
// `nonfinite` is shared and starts false. Outside a parallel region they run on the calling thread alone.
template <typename T>
void scan_scales_a_team(const MatrixView<T>& a, std::int64_t m, std::int64_t k, bool scaled, int* exp, bool& nonfinite);
template <typename T>
void scan_scales_b_team(const MatrixView<T>& b, std::int64_t k, std::int64_t n, bool scaled, int* exp, bool& nonfinite);
template <typename T>
void pack_a_team(const MatrixView<T>& a, const SplitOptions& opt, PackedPanels& out);
template <typename T>
void pack_b_vnni_team(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out);

}  // namespace bf16x::pack
