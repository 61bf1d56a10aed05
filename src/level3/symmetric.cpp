// SYMM and HEMM (level3/operation.hpp): panels of A expanded from its stored triangle, one GEMM each over the whole
// inner dimension.
#include <algorithm>

#include "level3/blocking.hpp"
#include "level3/operation.hpp"
#include "level3/panel_space.hpp"
#include "level3/triangle_panel.hpp"

namespace bf16x::level3 {

template <typename E>
int symm(const Gemm<E>& gemm, bool left, Triangle t, std::int64_t m, std::int64_t n, E alpha, const Stored<E>& a,
         const Operand<E>& b, E beta, const View<E>& c) {
  if (is_zero(alpha))  // C = beta C without reading A or B (which may be NULL then)
    return gemm(m, n, 0, alpha, Operand<E>{nullptr, 1, false}, b, beta, c);
  const SymmetricView<E> s{a, t};
  const std::int64_t dim = left ? m : n, panel = symmetric_panel(dim, sizeof(E));
  PanelSpace space;
  E* const ap = space.get<E>(std::size_t(std::min(dim, panel) * dim));
  for (std::int64_t p0 = 0; p0 < dim; p0 += panel) {
    const std::int64_t p1 = std::min(dim, p0 + panel), w = p1 - p0;
    int st;
    if (left) {  // C rows [p0, p1) = alpha A(p0:p1, :) B + beta C(p0:p1, :)
      pack_panel_into<E>(ap, s, p0, p1, 0, m);
      st = gemm(w, n, m, alpha, Operand<E>{ap, w, false}, b, beta, c.block(p0, 0));
    } else {  // C columns [p0, p1) = alpha B A(:, p0:p1) + beta C(:, p0:p1)
      pack_panel_into<E>(ap, s, 0, n, p0, p1);
      st = gemm(m, w, n, alpha, b, Operand<E>{ap, n, false}, beta, c.block(0, p0));
    }
    if (st != BF16X_OK) return st;
  }
  return BF16X_OK;
}

#define BF16X_LEVEL3_SYMM(E)                                                                            \
  template int symm<E>(const Gemm<E>&, bool, Triangle, std::int64_t, std::int64_t, E, const Stored<E>&, \
                       const Operand<E>&, E, const View<E>&);
BF16X_LEVEL3_SYMM(float)
BF16X_LEVEL3_SYMM(double)
BF16X_LEVEL3_SYMM(bf16x_complex_float)
BF16X_LEVEL3_SYMM(bf16x_complex_double)

}  // namespace bf16x::level3
