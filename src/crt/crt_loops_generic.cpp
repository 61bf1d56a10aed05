// crt/crt_loops.hpp built for baseline x86-64 (SSE2).
#include "crt/crt_loops_impl.hpp"

namespace bf16x::crt {
const CrtLoops kCrtLoopsGeneric = make_crt_loops();
}  // namespace bf16x::crt
