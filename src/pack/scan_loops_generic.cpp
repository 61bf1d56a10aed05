// pack/scan_loops.hpp built for baseline x86-64 (SSE2).
#include "pack/scan_loops_impl.hpp"

namespace bf16x::pack {
const ScanLoops kScanLoopsGeneric = make_scan_loops();
}  // namespace bf16x::pack
