// pack_a: split op(A) into slices and write the row-major 32 x kb micro-panels of every k-block, one panel job
// per (k-block, run of micro-panels), shared among the threads of the region.
#include <omp.h>

#include "pack/panel_job.hpp"
#include "pack/panels.hpp"

namespace bf16x::pack {

void init_panels(PackedPanels& out, std::int64_t extent, std::int64_t k, int bk, int slices) {
  out.slices = slices;
  out.extent = extent;
  out.padded_extent = round_up(extent, kTileM);
  out.kblk.k = k;
  out.kblk.bk = bk;
}

template <typename T>
void pack_a_team(const MatrixView<T>& a, const SplitOptions& opt, PackedPanels& out) {
  const std::int64_t panels = out.padded_extent / kTileM, kblocks = out.kblk.blocks();
  // Element (i, l) of op(A): a.data[i * si + l * sl].
  const std::int64_t si = a.trans ? a.ld : 1, sl = a.trans ? 1 : a.ld;
  const int run = panels_per_job(panels, kblocks, sl == 1, omp_get_num_threads());
  const std::int64_t runs = (panels + run - 1) / run;
#pragma omp for collapse(2) schedule(static) nowait
  for (std::int64_t kb = 0; kb < kblocks; ++kb)
    for (std::int64_t q = 0; q < runs; ++q) {
      const std::int64_t p = q * run, i0 = p * kTileM, k0 = out.kblk.begin(kb);
      const PanelJob<T> job{a.data + i0 * si + k0 * sl,
                            si,
                            sl,
                            int(std::min<std::int64_t>(run, panels - p)),
                            int(std::min<std::int64_t>(std::int64_t(run) * kTileM, out.extent - i0)),
                            out.kblk.depth(kb),
                            out.kblk.padded(kb),
                            out.exps() + i0,
                            opt.scaled,
                            opt.slices,
                            PanelLayout::a_rows,
                            out.panel(kb, p, 0)};
      split_panel(job);
    }
}

template <typename T>
void pack_a(const MatrixView<T>& a, const SplitOptions& opt, PackedPanels& out) {
#pragma omp parallel if (out.kblk.blocks() * (out.padded_extent / kTileM) > 1)
  pack_a_team(a, opt, out);
}

template void pack_a_team(const MatrixView<float>&, const SplitOptions&, PackedPanels&);
template void pack_a_team(const MatrixView<double>&, const SplitOptions&, PackedPanels&);
template void pack_a_team(const MatrixView<bf16_t>&, const SplitOptions&, PackedPanels&);
template void pack_a(const MatrixView<float>&, const SplitOptions&, PackedPanels&);
template void pack_a(const MatrixView<double>&, const SplitOptions&, PackedPanels&);
template void pack_a(const MatrixView<bf16_t>&, const SplitOptions&, PackedPanels&);

}  // namespace bf16x::pack
