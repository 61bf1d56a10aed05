// pack_a: split op(A) into slices and write the row-major 32 x kb micro-panels of every k-block.
#include <cstring>

#include "pack/element_split.hpp"
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
void pack_a(const MatrixView<T>& a, const SplitOptions& opt, PackedPanels& out) {
  const std::int64_t panels = out.padded_extent / kTileM, kblocks = out.kblk.blocks();
  const int ns = opt.slices;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t kb = 0; kb < kblocks; ++kb)
    for (std::int64_t p = 0; p < panels; ++p) {
      const int depth = out.kblk.depth(kb), kp = out.kblk.padded(kb);
      const std::int64_t k0 = out.kblk.begin(kb);
      bf16_t* base = out.panel(kb, p, 0);
      const std::int64_t slice_stride = std::int64_t(kTileM) * kp;  // slices of one micro-panel are adjacent
      std::memset(base, 0, sizeof(bf16_t) * std::size_t(slice_stride * ns));
      const int rows = int(std::min<std::int64_t>(kTileM, out.extent - p * kTileM));
      for (int r = 0; r < rows; ++r) {
        const std::int64_t i = p * kTileM + r;
        const int E = out.scale_exp[std::size_t(i)];
        for (int l = 0; l < depth; ++l)
          split_element(a(i, k0 + l), E, opt.scaled, ns, base + std::int64_t(r) * kp + l, slice_stride);
      }
    }
}

template void pack_a(const MatrixView<float>&, const SplitOptions&, PackedPanels&);
template void pack_a(const MatrixView<double>&, const SplitOptions&, PackedPanels&);

}  // namespace bf16x::pack
