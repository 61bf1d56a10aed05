// The element types of the level-3 layer (float, double and the interleaved complex pairs of bf16x.h) and the few
// operations it does on them outside the emulated GEMM: packing (conjugate, zero, one), the diagonal solves of TRSM
// and HER2K's folding of a complex alpha. Each is written out in one fixed order so that every engine, thread count
// and CPU gives the same bits.
#pragma once
#include <type_traits>

#include "bf16x/bf16x.h"

namespace bf16x::level3 {

template <typename E>
constexpr bool is_complex_v = std::is_same_v<E, bf16x_complex_float> || std::is_same_v<E, bf16x_complex_double>;

template <typename E>
struct Real {
  using type = E;
};
template <>
struct Real<bf16x_complex_float> {
  using type = float;
};
template <>
struct Real<bf16x_complex_double> {
  using type = double;
};
template <typename E>
using real_t = typename Real<E>::type;

template <typename E>
constexpr E zero() {
  return E{};
}
template <typename E>
constexpr E one() {
  if constexpr (is_complex_v<E>)
    return E{1, 0};
  else
    return E(1);
}
template <typename E>
constexpr E from_real(real_t<E> x) {
  if constexpr (is_complex_v<E>)
    return E{x, 0};
  else
    return x;
}
// x == v for a real v (a complex x: its imaginary part zero).
template <typename E>
bool equals_real(const E& x, double v) {
  if constexpr (is_complex_v<E>)
    return x.re == v && x.im == 0;
  else
    return x == v;
}
template <typename E>
bool is_zero(const E& x) {
  return equals_real(x, 0);
}
template <typename E>
bool is_one(const E& x) {
  return equals_real(x, 1);
}
template <typename E>
E conj(const E& x) {
  if constexpr (is_complex_v<E>)
    return E{x.re, -x.im};
  else
    return x;
}
template <typename E>
E mul(const E& x, const E& y) {
  if constexpr (is_complex_v<E>)
    return E{x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
  else
    return x * y;
}
template <typename E>
E sub(const E& x, const E& y) {
  if constexpr (is_complex_v<E>)
    return E{x.re - y.re, x.im - y.im};
  else
    return x - y;
}
// Real products held in registers as they are: GCC 12's SLP vectorizer forms FMADDSUB / FMSUBADD from a complex
// product's or quotient's pattern whatever -ffp-contract says (it did so in Smith's division, which then rounded
// differently on the AVX2 and AVX-512 builds than on the generic one), and cannot see through this.
template <typename R>
inline void keep_rounded(R& a) {
  asm("" : "+x"(a));
}

// x y as mul() forms it, each real product rounded apart (for loops that are not vectorised anyway).
template <typename E>
E mul_apart(const E& x, const E& y) {
  if constexpr (is_complex_v<E>) {
    auto rr = x.re * y.re, ii = x.im * y.im, ri = x.re * y.im, ir = x.im * y.re;
    keep_rounded(rr), keep_rounded(ii), keep_rounded(ri), keep_rounded(ir);
    return E{rr - ii, ri + ir};
  } else {
    return x * y;
  }
}

// x / y; complex by Smith's algorithm, which keeps |y|^2 from overflowing or underflowing.
template <typename E>
E div(const E& x, const E& y) {
  if constexpr (is_complex_v<E>) {
    using R = real_t<E>;
    if ((y.re < 0 ? -y.re : y.re) >= (y.im < 0 ? -y.im : y.im)) {
      const R r = y.im / y.re;
      R yr = y.im * r, a = x.im * r, b = x.re * r;
      keep_rounded(yr), keep_rounded(a), keep_rounded(b);
      const R d = y.re + yr;
      return E{(x.re + a) / d, (x.im - b) / d};
    }
    const R r = y.re / y.im;
    R yr = y.re * r, a = x.re * r, b = x.im * r;
    keep_rounded(yr), keep_rounded(a), keep_rounded(b);
    const R d = y.im + yr;
    return E{(a + x.im) / d, (b - x.re) / d};
  } else {
    return x / y;
  }
}
template <typename E>
bool is_real(const E& x) {
  if constexpr (is_complex_v<E>)
    return x.im == 0;
  else
    return true;
}
// The real part as an element (HERK/HER2K's diagonal, HEMM's diagonal of A).
template <typename E>
E real_part(const E& x) {
  if constexpr (is_complex_v<E>)
    return E{x.re, 0};
  else
    return x;
}

}  // namespace bf16x::level3
