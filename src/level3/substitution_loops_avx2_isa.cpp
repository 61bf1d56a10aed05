// level3/substitution_loops.hpp built for AVX2 + FMA (x86-64-v3).
#include "level3/substitution_loops_impl.hpp"

namespace bf16x::level3 {
const SubstitutionLoops kSubstitutionLoopsAvx2 = make_substitution_loops();
}  // namespace bf16x::level3
