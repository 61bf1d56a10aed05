// driver/block_loops.hpp built for AVX-512 F/BW/VL/DQ (x86-64-v4).
// GCC 12's avx512fintrin.h passes an undefined vector as the merge source of unmasked forms and then warns about it
// (a false positive, as in driver/write_block_avx512_isa.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "driver/block_loops_impl.hpp"

namespace bf16x::driver {
const BlockLoops kBlockLoopsAvx512 = make_block_loops();
}  // namespace bf16x::driver
#pragma GCC diagnostic pop
