// The real and imaginary parts of op(X) for a complex X stored as interleaved (re, im) pairs, column-major (a
// row-major X is read as its column-major transpose): read block by block, transposed and conjugated on the way,
// into real matrices the real GEMM runs on; and the one pass over op(X) that decides, before C is written, whether
// the emulation may run at all.
#pragma once
#include <cstdint>

namespace bf16x::api {

// A stored complex operand: rows x cols of op(X), X at x with leading dimension ld (complex elements), op(X) =
// X^T where trans, and the imaginary part negated where conj (conjugation is separate from transposition: a
// row-major X with ConjTrans is the conjugate, not transposed, of its column-major view).
template <typename T>
struct ComplexOperand {
  const T* x;
  std::int64_t ld;
  bool trans, conj;
  std::int64_t rows, cols;
};

// Writes Re and Im of the r x c block of op(X) at (i0, j0) to re and im (column-major, leading dimensions ldre,
// ldim); the imaginary part negated once more where negate_im asks (so -Im for the 4M block operand).
template <typename T>
void split_parts(const ComplexOperand<T>& op, std::int64_t i0, std::int64_t j0, std::int64_t r, std::int64_t c, T* re,
                 std::int64_t ldre, T* im, std::int64_t ldim, bool negate_im);

struct OperandScan {
  bool finite = true;       // no NaN or Inf in op(X)
  bool sums_finite = true;  // Re + Im of op(X) (the 3M sums, rounded in the routine's precision) do not overflow
};

// One pass over op(X), in storage order.
template <typename T>
OperandScan scan_operand(const ComplexOperand<T>& op);

}  // namespace bf16x::api
