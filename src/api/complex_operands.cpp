#include "api/complex_operands.hpp"

#include <cmath>

#include "bf16x/bf16x.h"

namespace bf16x::api {

template <typename T>
bool split_parts(const ComplexOperand<T>& op, T* re, std::int64_t ldre, T* im, std::int64_t ldim, bool negate_im) {
  const bool trans = op.trans != BF16X_NO_TRANS;
  const T sign = (op.trans == BF16X_CONJ_TRANS) != negate_im ? T(-1) : T(1);
  bool finite = true;
#pragma omp parallel for schedule(static) reduction(&& : finite)
  for (std::int64_t j = 0; j < op.cols; ++j) {
    bool col_finite = true;
    for (std::int64_t i = 0; i < op.rows; ++i) {
      // Element (i, j) of op(X): X(i, j), or X(j, i) for a transposed operand.
      const T* e = op.x + 2 * (trans ? j + i * op.ld : i + j * op.ld);
      const T r = e[0], s = e[1];
      col_finite = col_finite && std::isfinite(r) && std::isfinite(s);
      re[i + j * ldre] = r;
      im[i + j * ldim] = sign * s;
    }
    finite = finite && col_finite;
  }
  return finite;
}

template bool split_parts(const ComplexOperand<float>&, float*, std::int64_t, float*, std::int64_t, bool);
template bool split_parts(const ComplexOperand<double>&, double*, std::int64_t, double*, std::int64_t, bool);

}  // namespace bf16x::api
