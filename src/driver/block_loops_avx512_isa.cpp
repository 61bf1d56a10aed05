// driver/block_loops.hpp built for AVX-512 F/BW/VL/DQ (x86-64-v4).
#include "driver/block_loops_impl.hpp"

namespace bf16x::driver {
const BlockLoops kBlockLoopsAvx512 = make_block_loops();
}  // namespace bf16x::driver
