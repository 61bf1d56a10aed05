// Panels of a stored triangular or symmetric matrix, packed column-major for the GEMMs of TRMM, TRSM, SYMM and HEMM:
// the unstored triangle is never read (zero, the mirror, or the diagonal's ones stand in for it).
#pragma once
#include <cstdint>

#include "level3/buffer.hpp"
#include "level3/operation.hpp"
#include "util/team.hpp"

namespace bf16x::level3 {

// U = op(A) or op(A)^T of a triangular A: element (i, j) of U is A(j, i) where transposed, conjugated where conj;
// zero outside A's stored triangle, one on a unit diagonal.
template <typename E>
struct TriangularView {
  Stored<E> a;
  Triangle t;
  bool transposed, conj_;

  bool lower() const { return t.lower != transposed; }  // U's nonzero triangle
  E at(std::int64_t i, std::int64_t j) const {
    const std::int64_t r = transposed ? j : i, c = transposed ? i : j;
    if (r == c && t.unit) return one<E>();
    if (t.lower ? r < c : r > c) return zero<E>();
    const E v = a.at(r, c);
    return conj_ ? conj(v) : v;
  }
};

// The full matrix of a symmetric (or, t.hermitian, Hermitian: mirror conjugated, diagonal real) A from its stored
// triangle.
template <typename E>
struct SymmetricView {
  Stored<E> a;
  Triangle t;

  E at(std::int64_t i, std::int64_t j) const {
    if (i == j) return t.hermitian ? real_part(a.at(i, i)) : a.at(i, i);
    if (t.lower == (i > j)) return a.at(i, j);
    const E v = a.at(j, i);
    return t.hermitian ? conj(v) : v;
  }
};

// Rows [r0, r1) and columns [c0, c1) of the view, column-major with leading dimension r1 - r0.
template <typename E, typename View>
Buffer<E> pack_panel(const View& v, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
  const std::int64_t rows = r1 - r0;
  Buffer<E> p = make_buffer<E>(std::size_t(rows * (c1 - c0)));
  util::for_each_index(c1 - c0, rows * (c1 - c0), [&](std::int64_t q) {
    for (std::int64_t i = r0; i < r1; ++i) p[std::size_t(i - r0 + q * rows)] = v.at(i, c0 + q);
  });
  return p;
}

}  // namespace bf16x::level3
