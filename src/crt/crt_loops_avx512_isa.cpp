// crt/crt_loops.hpp built for AVX-512 F/BW/VL/DQ (x86-64-v4).
#include "crt/crt_loops_impl.hpp"

namespace bf16x::crt {
const CrtLoops kCrtLoopsAvx512 = make_crt_loops();
}  // namespace bf16x::crt
