#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif
#include "cr/entry_rounding.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "cr/exact_sum.hpp"

namespace bf16x::cr {

template <typename T>
T round_exactly(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t i, const std::int64_t (&j)[2],
                const Terms& x, const double (&c0)[2]) {
  ExactSum acc, dot;
  for (int r = 0; r < 2; ++r) {
    if (x.w[r] == 0) continue;
    dot.clear();
    for (std::int64_t l = 0; l < x.k; ++l) dot.add_product(double(a(i, l)), double(b(l, j[r])));
    acc.add_scaled(dot, x.w[r]);
  }
  for (int q = 0; q < 2; ++q)
    if (x.beta[q] != 0) acc.add_product(x.beta[q], c0[q]);
  if constexpr (std::is_same_v<T, double>)
    return acc.to_double();
  else
    return acc.to_float();
}

template <typename T>
T round_nonfinite(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t i,
                  const std::int64_t (&j)[2], const Terms& x, const double (&c0)[2]) {
  double v = 0;
  for (int r = 0; r < 2; ++r) {
    if (x.w[r] == 0) continue;
    double s = 0;
    for (std::int64_t l = 0; l < x.k; ++l) s += double(a(i, l)) * double(b(l, j[r]));
    v += x.w[r] * s;
  }
  for (int q = 0; q < 2; ++q)
    if (x.beta[q] != 0) v += x.beta[q] * c0[q];
  return T(v);
}

#define BF16X_CR_ENTRY(T)                                                                          \
  template T round_exactly(const pack::MatrixView<T>&, const pack::MatrixView<T>&, std::int64_t,   \
                           const std::int64_t(&)[2], const Terms&, const double(&)[2]);            \
  template T round_nonfinite(const pack::MatrixView<T>&, const pack::MatrixView<T>&, std::int64_t, \
                             const std::int64_t(&)[2], const Terms&, const double(&)[2]);
BF16X_CR_ENTRY(float)
BF16X_CR_ENTRY(double)
#undef BF16X_CR_ENTRY

}  // namespace bf16x::cr
