// pack/scan_loops.hpp built for AVX2 + FMA (x86-64-v3).
#include "pack/scan_loops_impl.hpp"

namespace bf16x::pack {
const ScanLoops kScanLoopsAvx2 = make_scan_loops();
}  // namespace bf16x::pack
