#include "cpu/caches.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace bf16x::cpu {
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

}  // namespace

const CacheSizes& cache_sizes() {
  static const CacheSizes c = read_caches();
  return c;
}

}  // namespace bf16x::cpu
