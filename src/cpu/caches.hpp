// The data cache sizes of the machine, read once at run time: the drivers' block sizes (driver/blocking.hpp) and
// their choice of streaming stores for packed operands that outgrow the L2.
#pragma once
#include <cstddef>

namespace bf16x::cpu {

struct CacheSizes {
  std::size_t l1 = 0, l2 = 0, l3 = 0;  // data cache bytes per level (0: unknown)
};
// sysconf(_SC_LEVEL*_CACHE_SIZE), else /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}, else
// 32 KiB / 1 MiB / 8 MiB; read once per process.
const CacheSizes& cache_sizes();

}  // namespace bf16x::cpu
