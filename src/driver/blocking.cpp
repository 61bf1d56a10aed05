#include "driver/blocking.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pack/layout.hpp"
#include "split/bf16.hpp"

namespace bf16x::driver {
namespace {

std::size_t sysconf_size(int name) {
  const long v = sysconf(name);
  return v > 0 ? std::size_t(v) : 0;
}

// "32K", "1024K", "32M" -> bytes; 0 if unreadable.
std::size_t sysfs_size(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 0;
  unsigned long v = 0;
  char unit = 0;
  const int got = std::fscanf(f, "%lu%c", &v, &unit);
  std::fclose(f);
  if (got < 1) return 0;
  if (unit == 'K') return v << 10;
  if (unit == 'M') return v << 20;
  if (unit == 'G') return v << 30;
  return v;
}

int sysfs_int(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return -1;
  int v = -1;
  if (std::fscanf(f, "%d", &v) != 1) v = -1;
  std::fclose(f);
  return v;
}

std::string sysfs_word(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return {};
  char buf[32] = {};
  if (std::fscanf(f, "%31s", buf) != 1) buf[0] = 0;
  std::fclose(f);
  return buf;
}

CacheSizes read_caches() {
  CacheSizes c;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  c.l1 = sysconf_size(_SC_LEVEL1_DCACHE_SIZE);
  c.l2 = sysconf_size(_SC_LEVEL2_CACHE_SIZE);
  c.l3 = sysconf_size(_SC_LEVEL3_CACHE_SIZE);
#endif
  for (int i = 0; i < 8 && (!c.l1 || !c.l2 || !c.l3); ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const int level = sysfs_int(dir + "level");
    if (level < 0) break;
    if (sysfs_word(dir + "type") == "Instruction") continue;
    const std::size_t size = sysfs_size(dir + "size");
    std::size_t* slot = level == 1 ? &c.l1 : level == 2 ? &c.l2 : level == 3 ? &c.l3 : nullptr;
    if (slot && !*slot) *slot = size;
  }
  if (!c.l1) c.l1 = std::size_t(32) << 10;
  if (!c.l2) c.l2 = std::size_t(1) << 20;
  if (!c.l3) c.l3 = std::max(c.l2, std::size_t(8) << 20);  // no L3 reported: the last level is L2 (or a guess)
  return c;
}

std::int64_t floor_to(std::int64_t x, std::int64_t q) { return std::max(q, x / q * q); }

// BF16X_DRIVER_MCNC=MC,NC (multiples of 256): fixed panel sizes, for tests that make small problems cross panel
// boundaries. Read once.
struct McNc {
  std::int64_t mc = 0, nc = 0;
};
McNc g_override;  // set_panel_override (tests)

McNc read_override() {
  McNc o;
  if (const char* v = std::getenv("BF16X_DRIVER_MCNC")) {
    long long a = 0, b = 0;
    if (std::sscanf(v, "%lld,%lld", &a, &b) == 2 && a > 0 && b > 0 && a % 256 == 0 && b % 256 == 0) {
      o.mc = a;
      o.nc = b;
    }
  }
  return o;
}

}  // namespace

void set_panel_override(std::int64_t mc, std::int64_t nc) {
  g_override.mc = mc > 0 && nc > 0 ? mc : 0;
  g_override.nc = mc > 0 && nc > 0 ? nc : 0;
}

const CacheSizes& cache_sizes() {
  static const CacheSizes c = read_caches();
  return c;
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
