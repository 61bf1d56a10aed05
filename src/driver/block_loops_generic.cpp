// driver/block_loops.hpp built for baseline x86-64 (SSE2).
#include "driver/block_loops_impl.hpp"

namespace bf16x::driver {
const BlockLoops kBlockLoopsGeneric = make_block_loops();
}  // namespace bf16x::driver
