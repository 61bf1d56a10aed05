// policy/fill_loops.hpp built for baseline x86-64 (SSE2).
#include "policy/fill_loops_impl.hpp"

namespace bf16x::policy {
const FillLoops kFillLoopsGeneric = make_fill_loops();
}  // namespace bf16x::policy
