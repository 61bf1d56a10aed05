// level3/substitution_loops.hpp built for AVX-512 F/BW/VL/DQ (x86-64-v4).
#include "level3/substitution_loops_impl.hpp"

namespace bf16x::level3 {
const SubstitutionLoops kSubstitutionLoopsAvx512 = make_substitution_loops();
}  // namespace bf16x::level3
