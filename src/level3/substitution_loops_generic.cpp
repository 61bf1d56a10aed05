// level3/substitution_loops.hpp built for baseline x86-64 (SSE2).
#include "level3/substitution_loops_impl.hpp"

namespace bf16x::level3 {
const SubstitutionLoops kSubstitutionLoopsGeneric = make_substitution_loops();
}  // namespace bf16x::level3
