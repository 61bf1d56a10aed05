// pack_a / pack_b_vnni: split an operand into slices and write its micro-panels, one panel job per (k-block, run
// of micro-panels), shared among the threads of the region. The two differ only in which of op(X)'s dimensions
// the panels run across (rows of op(A), columns of op(B)) and in the panel layout: row-major 32 x kb for A, VNNI
// pairs for B (one 64-byte row holds the k-pair (2p, 2p+1) of 16 columns, the operand format of TDPBF16PS and
// VDPBF16PS).
#include <omp.h>

#include <algorithm>

#include "pack/panel_job.hpp"
#include "pack/panels.hpp"
#include "util/team.hpp"

namespace bf16x::pack {
namespace {

// K-blocks per job on a k-contiguous source: enough whole blocks for each line to be read as a piece of at least
// 1 KiB (fp32x6's 64-deep blocks are 256 bytes of a line: read block by block, each piece is a separate miss at the
// line stride that no prefetcher follows, which took the packing of such an operand to 4x its memory time), while
// leaving at least 4 jobs per thread. Only blocks whose padded depth is the block (bk a multiple of kKChunk)
// continue each other in the source.
int kblocks_per_job(const KBlocking& kb, std::size_t elem_bytes, std::int64_t runs, int threads) {
  if (kb.bk % kKChunk != 0) return 1;
  const std::int64_t want = std::max<std::int64_t>(1, 1024 / (std::int64_t(kb.bk) * std::int64_t(elem_bytes)));
  const std::int64_t full = kb.k / kb.bk;
  const std::int64_t jobs_wanted = 4 * std::int64_t(threads > 0 ? threads : 1);
  const std::int64_t most = std::max<std::int64_t>(1, runs * full / jobs_wanted);
  return int(std::max<std::int64_t>(1, std::min({want, full, most})));
}

// Element (r, l) of the operand, r across the panels and l along k: data[r * across + l * along].
template <typename T>
void pack_team(const T* data, std::int64_t across, std::int64_t along, const SplitOptions& opt, PanelLayout layout,
               PackedPanels& out) {
  static_assert(kTileM == kTileN, "A and B micro-panels have the same width");
  const KBlocking& kblk = out.kblk;
  const std::int64_t panels = out.padded_extent / kTileM, kblocks = kblk.blocks();
  const int threads = omp_get_num_threads();
  const int run = panels_per_job(panels, kblocks, along == 1, threads);
  const std::int64_t runs = (panels + run - 1) / run;
  // Groups of `per` k-blocks: the whole blocks in groups, then the rest of them and a partial last block alone.
  const int per = along == 1 ? kblocks_per_job(kblk, sizeof(T), runs, threads) : 1;
  const std::int64_t full = kblk.k / kblk.bk, grouped = full / per, groups = grouped + (kblocks - grouped * per);
  const auto group_at = [&](std::int64_t g, std::int64_t& kb0) {
    kb0 = g < grouped ? g * per : grouped * per + (g - grouped);
    return g < grouped ? per : 1;
  };
  // Jobs in source order: a k-contiguous source walks the k-blocks of one run of lines back to back, so that each
  // line is read front to back; otherwise the runs of one k-block's columns.
  const std::int64_t major = along == 1 ? runs : groups, minor = along == 1 ? groups : runs;
#pragma omp for collapse(2) schedule(static) nowait
  for (std::int64_t i = 0; i < major; ++i)
    for (std::int64_t j = 0; j < minor; ++j) {
      const std::int64_t g = along == 1 ? j : i, q = along == 1 ? i : j;
      std::int64_t kb = 0;
      const int nb = group_at(g, kb);
      const std::int64_t p = q * run, r0 = p * kTileM, k0 = kblk.begin(kb);
      PanelJob<T> job{data + r0 * across + k0 * along,
                      across,
                      along,
                      int(std::min<std::int64_t>(run, panels - p)),
                      int(std::min<std::int64_t>(std::int64_t(run) * kTileM, out.extent - r0)),
                      nb > 1 ? nb * kblk.bk : kblk.depth(kb),
                      kblk.padded(kb),
                      out.exps() + r0,
                      opt.scaled,
                      opt.slices,
                      layout,
                      out.panel(kb, p, 0),
                      opt.stream};
      job.kblocks = nb;
      job.block_stride = std::int64_t(kblk.bk) * out.padded_extent * out.slices;
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
  const bool panels = out.kblk.blocks() * (out.padded_extent / kTileM) > 1;
  util::on_team(panels ? omp_get_max_threads() : 1, [&] { pack_a_team(a, opt, out); });
}

template <typename T>
void pack_b_vnni(const MatrixView<T>& b, const SplitOptions& opt, PackedPanels& out) {
  const bool panels = out.kblk.blocks() * (out.padded_extent / kTileN) > 1;
  util::on_team(panels ? omp_get_max_threads() : 1, [&] { pack_b_vnni_team(b, opt, out); });
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
