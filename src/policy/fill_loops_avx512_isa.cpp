// policy/fill_loops.hpp built for AVX-512 F/BW/VL/DQ (x86-64-v4).
#include "policy/fill_loops_impl.hpp"

namespace bf16x::policy {
const FillLoops kFillLoopsAvx512 = make_fill_loops();
}  // namespace bf16x::policy
