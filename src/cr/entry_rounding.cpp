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

// acc += w 2^shift sum_l a[l sa] b[l sb]: straight into acc where w is a signed power of two (alpha = -1 or 1, as in
// LAPACK's updates, whose cancelling entries are most of those that come here), else through the dot product's own
// exact sum, multiplied by w.
template <typename T>
void add_weighted_dot(ExactSum& acc, double w, const T* a, std::int64_t sa, const T* b, std::int64_t sb, std::int64_t k,
                      int shift) {
  if (w == 0) return;
  int e;
  const double f = std::frexp(w, &e);  // w = f 2^e, |f| in [1/2, 1) (subnormal w included)
  if (std::fabs(f) == 0.5) {
    acc.add_dot(a, sa, b, sb, k, shift + e - 1, f < 0);
    return;
  }
  ExactSum dot;
  dot.add_dot(a, sa, b, sb, k, shift);
  acc.add_scaled(dot, w);
}

}  // namespace

template <typename T>
T round_exactly(const pack::MatrixView<T>& a, const pack::MatrixView<T>& b, std::int64_t i, const std::int64_t (&j)[2],
                const Terms& x, const double (&c0)[2]) {
  ExactSum acc;
  for (int r = 0; r < 2; ++r) {
    // row i of op(A) and column j of op(B) as strided lines
    const T* pa = a.trans ? a.data + i * a.ld : a.data + i;
    const T* pb = b.trans ? b.data + j[r] : b.data + j[r] * b.ld;
    add_weighted_dot(acc, x.w[r], pa, a.trans ? 1 : a.ld, pb, b.trans ? b.ld : 1, x.k, 0);
  }
  return with_c_terms<T>(acc, x, c0, 2);
}

template <typename T>
T round_exactly_packed(PackedLine a, PackedLine b, int scale, const Terms& x, const double (&c0)[2],
                       const Extraction<T>& ex) {
  double parts[kMaxParts];
  const int count = x.w[0] != 0 ? ex.extract(a.p, a.stride, b.p, b.stride, x.k, ex.room, parts) : -1;
  return round_extracted<T>(parts, count, a, b, scale, x, c0, ex.round);
}

template <typename T>
T round_extracted(const double* parts, int count, PackedLine a, PackedLine b, int scale, const Terms& x,
                  const double (&c0)[2], RoundParts<T> round) {
  if (count >= 0) {
    T out;
    if (round(parts, count, scale, x, c0, 0.0, out)) return out;
  }
  ExactSum acc;
  if (count >= 0) {
    for (int q = 0; q < count; ++q) acc.add_product(parts[q], x.w[0], scale);  // each exact: w 2^scale tau
  } else {
    add_weighted_dot(acc, x.w[0], a.p, a.stride, b.p, b.stride, x.k, scale);
  }
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

#define BF16X_CR_ENTRY(T)                                                                                       \
  template T round_exactly(const pack::MatrixView<T>&, const pack::MatrixView<T>&, std::int64_t,                \
                           const std::int64_t(&)[2], const Terms&, const double(&)[2]);                         \
  template T round_c_terms(const Terms&, const double(&)[2]);                                                   \
  template T round_exactly_packed(PackedLine, PackedLine, int, const Terms&, const double(&)[2],                \
                                  const Extraction<T>&);                                                        \
  template T round_extracted(const double*, int, PackedLine, PackedLine, int, const Terms&, const double(&)[2], \
                             RoundParts<T>);                                                                    \
  template T round_nonfinite(const pack::MatrixView<T>&, const pack::MatrixView<T>&, std::int64_t,              \
                             const std::int64_t(&)[2], const Terms&, const double(&)[2]);
BF16X_CR_ENTRY(float)
BF16X_CR_ENTRY(double)
#undef BF16X_CR_ENTRY

}  // namespace bf16x::cr
