// pack_a / pack_b_vnni: split an operand into slices and write its micro-panels, one panel job per (k-block, run
// of micro-panels), shared among the threads of the region. The two differ only in which of op(X)'s dimensions
// the panels run across (rows of op(A), columns of op(B)) and in the panel layout: row-major 32 x kb for A, VNNI
// pairs for B (one 64-byte row holds the k-pair (2p, 2p+1) of 16 columns, the operand format of TDPBF16PS and
// VDPBF16PS).
#include <omp.h>

#include "pack/panel_job.hpp"
#include "pack/panels.hpp"

namespace bf16x::pack {
namespace {

// Element (r, l) of the operand, r across the panels and l along k: data[r * across + l * along].
template <typename T>
void pack_team(const T* data, std::int64_t across, std::int64_t along, const SplitOptions& opt, PanelLayout layout,
               PackedPanels& out) {
  static_assert(kTileM == kTileN, "A and B micro-panels have the same width");
  const std::int64_t panels = out.padded_extent / kTileM, kblocks = out.kblk.blocks();
  const int run = panels_per_job(panels, kblocks, along == 1, omp_get_num_threads());
  const std::int64_t runs = (panels + run - 1) / run;
#pragma omp for collapse(2) schedule(static) nowait
  for (std::int64_t kb = 0; kb < kblocks; ++kb)
    for (std::int64_t q = 0; q < runs; ++q) {
      const std::int64_t p = q * run, r0 = p * kTileM, k0 = out.kblk.begin(kb);
      const PanelJob<T> job{data + r0 * across + k0 * along,
                            across,
                            along,
                            int(std::min<std::int64_t>(run, panels - p)),
                            int(std::min<std::int64_t>(std::int64_t(run) * kTileM, out.extent - r0)),
                            out.kblk.depth(kb),
                            out.kblk.padded(kb),
                            out.exps() + r0,
                            opt.scaled,
                            opt.slices,
                            layout,
                            out.panel(kb, p, 0),
                            opt.stream};
      split_panel(job);
    }
}

}  // namespace

void init_panels(PackedPanels& out, std::int64_t extent, std::int64_t k, int bk, int slices) {
  out.slices = slices;
  out.extent = extent;
  out.padded_extent = round_up(extent, kTileM);
  out.kblk.k = k;
  out.kblk.bk = bk;
}

template <typename T>
void pack_a_team(const MatrixView<T>& a, const SplitOptions& opt, PackedPanels& out) {
  // Element (i, l) of op(A): a.data[i * si + l * sl].
  pack_team(a.data, a.trans ? a.ld : 1, a.trans ? 1 : a.ld, opt, PanelLayout::a_rows, out);
}

template <typename T>
void pack_b_vnni_team(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out) {
  // Element (l, j) of op(B): b.data[l * sl + j * sj].
  pack_team(b.data, b.trans ? 1 : b.ld, b.trans ? b.ld : 1, opt, PanelLayout::b_vnni, out);
}

template <typename T>
void pack_a(const MatrixView<T>& a, const SplitOptions& opt, PackedPanels& out) {
#pragma omp parallel if (out.kblk.blocks() * (out.padded_extent / kTileM) > 1)
  pack_a_team(a, opt, out);
}

template <typename T>
void pack_b_vnni(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out) {
#pragma omp parallel if (out.kblk.blocks() * (out.padded_extent / kTileN) > 1)
  pack_b_vnni_team(b, opt, out);
}

#define BF16X_PACK_INSTANTIATE(T)                                                           \
  template void pack_a_team(const MatrixView<T>&, const SplitOptions&, PackedPanels&);      \
  template void pack_b_vnni_team(const MatrixView<T>&, const SplitOptions&, PackedPanels&); \
  template void pack_a(const MatrixView<T>&, const SplitOptions&, PackedPanels&);           \
  template void pack_b_vnni(const MatrixView<T>&, const SplitOptions&, PackedPanels&);
BF16X_PACK_INSTANTIATE(float)
BF16X_PACK_INSTANTIATE(double)
BF16X_PACK_INSTANTIATE(bf16_t)
#undef BF16X_PACK_INSTANTIATE

}  // namespace bf16x::pack
