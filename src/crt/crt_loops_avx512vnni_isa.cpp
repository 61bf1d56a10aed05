// crt/crt_loops.hpp built for AVX-512 F/BW/VL/DQ and VNNI: the avx512 loops, with the residues' digit way
// (crt_loops_impl.hpp, line_residues_digits).
#include "crt/crt_loops_impl.hpp"

namespace bf16x::crt {
const CrtLoops kCrtLoopsAvx512Vnni = make_crt_loops();
}  // namespace bf16x::crt
