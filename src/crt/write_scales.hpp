// What write_scaled (crt_ops.hpp) takes beside X and C, in a header of its own: the loops of every vector level
// (crt_loops.hpp) take it too.
#pragma once

namespace bf16x::crt {

// The scaling of the write of C: alpha = m_alpha 2^e_alpha (m_alpha in [0.5, 1)), and per row i of the block and
// column j, e_row[i] = the row's exponent plus e_alpha and e_col[j]; f_row[i] = 2^e_row[i] and f_col[j] = 2^e_col[j]
// where the products with them are exact or rounded once (see write_scaled), else 0.
struct WriteScales {
  double m_alpha, beta;
  const double* f_row;
  const double* f_col;
  const int* e_row;
  const int* e_col;
};

}  // namespace bf16x::crt
