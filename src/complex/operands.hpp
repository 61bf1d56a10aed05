// The real and imaginary parts of op(X) for a complex X stored as interleaved (re, im) pairs, column-major (a
// row-major X is read as its column-major transpose): read block by block, transposed and conjugated on the way,
// and scaled by a power of two per row of op(A) / column of op(B), into real matrices the real GEMM runs on; and
// the one pass over op(X) that decides, before C is written, whether the emulation may run at all and finds those
// powers of two.
//
// The scaling keeps the product in range whatever the operands' exponents: the real GEMMs compute P' =
// diag(2^-ea) op(A) op(B) diag(2^-eb), |P'_ij| <= 2k with every part below 1, and the write folds 2^(ea_i + eb_j)
// into alpha (as the real drivers fold their own scales), so only alpha P + beta C is rounded to the range. The real
// modes scale rows and columns by powers of two themselves, so on data inside the range P' is 2^-(ea_i + eb_j)
// times the unscaled P bit for bit.
#pragma once
#include <cstdint>
#include <vector>

namespace bf16x::complex {

// A stored complex operand: rows x cols of op(X), X at x with leading dimension ld (complex elements), op(X) =
// X^T where trans, and the imaginary part negated where conj (conjugation is separate from transposition: a
// row-major X with ConjTrans is the conjugate, not transposed, of its column-major view).
template <typename T>
struct ComplexOperand {
  const T* x;
  std::int64_t ld;
  bool trans, conj;
  std::int64_t rows, cols;
  // Where set, element (i, j) of op(X) is read as 2^-row_exp[i] (or 2^-col_exp[j]) times itself.
  const int* row_exp = nullptr;
  const int* col_exp = nullptr;
};

// Writes Re and Im of the r x c block of op(X) at (i0, j0) to re and im (column-major, leading dimensions ldre,
// ldim), scaled as op says; the imaginary part negated once more where negate_im asks (so -Im for the 4M block
// operand).
template <typename T>
void split_parts(const ComplexOperand<T>& op, std::int64_t i0, std::int64_t j0, std::int64_t r, std::int64_t c, T* re,
                 std::int64_t ldre, T* im, std::int64_t ldim, bool negate_im);

struct OperandScan {
  bool finite = true;     // no NaN or Inf in op(X)
  std::vector<int> exps;  // per row (or column) of op(X): max(|Re|, |Im|) in [2^(e-1), 2^e), 0 for a zero line
};

// One pass over op(X), in storage order: the exponents of its rows (rows) or columns (!rows).
template <typename T>
OperandScan scan_operand(const ComplexOperand<T>& op, bool rows);

}  // namespace bf16x::complex
