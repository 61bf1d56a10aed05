// TRSM's substitution and a narrow B's updates (level3/substitution.hpp), built once per vector level
// (cmake/isa.cmake). Every build does the same operations on each element of B in the same order, x_c = b_c / d_cc,
// then b_r = b_r - d_rc x_c (a multiply and a subtraction: no build contracts them into an FMA); the vector builds do
// them on the 8 or 16 columns of B (64 bytes) that a row of a block holds, or along a column where fewer are left, so
// every build gives the same bits.
#pragma once
#include <cstdint>

#include "bf16x/bf16x.h"

namespace bf16x::level3 {

// Solves D X = B in place for the s x s triangular D (packed column-major; lower or upper; unit: ones on its
// diagonal), s <= kSubstitutionRows, over the columns [j0, j1) of B (b[i ld + j] where rows, else b[i + j ld]).
template <typename E>
using SolveColumns = void (*)(const E* d, std::int64_t s, bool lower, bool unit, E* b, std::int64_t ld, bool rows,
                              std::int64_t j0, std::int64_t j1);

// y_r = y_r - a_rc x_c for the rows r < rows, over the columns c < cols of a (a_rc at a[r ra + c ca], conjugated
// where conj), in ascending c for each entry (descending where `descending`), for each of the n columns of x (cols x
// n, ldx) and y (rows x n, ldy): a narrow B's update by the substitution's operations, a multiply and a subtraction
// in that order. Vectors along the rows where a's columns are contiguous (ra = 1), else rows side by side, each along
// its own contiguous run.
template <typename E>
using SubtractProducts = void (*)(const E* a, std::int64_t ra, std::int64_t ca, bool conj, std::int64_t rows,
                                  std::int64_t cols, bool descending, const E* x, std::int64_t ldx, E* y,
                                  std::int64_t ldy, std::int64_t n);

struct SubstitutionLoops {
  SolveColumns<float> solve_fp32;
  SolveColumns<double> solve_fp64;
  SolveColumns<bf16x_complex_float> solve_c64;
  SolveColumns<bf16x_complex_double> solve_c128;
  SubtractProducts<float> subtract_fp32;
  SubtractProducts<double> subtract_fp64;
  SubtractProducts<bf16x_complex_float> subtract_c64;
  SubtractProducts<bf16x_complex_double> subtract_c128;
};

// The largest s the loops take (their block of a column-major B is held transposed on the stack).
inline constexpr std::int64_t kSubstitutionRows = 128;

// substitution_loops_generic.cpp (x86-64), substitution_loops_avx2_isa.cpp, substitution_loops_avx512_isa.cpp.
extern const SubstitutionLoops kSubstitutionLoopsGeneric, kSubstitutionLoopsAvx2, kSubstitutionLoopsAvx512;

// The variant for this CPU (cpu::vector_level()).
const SubstitutionLoops& substitution_loops();

}  // namespace bf16x::level3
