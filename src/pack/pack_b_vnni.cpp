// pack_b_vnni: split op(B) into slices and write each 32-column micro-panel in VNNI pair layout, so that one
// 64-byte row holds the k-pair (2p, 2p+1) of 16 columns: the operand format of TDPBF16PS and VDPBF16PS.
#include <cstring>

#include "pack/element_split.hpp"
#include "pack/panels.hpp"

namespace bf16x::pack {

template <typename T>
void pack_b_vnni(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out) {
  const std::int64_t panels = out.padded_extent / kTileN, kblocks = out.kblk.blocks();
  const int ns = opt.slices;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t kb = 0; kb < kblocks; ++kb)
    for (std::int64_t p = 0; p < panels; ++p) {
      const int depth = out.kblk.depth(kb), kp = out.kblk.padded(kb);
      const std::int64_t k0 = out.kblk.begin(kb);
      bf16_t* base = out.panel(kb, p, 0);
      const std::int64_t slice_stride = std::int64_t(kTileN) * kp;
      std::memset(base, 0, sizeof(bf16_t) * std::size_t(slice_stride * ns));
      const int cols = int(std::min<std::int64_t>(kTileN, out.extent - p * kTileN));
      for (int c = 0; c < cols; ++c) {
        const std::int64_t j = p * kTileN + c;
        const int E = out.scale_exp[std::size_t(j)];
        for (int l = 0; l < depth; ++l) {
          bf16_t* dst = base + std::int64_t(l / kPair) * kBPairStride + c * kPair + (l % kPair);
          split_element(b(k0 + l, j), E, opt.scaled, ns, dst, slice_stride);
        }
      }
    }
}

template void pack_b_vnni(const MatrixView<float>&, const SplitOptions&, PackedPanels&);
template void pack_b_vnni(const MatrixView<double>&, const SplitOptions&, PackedPanels&);

}  // namespace bf16x::pack
