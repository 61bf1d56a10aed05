// TRSM's substitution (level3/substitution.hpp), built once per vector level (cmake/isa.cmake). Every build does
// the same operations on each element of B in the same order, x_c = b_c / d_cc, then b_r = b_r - d_rc x_c (a
// multiply and a subtraction: no build contracts them into an FMA); the vector builds do them on the 8 or 16
// columns of B (64 bytes) that a row of a block holds, or along a column where fewer are left, so every build gives
// the same bits.
#pragma once
#include <cstdint>

#include "bf16x/bf16x.h"

namespace bf16x::level3 {

// Solves D X = B in place for the s x s triangular D (packed column-major; lower or upper; unit: ones on its
// diagonal), s <= kSubstitutionRows, over the columns [j0, j1) of B (b[i ld + j] where rows, else b[i + j ld]).
template <typename E>
using SolveColumns = void (*)(const E* d, std::int64_t s, bool lower, bool unit, E* b, std::int64_t ld, bool rows,
                              std::int64_t j0, std::int64_t j1);

struct SubstitutionLoops {
  SolveColumns<float> solve_fp32;
  SolveColumns<double> solve_fp64;
  SolveColumns<bf16x_complex_float> solve_c64;
  SolveColumns<bf16x_complex_double> solve_c128;
};

// The largest s the loops take (their block of a column-major B is held transposed on the stack).
inline constexpr std::int64_t kSubstitutionRows = 128;

// substitution_loops_generic.cpp (x86-64), substitution_loops_avx2_isa.cpp, substitution_loops_avx512_isa.cpp.
extern const SubstitutionLoops kSubstitutionLoopsGeneric, kSubstitutionLoopsAvx2, kSubstitutionLoopsAvx512;

// The variant for this CPU (cpu::vector_level()).
const SubstitutionLoops& substitution_loops();

}  // namespace bf16x::level3
