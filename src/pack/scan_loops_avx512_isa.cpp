// pack/scan_loops.hpp built for AVX-512 F/BW/VL/DQ (x86-64-v4).
#include "pack/scan_loops_impl.hpp"

namespace bf16x::pack {
const ScanLoops kScanLoopsAvx512 = make_scan_loops();
}  // namespace bf16x::pack
