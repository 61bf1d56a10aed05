#include "driver/blocking.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "env/env_vars.hpp"
#include "pack/layout.hpp"
#include "split/bf16.hpp"

namespace bf16x::driver {
namespace {

std::int64_t floor_to(std::int64_t x, std::int64_t q) { return std::max(q, x / q * q); }

// BF16X_DRIVER_MCNC=MC,NC (multiples of 256): fixed panel sizes, for tests that make small problems cross panel
// boundaries. Read once, through the library's one reader of the environment (none in a secure-execution process).
struct McNc {
  std::int64_t mc = 0, nc = 0;
};
McNc g_override;  // set_panel_override (tests)

McNc read_override() {
  McNc o;
  if (const auto v = envvar::text(envvar::process_source(), "BF16X_DRIVER_MCNC")) {
    long long a = 0, b = 0;
    if (std::sscanf(v->c_str(), "%lld,%lld", &a, &b) == 2 && a > 0 && b > 0 && a % 256 == 0 && b % 256 == 0) {
      o.mc = a;
      o.nc = b;
    } else {
      envvar::warn("BF16X_DRIVER_MCNC=" + *v + " is not MC,NC (multiples of 256); using the cache-sized panels");
    }
  }
  return o;
}

}  // namespace

void set_panel_override(std::int64_t mc, std::int64_t nc) {
  g_override.mc = mc > 0 && nc > 0 ? mc : 0;
  g_override.nc = mc > 0 && nc > 0 ? nc : 0;
}

Blocking choose_blocking(int bk, int slices_a, int slices_b, bool fp64, const CacheSizes& caches) {
  Blocking b;
  b.kc = std::max(1, pack::kBlockK / bk) * bk;
  const std::size_t kc = std::size_t(b.kc), el = sizeof(bf16_t);
  int blk = pack::kBlockM;
  while (blk > pack::kTileM && 2 * std::size_t(blk) * kc * el > caches.l2 / 2) blk /= 2;
  b.bm = b.bn = blk;
  constexpr std::int64_t q = pack::kBlockM;  // MC, NC: multiples of the largest block
  const std::int64_t acc_elems = std::int64_t(kAccBudget / (fp64 ? sizeof(double) : sizeof(float)));
  const std::int64_t llc_half = std::int64_t(caches.l3 / 2);
  const std::int64_t nc_llc = llc_half / std::int64_t(kc * el * std::size_t(std::max(1, slices_b)));
  const std::int64_t mc_llc = llc_half / std::int64_t(kc * el * std::size_t(std::max(1, slices_a)));
  b.nc = floor_to(std::min<std::int64_t>(std::int64_t(std::sqrt(double(acc_elems))), nc_llc), q);
  b.mc = floor_to(std::min<std::int64_t>(acc_elems / b.nc, mc_llc), q);
  static const McNc env_over = read_override();
  const McNc over = g_override.mc > 0 ? g_override : env_over;
  if (over.mc > 0) {
    b.mc = over.mc;
    b.nc = over.nc;
  }
  return b;
}

}  // namespace bf16x::driver
