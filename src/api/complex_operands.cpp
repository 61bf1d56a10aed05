#include "api/complex_operands.hpp"

#include <cmath>

namespace bf16x::api {

template <typename T>
void split_parts(const ComplexOperand<T>& op, std::int64_t i0, std::int64_t j0, std::int64_t r, std::int64_t c, T* re,
                 std::int64_t ldre, T* im, std::int64_t ldim, bool negate_im) {
  const T sign = op.conj != negate_im ? T(-1) : T(1);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < c; ++j)
    for (std::int64_t i = 0; i < r; ++i) {
      // Element (i0 + i, j0 + j) of op(X): X(i, j), or X(j, i) for a transposed operand.
      const std::int64_t oi = i0 + i, oj = j0 + j;
      const T* e = op.x + 2 * (op.trans ? oj + oi * op.ld : oi + oj * op.ld);
      re[i + j * ldre] = e[0];
      im[i + j * ldim] = sign * e[1];
    }
}

template <typename T>
OperandScan scan_operand(const ComplexOperand<T>& op) {
  const std::int64_t rows = op.trans ? op.cols : op.rows, cols = op.trans ? op.rows : op.cols;  // stored X
  const T sign = op.conj ? T(-1) : T(1);
  bool finite = true, sums = true;
#pragma omp parallel for schedule(static) reduction(&& : finite, sums)
  for (std::int64_t j = 0; j < cols; ++j) {
    const T* col = op.x + 2 * j * op.ld;
    bool f = true, s = true;
    for (std::int64_t i = 0; i < rows; ++i) {
      const T re = col[2 * i], im = sign * col[2 * i + 1];
      f = f && std::isfinite(re) && std::isfinite(im);
      s = s && std::isfinite(re + im);
    }
    finite = finite && f;
    sums = sums && s;
  }
  return {finite, sums};
}

template void split_parts(const ComplexOperand<float>&, std::int64_t, std::int64_t, std::int64_t, std::int64_t, float*,
                          std::int64_t, float*, std::int64_t, bool);
template void split_parts(const ComplexOperand<double>&, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                          double*, std::int64_t, double*, std::int64_t, bool);
template OperandScan scan_operand(const ComplexOperand<float>&);
template OperandScan scan_operand(const ComplexOperand<double>&);

}  // namespace bf16x::api
