// crt/crt_loops.hpp built for AVX2 + FMA (x86-64-v3).
#include "crt/crt_loops_impl.hpp"

namespace bf16x::crt {
const CrtLoops kCrtLoopsAvx2 = make_crt_loops();
}  // namespace bf16x::crt
