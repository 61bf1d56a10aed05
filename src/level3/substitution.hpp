// TRSM's diagonal blocks (and a narrow B's updates): substitution, x_c = b_c / u_cc, then b_r -= u_rc x_c for the rows
// r still to solve, in that one order for every element whatever the loop nest, the vector level
// (level3/substitution_loops.hpp) or the team (columns of B in tasks of 64), with -ffp-contract=off: the same bits on
// every engine, thread count and CPU.
#pragma once
#include <cstdint>

#include "level3/operation.hpp"

namespace bf16x::level3 {

// Solves D X = B in place for the s x s triangular D (packed column-major; lower or upper; unit: ones on its
// diagonal) and the s x n view B.
template <typename E>
void substitute(const E* d, std::int64_t s, bool lower, bool unit, const View<E>& b, std::int64_t n);

// Y = Y - op(A) X for the rows x cols block a of op(A) (read in place, or packed column-major first where transposed
// or conjugated), the cols x n X and the rows x n Y (column-major views): each entry of Y has its products
// subtracted one by one, in ascending column order (descending where `descending`), as the substitution does; the
// rows in tasks on the call's threads.
template <typename E>
void subtract_products(const Operand<E>& a, std::int64_t rows, std::int64_t cols, bool descending, const View<E>& x,
                       const View<E>& y, std::int64_t n);

}  // namespace bf16x::level3
