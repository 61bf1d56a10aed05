// split_panel_generic: the element-by-element packer (split/slice_fp32.hpp, split/slice_fp64.hpp per element).
#include "cpu/features.hpp"
#include "pack/element_split.hpp"
#include "pack/panel_job.hpp"

namespace bf16x::pack {

template <typename T>
void split_panel_generic(const PanelJob<T>& job) {
  const std::ptrdiff_t slice_stride = std::ptrdiff_t(kTileM) * job.kp;
  for (int u = 0; u < kTileM * job.panels; ++u)
    for (int l = 0; l < job.span(); ++l) {
      const bool valid = u < job.extent && l < job.depth;
      const T x = valid ? job.src[u * job.su + l * job.sl] : T(0);
      const int E = u < job.extent ? job.scale_exp[u] : 0;
      split_element(x, E, job.scaled, job.slices, job.dst + job.at(u, l), slice_stride);
    }
}

template void split_panel_generic(const PanelJob<float>&);
template void split_panel_generic(const PanelJob<double>&);
template void split_panel_generic(const PanelJob<bf16_t>&);

bool split_panel_avx512_usable() { return cpu::vector_level() == cpu::Level::avx512; }
bool split_panel_avx2_usable() { return cpu::vector_level() != cpu::Level::generic; }

template <typename T>
void split_panel(const PanelJob<T>& job) {
  if (split_panel_avx512_usable())
    split_panel_avx512(job);
  else if (split_panel_avx2_usable())
    split_panel_avx2(job);
  else
    split_panel_generic(job);
}

template void split_panel(const PanelJob<float>&);
template void split_panel(const PanelJob<double>&);
template void split_panel(const PanelJob<bf16_t>&);

}  // namespace bf16x::pack
