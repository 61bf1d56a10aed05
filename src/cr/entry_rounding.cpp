#include "cr/entry_rounding.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "cr/exact_sum.hpp"

namespace bf16x::cr {
namespace {

// acc + the first `count` beta_q c_q, rounded once to T.
template <typename T>
T with_c_terms(ExactSum& acc, const Terms& x, const double (&c0)[2], int count) {
  for (int q = 0; q < count; ++q)
    if (x.beta[q] != 0) acc.add_product(x.beta[q], c0[q]);
  return acc.to<T>();
}

}  // namespace

template <typename T>
T round_exactly(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t i, const std::int64_t (&j)[2],
                const Terms& x, const double (&c0)[2]) {
  ExactSum acc, dot;
  for (int r = 0; r < 2; ++r) {
    if (x.w[r] == 0) continue;
    dot.clear();
    // row i of op(A) and column j of op(B) as strided lines
    const T* pa = a.trans ? a.data + i * a.ld : a.data + i;
    const T* pb = b.trans ? b.data + j[r] : b.data + j[r] * b.ld;
    dot.add_dot(pa, a.trans ? 1 : a.ld, pb, b.trans ? b.ld : 1, x.k, 0);
    acc.add_scaled(dot, x.w[r]);
  }
  return with_c_terms<T>(acc, x, c0, 2);
}

template <typename T>
T round_exactly_packed(PackedLine a, PackedLine b, int scale, const Terms& x, const double (&c0)[2]) {
  ExactSum acc, dot;
  dot.add_dot(a.p, a.stride, b.p, b.stride, x.k, scale);
  acc.add_scaled(dot, x.w[0]);
  return with_c_terms<T>(acc, x, c0, 1);
}

template <typename T>
T round_c_terms(const Terms& x, const double (&c0)[2]) {
  if (x.beta[1] == 0 || c0[1] == 0) {  // one product, rounded once by the multiplication itself
    const double v = x.beta[0] == 0 ? 0.0 : T(x.beta[0]) * T(c0[0]);
    return v == 0 ? T(0) : T(v);
  }
  ExactSum acc;
  return with_c_terms<T>(acc, x, c0, 2);
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
  template T round_c_terms(const Terms&, const double(&)[2]);                                      \
  template T round_exactly_packed(PackedLine, PackedLine, int, const Terms&, const double(&)[2]);  \
  template T round_nonfinite(const pack::MatrixView<T>&, const pack::MatrixView<T>&, std::int64_t, \
                             const std::int64_t(&)[2], const Terms&, const double(&)[2]);
BF16X_CR_ENTRY(float)
BF16X_CR_ENTRY(double)
#undef BF16X_CR_ENTRY

}  // namespace bf16x::cr
