// pack_b_vnni: split op(B) into slices and write each 32-column micro-panel in VNNI pair layout, so that one
// 64-byte row holds the k-pair (2p, 2p+1) of 16 columns: the operand format of TDPBF16PS and VDPBF16PS. One panel
// job per (k-block, run of micro-panels), shared among the threads of the region.
#include <omp.h>

#include "pack/panel_job.hpp"
#include "pack/panels.hpp"

namespace bf16x::pack {

template <typename T>
void pack_b_vnni_team(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out) {
  const std::int64_t panels = out.padded_extent / kTileN, kblocks = out.kblk.blocks();
  // Element (l, j) of op(B): b.data[l * sl + j * sj].
  const std::int64_t sl = b.trans ? b.ld : 1, sj = b.trans ? 1 : b.ld;
  const int run = panels_per_job(panels, kblocks, sl == 1, omp_get_num_threads());
  const std::int64_t runs = (panels + run - 1) / run;
#pragma omp for collapse(2) schedule(static) nowait
  for (std::int64_t kb = 0; kb < kblocks; ++kb)
    for (std::int64_t q = 0; q < runs; ++q) {
      const std::int64_t p = q * run, j0 = p * kTileN, k0 = out.kblk.begin(kb);
      const PanelJob<T> job{b.data + k0 * sl + j0 * sj,
                            sj,
                            sl,
                            int(std::min<std::int64_t>(run, panels - p)),
                            int(std::min<std::int64_t>(std::int64_t(run) * kTileN, out.extent - j0)),
                            out.kblk.depth(kb),
                            out.kblk.padded(kb),
                            out.exps() + j0,
                            opt.scaled,
                            opt.slices,
                            PanelLayout::b_vnni,
                            out.panel(kb, p, 0)};
      split_panel(job);
    }
}

template <typename T>
void pack_b_vnni(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out) {
#pragma omp parallel if (out.kblk.blocks() * (out.padded_extent / kTileN) > 1)
  pack_b_vnni_team(b, opt, out);
}

template void pack_b_vnni_team(const MatrixView<float>&, const SplitOptions&, PackedPanels&);
template void pack_b_vnni_team(const MatrixView<double>&, const SplitOptions&, PackedPanels&);
template void pack_b_vnni_team(const MatrixView<bf16_t>&, const SplitOptions&, PackedPanels&);
template void pack_b_vnni(const MatrixView<float>&, const SplitOptions&, PackedPanels&);
template void pack_b_vnni(const MatrixView<double>&, const SplitOptions&, PackedPanels&);
template void pack_b_vnni(const MatrixView<bf16_t>&, const SplitOptions&, PackedPanels&);

}  // namespace bf16x::pack
