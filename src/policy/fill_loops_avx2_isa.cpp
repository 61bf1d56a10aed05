// policy/fill_loops.hpp built for AVX2 + FMA (x86-64-v3).
#include "policy/fill_loops_impl.hpp"

namespace bf16x::policy {
const FillLoops kFillLoopsAvx2 = make_fill_loops();
}  // namespace bf16x::policy
