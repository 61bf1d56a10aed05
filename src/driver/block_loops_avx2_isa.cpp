// driver/block_loops.hpp built for AVX2 + FMA (x86-64-v3).
#include "driver/block_loops_impl.hpp"

namespace bf16x::driver {
const BlockLoops kBlockLoopsAvx2 = make_block_loops();
}  // namespace bf16x::driver
