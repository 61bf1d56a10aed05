// policy/fill_loops.hpp built for AVX-512 F/BW/VL/DQ (x86-64-v4).
// GCC 12's avx512fintrin.h passes an undefined vector as the merge source of unmasked forms and then warns about it
// (a false positive, as in crt/crt_loops_avx512_isa.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "policy/fill_loops_impl.hpp"

namespace bf16x::policy {
const FillLoops kFillLoopsAvx512 = make_fill_loops();
}  // namespace bf16x::policy
#pragma GCC diagnostic pop
