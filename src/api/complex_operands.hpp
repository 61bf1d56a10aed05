// The real and imaginary parts of op(X) for a complex X stored as interleaved (re, im) pairs, column-major:
// read once per call, transposed and conjugated on the way, into real matrices the real GEMM runs on.
#pragma once
#include <cstdint>

namespace bf16x::api {

// A stored complex operand: rows x cols of op(X), X at x with leading dimension ld (complex elements) and
// trans one of BF16X_NO_TRANS / BF16X_TRANS / BF16X_CONJ_TRANS.
template <typename T>
struct ComplexOperand {
  const T* x;
  std::int64_t ld;
  int trans;
  std::int64_t rows, cols;
};

// Writes Re op(X) to re and Im op(X) to im (column-major, leading dimensions ldre, ldim); the imaginary part is
// negated where op conjugates, and once more where negate_im asks (so -Im for the 4M block operand). Returns false
// if an entry of op(X) is NaN or infinite (the parts are then incomplete).
template <typename T>
bool split_parts(const ComplexOperand<T>& op, T* re, std::int64_t ldre, T* im, std::int64_t ldim, bool negate_im);

}  // namespace bf16x::api
